"""The out-of-fold evaluation on a small demo round (3 folds of 300 events, one signal point): every
binary and multi-class model's `folds/out_of_fold.json` pools the test events of its folds
(events = the sum of the folds' test events, AUC = scikit-learn's on the test events read from the
ntuples, each multi-class pair on its likelihood-ratio score), the pooled binning is one list of
edges chosen on the validation splits, the templates `out_of_fold/fit_binning/<process>` sum to
the pooled weights times the stated scale (relative and --expected-yields), with data_obs the
background sum; a re-run of one fold pools the stored events of the others, and a fold whose
events cannot be read is named, never silently left out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from pnetviz.cli.commands import run_command
from pnetviz.rootenv import root

pytestmark = pytest.mark.slow  # a demo round of three evaluations

SIGNAL, CHANNEL = "MHc130_MA90", "Run3Mu"
FAST = ["--bootstrap", "20", "--formats", "png", "-q"]
EXPECTED = {"signal": 8.0, "ttZ": 250.0}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("oof")
    results, plots = base / "results", base / "plots"
    assert run_command("demo", ["--output", str(results), "--signals", SIGNAL, "--channels", CHANNEL, "--folds", "3",
                                "--events", "300", "--no-ga"]) == 0  # fmt: skip
    common = ["--results-dir", str(results), "--channel", CHANNEL, "--signal", SIGNAL, "--fold", "all", *FAST]
    assert run_command("binary", [*common, "--plots-dir", str(plots), "--background", "ttZ"]) == 0
    assert run_command("multiclass", [*common, "--plots-dir", str(plots)]) == 0
    yields = ",".join(f"{k}={v}" for k, v in EXPECTED.items())
    assert run_command("binary", [*common, "--plots-dir", str(base / "expected"), "--background", "ttZ",
                                  "--expected-yields", yields]) == 0  # fmt: skip
    return plots, base / "expected"


def model_dir(plots: Path, kind: str) -> Path:
    (found,) = [p for p in plots.rglob("folds") if f"/{kind}/" in str(p) and (kind != "binary" or p.parent.name.endswith("ttZ"))]
    return found.parent


def arrays(path: str) -> dict[str, np.ndarray]:
    """The ntuple's contract columns by ROOT's RDataFrame (not pnetviz's reader)."""
    frame = root().RDataFrame("Events", path)
    names = [str(c) for c in frame.GetColumnNames() if str(c).startswith("score_")] + ["true_label", "weight", "test_mask"]
    return {k: np.asarray(v) for k, v in frame.AsNumpy(names).items()}


def pooled_oracle(model: Path, lr_of=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores, signal flags, |w| of the pooled test events, from each fold's ntuple."""
    s, y, w = [], [], []
    for fold in sorted(model.glob("fold-*")):
        report = json.loads((fold / "summary_report.json").read_text())
        a = arrays(report["input"])
        test = a["test_mask"].astype(bool)
        if lr_of is None:
            sel, score = test, a["score_signal"]
        else:
            index = report["classes"].index(lr_of)
            sel = test & np.isin(a["true_label"], [0, index])
            score = a["score_signal"] / (a["score_signal"] + a[f"score_{lr_of}"] + 1e-10)
        s.append(score[sel])
        y.append(a["true_label"][sel] == 0)
        w.append(np.abs(a["weight"][sel].astype(np.float64)))
    return np.concatenate(s), np.concatenate(y), np.concatenate(w)


def fit_templates(folds: Path, key: str) -> dict[str, tuple[float, np.ndarray]]:
    f = root().TFile.Open(str(folds / "plots.root"))
    try:
        d = f.Get(key)
        out = {}
        for k in d.GetListOfKeys():
            h = d.Get(k.GetName())
            out[k.GetName()] = (h.Integral(), np.array([h.GetBinLowEdge(i) for i in range(1, h.GetNbinsX() + 2)]))
        return out
    finally:
        f.Close()


def test_binary_model_pools_its_folds_test_events(demo):
    model = model_dir(demo[0], "binary")
    doc = json.loads((model / "folds" / "out_of_fold.json").read_text())
    (pair,) = doc["pairs"].values()
    test_events = [json.loads((f / "summary_report.json").read_text())["events"]["test"] for f in sorted(model.glob("fold-*"))]
    assert doc["folds"] == [0, 1, 2] and doc["not_pooled"] == {}
    assert pair["events"] == sum(e["signal"] + e["ttZ"] for e in test_events)
    s, y, w = pooled_oracle(model)
    assert pair["events"] == s.size
    assert pair["auc"] == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-9)
    binning = pair["binning"]
    assert binning["chosen_on"] == "valid" and len(binning["edges"]) == binning["chosen_k"] + 1
    assert all(isinstance(e, float) for e in binning["edges"])
    hists = fit_templates(model / "folds", "out_of_fold/fit_binning")
    assert set(hists) == {"signal", "ttZ", "data_obs"}
    assert hists["signal"][0] == pytest.approx(w[y].sum() * binning["template_scale"]["signal"], rel=1e-12)
    assert hists["ttZ"][0] == pytest.approx(w[~y].sum(), rel=1e-12) and binning["template_scale"]["background"] == 1.0
    assert hists["data_obs"][0] == pytest.approx(hists["ttZ"][0], rel=1e-12)
    assert hists["ttZ"][1] == pytest.approx(binning["edges"])
    for fold in model.glob("fold-*"):
        assert json.loads((fold / "binning.json").read_text())["chosen_on"] == "train"
    pooled_file = json.loads((model / "folds" / "binning.json").read_text())
    assert pooled_file["chosen_on"] == "valid" and pooled_file["by_k"][binning["chosen_k"] - 1]["edges"] == binning["edges"]
    assert pooled_file["folds"] == [0, 1, 2] and pooled_file["events"] == pair["events"]
    report = json.loads((model / "folds" / "summary_report.json").read_text())
    assert report["out_of_fold"]["pairs"][next(iter(doc["pairs"]))]["auc"] == pair["auc"]


def test_multiclass_pairs_pool_the_likelihood_ratio_score(demo):
    model = model_dir(demo[0], "multiclass")
    doc = json.loads((model / "folds" / "out_of_fold.json").read_text())
    classes = json.loads((model / "fold-0" / "summary_report.json").read_text())["classes"]
    assert {p["background"] for p in doc["pairs"].values()} == set(classes[1:])
    for name, pair in doc["pairs"].items():
        s, y, w = pooled_oracle(model, pair["background"])
        assert pair["events"] == s.size and pair["folds"] == [0, 1, 2]
        assert pair["auc"] == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-9), name
        key = f"out_of_fold/fit_binning_{pair['prefix'].rstrip('_')}"
        hists = fit_templates(model / "folds", key)
        assert hists[pair["background"]][0] == pytest.approx(w[~y].sum(), rel=1e-12)
        assert len(pair["binning"]["edges"]) == pair["binning"]["chosen_k"] + 1
        pooled_file = json.loads((model / "folds" / f"{pair['prefix']}binning.json").read_text())
        assert pooled_file["chosen_on"] == "valid" and pooled_file["chosen_k"] == pair["binning"]["chosen_k"]


