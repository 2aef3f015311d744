"""`pnetviz diff A B` (issue 35, item 3) on demo rounds: `pnetviz demo --seed 1`, `--seed 2` (with one
more signal point: unmatched models) and round 1 with one model's signal scores shifted (a known
improvement). The shifted model is significant after Holm's adjustment, the others are not; every
number equals a recomputation from the rounds' campaign reports; the LaTeX table compiles."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from conftest import compile_latex, load_script
from pnetviz.cli.common import run
from pnetviz.cli.commands import run_command
from pnetviz.rootenv import root

CHANNEL, SIGNAL, OTHER = "Run3Mu", "MHc130_MA90", "MHc160_MA85"
SHIFTED = "nonprompt"  # the binary model whose signal scores are shifted
CAMPAIGN = ["--workers", "0", "--kinds", "binary", "--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"]


def demo(results: Path, seed: int, signals: str) -> None:
    argv = ["--output", str(results), "--seed", str(seed), "--signals", signals, "--channels", CHANNEL, "--folds", "5",
            "--events", "2000", "--no-ga"]  # fmt: skip
    assert run_command("demo", argv) == 0


def campaign(results: Path, plots: Path) -> Path:
    assert run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots), *CAMPAIGN]) == 0
    return plots


def shift_signal_scores(ntuple: Path, delta: float) -> None:
    """score_signal - delta (at least 0) for every fifth signal event (a retraining that loses a
    fifth of the signal: AUC about 20% lower in every fold), score_bg1 = 1 - score_signal."""
    ROOT = root()
    tmp = ntuple.with_name(ntuple.name + ".tmp.root")
    df = ROOT.RDataFrame("Events", str(ntuple))
    shifted = f"std::max(0.f, score_signal - {delta}f)"
    df = df.Redefine("score_signal", f"true_label == 0 && rdfentry_ % 5 == 0 ? {shifted} : score_signal")
    df.Redefine("score_bg1", "1.f - score_signal").Snapshot("Events", str(tmp))
    os.replace(tmp, ntuple)


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> dict[str, Path]:
    top = tmp_path_factory.mktemp("diff")
    demo(top / "s1" / "results", 1, SIGNAL)
    demo(top / "s2" / "results", 2, f"{SIGNAL},{OTHER}")
    shutil.copytree(top / "s1" / "results", top / "shifted" / "results")
    for ntuple in (top / "shifted" / "results" / CHANNEL / "binary").glob(f"*{SIGNAL}/fold-*/trees/*-binary-{SHIFTED}.root"):
        shift_signal_scores(ntuple, 1.0)
    return {name: campaign(top / name / "results", top / name / "plots") for name in ("s1", "s2", "shifted")}


def diff(a: Path, b: Path, out: Path, *extra: str) -> dict:
    assert run_command("diff", [str(a), str(b), "--output", str(out), "-q", *extra]) == 0
    return json.loads((out / "diff.json").read_text())


def fold_rows(plots: Path) -> dict[tuple, dict[int, dict]]:
    rows = json.loads((plots / "campaign" / "campaign_summary.json").read_text())["rows"]
    out: dict[tuple, dict[int, dict]] = {}
    for r in rows:
        out.setdefault((r["signal"], r["pair"]), {})[r["fold"]] = r
    return out


def recompute(a: Path, b: Path) -> dict[tuple, dict]:
    """delta AUC, its corrected error, p, Holm's p and the rejections, from the reports' rows."""
    ra, rb = fold_rows(a), fold_rows(b)
    out = {}
    for key in sorted(set(ra) & set(rb)):
        folds = sorted(set(ra[key]) & set(rb[key]))
        d = np.array([rb[key][f]["auc_test"] - ra[key][f]["auc_test"] for f in folds])
        ratios = [sum(r[f"events_test_{c}"] for c in ("signal", "background"))
                  / sum(r[f"events_train_{c}"] for c in ("signal", "background"))
                  for f in folds for r in (ra[key][f], rb[key][f])]  # fmt: skip
        se = d.std(ddof=1) * math.sqrt(1 / len(d) + np.mean(ratios))
        p = 1.0 if np.all(d == 0) else 2 * stats.t.sf(abs(d.mean() / se), len(d) - 1)
        rej = [1 / np.mean([side[key][f]["eps_b_0.5"] for f in folds]) for side in (ra, rb)]
        out[key] = {"delta_auc": d.mean(), "delta_auc_standard_error": se if p < 1 else 0.0, "p_value": p,
                    "rejection_a_0.5": rej[0], "rejection_b_0.5": rej[1], "rejection_ratio_0.5": rej[1] / rej[0]}  # fmt: skip
    order = sorted(out, key=lambda k: out[k]["p_value"])  # Holm: step-down over the family
    running = 0.0
    for i, key in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * out[key]["p_value"]))
        out[key]["p_holm"] = running
    return out


def check_numbers(result: dict, expected: dict[tuple, dict]) -> None:
    got = {(m["signal"], m["pair"]): m for m in result["models"]}
    assert set(got) == set(expected)
    for key, values in expected.items():
        for name, value in values.items():
            assert got[key][name] == pytest.approx(value, rel=1e-9, abs=1e-12), (key, name)


def test_the_shifted_model_is_significant_and_the_others_are_not(rounds, tmp_path):
    result = diff(rounds["s1"], rounds["shifted"], tmp_path / "d")
    significant = {m["pair"] for m in result["models"] if m["significant"]}
    assert significant == {SHIFTED}
    shifted = next(m for m in result["models"] if m["pair"] == SHIFTED)
    assert -0.25 < shifted["delta_auc"] < -0.1 and shifted["p_holm"] < 0.05
    assert all(m["p_holm"] == 1.0 and m["delta_auc"] == 0.0 for m in result["models"] if m["pair"] != SHIFTED)
    check_numbers(result, recompute(rounds["s1"], rounds["shifted"]))
    assert result["unmatched"] == []


def test_two_seeds_differ_by_chance_only_and_unmatched_models_are_listed(rounds, tmp_path):
    out = tmp_path / "d"
    result = diff(rounds["s1"], rounds["s2"], out)
    check_numbers(result, recompute(rounds["s1"], rounds["s2"]))
    assert not any(m["significant"] for m in result["models"])
    assert len(result["models"]) == 3
    unmatched = result["unmatched"]
    assert {(u["round"], u["signal"], u["pair"]) for u in unmatched} == {("B", OTHER, p) for p in ("diboson", "nonprompt", "ttZ")}
    with open(out / "diff_unmatched.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 3
    with open(out / "diff_models.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["delta_auc"]) for r in rows] == pytest.approx([m["delta_auc"] for m in result["models"]])


def test_the_latex_table_compiles_at_16_cm(rounds, tmp_path):
    out = tmp_path / "d"
    diff(rounds["s1"], rounds["shifted"], out)
    tex = (out / "diff_models.tex").read_text()
    assert "$^{*}$" in tex and tex.count("\\\\") >= 4
    compile_latex(tex, tmp_path)


def test_a_renamed_variant_is_matched_with_rename(rounds, tmp_path):
    result = diff(rounds["s1"], rounds["shifted"], tmp_path / "d", "--rename", "nNodes128=nNodes128")
    assert len(result["models"]) == 3


def test_a_directory_without_a_campaign_summary_is_one_line(tmp_path, capsys):
    assert run_command("diff", [str(tmp_path), str(tmp_path), "--output", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no campaign summary" in err[0] and "Fix:" in err[0]
    assert not (tmp_path / "d").exists()
