"""HEP metrics in the visualize scripts' reports and plots (issue: HEP metrics beyond AUC)."""

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

CFG = DemoConfig(events=5000, folds=2)
SPLIT_KEYS = {"auc", "auc_error", "auc_all_weight_modes", "rejection", "rejection_0.5_interval", "background_efficiency", "rejection_lower_limit", "rejection_limit", "partial_auc",
              "average_precision", "fip1", "fip2_hull", "punzi", "asimov", "optimal_operating_point",
              "binned_fip_50", "effective_events", "curve_flags"}  # fmt: skip


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return make_demo(tmp_path_factory, CFG)


def run_script(name, argv):
    assert run(load_script(name).main, [*argv, "-q"]) == 0


def test_binary_report_has_every_metric_for_every_fold(results, tmp_path):
    run_script("visualizeBinary", ["--results-dir", str(results), "--background", "diboson", "--fold", "all",
                                   "--output", str(tmp_path), "--formats", "png", "--hull", "--bootstrap", "50"])  # fmt: skip
    for fold in range(CFG.folds):
        report = json.loads((tmp_path / f"fold-{fold}" / "summary_report.json").read_text())
        hep = report["hep_metrics"]
        for split in ("train", "test"):
            assert SPLIT_KEYS <= set(hep[split])
            assert hep[split]["auc"] == report["auc"][split]
            assert 0 < hep[split]["auc_error"] < 0.05
            assert set(hep[split]["rejection"]) == {"0.3", "0.5", "0.7", "0.9"}
        ot = hep["overtraining"]
        assert 0 <= ot["ks_signal"]["p_value"] <= 1 and 0 <= ot["ks_background"]["p_value"] <= 1
        assert ot["auc_gap"]["value"] == pytest.approx(report["auc"]["train"] - report["auc"]["test"])
        # AUC under every weight mode vs scikit-learn on the diboson sample (~10% negative weights)
        preds = read_predictions(Path(report["input"]), classes=("signal", "diboson"), score_classes=("signal",))
        m = preds.masks["test"]
        y, s, w = preds.label[m] == 0, preds.scores["signal"][m], preds.weight[m]
        modes = hep["test"]["auc_all_weight_modes"]
        assert modes["abs"] == pytest.approx(roc_auc_score(y, s, sample_weight=np.abs(w)), abs=1e-9)
        assert modes["drop"] == pytest.approx(roc_auc_score(y[w > 0], s[w > 0], sample_weight=w[w > 0]), abs=1e-9)
        assert modes["signed"] != modes["abs"]
        d = tmp_path / f"fold-{fold}"
        assert (d / "rejection_curve.png").exists()


def test_signed_mode_is_reported_and_drawn(results, tmp_path):
    run_script("visualizeBinary", ["--results-dir", str(results), "--background", "diboson", "--fold", "0",
                                   "--weights", "signed", "--output", str(tmp_path), "--formats", "png",
                                   "--bootstrap", "0"])  # fmt: skip
    report = json.loads((tmp_path / "summary_report.json").read_text())
    assert report["weight_mode"] == "signed"
    assert report["auc"]["test"] == report["hep_metrics"]["test"]["auc_all_weight_modes"]["signed"]
    assert set(report["hep_metrics"]["test"]["curve_flags"]) == {"rates_outside_unit_interval", "non_monotone"}
    assert report["hep_metrics"]["test"]["auc_error"] is None  # bootstrap disabled -> no error (NaN -> null)


def test_signal_scale_changes_prevalence_metrics_only(results, tmp_path):
    reports = {}
    for scale in ("1", "10"):
        out = tmp_path / scale
        run_script("visualizeBinary", ["--results-dir", str(results), "--background", "nonprompt", "--fold", "1", "--output", str(out),
                                       "--formats", "png", "--bootstrap", "0", "--signal-scale", scale])  # fmt: skip
        reports[scale] = json.loads((out / "summary_report.json").read_text())["hep_metrics"]["test"]
    assert reports["1"]["auc"] == reports["10"]["auc"]
    assert reports["10"]["signal_yield"] == pytest.approx(10 * reports["1"]["signal_yield"])
    assert reports["10"]["fip2_hull"] > reports["1"]["fip2_hull"]  # higher prevalence, purer


@pytest.mark.slow
def test_multiclass_report_has_metrics_per_pair(results, tmp_path):
    run_script("visualizeMultiClass", ["--results-dir", str(results), "--fold", "1", "--output", str(tmp_path),
                                       "--formats", "png", "--bootstrap", "30"])  # fmt: skip
    report = json.loads((tmp_path / "summary_report.json").read_text())
    for bkg in ("nonprompt", "diboson", "ttZ"):
        assert SPLIT_KEYS <= set(report["hep_metrics"][bkg]["test"])
        assert report["hep_metrics"][bkg]["test"]["auc"] == report["auc"][bkg]["test"]
        assert (tmp_path / f"signal_vs_{bkg}_rejection_curve.png").exists()


def test_bad_hep_options_exit_2(results, capsys):
    script = load_script("visualizeBinary")
    assert run(script.main, ["--results-dir", str(results), "--bootstrap", "-1"]) == 2
    assert "--bootstrap" in capsys.readouterr().err
    assert run(script.main, ["--results-dir", str(results), "--signal-scale", "0"]) == 2
    assert "--signal-scale" in capsys.readouterr().err
