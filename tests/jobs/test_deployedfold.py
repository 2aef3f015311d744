"""--deployed-fold K (issue 51, item 4): fold K's model on the events it was trained on against its
test split. Toys with known distributions: train and test drawn alike (no bias found) and the
train split's scores deliberately overfit (signal pushed up, background down: the bias found); the
numbers against scikit-learn's weighted AUC, scipy's two-sample KS and ROOT's TH1::Chi2Test("WW").
Then `pnetviz binary --fold all --deployed-fold 2` on a demo round, as is and with fold 2's train
split overfit by hand with ROOT."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from conftest import write_ntuple
from pnetviz.cli.commands import run_command
from pnetviz.jobs.deployedfold import chi2_shapes, equal_population_edges, section
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.rootenv import root


@dataclass
class Job:  # the fields of driver.FoldJob that the section reads (a binary model: no classes)
    predictions: Path
    fold: int = 3
    model: str = "toy"
    tree: str = "Events"
    columns: tuple = ()
    hep: HepOptions = HepOptions()


def toy(path: Path, overfit: float, seed: int, unit_weights: bool = False) -> dict[str, np.ndarray]:
    """3000 training and 1000 test events, half signal (score ~ Beta(4, 2)), half background (Beta(2,
    4)); the training split's signal scores moved up by `overfit` and its background's down (clipped
    to [0, 1]). Weights 0.5-1.5 (a tenth of them negative: |w| is the default), or all 1."""
    rng = np.random.default_rng(seed)
    n = 4000
    label = (np.arange(n) % 2).astype(np.int32)  # 0 = signal
    score = np.where(label == 0, rng.beta(4, 2, n), rng.beta(2, 4, n))
    train = np.arange(n) < 3000
    score = np.clip(score + overfit * train * np.where(label == 0, 1.0, -1.0), 0.0, 1.0)
    weight = np.ones(n) if unit_weights else rng.uniform(0.5, 1.5, n) * np.where(rng.random(n) < 0.1, -1, 1)
    columns = {"score_signal": score.astype(np.float32), "true_label": label, "weight": weight.astype(np.float32),
               "train_mask": train, "test_mask": ~train}  # fmt: skip
    write_ntuple(path, columns)
    return {k: np.asarray(v) for k, v in columns.items()}


def root_chi2(a, wa, b, wb, edges) -> tuple[float, float]:
    """ROOT's weighted-weighted chi2 test of two histograms: (chi2, p)."""
    ROOT = root()
    h = []
    for name, x, w in (("a", a, wa), ("b", b, wb)):
        hist = ROOT.TH1D(f"deployed_{name}", "", len(edges) - 1, np.asarray(edges, dtype=np.float64))
        hist.Sumw2()
        hist.FillN(len(x), np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64))
        h.append(hist)
    chi2 = h[0].Chi2Test(h[1], "WW CHI2")
    return chi2, h[0].Chi2Test(h[1], "WW")  # the histograms are Python's, freed with `h`


@pytest.mark.parametrize(("overfit", "found"), [(0.0, False), (0.08, True)])
def test_the_bias_is_found_where_the_training_split_is_overfit_and_not_where_it_is_not(tmp_path, overfit, found):
    cols = toy(tmp_path / "t.root", overfit, seed=7)
    out = section(Job(tmp_path / "t.root"))
    assert out["bias_found"] is found and out["fold"] == 3
    w = np.abs(cols["weight"].astype(float))
    sig = cols["true_label"] == 0
    auc = {}
    for split, mask in (("train", cols["train_mask"]), ("test", cols["test_mask"])):
        auc[split] = roc_auc_score(sig[mask], cols["score_signal"][mask], sample_weight=w[mask])
        assert out["splits"][split]["auc"] == pytest.approx(auc[split], abs=1e-12)
        assert out["splits"][split]["events"] == int(mask.sum())
    assert out["auc_difference"] == pytest.approx(auc["train"] - auc["test"], abs=1e-12)
    if found:
        assert out["auc_difference"] > 3 * out["auc_difference_error"]
        assert out["shape_p_holm_min"] < 1e-6
    else:
        assert abs(out["auc_difference"]) < 2 * out["auc_difference_error"] and out["shape_p_holm_min"] > 0.05
    for name, cls in (("signal", sig), ("background", ~sig)):
        t = out["templates"][name]
        a, b = cls & cols["train_mask"], cls & cols["test_mask"]
        x, y = cols["score_signal"].astype(float), w
        chi2, p = root_chi2(x[a], y[a], x[b], y[b], t["edges"])
        assert t["chi2"]["chi2"] == pytest.approx(chi2, rel=1e-9) and t["chi2"]["p_value"] == pytest.approx(p, rel=1e-6, abs=1e-300)
        assert t["chi2"]["ndf"] == len(t["edges"]) - 2


