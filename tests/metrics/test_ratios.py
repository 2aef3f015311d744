"""Ratios of curves to a reference (the lower panel of every curve comparison), by hand."""

from __future__ import annotations

import math

import numpy as np

from pnetviz.metrics import folds, hep
from pnetviz.metrics.curvesums import curve_sums
from pnetviz.metrics.roc import binary_clf_curve

# Three signal (s) and three background (b) events of unit weight, scores 6..1 in this order:
# reference s b s b s b -> ROC (0,0) (0,1/3) (1/3,1/3) (1/3,2/3) (2/3,2/3) (2/3,1) (1,1)
# curve     s s b s b b -> ROC (0,0) (0,1/3) (0,2/3) (1/3,2/3) (1/3,1) (2/3,1) (1,1)
SCORES = np.arange(6, 0, -1, dtype=float)
REFERENCE = binary_clf_curve(SCORES, np.array([1, 0, 1, 0, 1, 0], bool), np.ones(6))
CURVE = binary_clf_curve(SCORES, np.array([1, 1, 0, 1, 0, 0], bool), np.ones(6))


def test_ratio_to_reference_and_its_band():
    r = folds.ratio_to_reference(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.5, 0.3, 0.2, np.inf]),
                                 np.array([0.25, 0.3, 0.0, 0.5]), np.array([0.05, 0.03, 0.1, 0.1]))  # fmt: skip
    np.testing.assert_allclose(r.ratio[:2], [2.0, 1.0])
    np.testing.assert_allclose(r.low[:2], [2.0 - 0.2, 1.0 - 0.1])
    np.testing.assert_allclose(r.high[:2], [2.0 + 0.2, 1.0 + 0.1])
    assert np.isnan(r.ratio[2]) and np.isnan(r.ratio[3])  # reference 0, value infinite: undefined
    assert np.isnan(r.low[2]) and np.isnan(r.high[3])


def test_binomial_error_is_the_closed_form():
    np.testing.assert_allclose(hep.binomial_error(np.array([0.0, 0.5, 1.0, 0.2]), 25.0),
                               [0.0, math.sqrt(0.25 / 25), 0.0, math.sqrt(0.16 / 25)])  # fmt: skip
    assert np.isinf(hep.binomial_error(np.array([0.5]), 0.0)).all()
    assert hep.binomial_error(0.5, 4.0) == 0.25 and isinstance(hep.binomial_error(0.5, 4.0), float)  # working points
    assert math.isinf(hep.binomial_error(0.3, 0.0))  # no events: unbounded (null in the reports)


def test_roc_ratio_on_hand_made_curves():
    # at eps_b = 1/6: TPR 2/3 (curve) over 1/3 (reference); at 1/2: 1 over 2/3
    sums = curve_sums(CURVE, SCORES, np.array([1, 1, 0, 1, 0, 0], bool), np.ones(6))
    r = folds.roc_ratio(CURVE, REFERENCE, sums, grid=np.array([1 / 6, 0.5]))
    np.testing.assert_allclose(r.ratio, [2.0, 1.5])
    error = math.sqrt(2 / 3 * 1 / 3 / 3) / (1 / 3)  # unit weights: the binomial error of TPR 2/3 on 3 events, over the reference
    np.testing.assert_allclose(r.high - r.ratio, [error, 0.0], atol=1e-12)
    same = folds.roc_ratio(REFERENCE, REFERENCE, curve_sums(REFERENCE, SCORES, np.array([1, 0, 1, 0, 1, 0], bool), np.ones(6)),
                           grid=np.array([1 / 6, 0.5]))  # fmt: skip
    np.testing.assert_allclose(same.ratio, [1.0, 1.0])


def test_rejection_ratio_on_hand_made_curves():
    # eps_s = 0.9: eps_b 1/3 (curve) and 2/3 (reference): rejection 3 over 1.5; eps_s = 0.5: the
    # curve keeps no background (infinite rejection): undefined
    sums = curve_sums(CURVE, SCORES, np.array([1, 1, 0, 1, 0, 0], bool), np.ones(6))
    r = folds.rejection_ratio(CURVE, REFERENCE, sums, grid=np.array([0.5, 0.9]))
    assert np.isnan(r.ratio[0])
    np.testing.assert_allclose(r.ratio[1], 2.0)
    relative = math.sqrt(1 / 3 * 2 / 3 / 3) / (1 / 3)  # unit weights: binomial error of eps_b = 1/3 on 3 events, relative
    np.testing.assert_allclose([r.low[1], r.high[1]], [2.0 * math.exp(-relative), 2.0 * math.exp(relative)])  # log space


def test_fold_ratios_use_the_fold_spread():
    def fold(k: int, scale: float) -> folds.FoldCurves:
        return folds.FoldCurves(k, np.full(folds.FPR_GRID.size, 0.4 * scale), np.full(folds.EFF_GRID.size, 0.1 * scale), 100.0, {})

    ref = folds.aggregate([fold(0, 1.0), fold(1, 1.0)])
    agg = folds.aggregate([fold(0, 1.0), fold(1, 1.5)])  # tpr 0.4, 0.6: mean 0.5, std 0.1414
    roc, rejection = folds.fold_ratios(agg, ref)
    np.testing.assert_allclose(roc.ratio, 0.5 / 0.4)
    np.testing.assert_allclose(roc.high - roc.ratio, np.std([0.4, 0.6], ddof=1) / 0.4)
    np.testing.assert_allclose(rejection.ratio, 0.1 / 0.125)  # eps_b 0.1, 0.15: mean 0.125
    assert agg.table == {} and agg.mean == {}  # curves without scalars: nothing tabulated
