"""visualizeComparison.py: binary vs multi-class LR, paired/independent errors, dominance, checks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from conftest import gaussian_toy, load_script, make_demo, write_ntuple
from pnetviz.metrics import hep
from pnetviz.cli.common import run
from pnetviz.jobs.comparison import dominance
from pnetviz.demo.toys import DemoConfig, write_fold
from pnetviz.io.ntuple import read_predictions
from pnetviz.io.layout import PREDICTIONS_FILE, binary_dir
from pnetviz.metrics.roc import binary_clf_curve

CFG = DemoConfig(events=5000, folds=2)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return make_demo(tmp_path_factory, CFG)


@pytest.fixture(scope="module")
def comparison(results, tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp")
    argv = ["--results-dir", str(results), "--fold", "all", "--output", str(out), "--formats", "png",
            "--bootstrap", "100", "-q"]  # fmt: skip
    assert run(load_script("visualizeComparison").main, argv) == 0
    return out


def test_outputs_and_aucs_equal_sklearn(comparison):
    for fold in range(CFG.folds):
        d = comparison / f"fold-{fold}"
        report = json.loads((d / "summary_report.json").read_text())
        assert "ratio-of-sums" in report["ratio_panels"] and "binomial" not in report["ratio_panels"]  # the WPs' error
        mc = read_predictions(Path(report["multiclass_input"]))
        for i, bkg in enumerate(("nonprompt", "diboson", "ttZ"), start=1):
            pair = report["pairs"][bkg]
            assert (d / f"signal_vs_{bkg}_roc_comparison.png").exists()
            assert (d / f"signal_vs_{bkg}_rejection_comparison.png").exists()
            b = read_predictions(Path(pair["binary_input"]), classes=("signal", bkg), score_classes=("signal",))
            t = b.masks["test"]
            expected_b = roc_auc_score(b.label[t] == 0, b.scores["signal"][t], sample_weight=np.abs(b.weight[t]))
            m = mc.masks["test"] & np.isin(mc.label, [0, i])
            lr = mc.scores["signal"][m] / (mc.scores["signal"][m] + mc.scores[bkg][m] + 1e-10)
            expected_m = roc_auc_score(mc.label[m] == 0, lr, sample_weight=np.abs(mc.weight[m]))
            assert pair["auc"]["binary"]["value"] == pytest.approx(expected_b, abs=1e-9)
            assert pair["auc"]["multiclass"]["value"] == pytest.approx(expected_m, abs=1e-9)
            diff = pair["difference"]
            assert diff["multiclass_minus_binary"] == pytest.approx(expected_m - expected_b, abs=1e-9)
            assert diff["method"].startswith("paired")  # the demo's ntuples hold the same events
            assert 0 < diff["error"] < pair["auc"]["binary"]["error"] + pair["auc"]["multiclass"]["error"]
            assert pair["comparability"]["consistent"]
            assert pair["dominance"]["verdict"] in {"binary dominates", "multiclass dominates", "curves cross"}
    summary = json.loads((comparison / "folds" / "summary_report.json").read_text())
    per = [json.loads((comparison / f"fold-{f}" / "summary_report.json").read_text())["pairs"]["ttZ"] for f in (0, 1)]
    diffs = [p["difference"]["multiclass_minus_binary"] for p in per]
    assert summary["pairs"]["ttZ"]["difference"]["mean"] == pytest.approx(np.mean(diffs), rel=1e-12)
    assert summary["pairs"]["ttZ"]["difference"]["std"] == pytest.approx(np.std(diffs, ddof=1), rel=1e-12)
    from scipy import stats

    st = summary["pairs"]["ttZ"]["difference_statistics"]
    ref = stats.ttest_rel([p["auc"]["multiclass"]["value"] for p in per], [p["auc"]["binary"]["value"] for p in per])
    # the naive paired t is scipy's; the corrected resampled t (Nadeau-Bengio, k = 2: n_test/n_train = 1/(k-1) = 1)
    # has the standard error std sqrt(1/k + 1) and k - 1 degrees of freedom
    assert st["t_naive"] == pytest.approx(ref.statistic, rel=1e-9) and st["p_naive_t"] == pytest.approx(ref.pvalue, rel=1e-7)
    se = np.std(diffs, ddof=1) * np.sqrt(1 / 2 + 1)
    assert st["standard_error"] == pytest.approx(se, rel=1e-12) and st["t"] == pytest.approx(np.mean(diffs) / se, rel=1e-12)
    assert st["p_value"] == pytest.approx(2 * stats.t.sf(abs(np.mean(diffs) / se), 1), rel=1e-9)
    errs_pooled = np.array([p["difference"]["error"] for p in per])
    assert st["pooled_bootstrap_error"] == pytest.approx(np.sqrt(np.sum(errs_pooled**2)) / 2, rel=1e-12)
    errs = np.array([p["difference"]["error"] for p in per])
    assert st["combined"] == pytest.approx(np.sum(np.array(diffs) / errs**2) / np.sum(errs**-2), rel=1e-12)
    assert (comparison / "folds" / "signal_vs_ttZ_auc_by_fold.png").exists()


def test_paired_bootstrap_of_identical_models_has_zero_difference_error():
    s, y, w = gaussian_toy(3000, 0.4, 1.0, seed=1)
    rng = np.random.default_rng(1)
    n = s.size
    a, b = hep.paired_bootstrap(s, s, y, w, w, 50, seed=3)
    np.testing.assert_array_equal(a, b)
    assert np.std(a) > 0
    assert np.mean(a) == pytest.approx(binary_clf_curve(s, y, w).auc, abs=3 * np.std(a))
    # correlated models: the paired spread of the difference is far below the independent one
    s2 = s + rng.normal(0, 0.3, n)
    a, b = hep.paired_bootstrap(s, s2, y, w, w, 100, seed=4)
    assert np.std(a - b) < 0.5 * np.hypot(np.std(a), np.std(b))


def test_dominance_verdicts():
    rng = np.random.default_rng(2)
    y = rng.random(2000) < 0.5
    good = binary_clf_curve(np.where(y, 1.0, 0.0) + rng.normal(0, 0.01, 2000), y)
    noise = binary_clf_curve(rng.random(2000), y)
    assert dominance(good, noise)["verdict"] == "binary dominates"
    assert dominance(noise, good)["verdict"] == "multiclass dominates"
    assert dominance(good, good)["verdict"] == "identical"


def test_different_events_use_independent_errors_and_warn(results, tmp_path, recwarn):
    # Replace fold 0's ttZ binary ntuple by one holding other events (no event_id, half the events).
    src = binary_dir(results, CFG.channel, CFG.signal, "ttZ") / "fold-0" / PREDICTIONS_FILE
    preds = read_predictions(src, classes=("signal", "ttZ"), score_classes=("signal",))
    keep = np.arange(preds.n_events) % 2 == 0
    cols = {"true_label": preds.label[keep].astype(np.int32), "score_signal": preds.scores["signal"][keep],
            "weight": preds.weight[keep], "train_mask": preds.masks["train"][keep], "test_mask": preds.masks["test"][keep]}  # fmt: skip
    alt = tmp_path / "results"
    for fold in range(1):
        write_fold(CFG, alt, fold)
    write_ntuple(binary_dir(alt, CFG.channel, CFG.signal, "ttZ") / "fold-0" / PREDICTIONS_FILE, cols)
    out = tmp_path / "out"
    argv = ["--results-dir", str(alt), "--fold", "0", "--output", str(out), "--formats", "png", "--bootstrap", "30", "-q"]
    assert run(load_script("visualizeComparison").main, argv) == 0
    pair = json.loads((out / "summary_report.json").read_text())["pairs"]["ttZ"]
    assert pair["difference"]["method"].startswith("independent")
    assert not pair["comparability"]["consistent"]
    assert any("ttZ: binary and multi-class test events differ" in str(w.message) for w in recwarn)


def test_no_binary_model_is_a_clear_error(tmp_path, capsys):
    write_fold(DemoConfig(events=500, folds=1), tmp_path, 0)
    argv = ["--results-dir", str(tmp_path), "--classes", "signal,wz", "--output", str(tmp_path / "o")]
    assert run(load_script("visualizeComparison").main, argv) == 2
    assert "no binary model found for any of wz" in capsys.readouterr().err
