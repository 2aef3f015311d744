"""The out-of-fold pooling (metrics.outoffold) on toys: the pooled AUC is scikit-learn's on the
concatenated test events (|w|), the rejection intervals come from the same bootstrap kernel as the
per-fold ones, the guard is checked again on the pooled test events with hand-worked violations,
the choice guard's closed form for copies, the expected-yield scale, and K and the edges chosen
without the test events (an independent test split changes neither, per fold and pooled)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from pnetviz.metrics import binning as bn
from pnetviz.metrics import fitbinning as fb
from pnetviz.metrics import hep
from pnetviz.metrics import outoffold as oof


def toy_split(n: int, seed: int, separation: float = 1.2) -> oof.Split:
    rng = np.random.default_rng(seed)
    is_signal = rng.random(n) < 0.35
    x = rng.normal(np.where(is_signal, separation, 0.0), 1.0)
    scores = 1.0 / (1.0 + np.exp(-x))
    weights = rng.uniform(0.2, 2.0, n) * np.where(rng.random(n) < 0.05, -1.0, 1.0)
    return oof.Split(scores, is_signal, np.abs(weights))


def fold_pairs(k: int = 4, n: int = 1500, choice: str = "valid", expected=None, seed: int = 0) -> dict[int, oof.FoldPair]:
    return {f: oof.FoldPair(toy_split(n, seed + 10 * f), toy_split(n, seed + 10 * f + 1), choice, expected) for f in range(k)}


def test_pooled_auc_equals_scikit_learn_on_the_concatenated_test_events():
    folds = fold_pairs()
    pooled = oof.pool(folds)
    doc, curve = oof.evaluate(pooled, replicas=50, binning=False)
    s = np.concatenate([folds[f].test.scores for f in sorted(folds)])
    y = np.concatenate([folds[f].test.is_signal for f in sorted(folds)])
    w = np.concatenate([folds[f].test.weights for f in sorted(folds)])
    assert doc["events"] == sum(p.test.size for p in folds.values()) == s.size
    assert doc["folds"] == [0, 1, 2, 3] and doc["fold_events"] == {str(f): 1500 for f in range(4)}
    assert doc["auc"] == pytest.approx(roc_auc_score(y, s, sample_weight=np.abs(w)), abs=1e-9)
    assert doc["signal_weight"] == pytest.approx(w[y].sum()) and doc["yields"]["kind"] == "relative"
    assert 0 < doc["auc_error"] < 0.02


def test_rejection_interval_at_half_signal_efficiency_is_the_per_fold_bootstrap_kernel():
    pooled = oof.pool(fold_pairs(k=2, n=800))
    doc, curve = oof.evaluate(pooled, replicas=60, seed=7, binning=False)
    t = pooled.test
    boot = hep.bootstrap(t.scores.astype(np.float64), t.is_signal, t.weights, 60, 7)
    at = doc["rejection"]["0.5"]
    assert at["interval"]["low"] == pytest.approx(boot.rejection_50_interval["low"], rel=1e-12)
    assert at["eps_b"] == pytest.approx(hep.background_efficiency_at(curve, 0.5))
    assert at["rejection"] == pytest.approx(1 / at["eps_b"]) and not at["lower_limit"]
    assert set(doc["rejection"]) == {f"{e:g}" for e in hep.REJECTION_EFFICIENCIES}
    # the threshold selects at least eps_s of the signal (the pooled test events)
    sel = t.scores >= at["threshold"]
    assert t.weights[sel & t.is_signal].sum() / t.weights[t.is_signal].sum() >= 0.5 - 1e-12


def test_guard_checked_again_names_each_bin_that_breaks_it():
    # background: 12 events of weight 1 below 0.5 (rel. error 1/sqrt(12) = 0.289), 4 of weight 1 above (0.5)
    scores = np.r_[np.full(12, 0.2), np.full(4, 0.7), np.full(5, 0.9)]
    is_signal = np.r_[np.zeros(16, bool), np.ones(5, bool)]
    test = fb.Events(scores, is_signal, np.ones(21), (1.0, 1.0))
    lines = oof.guard_check([0.0, 0.5, 1.0], test, bn.Constraints(10, 0.3))
    assert lines == ["bin 2 [0.5, 1): 4 background MC events < 10", "bin 2 [0.5, 1): background relative MC error 0.500 > 0.3"]
    assert oof.guard_check([0.0, 0.5, 1.0], test, bn.Constraints(4, 0.5)) == []
    assert oof.guard_check([0.0, 0.1, 0.5, 1.0], test, bn.Constraints(0, 0))[0] == "bin 1 [0, 0.1): background yield 0 <= 0"


def test_choice_constraints_for_events_counted_several_times():
    c = oof.choice_constraints(bn.Constraints(10, 0.3, 1), 4.0)
    assert (c.min_background_events, c.max_relative_error, c.min_class_events) == (40, 0.15, 4)
    # the closed form: m copies of a bin's events, relative error divided by sqrt(m)
    w = np.array([0.5, 1.0, 2.0])
    assert math.sqrt(np.sum(np.tile(w, 4) ** 2)) / np.tile(w, 4).sum() == pytest.approx(math.sqrt(np.sum(w**2)) / w.sum() / 2)
    assert oof.choice_constraints(bn.Constraints(10, 0.3), 0.5) == bn.Constraints(10, 0.3)


def test_expected_yields_scale_each_class_of_the_pooled_test_events():
    pooled = oof.pool(fold_pairs(k=3, n=600, expected=(12.0, 300.0)))
    t = pooled.test
    s, b = t.weights[t.is_signal].sum(), t.weights[~t.is_signal].sum()
    assert pooled.scale == pytest.approx((12.0 / s, 300.0 / b))
    # each fold's test split scaled by its share: fold scale expected/W_f times share W_f/W
    per_fold = [p.test.weights[p.test.is_signal].sum() for p in fold_pairs(k=3, n=600).values()]
    assert sum(12.0 / w_f * (w_f / s) * w_f for w_f in per_fold) == pytest.approx(12.0)
    doc, _ = oof.evaluate(pooled, replicas=10)
    assert doc["yields"]["signal"] == pytest.approx(12.0) and doc["binning"]["yields"] == "expected"


def test_pooled_binning_is_chosen_without_the_test_events():
    folds = fold_pairs(k=3, n=2000)
    other = {f: oof.FoldPair(toy_split(2000, 500 + f), p.choice, p.choice_split) for f, p in folds.items()}
    docs = [oof.evaluate(oof.pool(x), replicas=10)[0]["binning"] for x in (folds, other)]
    assert docs[0]["chosen_on"] == docs[1]["chosen_on"] == "valid"
    assert docs[0]["edges"] == docs[1]["edges"] and docs[0]["chosen_k"] == docs[1]["chosen_k"] is not None
    assert len(docs[0]["edges"]) == docs[0]["chosen_k"] + 1
    assert docs[0]["value"] != docs[1]["value"]  # judged on the test events: those differ


def test_training_splits_chosen_on_with_the_guard_scaled_by_their_multiplicity():
    folds = {f: oof.FoldPair(toy_split(1000, f), toy_split(3000, 100 + f), "train") for f in range(4)}
    doc, _ = oof.evaluate(oof.pool(folds), replicas=10)
    b = doc["binning"]
    assert b["chosen_on"] == "train" and b["choice_multiplicity"] == pytest.approx(3.0)
    assert b["constraints_on_choice"]["min_background_events"] == pytest.approx(30.0)
    with pytest.raises(ValueError, match="different splits"):
        oof.pool({0: folds[0], 1: oof.FoldPair(folds[1].test, folds[1].choice, "valid")})


def test_per_fold_binning_chooses_k_on_train_not_on_test():
    train, test = toy_split(4000, 1), toy_split(4000, 2)
    independent = toy_split(4000, 3)
    events = [fb.Events(s.scores, s.is_signal, s.weights, (1.0, 1.0)) for s in (train, test, independent)]
    a, b = fb.pair_binning(events[0], events[1], k_max=10), fb.pair_binning(events[0], events[2], k_max=10)
    assert a["chosen_on"] == b["chosen_on"] == "train" and a["chosen_k"] == b["chosen_k"]
    row = lambda d: next(r for r in d["by_k"] if r["k"] == d["chosen_k"])  # noqa: E731
    assert row(a)["edges"] == row(b)["edges"]
    top = max(r["train"] for r in a["by_k"])
    assert a["chosen_k"] == min(r["k"] for r in a["by_k"] if r["train"] >= top - 0.01 * abs(top))
