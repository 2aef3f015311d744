"""The demo generator: deterministic, contract-conforming, physics-like."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pnetviz.demo.toys import HISTORY_FILE, DemoConfig, write_fold
from pnetviz.io.layout import PREDICTIONS_FILE, binary_dir, multiclass_dir
from pnetviz.io.ntuple import read_predictions
from pnetviz.metrics.roc import roc_auc

CFG = DemoConfig(events=20000)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    write_fold(CFG, out, 0)
    return out


def mc_file(results):
    return multiclass_dir(results, CFG.channel, CFG.signal) / "fold-0" / PREDICTIONS_FILE


def test_files_follow_the_contract(demo):
    preds = read_predictions(mc_file(demo), subsets=["has_bjet"])
    assert preds.n_events == CFG.events and "valid" in preds.masks
    masks = np.stack([preds.masks[s] for s in ("train", "test", "valid")])
    assert np.all(masks.sum(axis=0) == 1)  # every event in exactly one split
    for i, bkg in enumerate(CFG.classes[1:], start=1):
        path = binary_dir(demo, CFG.channel, CFG.signal, bkg) / "fold-0" / PREDICTIONS_FILE
        binary = read_predictions(path, classes=("signal", bkg), score_classes=("signal",))
        assert binary.n_events == np.count_nonzero(np.isin(preds.label, [0, i]))


def test_deterministic(demo, tmp_path):
    write_fold(CFG, tmp_path, 0)
    a, b = read_predictions(mc_file(demo)), read_predictions(mc_file(tmp_path))
    np.testing.assert_array_equal(a.scores["signal"], b.scores["signal"])
    np.testing.assert_array_equal(a.weight, b.weight)


def test_physics_like_weights(demo):
    preds = read_predictions(mc_file(demo))
    w, lab = preds.weight, preds.label
    assert 1e-3 <= np.abs(w[lab == 0]).min() and np.abs(w[lab == 0]).max() <= 1e-1
    assert 1e-2 <= np.abs(w[lab == 1]).min() and np.abs(w[lab == 1]).max() <= 1.0
    negative = np.mean(w[lab == CFG.classes.index("diboson")] < 0)
    assert 0.08 < negative < 0.12
    assert np.all(w[lab != CFG.classes.index("diboson")] > 0)


def test_a_little_overtraining(demo):
    preds = read_predictions(mc_file(demo))
    keep = np.isin(preds.label, [0, 1])
    lr = preds.scores["signal"] / (preds.scores["signal"] + preds.scores["nonprompt"] + 1e-10)
    auc = {s: roc_auc(lr[keep & m], preds.label[keep & m] == 0, np.abs(preds.weight[keep & m]))
           for s, m in preds.masks.items()}  # fmt: skip
    assert 0.75 < auc["test"] < 0.97
    assert 0.002 < auc["train"] - auc["test"] < 0.05


def test_history_json(demo):
    doc = json.loads((multiclass_dir(demo, CFG.channel, CFG.signal) / "fold-0" / HISTORY_FILE).read_text())
    hist = doc["training_results"]["training_history"]
    assert hist[0]["epoch"] == 0 and len(hist) == doc["training_results"]["epochs_completed"]
    assert {"train_loss", "train_acc", "valid_loss", "valid_acc", "epoch_time", "memory_mb"} <= set(hist[0])
    assert hist[-1]["train_loss"] < hist[0]["train_loss"]
