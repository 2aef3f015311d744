"""`pnetviz binary` on another group's ntuple with --column / --columns (issue 36 item 1)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import write_ntuple
from pnetviz.cli import binary
from pnetviz.cli.common import EXIT_USER_ERROR, run

N = 600
PAIRS = {"true_label": "isSignal ? 0 : 1", "score_signal": "bdt_score", "weight": "evt_weight",
         "train_mask": "event % 5 < 3", "test_mask": "event % 5 == 3"}  # fmt: skip


def other_group(seed: int = 5) -> dict[str, np.ndarray]:
    """Another group's ntuple: a sample flag, a BDT score, its weight, its own masks, an event counter."""
    rng = np.random.default_rng(seed)
    sig = rng.random(N) < 0.4
    event = np.arange(N, dtype=np.uint64) * 7 + 11
    return {"isSignal": sig, "bdt_score": np.clip(rng.normal(np.where(sig, 0.65, 0.4), 0.18), 0, 1).astype(np.float32),
            "evt_weight": rng.uniform(0.2, 1.5, N), "is_train": (event % 5) < 3, "is_test": (event % 5) == 3,
            "event": event}  # fmt: skip


def evaluate(path, out, *extra: str) -> int:
    return run(binary.main, ["--predictions", str(path), "--output", str(out), "--formats", "none", "--bootstrap", "20",
                             "-q", "--channel", "Run3Mu", "--signal", "MHc130_MA90", *extra])  # fmt: skip


def report(out) -> dict:
    doc = json.loads((out / "summary_report.json").read_text())
    doc.pop("input")  # the ntuple's path
    return doc


@pytest.mark.slow
def test_mapped_ntuple_gives_sklearn_auc_and_the_contract_files_report(tmp_path):
    cols = other_group()
    other = write_ntuple(tmp_path / "other.root", cols, "tree")
    mapping = tmp_path / "columns.json"
    mapping.write_text(json.dumps({k: v for k, v in PAIRS.items() if k != "test_mask"}))
    assert evaluate(other, tmp_path / "mapped", "--tree", "tree", "--columns", str(mapping),
                    "--column", f"test_mask={PAIRS['test_mask']}") == 0  # fmt: skip
    test = cols["event"] % 5 == 3
    auc = roc_auc_score(cols["isSignal"][test], cols["bdt_score"][test], sample_weight=cols["evt_weight"][test])
    mapped = report(tmp_path / "mapped")
    assert mapped["auc"]["test"] == np.float64(auc).item() or abs(mapped["auc"]["test"] - auc) < 1e-12

    contract = {"true_label": np.where(cols["isSignal"], 0, 1).astype(np.int32), "score_signal": cols["bdt_score"],
                "weight": cols["evt_weight"], "train_mask": cols["event"] % 5 < 3, "test_mask": test}  # fmt: skip
    plain = write_ntuple(tmp_path / "contract.root", contract)
    assert evaluate(plain, tmp_path / "plain") == 0
    assert report(tmp_path / "plain") == mapped
    assert (tmp_path / "plain" / "summary_report.txt").read_text().replace(str(plain), "") == \
        (tmp_path / "mapped" / "summary_report.txt").read_text().replace(str(other), "")  # fmt: skip


def test_missing_mapped_branch_is_one_line_exit_2(tmp_path, capfd):
    other = write_ntuple(tmp_path / "other.root", other_group(), "tree")
    argv = [a for k, v in {**PAIRS, "weight": "evt_wgt"}.items() for a in ("--column", f"{k}={v}")]
    assert evaluate(other, tmp_path / "out", "--tree", "tree", *argv) == EXIT_USER_ERROR
    err = capfd.readouterr().err.strip()
    assert err.count("\n") == 0 and "--column weight=evt_wgt: branch 'evt_wgt' is missing" in err
    assert not (tmp_path / "out").exists()


def test_invalid_expression_is_one_line_exit_2(tmp_path, capfd):
    other = write_ntuple(tmp_path / "other.root", other_group(), "tree")
    argv = [a for k, v in {**PAIRS, "test_mask": "event %% 5 = = 3"}.items() for a in ("--column", f"{k}={v}")]
    assert evaluate(other, tmp_path / "out", "--tree", "tree", *argv) == EXIT_USER_ERROR
    err = capfd.readouterr().err.strip()
    # refused by the expression grammar before anything is compiled (issue 49)
    assert err.count("\n") == 0 and "at position 8 of the expression, '%'" in err and "input_line" not in err


def test_binary_never_advises_classes(tmp_path, capfd):
    other = write_ntuple(tmp_path / "other.root", other_group(), "tree")
    assert evaluate(other, tmp_path / "out", "--tree", "tree") == EXIT_USER_ERROR
    err = capfd.readouterr().err
    assert "branch 'true_label' is missing" in err and "--column" in err and "--classes" not in err


def test_campaign_passes_every_column_pair_and_the_file_on(tmp_path, monkeypatch):
    import argparse

    from pnetviz.cli import campaign, common

    mapping = tmp_path / "columns.json"
    mapping.write_text(json.dumps({"weight": "evt_weight"}))
    monkeypatch.chdir(tmp_path)
    args = campaign.parse_args(["--results-dir", str(tmp_path), "--columns", "columns.json",
                                "--column", "true_label=isSignal ? 0 : 1", "--column", "test_mask=event % 5 == 3"], None)  # fmt: skip
    campaign.options(args)
    from pnetviz.cli import compare, multiclass  # noqa: PLC0415

    for kind, sub in (("binary", binary), ("multiclass", multiclass), ("compare", compare)):
        argv = common.passthrough(args, kind)
        parsed = argparse.Namespace(**vars(sub.parser().parse_args(argv)))  # each subcommand's own parser
        assert parsed.column == ["true_label=isSignal ? 0 : 1", "test_mask=event % 5 == 3"]
        assert parsed.columns == str(mapping.resolve())