def test_expected_yields_make_the_templates_sum_to_them(demo):
    model = model_dir(demo[1], "binary")
    (pair,) = json.loads((model / "folds" / "out_of_fold.json").read_text())["pairs"].values()
    s, y, w = pooled_oracle(model)
    scale = pair["binning"]["template_scale"]
    assert scale["signal"] == pytest.approx(EXPECTED["signal"] / w[y].sum(), rel=1e-12)
    hists = fit_templates(model / "folds", "out_of_fold/fit_binning")
    assert hists["signal"][0] == pytest.approx(EXPECTED["signal"], rel=1e-12)
    assert hists["ttZ"][0] == pytest.approx(EXPECTED["ttZ"], rel=1e-12)
    assert pair["yields"]["kind"] == "expected"


def test_pooled_score_distributions_are_rebinned_by_the_default_rule(demo):
    """--score-bins auto on the out-of-fold set too: the stored pooled score histograms have the
    count the rule gives for the pooled test events (numpy's 50-bin histograms of the oracle's
    scores, merged until no histogram has more than 5% gaps), not 50 bins of gaps."""
    from pnetviz.draw import plots  # noqa: PLC0415

    model = model_dir(demo[0], "binary")
    s, y, w = pooled_oracle(model)
    contents = [np.histogram(s[sel], bins=50, range=(0, 1), weights=w[sel])[0] for sel in (y, ~y)]
    expected = next((b for b in plots.SCORE_BIN_COUNTS
                     if all(plots.empty_fraction(c.reshape(b, -1).sum(axis=1)) <= plots.MAX_EMPTY_FRACTION for c in contents)), 5)
    assert plots.empty_fraction(contents[0]) > plots.MAX_EMPTY_FRACTION  # 50 bins would show gaps here
    f = root().TFile.Open(str(model / "folds" / "plots.root"))
    try:
        assert [f.Get(f"out_of_fold/scores_{p}").GetNbinsX() for p in ("signal", "background")] == [expected, expected]
    finally:
        f.Close()


def test_one_fold_rerun_pools_the_stored_folds_and_names_an_unreadable_one(demo, recwarn):  # last: it damages the demo's folds
    plots = demo[0]
    model = model_dir(plots, "binary")
    before = json.loads((model / "folds" / "out_of_fold.json").read_text())
    results = Path(json.loads((model / "fold-0" / "summary_report.json").read_text())["input"]).parents[5]
    common = ["--results-dir", str(results), "--plots-dir", str(plots), "--channel", CHANNEL, "--signal", SIGNAL,
              "--background", "ttZ", *FAST]  # fmt: skip
    assert run_command("binary", [*common, "--fold", "1"]) == 0
    after = json.loads((model / "folds" / "out_of_fold.json").read_text())
    (a,), (b,) = before["pairs"].values(), after["pairs"].values()
    assert after["folds"] == [0, 1, 2] and b["events"] == a["events"] and b["auc"] == a["auc"]
    assert b["binning"]["edges"] == a["binning"]["edges"]
    (model / "fold-2" / "out_of_fold_events.npz").write_bytes(b"not a zip file")
    assert run_command("binary", [*common, "--fold", "0"]) == 0
    damaged = json.loads((model / "folds" / "out_of_fold.json").read_text())
    assert damaged["folds"] == [0, 1] and "out_of_fold_events.npz" in damaged["not_pooled"]["2"]
    (c,) = damaged["pairs"].values()
    assert c["events"] == a["fold_events"]["0"] + a["fold_events"]["1"]
    assert any("without fold 2" in str(w.message) for w in recwarn.list)
    (model / "fold-1" / "out_of_fold_events.npz").unlink()
    recwarn.clear()
    assert run_command("binary", [*common, "--fold", "0"]) == 0
    assert not (model / "folds" / "out_of_fold.json").exists()  # the set replaced whole: no stale pooling left
    assert any("no out-of-fold evaluation" in str(w.message) and "fold 1" in str(w.message) for w in recwarn.list)
