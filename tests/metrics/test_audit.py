"""The physics audit's findings P1-P6 (issue "ROOT files that read well..."): each has a case
the previous code got wrong."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import contract_columns, gaussian_toy, load_script, write_ntuple
from pnetviz.metrics import hep, pairmetrics
from pnetviz.cli.common import run
from pnetviz.errors import PnetvizWarning
from pnetviz.metrics.evaluate import BinarySample, evaluate_split
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.io.ntuple import read_predictions
from pnetviz.metrics.roc import binary_clf_curve


def test_p1_signed_weights_rejection_at_the_first_crossing():
    # points (fpr, tpr): (0,0) (0,.6) (0,.3) (.5,.3) (.5,.7) (1,.7) (1,1): eps_s = 0.5 is first reached
    # between (0,0) and (0,.6), at eps_b = 0; a binary search on the unsorted TPR found 0.5
    scores = np.arange(6, 0, -1.0)
    curve = binary_clf_curve(scores, np.array([1, 1, 0, 1, 0, 1], bool), np.array([0.6, -0.3, 0.5, 0.4, 0.5, 0.3]))
    np.testing.assert_allclose(curve.tpr, [0, 0.6, 0.3, 0.3, 0.7, 0.7, 1.0])
    assert hep.background_efficiency_at(curve, 0.5) == 0.0 and hep.rejection_at(curve, 0.5) == math.inf
    assert hep.background_efficiency_at(curve, 0.65) == pytest.approx(0.5)


def test_p1_partial_auc_along_the_sweep_with_a_non_monotone_fpr():
    scores = np.arange(7, 0, -1.0)
    curve = binary_clf_curve(scores, ~np.array([1, 0, 1, 0, 1, 0, 1], bool), np.array([0.6, 0.25, -0.3, 0.25, 0.7, 0.25, 0.25]))
    np.testing.assert_allclose(curve.fpr, [0, 0.48, 0.48, 0.24, 0.24, 0.8, 0.8, 1.0])
    # along the sweep: 0 -> .48 at tpr 1/3, back to .24, up at tpr 2/3 to the crossing at .5 (hand-worked)
    assert hep.partial_auc(curve, 0.5)["raw"] == pytest.approx(-0.24 / 3 + 0.26 * 2 / 3, abs=1e-12)


def test_p2_yields_are_the_full_samples_whatever_the_split():
    s, y, w = gaussian_toy(4000, 0.3, 1.5, seed=4)
    # the same events as a 10% train split (weights / 9) and a 90% test split
    train = evaluate_split(BinarySample(s, y, w / 9, w / 9), "train", ("s", "b"))
    test = evaluate_split(BinarySample(s, y, w, w), "test", ("s", "b"))
    full = (float(w[y].sum() * 10 / 9), float(w[~y].sum() * 10 / 9))
    m = pairmetrics.pair_metrics({"train": train, "test": test}, HepOptions(bootstrap=0), full)
    for metric in ("asimov", "punzi"):
        assert m["train"][metric]["value"] == pytest.approx(m["test"][metric]["value"], rel=1e-9), metric
    unnormalised = hep.prevalence_metrics(train.curve)["asimov"]["value"]
    assert m["train"]["asimov"]["value"] == pytest.approx(unnormalised * math.sqrt(10), rel=1e-9)
    assert "full sample" in m["yield_normalisation"]


def test_p4_out_of_range_scores_are_counted_and_placed(tmp_path):
    cols = contract_columns(n=400, n_classes=2)
    cols["score_signal"] = cols["score_signal"].copy()
    cols["score_signal"][:3], cols["score_signal"][3:8] = -0.2, 1.4
    path = write_ntuple(tmp_path / "p.root", cols)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",))
    message = next(str(w.message) for w in caught if issubclass(w.category, PnetvizWarning))
    assert "3 values below 0 and 5 above 1" in message and "first and the last bin" in message


def _on_polyline(px: np.ndarray, py: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """For each point (px, py): does it lie on a segment of the polyline (sx, sy), exactly
    (inside the segment's box, zero cross product)?"""
    x0, x1, y0, y1 = sx[:-1, None], sx[1:, None], sy[:-1, None], sy[1:, None]
    inside = ((np.minimum(x0, x1) <= px) & (px <= np.maximum(x0, x1)) & (np.minimum(y0, y1) <= py)
              & (py <= np.maximum(y0, y1)))  # fmt: skip
    straight = (x1 - x0) * (py - y0) == (y1 - y0) * (px - x0)
    return (inside & straight).any(axis=0)


def test_p5_and_p6_stored_curves_operating_points_and_prevalence(tmp_path):
    from pnetviz.rootenv import root

    cols = contract_columns(n=3000, n_classes=2)
    cols["weight"] = np.abs(cols["weight"])
    path = write_ntuple(tmp_path / "p.root", cols)
    out = tmp_path / "o"
    argv = ["--predictions", str(path), "--output", str(out), "--formats", "png", "--signal-scale", "0.1",
            "--weights", "signed", "-q", "--bootstrap", "10"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    report = json.loads((out / "summary_report.json").read_text())
    preds = read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",))
    t = preds.masks["test"]
    curve = binary_clf_curve(preds.scores["signal"][t], preds.label[t] == 0, preds.weight[t])
    f = root().TFile.Open(str(out / "plots.root"))
    try:
        roc = f.Get("roc/test")
        # P5: the exact curve, not the ~2000 drawn points: its vertices, every one of its points on them
        n = roc.GetN()
        sx, sy = np.frombuffer(roc.GetX(), count=n).copy(), np.frombuffer(roc.GetY(), count=n).copy()
        assert "exact curve" in roc.GetTitle() and 2 <= n < curve.fpr.size
        assert (sx[0], sy[0], sx[-1], sy[-1]) == (curve.fpr[0], curve.tpr[0], curve.fpr[-1], curve.tpr[-1])
        assert _on_polyline(curve.fpr, curve.tpr, sx, sy).all()
        assert f.Get("pr/test_analysis_prevalence")  # P6: PR at the analysis prevalence
    finally:
        f.Close()
    points = report["hep_metrics"]["test"]["operating_points"]
    y, s, w = preds.label[t] == 0, preds.scores["signal"][t], preds.weight[t]
    sel = s >= 0.5
    tp, fp = 0.1 * w[y & sel].sum(), w[~y & sel].sum()
    assert points["threshold_0.5"]["recall"] == pytest.approx(w[y & sel].sum() / w[y].sum(), rel=1e-12)
    assert points["threshold_0.5"]["precision"] == pytest.approx(tp / (tp + fp), rel=1e-12)
    assert set(points) == {"threshold_0.5", "fip1", "iso_accuracy"}
    assert "|w|" in report["hep_metrics"]["overtraining"]["ks_weights"]  # P6: KS with signed weights says |w|


def test_p6_one_vs_rest_aucs(tmp_path):
    path = write_ntuple(tmp_path / "m.root", contract_columns(n=1200))
    out = tmp_path / "o"
    assert run(load_script("visualizeMultiClass").main, ["--predictions", str(path), "--output", str(out), "--formats",
                                                         "png", "--bootstrap", "0", "-q"]) == 0  # fmt: skip
    report = json.loads((out / "summary_report.json").read_text())
    preds = read_predictions(path)
    for k, c in enumerate(preds.classes):
        m = preds.masks["test"]
        expected = roc_auc_score(preds.label[m] == k, preds.scores[c][m], sample_weight=np.abs(preds.weight[m]))
        assert report["one_vs_rest_auc"][report["classes"][k] if k else report["signal"]]["test"] == pytest.approx(expected, abs=1e-12)
