"""The exact weighted ROC core against scikit-learn, closed forms and hand-worked examples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score, roc_curve

from pnetviz.metrics.roc import SingleClassError, average_precision, binary_clf_curve, decimate, precision_recall, roc_auc
from pnetviz.rootenv import compiled


def weighted_toy(n: int, seed: int, dtype=np.float32, decimals: int = 2):
    """Gaussian scores rounded to create many ties, exponential weights, 30% signal."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(y * 1.2, 1.0), decimals).astype(dtype)
    w = rng.exponential(1.0, n)
    return s, y, w


def assert_matches_sklearn(s, y, w):
    curve = binary_clf_curve(s, y, w)
    fpr, tpr, thr = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(curve.fpr, fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(curve.tpr, tpr, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(curve.thresholds[1:], thr[1:])
    assert curve.thresholds[0] == np.inf
    assert abs(curve.auc - roc_auc_score(y, s, sample_weight=w)) < 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,seed", [(50, 0), (5000, 1), (200_000, 2)])
def test_random_weighted_with_ties_equals_sklearn(n, seed, dtype):
    assert_matches_sklearn(*weighted_toy(n, seed, dtype))


def test_float64_scores_do_not_collapse_into_float32_ties():
    # Distinct in float64, equal in float32: the f64 path must keep them apart.
    s = np.array([0.5, 0.5 + 1e-12, 0.5 + 2e-12, 0.2])
    y = np.array([0, 1, 0, 1])
    assert_matches_sklearn(s, y, np.ones(4))
    assert len(binary_clf_curve(s, y).thresholds) == 5


def test_hand_worked_mann_whitney_example():
    # Signal (0.9, w=1), (0.5, w=2); background (0.5, w=1), (0.1, w=3).
    # Pairs: 1*1 + 1*3 + 2*1*(1/2 tie) + 2*3 = 11 of W+ W- = 3*4 = 12.
    s = np.array([0.9, 0.5, 0.5, 0.1])
    y = np.array([1, 1, 0, 0])
    w = np.array([1.0, 2.0, 1.0, 3.0])
    curve = binary_clf_curve(s, y, w)
    np.testing.assert_allclose(curve.fpr, [0, 0, 0.25, 1])
    np.testing.assert_allclose(curve.tpr, [0, 1 / 3, 1, 1])
    assert curve.auc == pytest.approx(11 / 12, abs=1e-15)


def test_auc_equals_weighted_mann_whitney_double_sum():
    s, y, w = weighted_toy(600, 7, np.float64, decimals=1)
    ss, ws = s[y], w[y]
    sb, wb = s[~y], w[~y]
    pair = (ss[:, None] > sb[None, :]) + 0.5 * (ss[:, None] == sb[None, :])
    mann_whitney = np.sum(ws[:, None] * wb[None, :] * pair) / (ws.sum() * wb.sum())
    assert roc_auc(s, y, w) == pytest.approx(mann_whitney, abs=1e-12)


@pytest.mark.parametrize(
    "s,y,expected_auc",
    [
        ([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1], 1.0),  # perfect
        ([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1], 0.0),  # inverted
        ([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1], 0.5),  # all tied
        ([0.0, 1.0, 1.0, 0.0, 1.0], [0, 1, 0, 1, 1], None),  # scores exactly 0 and 1
    ],
)
def test_sklearn_toy_cases(s, y, expected_auc):
    s, y = np.array(s), np.array(y)
    assert_matches_sklearn(s, y, np.ones(len(s)))
    if expected_auc is not None:
        assert roc_auc(s, y) == expected_auc


def test_zero_weight_events_change_nothing():
    s, y, w = weighted_toy(1000, 3)
    w0 = w.copy()
    w0[::7] = 0.0
    keep = w0 > 0
    assert_matches_sklearn(s, y, w0)
    full, kept = binary_clf_curve(s, y, w0), binary_clf_curve(s[keep], y[keep], w0[keep])
    np.testing.assert_array_equal(full.tps, kept.tps)
    np.testing.assert_array_equal(full.thresholds, kept.thresholds)


def test_integer_weights_equal_repeated_events():
    s, y, _ = weighted_toy(500, 4)
    k = np.random.default_rng(4).integers(1, 5, s.size)
    weighted = binary_clf_curve(s, y, k.astype(float))
    repeated = binary_clf_curve(np.repeat(s, k), np.repeat(y, k))
    np.testing.assert_allclose(weighted.fpr, repeated.fpr, atol=1e-14)
    np.testing.assert_allclose(weighted.tpr, repeated.tpr, atol=1e-14)
    assert weighted.auc == pytest.approx(repeated.auc, abs=1e-14)


def test_weights_scaled_by_constant_leave_curve_unchanged():
    s, y, w = weighted_toy(2000, 5)
    base, scaled = binary_clf_curve(s, y, w), binary_clf_curve(s, y, 1234.5 * w)
    np.testing.assert_allclose(base.fpr, scaled.fpr, atol=1e-13)
    assert base.auc == pytest.approx(scaled.auc, abs=1e-13)


def test_gaussian_closed_form_auc():
    # AUC = Phi(dmu / sqrt(s1^2 + s2^2)); 2e5 events per class -> stat. error ~1e-3.
    rng = np.random.default_rng(11)
    n, mu_s, sig_s, mu_b, sig_b = 200_000, 1.0, 1.2, 0.0, 0.8
    s = np.r_[rng.normal(mu_s, sig_s, n), rng.normal(mu_b, sig_b, n)]
    y = np.r_[np.ones(n), np.zeros(n)]
    expected = 0.5 * (1 + math.erf((mu_s - mu_b) / math.sqrt(sig_s**2 + sig_b**2) / math.sqrt(2)))
    assert roc_auc(s, y) == pytest.approx(expected, abs=4e-3)


@pytest.mark.parametrize("is_signal,missing", [([0, 0, 0], "signal"), ([1, 1, 1], "background")])
def test_single_class_is_a_clear_error(is_signal, missing):
    with pytest.raises(SingleClassError, match=f"there are no {missing} events"):
        binary_clf_curve(np.array([0.1, 0.5, 0.9]), np.array(is_signal))


def test_zero_total_weight_class_is_a_clear_error():
    with pytest.raises(SingleClassError, match="signal events have zero total weight"):
        binary_clf_curve(np.array([0.1, 0.5, 0.9]), np.array([1, 0, 0]), np.array([0.0, 1.0, 1.0]))


def test_precision_recall_equals_sklearn():
    s, y, w = weighted_toy(20_000, 6)
    curve = binary_clf_curve(s, y, w)
    pr = precision_recall(curve)
    precision, recall, thr = precision_recall_curve(y, s, sample_weight=w)
    np.testing.assert_allclose(pr.precision, precision, atol=1e-12)
    np.testing.assert_allclose(pr.recall, recall, atol=1e-12)
    np.testing.assert_array_equal(pr.thresholds, thr)
    assert pr.average_precision == pytest.approx(average_precision_score(y, s, sample_weight=w), abs=1e-12)
    assert average_precision(curve) == pytest.approx(pr.average_precision, abs=1e-12)


def test_decimation_keeps_shape_and_limits_points():
    s, y, w = weighted_toy(1_000_000, 8, np.float64, decimals=8)
    curve = binary_clf_curve(s, y, w)
    x, t = curve.fpr, curve.tpr
    keep = decimate(x, t)
    assert len(x) > 100_000 and len(keep) <= 2100
    assert keep[0] == 0 and keep[-1] == len(x) - 1
    # Distance of every exact point to the drawn polyline (the segment spanning it).
    seg = np.searchsorted(keep, np.arange(len(x)), side="right") - 1
    seg = np.minimum(seg, len(keep) - 2)
    ax, ay, bx, by = x[keep[seg]], t[keep[seg]], x[keep[seg + 1]], t[keep[seg + 1]]
    dx, dy = bx - ax, by - ay
    u = np.clip(((x - ax) * dx + (t - ay) * dy) / np.maximum(dx * dx + dy * dy, 1e-300), 0, 1)
    dist = np.hypot(x - ax - u * dx, t - ay - u * dy)
    assert dist.max() < 1e-3


def test_decimation_keeps_corner_before_a_jump():
    # A step curve: right 0.5 then up 1; the corner must survive.
    x = np.r_[np.linspace(0, 0.5, 1000), 0.5, 1.0]
    t = np.r_[np.zeros(1000), 1.0, 1.0]
    keep = decimate(x, t)
    assert 999 in keep


def test_sorted_runs_merge_to_the_whole_curve():
    ROOT = compiled('#include "weighted_roc.h"', "weighted_roc.h")  # the run API: cling only
    s, y, w = weighted_toy(30_000, 9, np.float64)
    lab = y.astype(np.uint8)
    h = s.size // 2
    a = ROOT.pnetviz.sort_run_f64(s[:h], w[:h], lab[:h], h)
    b = ROOT.pnetviz.sort_run_f64(s[h:], w[h:], lab[h:], s.size - h)
    merged = ROOT.pnetviz.merge_runs_f64(a, b)
    tps, fps, thr = (np.empty(s.size + 1) for _ in range(3))
    auc = np.empty(1)
    m = int(ROOT.pnetviz.sweep_run_f64(merged, tps, fps, thr, auc))
    assert auc[0] == pytest.approx(binary_clf_curve(s, y, w).auc, abs=1e-13)
    whole = binary_clf_curve(s, y, w)
    np.testing.assert_array_equal(thr[:m], whole.thresholds)
    np.testing.assert_allclose(tps[:m], whole.tps, rtol=1e-13)
    np.testing.assert_allclose(fps[:m], whole.fps, rtol=1e-13)