def test_unit_weights_give_scipy_s_two_sample_ks(tmp_path):
    cols = toy(tmp_path / "t.root", 0.03, seed=11, unit_weights=True)
    out = section(Job(tmp_path / "t.root"))
    x, sig = cols["score_signal"], cols["true_label"] == 0
    for name, cls in (("signal", sig), ("background", ~sig)):
        a, b = x[cls & cols["train_mask"]], x[cls & cols["test_mask"]]
        ks = stats.ks_2samp(a, b)
        en = a.size * b.size / (a.size + b.size)
        assert out["templates"][name]["ks"]["statistic"] == pytest.approx(ks.statistic, abs=1e-12)
        assert out["templates"][name]["ks"]["p_value"] == pytest.approx(stats.kstwobign.sf(ks.statistic * np.sqrt(en)), rel=1e-6)


def test_chi2_shapes_by_hand_and_the_edges():
    # two bins: a = (w 1+1 | 2), b = (1 | 1+1+1): W_a = 4, W_b = 4; bin 1: (4*1 - 4*2)^2/(16*1 + 16*2) = 1/3,
    # bin 2: (4*3 - 4*2)^2/(16*3 + 16*4) = 1/7
    a, wa = np.array([0.1, 0.2, 0.7]), np.array([1.0, 1.0, 2.0])
    b, wb = np.array([0.3, 0.6, 0.8, 0.9]), np.ones(4)
    out = chi2_shapes(a, wa, b, wb, np.array([0.0, 0.5, 1.0]))
    assert out["chi2"] == pytest.approx(1 / 3 + 1 / 7, rel=1e-14) and out["ndf"] == 1
    assert out["p_value"] == pytest.approx(stats.chi2.sf(1 / 3 + 1 / 7, 1), rel=1e-12)
    edges = equal_population_edges(np.arange(100.0), 4)
    assert edges[1:-1].tolist() == [24.75, 49.5, 74.25] and edges[0] < 0 < edges[1] and edges[-1] > 99
    assert equal_population_edges(np.full(5, 0.5)).tolist() == pytest.approx([0.0, 1.0])


def overfit_train_split(ntuple: Path, delta: float) -> None:
    """In the training split only: signal scores + delta, background - delta (within [0, 1])."""
    tmp = ntuple.with_name(ntuple.name + ".tmp.root")
    df = root().RDataFrame("Events", str(ntuple))
    moved = f"train_mask ? std::clamp(score_signal + (true_label == 0 ? {delta}f : -{delta}f), 0.f, 1.f) : score_signal"
    df.Redefine("score_signal", moved).Redefine("score_bg1", "1.f - score_signal").Snapshot("Events", str(tmp))
    os.replace(tmp, ntuple)


@pytest.mark.slow
def test_pnetviz_binary_reports_the_deployed_fold_in_the_fold_summary(tmp_path, capsys):
    results = tmp_path / "results"
    assert run_command("demo", ["--output", str(results), "--events", "300", "--signals", "MHc130_MA90", "--channels",
                                "Run3Mu", "--no-ga"]) == 0  # fmt: skip
    model = ["--results-dir", str(results), "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--background", "ttZ",
             "--formats", "none", "--bootstrap", "0"]  # fmt: skip
    argv = [*model, "--fold", "all", "--deployed-fold", "2"]
    reports = {}
    for name in ("as is", "overfit"):
        if name == "overfit":
            (ntuple,) = (results / "Run3Mu" / "binary").glob("*MHc130_MA90/fold-2/trees/*-binary-ttZ.root")
            overfit_train_split(ntuple, 0.3)
        plots = tmp_path / name.replace(" ", "_")
        assert run_command("binary", [*argv, "--plots-dir", str(plots)]) == 0
        (folds,) = plots.glob("results/Run3Mu/binary/MHc130_MA90/*-ttZ/folds")
        reports[name] = json.loads((folds / "deployed_fold.json").read_text())
        assert json.loads((folds / "summary_report.json").read_text())["deployed_fold"] == reports[name]
        assert f"deployed fold 2: AUC train - test {reports[name]['auc_difference']:+.4f}" in capsys.readouterr().out
    assert reports["as is"]["bias_found"] is False and reports["overfit"]["bias_found"] is True
    assert reports["as is"]["splits"]["test"] == reports["overfit"]["splits"]["test"]  # the test split untouched
    assert reports["overfit"]["auc_difference"] > reports["as is"]["auc_difference"]
    # fold 3 again, alone: --deployed-fold 2 is reused from the record, fold 2 taken from its set on disk
    assert run_command("binary", [*model, "--fold", "3", "--plots-dir", str(plots)]) == 0
    assert json.loads((folds / "deployed_fold.json").read_text()) == reports["overfit"]
    assert "reusing the options recorded" in capsys.readouterr().out
    assert run_command("binary", [*model, "--fold", "0,1", "--deployed-fold", "2", "--plots-dir", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--deployed-fold 2: fold 2 of " in err[0] and "(folds: 0 1)" in err[0]
    assert not (tmp_path / "x" / "results").exists()  # nothing evaluated (the plots tree's rounds.json is written first)
