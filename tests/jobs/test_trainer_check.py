"""Real-shaped trainer JSONs from the demo and the trainer's test_loss/test_accuracy beside
pnetviz's in the report (issue 36 item 3)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, log_loss

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.metrics.trainercheck import cross_check, recompute

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
CONFIG = {"model_type", "num_classes", "use_groups", "optimizer", "scheduler", "loss_type", "initial_lr",
          "weight_decay", "dropout_p", "max_epochs", "batch_size"}  # fmt: skip
RESULTS = {"training_history", "best_valid_loss", "test_loss", "test_accuracy", "total_training_time",
           "avg_epoch_time", "final_memory_mb", "model_parameters", "early_stopped"}  # fmt: skip
INFO = {"model_name", "model_type", "num_parameters", "trainable_parameters", "num_classes", "input_features",
        "architecture", "training_mode"}  # fmt: skip


@pytest.fixture(scope="module")
def fold(tmp_path_factory):
    base = tmp_path_factory.mktemp("check") / "results"
    files = write_trainer_fold(base, CHANNEL, SIGNAL, 0, models=(ModelSpec("binary", "ttZ"), ModelSpec("individual")),
                               events=1200)  # fmt: skip
    return base, files


def test_recompute_equals_sklearn():
    rng = np.random.default_rng(2)
    raw = rng.random((500, 4))
    probs = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    label, test = rng.integers(0, 4, 500), rng.random(500) < 0.4
    loss, acc = recompute(label, probs, test)
    assert loss == pytest.approx(log_loss(label[test], probs[test].astype(np.float64), labels=range(4)), rel=1e-12)
    assert acc == pytest.approx(accuracy_score(label[test], probs[test].argmax(axis=1)), abs=1e-15)
    check, notes = cross_check(label, probs, test, {"test_loss": loss + 0.01, "test_accuracy": acc})
    assert check["test_accuracy"]["difference"] == 0 and len(notes) == 1 and "test_loss" in notes[0]
    assert cross_check(label, probs, test, {}) == ({}, [])


def test_demo_writes_every_field_of_the_trainer(fold):
    for tree in fold[1]:
        perf = json.loads((tree.parent.parent / f"{tree.stem}_performance.json").read_text())
        assert {"model_name", "signal_sample", "channel", "fold", "pilot_mode", "training_config", "background_info",
                "model_type", "num_classes", "use_groups", "background_groups", "training_results"} <= set(perf)  # fmt: skip
        assert set(perf["training_config"]) == CONFIG and set(perf["training_results"]) == RESULTS
        info = json.loads((tree.parent.parent / f"{tree.stem}_model_info.json").read_text())
        assert set(info) == INFO


@pytest.mark.parametrize("command", ["binary", "multiclass"])
def test_report_shows_the_trainers_test_numbers_beside_pnetviz(fold, tmp_path, command):
    base, files = fold
    tree = files[0 if command == "binary" else 1]
    perf = json.loads((tree.parent.parent / f"{tree.stem}_performance.json").read_text())["training_results"]
    argv = ["--results-dir", str(base), "--channel", CHANNEL, "--signal", SIGNAL, "--output", str(tmp_path / "out"),
            "--formats", "none", "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script({"binary": "visualizeBinary", "multiclass": "visualizeMultiClass"}[command]).main, argv) == 0
    report = json.loads((tmp_path / "out" / "summary_report.json").read_text())
    for key in ("test_loss", "test_accuracy"):
        assert report["trainer_check"][key]["trainer"] == perf[key]
        assert report["trainer_check"][key]["pnetviz"] == pytest.approx(perf[key], abs=1e-12)
    assert not any("differs from this ntuple" in n for n in report["notes"])
    assert "trainer_check" in (tmp_path / "out" / "summary_report.txt").read_text()
