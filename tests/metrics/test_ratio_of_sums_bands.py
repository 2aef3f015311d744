"""Ratio-panel bands with the working points' error: the ratio-of-sums error of the efficiency
(hep.ratio_error) from the selected sum w^2 at the grid point (metrics.curvesums), checked on
hand-worked toys with negative weights and by coverage against the class's-N_eff binomial."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.jobs.comparison import Side
from pnetviz.metrics import folds, hep
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics import curvesums
from pnetviz.metrics.curvesums import curve_sums
from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.roc import binary_clf_curve


def _toy(sig_scores, sig_w, bkg_scores, bkg_w):
    scores = np.r_[sig_scores, bkg_scores].astype(float)
    is_signal = np.r_[np.ones(len(sig_scores), bool), np.zeros(len(bkg_scores), bool)]
    w = np.r_[sig_w, bkg_w].astype(float)
    curve = binary_clf_curve(scores, is_signal, w)
    return curve, curve_sums(curve, scores, is_signal, w), BinarySample(scores, is_signal, w, w)


# ROC toy, a negative signal weight. signal: scores .9 .8 .6 .3, weights 2 -0.5 1 1.5 (sum w 4,
# sum w^2 7.5); background: .8 .5, weights 1 2 (tied with the signal at .8). Points (thresholds
# +inf .9 .8 .6 .5 .3): tpr 0 .5 .375 .625 .625 1, fpr 0 0 1/3 1/3 1 1, signal selected w^2
# 0 4 4.25 5.25 5.25 7.5.
ROC_TOY = ([0.9, 0.8, 0.6, 0.3], [2.0, -0.5, 1.0, 1.5], [0.8, 0.5], [1.0, 2.0])
# Rejection toy, a negative background weight. signal: .9 .6 .4, weights 1 1 2; background: .8 .7
# .5 .4, weights 2 -0.5 1.5 1 (sum w 4, sum w^2 7.5; tied with the signal at .4). Points (+inf .9 .8
# .7 .6 .5 .4): tpr 0 .25 .25 .25 .5 .5 1, fpr 0 0 .5 .375 .375 .75 1, background selected w^2
# 0 0 4 4.25 4.25 6.5 7.5.
REJECTION_TOY = ([0.9, 0.6, 0.4], [1.0, 1.0, 2.0], [0.8, 0.7, 0.5, 0.4], [2.0, -0.5, 1.5, 1.0])
REJECTION_TOY_EVENTS = (np.r_[REJECTION_TOY[0], REJECTION_TOY[2]], np.r_[[True] * 3, [False] * 4],
                        np.r_[REJECTION_TOY[1], REJECTION_TOY[3]])  # scores, is_signal, weights


def test_curve_sums_by_hand(monkeypatch):
    curve, sums, _ = _toy(*REJECTION_TOY)
    np.testing.assert_allclose(sums.background.pass_w2, [0, 0, 4, 4.25, 4.25, 6.5, 7.5])
    np.testing.assert_allclose(sums.signal.pass_w2, [0, 1, 1, 1, 2, 2, 6])
    assert (sums.background.total_w, sums.background.total_w2, sums.signal.total_w, sums.signal.total_w2) == (4, 7.5, 4, 6)
    float32 = curve_sums(binary_clf_curve(np.float32([0.1, 0.3, 0.3]), [1, 0, 1], [1.0, 2.0, 3.0]),
                         np.float32([0.1, 0.3, 0.3]), [1, 0, 1], [1.0, 2.0, 3.0])  # fmt: skip
    np.testing.assert_allclose(float32.signal.pass_w2, [0, 9, 10])  # float32 scores: ties kept, thresholds matched exactly
    np.testing.assert_allclose(float32.background.pass_w2, [0, 4, 4])
    some = curve_sums(curve, *REJECTION_TOY_EVENTS, points=[5, 3, 3])  # only the points a grid reads: NaN elsewhere
    np.testing.assert_allclose(some.background.pass_w2, [np.nan, np.nan, np.nan, 4.25, np.nan, 6.5, np.nan])
    monkeypatch.setattr(curvesums, "CHUNK", 2)  # the events binned two at a time: the same sums
    chunked = curve_sums(curve, *REJECTION_TOY_EVENTS)
    np.testing.assert_allclose(chunked.background.pass_w2, sums.background.pass_w2, rtol=1e-15)
    np.testing.assert_allclose(chunked.signal.pass_w2, sums.signal.pass_w2, rtol=1e-15)
    assert (chunked.background.total_w, chunked.background.total_w2) == (4, 7.5)
    grid = folds.grid_sums(curve, *REJECTION_TOY_EVENTS, fpr_grid=np.array([0.875]), eff_grid=np.array([0.5]))
    np.testing.assert_allclose(grid.background.pass_w2, [np.nan, np.nan, np.nan, 4.25, 4.25, 6.5, 7.5])  # eps_s .5: 3, 4; fpr .875: 5, 6


def test_roc_ratio_band_is_the_ratio_of_sums_error():
    curve, sums, sample = _toy(*ROC_TOY)
    r = folds.roc_ratio(curve, curve, sums, grid=np.array([1 / 3, 1 / 6]))
    # fpr 1/3: the cut s >= .6, tpr 2.5/4 = .625, selected w^2 4 + .25 + 1 = 5.25, the rest 2.25
    at_cut = math.sqrt(0.375**2 * 5.25 + 0.625**2 * 2.25) / 4
    # fpr 1/6: halfway between the points of .9 (tpr .5, w^2 4) and .8 (tpr .375, w^2 4.25)
    between = math.sqrt(0.5625**2 * 4.125 + 0.4375**2 * 3.375) / 4
    np.testing.assert_allclose(r.ratio, [1.0, 1.0])
    np.testing.assert_allclose(r.high - r.ratio, [at_cut / 0.625, between / 0.4375], rtol=1e-12)
    np.testing.assert_allclose(r.ratio - r.low, r.high - r.ratio, rtol=1e-12)
    err_s, _ = wp.efficiency_errors(sample, 0.6, (0.625, 1 / 3))  # the working point's error at the same cut
    assert at_cut == pytest.approx(err_s, rel=1e-12)


def test_rejection_ratio_band_is_the_ratio_of_sums_error():
    curve, sums, sample = _toy(*REJECTION_TOY)
    r = folds.rejection_ratio(curve, curve, sums, grid=np.array([0.5, 0.75]))
    # eps_s .5: the cut s >= .6, eps_b 1.5/4 = .375, selected w^2 4 + .25 = 4.25, the rest 3.25
    at_cut = math.sqrt(0.625**2 * 4.25 + 0.375**2 * 3.25) / 4
    # eps_s .75: halfway between the points of .5 (eps_b .75, w^2 6.5) and .4 (eps_b 1, w^2 7.5)
    between = math.sqrt(0.125**2 * 7.0 + 0.875**2 * 0.5) / 4
    np.testing.assert_allclose(r.ratio, [1.0, 1.0])
    np.testing.assert_allclose(np.log(r.high), [at_cut / 0.375, between / 0.875], rtol=1e-12)  # log space
    np.testing.assert_allclose(np.log(r.low), -np.log(r.high), rtol=1e-12)
    _, err_b = wp.efficiency_errors(sample, 0.6, (0.5, 0.375))
    assert at_cut == pytest.approx(err_b, rel=1e-12)


def test_comparison_sides_carry_the_working_points_error():
    """The comparison job's bands (Side.banded) on the common grids: at eps_s = 0.5 the rejection
    toy's cut s >= .6, the working point's eps_b error."""
    _, _, sample = _toy(*REJECTION_TOY)
    side = Side(sample.scores, sample.is_signal, sample.weights, sample.used, None)
    banded = side.banded(side.curve())
    k = int(np.argmin(np.abs(folds.EFF_GRID - 0.5)))
    assert banded.eps_b_error.shape == folds.EFF_GRID.shape and banded.tpr_error.shape == folds.FPR_GRID.shape
    assert banded.eps_b_error[k] == pytest.approx(wp.efficiency_errors(sample, 0.6, (0.5, 0.375))[1], rel=1e-12)


def _coverage(fluctuated: str, toys: int = 2000) -> tuple[float, float]:
    """Fraction of Poisson toys whose ratio band (to the exact curve) holds 1, ratio-of-sums and
    binomial-with-N_eff bands. The fluctuated class: a light process (weight 1, 3000 events, 5%
    pass) and a heavy one (weight 20, 60 events, 60% pass); the other class is two fixed events
    (scores 1 and 0), so the grid point (0.5) is the cut s >= 1 in every toy."""
    rng = np.random.default_rng(11)
    light, heavy = 3000, 60
    true = (0.05 * light + 0.6 * heavy * 20) / (light + heavy * 20)
    fixed = np.array([1.0, 0.0])
    grid = np.array([0.5])
    signal_first = fluctuated == "signal"
    # the exact curve: the fluctuated class as two events of weights eps and 1 - eps
    exact = binary_clf_curve(np.r_[1.0, 0.0, fixed], np.r_[[signal_first] * 2, [not signal_first] * 2], np.r_[true, 1 - true, 1, 1])
    covered = np.zeros(2)
    for _ in range(toys):
        n_l, n_h = rng.poisson(light), rng.poisson(heavy)
        passing = np.r_[rng.random(n_l) < 0.05, rng.random(n_h) < 0.6].astype(float)
        w = np.r_[np.ones(n_l), np.full(n_h, 20.0), 1.0, 1.0]
        scores, is_signal = np.r_[passing, fixed], np.r_[np.full(passing.size, signal_first), np.full(2, not signal_first)]
        curve = binary_clf_curve(scores, is_signal, w)
        sums = curve_sums(curve, scores, is_signal, w)
        n_eff = hep.effective_events(w[:-2])
        if signal_first:
            tpr = folds.tpr_on_grid(curve, grid)
            bands = (folds.roc_ratio(curve, exact, sums, grid), folds.roc_ratio(curve, exact, hep.binomial_error(tpr, n_eff), grid))
        else:
            eps_b = folds.eps_b_on_grid(curve, grid)
            bands = (folds.rejection_ratio(curve, exact, sums, grid),
                     folds.rejection_ratio(curve, exact, hep.binomial_error(eps_b, n_eff), grid))  # fmt: skip
        covered += [float(b.low[0] <= 1.0 <= b.high[0]) for b in bands]
    return covered[0] / toys, covered[1] / toys


@pytest.mark.parametrize("fluctuated", ["signal", "background"])
def test_bands_cover_as_the_working_points(fluctuated):
    """The working points' coverage toy (tests/metrics/test_workingpoints.py: 0.65-0.71) for the
    ROC-ratio band (signal fluctuated) and the rejection-ratio band (background fluctuated): the
    ratio-of-sums band holds the exact ratio 1 in about 68% of the toys, the binomial with the
    class's N_eff (the bands before) in about 45%."""
    ratio_of_sums, binomial = _coverage(fluctuated)
    assert 0.64 <= ratio_of_sums <= 0.72
    assert binomial < 0.55
