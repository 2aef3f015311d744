"""Working points, cut scan, calibration and the pairwise AUC matrix in the binary and multi-class
output sets of a small demo: working_points.json in every set (folds/ included), thresholds and
efficiencies by numpy from the ntuple, the pairwise matrix by scikit-learn, figures written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import load_script, make_demo
from pnetviz.cli.common import run
from pnetviz.demo.toys import DemoConfig
from pnetviz.io.ntuple import read_predictions
from pnetviz.metrics.calibration import CALIBRATION_BINS

CFG = DemoConfig(events=3000, folds=2)
TARGETS = (0.6, 0.8)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo(tmp_path_factory, CFG)


@pytest.fixture(scope="module")
def sets(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("decisions")
    common = ["--results-dir", str(demo), "--fold", "all", "--formats", "png", "--bootstrap", "10", "-q",
              "--working-points", ",".join(map(str, TARGETS))]  # fmt: skip
    assert run(load_script("visualizeBinary").main, [*common, "--background", "diboson", "--output", str(out / "binary"),
                                                     "--expected-yields", "signal=20,diboson=400"]) == 0  # fmt: skip
    assert run(load_script("visualizeMultiClass").main, [*common, "--wp-from", "test", "--output", str(out / "mc")]) == 0
    return out


def hand_threshold(s: np.ndarray, w: np.ndarray, target: float) -> float:
    """The highest score value whose cut s >= t reaches the target weighted efficiency (numpy)."""
    values = np.unique(s)[::-1]
    order = np.argsort(-s, kind="stable")
    cum = np.cumsum(w[order])
    # cumulative weight of s >= v: the last index with s >= v
    selected = cum[np.searchsorted(-s[order], -values, side="right") - 1] / w.sum()
    return float(values[np.argmax(selected >= target - 1e-12)])


@pytest.mark.slow
def test_working_points_json_in_every_set(sets):
    for kind, pairs in (("binary", 1), ("mc", 3)):
        for d in ("fold-0", "fold-1", "folds"):
            doc = json.loads((sets / kind / d / "working_points.json").read_text())
            assert doc["format"] == 1 and len(doc["pairs"]) == pairs, (kind, d)
    folds = json.loads((sets / "binary" / "folds" / "working_points.json").read_text())
    (pair,) = folds["pairs"].values()
    spread = pair["0.6"]["threshold"]
    assert set(spread["per_fold"]) == {"0", "1"}
    assert spread["min"] <= spread["mean"] <= spread["max"] and spread["std"] >= 0
    assert pair["0.8"]["train"]["eps_s"]["mean"] == pytest.approx(0.8, abs=0.02)


@pytest.mark.slow
def test_binary_thresholds_and_efficiencies_by_numpy(sets):
    for fold in range(CFG.folds):
        d = sets / "binary" / f"fold-{fold}"
        report = json.loads((d / "summary_report.json").read_text())
        doc = json.loads((d / "working_points.json").read_text())
        assert doc["fold"] == fold and doc["kind"] == "binary"
        points = doc["pairs"]["signal vs diboson"]["points"]
        assert points == report["working_points"]["points"] and [p["target_eps_s"] for p in points] == list(TARGETS)
        preds = read_predictions(Path(report["input"]), classes=("signal", "diboson"), score_classes=("signal",))
        s, w, y = preds.scores["signal"].astype(np.float64), np.abs(preds.weight), preds.label == 0
        train, test = preds.masks["train"], preds.masks["test"]
        for p, target in zip(points, TARGETS):
            t = hand_threshold(s[train & y], w[train & y], target)
            assert p["threshold"] == t
            eff = lambda m: w[m & (s >= t)].sum() / w[m].sum()  # noqa: E731
            assert p["train"]["eps_s"] == pytest.approx(eff(train & y), abs=1e-12)
            assert p["test"]["eps_s"] == pytest.approx(eff(test & y), abs=1e-12)
            assert p["test"]["eps_b"] == pytest.approx(eff(test & ~y), abs=1e-12)
            assert p["test"]["rejection"] == pytest.approx(1 / eff(test & ~y))
            assert p["test"]["expected_signal"] == pytest.approx(20 * eff(test & y))
            assert p["test"]["expected_background"] == pytest.approx(400 * eff(test & ~y))
        scan = report["cut_scan"]
        assert scan["yields"] == "expected" and scan["signal_yield"] == pytest.approx(20.0)
        k = scan["grid"]["cut"].index(0.5)
        assert scan["grid"]["eps_b"][k] == pytest.approx(w[test & ~y & (s >= 0.5)].sum() / w[test & ~y].sum(), abs=1e-12)
        best = scan["optimum_unconstrained"]["asimov"]  # hep_metrics' optimum has no N_eff constraint
        assert best["value"] == pytest.approx(report["hep_metrics"]["test"]["asimov"]["value"], rel=1e-12)
        assert scan["constraint"]["min_background_n_eff"] == 10.0 and scan["optimum"]["asimov"]["value"] <= best["value"]
        # calibration of score_signal on the test split against numpy
        cal = report["calibration"]["test"]
        m = test
        idx = np.minimum((s[m] * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
        for b in range(CALIBRATION_BINS):
            inb = idx == b
            if w[m][inb].sum() > 0:
                assert cal["fraction"][b] == pytest.approx(w[m][inb & y[m]].sum() / w[m][inb].sum(), rel=1e-10)
        for stem in ("cut_scan", "calibration", "score_distributions"):
            assert (d / f"{stem}.png").stat().st_size > 1000


@pytest.mark.slow
def test_multiclass_pairwise_auc_equals_sklearn_and_wp_from_test(sets):
    for fold in range(CFG.folds):
        d = sets / "mc" / f"fold-{fold}"
        report = json.loads((d / "summary_report.json").read_text())
        classes = report["classes"]
        preds = read_predictions(Path(report["input"]), classes=tuple(classes))
        test = preds.masks["test"]
        w = np.abs(preds.weight)
        matrix = report["pairwise_auc"]["matrix"]
        assert report["pairwise_auc"]["classes"] == classes and report["pairwise_auc"]["split"] == "test"
        for i, ci in enumerate(classes):
            assert matrix[i][i] is None
            for j, cj in enumerate(classes):
                if i == j:
                    continue
                sel = test & ((preds.label == i) | (preds.label == j))
                pi, pj = preds.scores[ci][sel].astype(np.float64), preds.scores[cj][sel].astype(np.float64)
                ref = roc_auc_score(preds.label[sel] == i, pi / (pi + pj + 1e-10), sample_weight=w[sel])
                assert matrix[i][j] == pytest.approx(ref, abs=1e-12), (fold, ci, cj)
        # --wp-from test: the signal efficiency on the test split reaches each target at the threshold
        for background, entry in report["working_points"].items():
            assert entry["wp_from"] == "test" and entry["score"].startswith("P(signal) / (P(signal) + P(")
            for p in entry["points"]:
                assert p["test"]["eps_s"] >= p["target_eps_s"] - 1e-12
        for stem in ("pairwise_auc", "signal_calibration", "ttZ_calibration", "signal_vs_ttZ_cut_scan"):
            assert (d / f"{stem}.png").stat().st_size > 1000


def test_fold_summary_spread_and_common_targets():
    from pnetviz.jobs.foldsummary import working_point_summary
    from pnetviz.metrics.folds import FoldCurves

    def fold(k, scalars, n_eff=30.0):
        return FoldCurves(fold=k, tpr=np.zeros(1), eps_b=np.zeros(1), background_events=n_eff, scalars=scalars)

    a = {"wp_0.5_threshold": 0.8, "wp_0.5_eps_s": 0.52, "wp_0.5_eps_b": 0.1, "wp_0.9_threshold": 0.3, "wp_0.9_eps_s": 0.9,
         "wp_0.9_eps_b": 0.4}  # fmt: skip
    b = {"wp_0.5_threshold": 0.9, "wp_0.5_eps_s": 0.48, "wp_0.5_eps_b": 0.0}  # run with --working-points 0.5 only
    summary = working_point_summary({"test": [fold(0, a), fold(1, b)]})
    assert [k for k in summary if not k.endswith("convention")] == ["0.5"]
    entry = summary["0.5"]
    assert entry["threshold"]["per_fold"] == {"0": 0.8, "1": 0.9}
    assert entry["threshold"]["mean"] == pytest.approx(0.85) and entry["threshold"]["std"] == pytest.approx(0.1 / 2**0.5)
    assert entry["test"]["rejection"]["value"] == pytest.approx(1 / 0.05)  # 1/mean(eps_b), the zero included
    assert working_point_summary({"test": [fold(0, {"auc": 0.9})]}) is None


def test_fold_summary_raises_a_working_point_limit_to_a_larger_targets_rejection():
    """eps_s 0.5: no background passes in either fold (1/eps_b_limit(60) = 20.5, a lower limit);
    eps_s 0.9: 1/mean(0.02, 0.03) = 40 measured: the limit reads > 40, as the campaign's table."""
    from pnetviz.jobs.foldsummary import working_point_summary
    from pnetviz.metrics import hep
    from pnetviz.metrics.folds import FoldCurves

    def fold(k, eps09):
        scalars = {"wp_0.5_threshold": 0.9, "wp_0.5_eps_s": 0.5, "wp_0.5_eps_b": 0.0, "wp_0.9_threshold": 0.3,
                   "wp_0.9_eps_s": 0.9, "wp_0.9_eps_b": eps09}  # fmt: skip
        return FoldCurves(fold=k, tpr=np.zeros(1), eps_b=np.zeros(1), background_events=30.0, scalars=scalars)

    summary = working_point_summary({"test": [fold(0, 0.02), fold(1, 0.03)]})
    assert 1 / hep.eps_b_limit(60.0) == pytest.approx(20.5, abs=0.1)
    assert summary["0.9"]["test"]["rejection"]["value"] == pytest.approx(40.0)
    assert summary["0.5"]["test"]["rejection"]["lower_limit"] and summary["0.5"]["test"]["rejection"]["value"] == pytest.approx(40.0)
