"""visualizeMultiClass.py: likelihood-ratio AUCs, argmax metrics vs scikit-learn, outputs, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, precision_recall_fscore_support, roc_auc_score

from conftest import contract_columns, load_script, write_ntuple
from pnetviz.cli.common import run
from pnetviz.demo.toys import DemoConfig, write_fold
from pnetviz.metrics.evaluate import lr_score
from pnetviz.io.ntuple import read_predictions
from pnetviz.rootenv import root

CFG = DemoConfig(events=6000, folds=2)
CLASSES = ("signal", "nonprompt", "diboson", "ttZ")


@pytest.fixture(scope="module")
def mc_run(tmp_path_factory):
    results = tmp_path_factory.mktemp("results")
    for fold in range(CFG.folds):
        write_fold(CFG, results, fold)
    out = tmp_path_factory.mktemp("plots")
    argv = ["--results-dir", str(results), "--fold", "all", "--output", str(out), "-q"]
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    return out


def test_spec_worked_example():
    p = np.array([0.6, 0.3, 0.05, 0.05])
    assert lr_score(p[0], p[1]) == pytest.approx(0.667, abs=5e-4)
    assert lr_score(p[0], p[2]) == pytest.approx(0.923, abs=5e-4)
    assert lr_score(p[0], p[3]) == pytest.approx(0.923, abs=5e-4)
    assert lr_score(0.0, 0.0) == 0.0  # the 1e-10 guard


@pytest.mark.slow
def test_every_output_for_every_fold(mc_run):
    stems = ["overall_confusion_matrix", "overall_confusion_matrix_counts", "precision_by_class", "recall_by_class",
             "f1_score_by_class", "training_loss", "training_accuracy"]
    for bkg in ("nonprompt", "diboson", "ttZ"):
        stems += [f"signal_vs_{bkg}_roc_curve", f"signal_vs_{bkg}_lr_score_distribution"]
    for cls in ("signal", "nonprompt", "diboson", "ttZ"):
        stems += [f"{cls}_score_distribution", f"{cls}_confusion_matrix"]
    for fold in range(CFG.folds):
        d = mc_run / f"fold-{fold}"
        for stem in stems:
            for fmt in ("png", "pdf"):
                assert (d / f"{stem}.{fmt}").stat().st_size > 1000, f"fold {fold}: {stem}.{fmt}"


@pytest.mark.slow
def test_lr_aucs_and_argmax_metrics_equal_sklearn(mc_run):
    for fold in range(CFG.folds):
        report = json.loads((mc_run / f"fold-{fold}" / "summary_report.json").read_text())
        assert report["kind"] == "multiclass" and report["classes"] == list(CLASSES)
        preds = read_predictions(Path(report["input"]))
        for i, bkg in enumerate(CLASSES[1:], start=1):
            for split in ("train", "test"):
                m = preds.masks[split] & np.isin(preds.label, [0, i])
                lr = preds.scores["signal"][m] / (preds.scores["signal"][m] + preds.scores[bkg][m] + 1e-10)
                expected = roc_auc_score(preds.label[m] == 0, lr, sample_weight=np.abs(preds.weight[m]))
                assert report["auc"][bkg][split] == pytest.approx(expected, abs=1e-9)
                used = report["auc"][bkg]["events_used"][split]
                assert used[report["classes"][0]] + used[bkg] == int(m.sum())
        for split in ("train", "test"):
            m = preds.masks[split]
            y = preds.label[m]
            pred = np.argmax(np.stack([preds.scores[c][m] for c in CLASSES], axis=1), axis=1)
            w = np.abs(preds.weight[m])
            cm = confusion_matrix(y, pred, sample_weight=w, labels=range(4))
            np.testing.assert_allclose(report["confusion_matrix"]["overall"][split]["weighted"], cm, rtol=1e-12)
            p, r, f, _ = precision_recall_fscore_support(y, pred, sample_weight=w, labels=range(4), zero_division=0)
            got = report["per_class"][split]
            names = list(report["classes"])  # class names are the keys (class 0: signal)
            np.testing.assert_allclose([got[n]["precision"] for n in names], p, rtol=1e-12)
            np.testing.assert_allclose([got[n]["recall"] for n in names], r, rtol=1e-12)
            np.testing.assert_allclose([got[n]["f1"] for n in names], f, rtol=1e-12)
            ovr = report["confusion_matrix"]["one_vs_rest"]["ttZ"][split]["weighted"]
            np.testing.assert_allclose(ovr, confusion_matrix(y == 3, pred == 3, sample_weight=w, labels=[True, False]), rtol=1e-12)


@pytest.mark.slow
def test_root_file_has_every_pair_and_class(mc_run):
    f = root().TFile.Open(str(mc_run / "fold-1" / "plots.root"))
    try:
        for bkg in ("nonprompt", "diboson", "ttZ"):
            keys = {k.GetName() for k in f.GetDirectory(f"signal_vs_{bkg}").GetListOfKeys()}
            assert {"roc_train", "roc_test", "scores_test_signal", "scores_test_background"} <= keys
        assert f.Get("confusion/overall/test_counts").GetNbinsX() == 4
        assert f.Get("canvases/overall_confusion_matrix").InheritsFrom("TCanvas")
        assert f.Get("class_scores/ttZ_test_true_signal").GetNbinsX() in (25, 10, 5)  # --score-bins auto on a small fold
    finally:
        f.Close()


@pytest.mark.slow
def test_model_blind_to_one_background_gives_auc_one_half(tmp_path):
    rng = np.random.default_rng(3)
    n = 40_000
    label = rng.integers(0, 3, n).astype(np.int32)
    raw = rng.random((n, 3))
    raw[:, 1] += 2.0 * (label == 1)  # the model separates class 1 ...
    raw[:, 0] += 2.0 * (label != 1)  # ... but class 0 and class 2 look identical to it
    probs = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    cols = {"true_label": label, "weight": rng.uniform(0.1, 1.0, n), "train_mask": rng.random(n) < 0.5,
            "score_signal": probs[:, 0], "score_a": probs[:, 1], "score_b": probs[:, 2]}  # fmt: skip
    cols["test_mask"] = ~cols["train_mask"]
    path = write_ntuple(tmp_path / "blind.root", cols)
    out = tmp_path / "out"
    argv = ["--predictions", str(path), "--classes", "signal,a,b", "--output", str(out), "--formats", "png", "-q"]
    assert run(load_script("visualizeMultiClass").main, argv) == 0
    report = json.loads((out / "summary_report.json").read_text())
    assert report["auc"]["b"]["test"] == pytest.approx(0.5, abs=0.02)
    assert report["auc"]["a"]["test"] > 0.8


def test_classes_mismatch_lists_branches(tmp_path, capsys):
    path = write_ntuple(tmp_path / "pred.root", contract_columns(n=400))
    script = load_script("visualizeMultiClass")
    code = run(script.main, ["--predictions", str(path), "--classes", "signal,ttll,wz,ttz", "--output", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "'score_ttll' is missing; branches found:" in err and "score_nonprompt" in err
    code = run(script.main, ["--predictions", str(path), "--classes", "signal,nonprompt,diboson", "--output", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "values 3 outside the class list" in err
    assert run(script.main, ["--predictions", str(path), "--classes", "signal"]) == 2
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


@pytest.mark.slow
def test_threads_give_the_same_numbers(tmp_path, capsys):
    import subprocess
    import sys

    write_fold(DemoConfig(events=150_000, folds=1), tmp_path / "r", 0)  # the reader splits from 2 x 65536
    script = Path(__file__).resolve().parents[2] / "python" / "visualizeMultiClass.py"
    reports = {}
    for threads in ("1", "2"):  # implicit MT is process-wide: run each in its own process
        out = tmp_path / f"t{threads}"
        subprocess.run([sys.executable, str(script), "--results-dir", str(tmp_path / "r"), "--output", str(out),
                        "--threads", threads, "--bootstrap", "0", "--formats", "png", "-q"], check=True)  # fmt: skip
        reports[threads] = json.loads((out / "summary_report.json").read_text())
    for section in ("events", "sum_weights", "auc", "average_precision", "confusion_matrix", "per_class"):
        assert reports["2"][section] == reports["1"][section], section  # identical arrays, identical numbers
    assert run(load_script("visualizeMultiClass").main, ["--threads", "0"]) == 2
    assert "--threads" in capsys.readouterr().err
