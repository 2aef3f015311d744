"""The analysis' weighted likelihood ratio (--score weighted-lr, metrics.weightedlr): the
Neyman-Pearson oracle on a toy of known class densities, the equal-weights identity and the
weights' validation."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import norm

from pnetviz.errors import InputError
from pnetviz.jobs import multiweighted
from pnetviz.metrics import weightedlr
from pnetviz.metrics.roc import binary_clf_curve

CLASSES = ("signal", "nonprompt", "diboson", "ttZ")
MEANS, SIGMAS = (0.0, -2.0, 2.0, 0.0), (1.0, 1.0, 1.0, 3.0)  # class k: x ~ N(MEANS[k], SIGMAS[k])
TRUE_YIELDS = {"signal": 5.0, "nonprompt": 850.0, "diboson": 100.0, "ttZ": 50.0}


def sorted_auc(score: np.ndarray, is_signal: np.ndarray, w: np.ndarray) -> float:
    """Weighted AUC by one sort: per group of tied scores, its signal weight times the background
    weight below it plus half the tied background weight (the trapezoid through ties)."""
    order = np.argsort(-score, kind="stable")
    s, y, w = score[order], is_signal[order], w[order]
    starts = np.r_[0, np.flatnonzero(np.diff(s)) + 1]
    ws = np.add.reduceat(np.where(y, w, 0.0), starts)
    wb = np.add.reduceat(np.where(y, 0.0, w), starts)
    below = wb.sum() - np.cumsum(wb)
    return float(np.sum(ws * (below + 0.5 * wb)) / (ws.sum() * wb.sum()))


def oracle_auc(background_weights: np.ndarray) -> float:
    """The AUC of p0(x) / (p0(x) + sum_i w_i p_i(x)), signal against the true-yield background
    mixture, by quadrature of the densities on a fine grid (no events)."""
    x = np.linspace(-20.0, 20.0, 400001)
    p = np.array([norm.pdf(x, m, s) for m, s in zip(MEANS, SIGMAS)])
    true = np.array([TRUE_YIELDS[c] for c in CLASSES[1:]])
    mixture = true / true.sum() @ p[1:]
    score = p[0] / (p[0] + background_weights @ p[1:])
    return sorted_auc(np.r_[score, score], np.r_[np.ones(x.size, bool), np.zeros(x.size, bool)], np.r_[p[0], mixture])


def posterior_toy(per_class: int, seed: int) -> SimpleNamespace:
    """`per_class` events of each class (unit weights, as trained: equal class totals) and the
    model that outputs their exact posteriors P(k | x) under equal priors."""
    rng = np.random.default_rng(seed)
    label = np.repeat(np.arange(len(CLASSES)), per_class).astype(np.int32)
    x = rng.normal(np.take(MEANS, label), np.take(SIGMAS, label))
    dens = np.array([norm.pdf(x, m, s) for m, s in zip(MEANS, SIGMAS)])
    post = dens / dens.sum(axis=0)
    return SimpleNamespace(classes=CLASSES, scores={c: post[k] for k, c in enumerate(CLASSES)}, label=label,
                           weight=np.ones(label.size), path=Path("toy.root"))  # fmt: skip


def weighted_auc(preds, yields: dict | None) -> float:
    """The AUC of signal vs all backgrounds as the multi-class job evaluates it (multiweighted.samples)."""
    masks = [preds.label == k for k in range(len(CLASSES))]
    totals = {c: float(preds.weight[m].sum()) for c, m in zip(CLASSES, masks)}
    weights = weightedlr.resolve(CLASSES[1:], yields, totals, "toy.root")
    factors = weightedlr.mixture_factors(weights, totals)
    sample = multiweighted.samples(preds, preds.weight, {"test": np.ones(preds.label.size, bool)}, masks, weights,
                                   factors)[multiweighted.ALL]["test"]  # fmt: skip
    return binary_clf_curve(sample.scores, sample.is_signal, sample.used).auc


@pytest.mark.slow
def test_neyman_pearson_oracle():
    """With the true yields the weighted LR of exact posteriors is the likelihood ratio of signal vs
    the yield-weighted background mixture: its AUC is the optimum computed from the densities;
    equal weights (the unweighted score) are measurably worse, on the events and in the oracle."""
    preds = posterior_toy(250_000, seed=7)  # 10^6 events
    true = np.array([TRUE_YIELDS[c] for c in CLASSES[1:]])
    best = oracle_auc(true / true.sum())
    got = weighted_auc(preds, TRUE_YIELDS)
    assert abs(got - best) < 2e-3
    wrong_yields = {c: 1.0 for c in CLASSES}  # equal weights, the background still mixed by the true yields:
    masks = [preds.label == k for k in range(len(CLASSES))]
    mixed = preds.weight * np.r_[1.0, true / true.sum() * 3][preds.label]  # the true mixture, by hand
    weights = weightedlr.resolve(CLASSES[1:], wrong_yields, {}, "toy.root")
    equal = weightedlr.score(preds.scores["signal"], [preds.scores[c] for c in CLASSES[1:]], weights.vector)
    wrong = sorted_auc(equal, masks[0], mixed)
    assert oracle_auc(np.full(3, 1 / 3)) < best - 0.02  # the oracle of the wrong weighting: 0.852 vs 0.882
    assert wrong < got - 0.02 and abs(wrong - oracle_auc(np.full(3, 1 / 3))) < 2e-3


def test_equal_weights_identity():
    """Weights 1 give P(s) / (P(s) + sum P(b)) to the last bit; equal yields (w = 1/3 each) the same
    ROC, so the same AUC; the score's AUC equals the sort-based one."""
    preds = posterior_toy(2_000, seed=3)
    p = [preds.scores[c] for c in CLASSES]
    plain = p[0] / (p[0] + p[1] + p[2] + p[3])
    np.testing.assert_array_equal(weightedlr.score(p[0], p[1:], np.ones(3)), plain)
    w = np.random.default_rng(5).uniform(0.2, 2.0, preds.label.size)
    preds.weight = w
    is_signal = preds.label == 0
    equal = weighted_auc(preds, {c: 7.0 for c in CLASSES})
    assert equal == pytest.approx(sorted_auc(plain, is_signal, w * _equal_share(preds.label, w)), abs=1e-12)


