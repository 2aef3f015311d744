"""visualizeBinary.py end to end on a small demo: outputs, numbers vs scikit-learn, ROOT file, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, confusion_matrix, roc_auc_score

from conftest import contract_columns, load_script, make_demo, write_ntuple
from pnetviz.cli.common import run
from pnetviz.demo.toys import DemoConfig
from pnetviz.metrics.evaluate import hist_contents, score_histogram
from pnetviz.io.ntuple import read_predictions
from pnetviz.io.layout import PREDICTIONS_FILE, binary_dir
from pnetviz.output.atomic import MARKER
from pnetviz.rootenv import root

CFG = DemoConfig(events=6000, folds=2)
IMAGES = ["roc_curve", "precision_recall_curve", "score_distributions", "confusion_matrix", "confusion_matrix_counts",
          "training_loss", "training_accuracy", "training_epoch_time",
          "training_memory"]  # fmt: skip


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo(tmp_path_factory, CFG)


@pytest.fixture(scope="module")
def binary_run(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("plots")
    script = load_script("visualizeBinary")
    argv = ["--results-dir", str(demo), "--background", "diboson", "--fold", "all", "--output", str(out),
            "--compare-subset", "has_bjet", "-q"]  # fmt: skip
    assert run(script.main, argv) == 0
    return out


def test_every_output_for_every_fold(binary_run):
    for fold in range(CFG.folds):
        d = binary_run / f"fold-{fold}"
        for stem in [*IMAGES, "roc_curve_bjet_comparison", "score_distributions_bjet_comparison"]:
            for fmt in ("png", "pdf"):
                assert (d / f"{stem}.{fmt}").stat().st_size > 1000, f"{stem}.{fmt}"
        assert (d / "summary_report.json").exists() and (d / "summary_report.txt").exists()
        assert not list(d.glob(".pnetviz-stage-*"))


def test_report_auc_and_ap_equal_sklearn(binary_run, demo):
    for fold in range(CFG.folds):
        report = json.loads((binary_run / f"fold-{fold}" / "summary_report.json").read_text())
        preds = read_predictions(Path(report["input"]), classes=("signal", "diboson"), score_classes=("signal",))
        assert report["kind"] == "binary" and report["weight_mode"] == "abs" and report["fold"] == fold
        for split in ("train", "test"):
            m = preds.masks[split]
            y, s, w = preds.label[m] == 0, preds.scores["signal"][m], np.abs(preds.weight[m])
            assert report["auc"][split] == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-9)
            ap = average_precision_score(y, s, sample_weight=w)
            assert report["average_precision"][split] == pytest.approx(ap, abs=1e-9)
            cm = confusion_matrix(np.where(y, 0, 1), np.where(s >= 0.5, 0, 1), sample_weight=w)
            np.testing.assert_allclose(report["confusion_matrix"][split]["weighted"], cm, rtol=1e-12)
            assert report["events"][split]["signal"] == int(np.sum(y))
        assert report["auc"]["train"] > report["auc"]["test"]  # the demo's overtraining
        neg = report["negative_weight_fraction"]["diboson"]["events"]
        assert 0.07 < neg < 0.13
        assert report["training"]["epochs_completed"] > 0


def test_score_histograms_equal_numpy():
    rng = np.random.default_rng(5)
    s = np.r_[rng.random(5000), [0.0, 1.0, 1.0, 0.5, 0.98]].astype(np.float32)
    w = rng.exponential(size=s.size)
    values, errors = hist_contents(score_histogram("h_numpy_check", s, w))
    counts, _ = np.histogram(s, bins=50, range=(0, 1), weights=w)
    sumw2, _ = np.histogram(s, bins=50, range=(0, 1), weights=w**2)
    np.testing.assert_allclose(values, counts / w.sum(), rtol=1e-12)
    np.testing.assert_allclose(errors, np.sqrt(sumw2) / w.sum(), rtol=1e-12)
    assert values.sum() == pytest.approx(1.0, abs=1e-12)


def test_scores_at_exactly_zero_and_one_stay_in_range():
    s = np.array([0.0, 0.0, 1.0, 1.0, 1.0], dtype=np.float32)
    values, _ = hist_contents(score_histogram("h_edges", s, np.ones(5)))
    assert values[0] == pytest.approx(0.4) and values[-1] == pytest.approx(0.6)


def test_root_file_reopens_with_every_object(binary_run):
    ROOT = root()
    f = ROOT.TFile.Open(str(binary_run / "fold-0" / "plots.root"))
    try:
        expected = {
            "roc": {"train", "test"}, "pr": {"train", "test"},
            "scores": {"train_signal", "train_background", "test_signal", "test_background"},
            "confusion": {"test_counts", "test_normalised"},
            "training": {"train_loss", "valid_loss", "train_acc", "valid_acc", "epoch_time", "memory_gb"},
            "canvases": {*IMAGES, "roc_curve_bjet_comparison", "score_distributions_bjet_comparison"},
        }  # fmt: skip
        for directory, names in expected.items():
            keys = {k.GetName() for k in f.GetDirectory(directory).GetListOfKeys()}
            assert names <= keys, directory
        assert f.Get("roc/test").InheritsFrom("TGraph")
        assert f.Get("scores/test_signal").GetNbinsX() in (25, 10, 5)  # --score-bins auto: 50 bins of a small fold merged (tests/draw/test_score_bins.py)
        assert f.Get("confusion/test_counts").InheritsFrom("TH2")
        assert f.Get("canvases/roc_curve").InheritsFrom("TCanvas")
    finally:
        f.Close()


def test_subset_is_applied_and_reported(demo, tmp_path):
    script = load_script("visualizeBinary")
    argv = ["--results-dir", str(demo), "--background", "ttZ", "--fold", "1", "--subset", "has_bjet",
            "--output", str(tmp_path), "--formats", "png", "-q"]  # fmt: skip
    assert run(script.main, argv) == 0
    report = json.loads((tmp_path / "summary_report.json").read_text())
    preds = read_predictions(Path(report["input"]), classes=("signal", "ttZ"), score_classes=("signal",),
                             subsets=["has_bjet"])  # fmt: skip
    m = preds.masks["test"] & preds.subsets["has_bjet"]
    expected = roc_auc_score(preds.label[m] == 0, preds.scores["signal"][m], sample_weight=np.abs(preds.weight[m]))
    assert report["subset"] == "has_bjet"
    assert report["auc"]["test"] == pytest.approx(expected, abs=1e-9)
    assert report["events"]["test"]["signal"] == int(np.sum(preds.label[m] == 0))
    assert not (tmp_path / "roc_curve.pdf").exists()


def test_missing_history_skips_training_plots_with_a_note(tmp_path):
    path = write_ntuple(tmp_path / "pred.root", contract_columns(n=600, n_classes=2))
    script = load_script("visualizeBinary")
    out = tmp_path / "out"
    argv = ["--predictions", str(path), "--fold", "0", "--output", str(out), "--formats", "png", "-q"]
    assert run(script.main, argv) == 0
    report = json.loads((out / "summary_report.json").read_text())
    assert any("training" in note for note in report["notes"])
    assert not (out / "training_loss.png").exists() and (out / "roc_curve.png").exists()


@pytest.mark.parametrize("columns,message", [
    ({"score_signal": None}, "branch 'score_signal' is missing; branches found:"),
    ({"true_label": np.resize([0, 1, 2], 600).astype(np.int32)}, "values 2 outside the class list"),
    ({"weight": np.full(600, np.nan)}, "'weight' has 600 NaN/inf values"),
    ({"test_mask": np.zeros(600, bool)}, "test split (all): ROC undefined: there are no signal events"),
])  # fmt: skip
def test_bad_input_exits_2_and_keeps_existing_outputs(tmp_path, capsys, columns, message):
    cols = contract_columns(n=600, n_classes=2)
    for key, value in columns.items():
        if value is None:
            cols.pop(key)
        else:
            cols[key] = value
    path = write_ntuple(tmp_path / "bad.root", cols)
    out = tmp_path / "out"
    out.mkdir()
    (out / "roc_curve.png").write_text("previous result")
    (out / MARKER).write_text('{"files": ["roc_curve.png"]}')  # a previous pnetviz output set
    script = load_script("visualizeBinary")
    code = run(script.main, ["--predictions", str(path), "--fold", "0", "--output", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and str(path) in err and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "roc_curve.png"]
    assert sorted(p.name for p in out.parent.iterdir() if p.name.startswith(".out.pnetviz-stage")) == []
    assert (out / "roc_curve.png").read_text() == "previous result"


def test_missing_fold_and_bad_options(demo, tmp_path, capsys):
    script = load_script("visualizeBinary")
    bkg = ["--background", "nonprompt"]
    assert run(script.main, ["--results-dir", str(demo), *bkg, "--fold", "7", "--output", str(tmp_path)]) == 2
    assert "fold-7" in capsys.readouterr().err
    assert run(script.main, ["--results-dir", str(tmp_path / "none"), *bkg, "--fold", "all"]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert run(script.main, ["--results-dir", str(demo), "--fold", "0", "--output", str(tmp_path)]) == 2
    assert "give --background; backgrounds found for MHc160_MA85: diboson, nonprompt, ttZ" in capsys.readouterr().err
    assert run(script.main, ["--results-dir", str(demo), "--formats", "gif"]) == 2
    assert "--formats" in capsys.readouterr().err


def test_help_mentions_contract(capsys):
    script = load_script("visualizeBinary")
    with pytest.raises(SystemExit):
        script.main(["--help"])
    out = capsys.readouterr().out
    assert "ntuple contract" in out and "--compare-subset" in out and "--subset" in out
    assert binary_dir(Path("r"), "c", "s", "b") == Path("r/c/binary/s_vs_b")
    assert PREDICTIONS_FILE == "predictions.root"
