"""The GA search's numbers against hand computations: the trainer's fitness rule, the best model
over all iterations, duplicates, the trainer's different choice; the KS grid against scipy and
the LR AUC against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score

from pnetviz.demo.ga import ToyModel, ToyRun, write_run
from pnetviz.io import ga as gaio
from pnetviz.io.ga import SplitPredictions
from pnetviz.metrics import ga

A = (64, "Adam", 0.0002, 2e-05, "ReduceLROnPlateau")
B = (96, "RMSprop", 0.001, 0.0001, "CyclicLR")
C = (128, "Adam", 0.0009, 2e-05, "ExponentialLR")

# Hand-worked: fitness = valid[e*] + 0.3 max(0, valid[e*] - train[e*]), e* = argmin valid
ITER0 = [ToyModel(A, [1.2, 0.95, 0.97], [1.1, 0.90, 0.85], trainer_fitness=0.95),  # 0.95 + 0.3*0.05 = 0.965; csv says 0.95
         ToyModel(B, [1.0, 0.90, 0.92, 0.93], [0.95, 0.80, 0.7, 0.6]),  # 0.90 + 0.3*0.10 = 0.93
         ToyModel(C, [1.1, 0.92], [1.0, 0.95])]  # gap -0.03: no penalty, 0.92 <- best of all
ITER1 = [ToyModel(C, [1.0, 0.94, 0.95], [0.9, 0.92, 0.9]),  # survivor retrained: 0.94 + 0.3*0.02 = 0.946
         ToyModel(B, [0.99, 0.93], [0.9, 0.88]),  # 0.93 + 0.3*0.05 = 0.945
         ToyModel(C, [0.97, 0.935], [0.9, 0.935])]  # duplicate of model0; gap 0: 0.935 <- best of the final population
HAND = {(0, 0): 0.965, (0, 1): 0.93, (0, 2): 0.92, (1, 0): 0.946, (1, 1): 0.945, (1, 2): 0.935}


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    root = tmp_path_factory.mktemp("ga") / "GAOptim_bjets"
    run_dir = write_run(root, ToyRun("Run3Mu", "MHc100_MA95", [ITER0, ITER1], schemas=(None, None)))
    run = gaio.read_run(run_dir, "Run3Mu", "MHc100_MA95")
    return run, ga.evaluate(run)


def test_fitness_rule_by_hand():
    f = ga.model_fitness({"valid_loss": np.array([1.0, 0.8, 0.85]), "train_loss": np.array([0.9, 0.7, 0.6])}, "loss/valid", 0.3)
    assert f["fitness"] == pytest.approx(0.83) and f["best_epoch"] == 1 and f["train_valid_gap"] == pytest.approx(0.1)
    no_gap = ga.model_fitness({"valid_loss": np.array([0.9, 0.7]), "train_loss": np.array([0.8, 0.75])}, "loss/valid", 0.3)
    assert no_gap["fitness"] == pytest.approx(0.7) and no_gap["penalty_term"] == 0.0
    off = ga.model_fitness({"valid_loss": np.array([1.0, 0.8, 0.85]), "train_loss": np.array([0.9, 0.7, 0.6])}, "loss/valid", 0.0)
    assert off["fitness"] == pytest.approx(0.8)
    # the real example of GA-FORMAT.md: 0.957144 + 0.3 (0.957144 - 0.926303) = 0.966396
    real = ga.model_fitness({"valid_loss": np.array([1.1, 0.957144]), "train_loss": np.array([1.0, 0.926303])}, "loss/valid", 0.3)
    assert real["fitness"] == pytest.approx(0.9663963)


def test_every_model_and_the_best_over_all_iterations(evaluated):
    _, ev = evaluated
    got = {(r["iteration"], r["index"]): r["fitness"] for r in ev["models"]}
    assert got == pytest.approx(HAND)
    best = ev["best"]
    assert (best["iteration"], best["model"], best["fitness"]) == (0, "model2", pytest.approx(0.92))
    assert tuple(best["chromosome"]) == C and best["genes"]["initLR"] == 0.0009
    assert [b["model"] for b in ev["best_per_iteration"]] == ["model2", "model2"]
    assert [(s["fitness"], s["from_iteration"]) for s in ev["best_so_far"]] == [(pytest.approx(0.92), 0), (pytest.approx(0.92), 0)]
    assert sorted(r["rank"] for r in ev["models"]) == list(range(1, 7))


def test_trainer_choice_is_flagged(evaluated):
    tc = evaluated[1]["trainer_choice"]
    assert tc["model"] == "model2" and tc["iteration"] == 1 and tc["fitness"] == pytest.approx(0.935)
    assert tc["names_a_different_model"] and not tc["same_as_best"]
    assert "GA-iter0/model2 has fitness 0.920000" in tc["note"] and "same chromosome, retrained" in tc["note"]


def test_duplicates_and_disagreements(evaluated):
    _, ev = evaluated
    assert ev["duplicates"] == [{"iteration": 1, "models": ["model0", "model2"], "chromosome": list(C),
                                 "fitness": [pytest.approx(0.946), pytest.approx(0.935)]}]  # fmt: skip
    rows = {(r["iteration"], r["index"]): r for r in ev["models"]}
    assert rows[(1, 2)]["duplicate_of"] == "model0" and rows[(1, 0)]["duplicate_of"] is None
    assert {tuple(r["chromosome"]) for r in ev["repeated_across_iterations"]} == {B, C}
    assert [(d["iteration"], d["model"]) for d in ev["fitness_disagreements"]] == [(0, "model0")]
    assert ev["fitness_disagreements"][0]["difference"] == pytest.approx(0.015)
    assert rows[(0, 1)]["fitness_disagrees"] is False


def test_gene_scales():
    assert ga.gene_scale("initLR", [0.0002, 0.0009]) == "log"
    assert ga.gene_scale("nNodes", [64, 128]) == "category"
    assert ga.gene_scale("optimizer", ["Adam"]) == "category"
    assert ga.gene_scale("gene7", [0.2, 0.3]) == "linear"


def toy_predictions(n: int, classes: int, seed: int) -> dict[str, SplitPredictions]:
    rng = np.random.default_rng(seed)
    out = {}
    for split in ("train", "test"):
        label = rng.integers(0, classes, n)
        logits = 1.5 * np.eye(classes)[label] + rng.normal(size=(n, classes))
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        out[split] = SplitPredictions(label, p, rng.uniform(-0.2, 1.0, n))
    return out


def test_ks_grid_against_scipy_and_lr_auc_against_sklearn():
    preds = toy_predictions(600, 4, 3)
    classes = ("signal", "nonprompt", "diboson", "ttX")
    equal = {s: SplitPredictions(p.label, p.scores, np.ones(p.label.size)) for s, p in preds.items()}
    grid = ga.ks_grid(equal, classes)
    for t, s in ((0, 0), (2, 1), (3, 3)):
        a, b = equal["train"].scores[equal["train"].label == t, s], equal["test"].scores[equal["test"].label == t, s]
        assert grid["statistic"][t, s] == pytest.approx(ks_2samp(a, b).statistic, abs=1e-12)
    assert grid["events"]["diboson"]["train"] == int(np.sum(preds["train"].label == 2))
    curves = ga.lr_curves(preds, classes)
    for b in (1, 3):
        sp = preds["test"]
        keep = (sp.label == 0) | (sp.label == b)
        score = sp.scores[keep, 0] / (sp.scores[keep, 0] + sp.scores[keep, b] + 1e-10)
        want = roc_auc_score(sp.label[keep] == 0, score, sample_weight=np.abs(sp.weights[keep]))
        assert curves[classes[b]]["test"].auc == pytest.approx(want, abs=1e-12)
    section, _, _ = ga.prediction_report(preds, classes, 0.05)
    assert section["ks_min_p_value"] == pytest.approx(np.nanmin(ga.ks_grid(preds, classes)["p_value"]))