def _equal_share(label: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per event: the factor that gives every background class the same share of the background."""
    totals = np.bincount(label, w)
    factor = np.r_[1.0, totals[1:].sum() / 3 / totals[1:]]
    return factor[label]


@pytest.mark.parametrize(("yields", "totals", "names"), [
    ({"signal": 1.0, "nonprompt": 2.0, "diboson": 3.0}, {}, "ttZ"),  # a class without a yield
    (None, {"nonprompt": 2.0, "diboson": 0.0, "ttZ": 1.0}, "diboson = 0"),  # an empty class in the ntuple
    (None, {"nonprompt": 2.0, "diboson": 1.0, "ttZ": -3.0}, "ttZ = -3"),  # signed weights summing below 0
    ({"nonprompt": 2.0, "diboson": 0.0, "ttZ": 1.0}, {}, "diboson = 0"),
])  # fmt: skip
def test_weights_refused_in_one_line(yields, totals, names):
    with pytest.raises(InputError) as err:
        weightedlr.resolve(CLASSES[1:], yields, totals, "toy.root")
    text = str(err.value)
    assert names in text and "\n" not in text and "Fix:" in text


def test_weights_normalised_and_said():
    w = weightedlr.resolve(CLASSES[1:], {"signal": 2.0, "nonprompt": 60.0, "diboson": 30.0, "ttZ": 10.0}, {}, "f.root")
    assert w.weights == pytest.approx({"nonprompt": 0.6, "diboson": 0.3, "ttZ": 0.1}, abs=1e-15)
    assert w.source == weightedlr.FROM_YIELDS and w.line() == "w: nonprompt 0.6, diboson 0.3, ttZ 0.1 (expected yields)"
    t = weightedlr.resolve(CLASSES[1:], None, {"nonprompt": 1.0, "diboson": 1.0, "ttZ": 2.0}, "f.root")
    assert t.source == weightedlr.FROM_TOTALS and list(t.weights.values()) == [0.25, 0.25, 0.5]
    assert weightedlr.mixture_factors(t, {"nonprompt": 1.0, "diboson": 1.0, "ttZ": 2.0}) == dict.fromkeys(CLASSES[1:], 1.0)
    f = weightedlr.mixture_factors(w, {"nonprompt": 1.0, "diboson": 1.0, "ttZ": 2.0})  # shares 0.6/0.3/0.1 of 4
    assert f == pytest.approx({"nonprompt": 2.4, "diboson": 1.2, "ttZ": 0.2}, rel=1e-14)
