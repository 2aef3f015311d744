"""Fold aggregation: grids, bands, mean/std, missing folds reported."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conftest import load_script
from pnetviz.metrics import folds
from pnetviz.cli.common import run
from pnetviz.demo.toys import DemoConfig, write_fold
from pnetviz.metrics.evaluate import binary_samples, evaluate_split
from pnetviz.metrics.pairmetrics import HepOptions, pair_metrics
from pnetviz.io.layout import binary_dir
from pnetviz.metrics.roc import binary_clf_curve


def toy_results(seed: int, sep: float):
    rng = np.random.default_rng(seed)
    n = 4000
    y = rng.random(n) < 0.4
    s = (1 / (1 + np.exp(-rng.normal(sep * y, 1.0)))).astype(np.float32)
    masks = {"train": np.arange(n) % 2 == 0, "test": np.arange(n) % 2 == 1}
    samples = binary_samples(s, y, rng.uniform(0.5, 1.5, n), masks)
    results = {k: evaluate_split(v, f"{k}_{seed}_{sep}", ("s", "b")) for k, v in samples.items()}
    return results, pair_metrics(results, HepOptions(bootstrap=0))


def test_tpr_on_grid_handles_vertical_steps():
    # Points (0,0) (0,1/3) (1/4,1) (1,1)
    curve = binary_clf_curve(np.array([0.9, 0.5, 0.5, 0.1]), np.array([1, 1, 0, 0]), np.array([1.0, 2, 1, 3]))
    grid = np.array([0.0, 0.125, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(folds.tpr_on_grid(curve, grid), [1 / 3, 2 / 3, 1, 1, 1])
    np.testing.assert_allclose(folds.eps_b_on_grid(curve, np.array([0.5, 1.0])), [1 / 16, 0.25])


def test_identical_folds_give_zero_width_bands():
    results, metrics = toy_results(1, 1.5)
    curves = [folds.fold_curves(k, results["test"], metrics["test"]) for k in range(5)]
    agg = folds.aggregate(curves)
    assert np.all(agg.tpr_std == 0) and np.all(agg.eps_b_std == 0)
    lo, hi = agg.rejection_band
    np.testing.assert_array_equal(lo, hi)
    assert agg.std["auc"] == 0 and agg.mean["auc"] == pytest.approx(results["test"].curve.auc)


def test_mean_and_std_equal_numpy_on_per_fold_values():
    curves, aucs, rej, rej_eps = [], [], [], []
    for k, sep in enumerate((0.8, 1.2, 1.6, 2.0)):
        results, metrics = toy_results(10 + k, sep)
        curves.append(folds.fold_curves(k, results["test"], metrics["test"]))
        aucs.append(results["test"].curve.auc)
        rej.append(metrics["test"]["rejection"]["0.5"])
        rej_eps.append(metrics["test"]["background_efficiency"]["0.5"])
    agg = folds.aggregate(curves)
    assert agg.mean["auc"] == pytest.approx(np.mean(aucs), rel=1e-14)
    assert agg.std["auc"] == pytest.approx(np.std(aucs, ddof=1), rel=1e-12)
    eps = np.array([metrics_eps for metrics_eps in rej_eps])
    assert agg.mean["rejection_0.5"] == pytest.approx(1 / np.mean(eps), rel=1e-13)  # 1/mean(eps_b), not mean(1/eps_b)
    spread = np.std(np.log(eps), ddof=1)  # the asymmetric fold interval R exp(+-s) (folds.Rejection)
    assert agg.std["rejection_0.5"] is None
    assert agg.interval["rejection_0.5"] == pytest.approx((np.exp(-spread) / np.mean(eps), np.exp(spread) / np.mean(eps)))
    assert agg.table["rejection_0.5"] == {str(k): pytest.approx(r) for k, r in enumerate(rej)}
    tprs = np.stack([c.tpr for c in curves])
    np.testing.assert_allclose(agg.tpr_mean, tprs.mean(axis=0), rtol=1e-14)
    np.testing.assert_allclose(agg.tpr_std, tprs.std(axis=0, ddof=1), rtol=1e-12, atol=1e-15)
    assert agg.std["auc"] > 0.01
    stack = np.stack([c.eps_b for c in curves])
    np.testing.assert_allclose(agg.eps_b_mean, stack.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(agg.eps_b_std, stack.std(axis=0, ddof=1), rtol=1e-12, atol=1e-15)
    lo, hi = agg.rejection_band
    mean = stack.mean(axis=0)
    np.testing.assert_allclose(agg.rejection_mean, 1 / np.where(mean > 0, mean, agg.eps_b_floor), rtol=1e-13)
    assert np.all(lo <= agg.rejection_mean) and np.all(agg.rejection_mean <= hi)


@pytest.mark.slow
def test_script_summary_and_missing_fold(tmp_path, recwarn):
    cfg = DemoConfig(events=3000, folds=3)
    results = tmp_path / "results"
    for fold in range(cfg.folds):
        write_fold(cfg, results, fold)
    shutil.rmtree(binary_dir(results, cfg.channel, cfg.signal, "nonprompt") / "fold-1")
    out = tmp_path / "out"
    argv = ["--results-dir", str(results), "--background", "nonprompt", "--fold", "0,1,2", "--output", str(out), "--formats", "png",
            "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    assert any("folds 1 have no predictions file" in str(w.message) for w in recwarn)
    report = json.loads((out / "folds" / "summary_report.json").read_text())
    assert report["missing_folds"] == [1]
    pair = report["pairs"][f"{cfg.signal} vs nonprompt"]["test"]
    assert pair["folds"] == [0, 2] and set(pair["per_fold"]["auc"]) == {"0", "2"}
    per_fold = [json.loads((out / f"fold-{k}" / "summary_report.json").read_text())["auc"]["test"] for k in (0, 2)]
    assert pair["mean"]["auc"] == pytest.approx(np.mean(per_fold), rel=1e-14)
    assert (out / "folds" / "roc_curve_folds.png").exists() and (out / "folds" / "rejection_curve_folds.png").exists()
    # --fold all finds 0 and 2 and reports the gap
    assert run(load_script("visualizeBinary").main, [*argv[:4], "--fold", "all", *argv[6:]]) == 0
    assert json.loads((out / "folds" / "summary_report.json").read_text())["missing_folds"] == [1]


@pytest.mark.slow
def test_multiclass_fold_summary_per_pair(tmp_path):
    cfg = DemoConfig(events=3000, folds=2)
    for fold in range(cfg.folds):
        write_fold(cfg, tmp_path / "r", fold)
    out = tmp_path / "out"
    argv = ["--results-dir", str(tmp_path / "r"), "--fold", "all", "--output", str(out), "--formats", "png",
            "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    report = json.loads((out / "folds" / "summary_report.json").read_text())
    assert set(report["pairs"]) == {f"{cfg.signal} vs {b} (LR)" for b in ("nonprompt", "diboson", "ttZ")}
    assert (out / "folds" / "signal_vs_ttZ_roc_curve_folds.png").exists()
