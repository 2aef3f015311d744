"""What a BinaryCurve holds per point (issue 55's memory target), and that its compact forms keep
every value: float32 thresholds cut the same events, released rates and scalar lookups equal the
kept rate arrays bit for bit, the in-place precision-recall curve equals the derived one."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.metrics.hep import at_threshold
from pnetviz.metrics.roc import _precision, binary_clf_curve, precision_recall


def continuous_toy(n: int, seed: int, signed: bool = False):
    """Float32 scores with nearly one distinct value per event (one point per event: the worst case)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = rng.beta(2 + 3 * y, 5 - 3 * y).astype(np.float32)
    w = rng.exponential(1.0, n)
    if signed:
        w[::9] *= -1
    return s, y, w


def held_bytes(curve) -> int:
    """Bytes of every array the curve holds (fields and its cache)."""
    arrays = [curve.thresholds, curve.tps, curve.fps, *(v for v in vars(curve).values() if isinstance(v, np.ndarray))]
    return sum(a.nbytes for a in {id(a): a for a in arrays}.values())


def test_curve_of_float32_scores_holds_20_bytes_a_point_and_36_with_its_rates():
    s, y, w = continuous_toy(200_000, 1)
    curve = binary_clf_curve(s, y, w)
    points = curve.tps.size
    assert points > 0.99 * s.size  # continuous scores: a point per event
    assert curve.thresholds.dtype == np.float32
    assert held_bytes(curve) <= 20 * points + 64
    tpr, fpr = curve.tpr.copy(), curve.fpr.copy()
    assert held_bytes(curve) <= 36 * points + 64  # rates kept after their first use
    curve.release_rates()
    assert held_bytes(curve) <= 20 * points + 64
    assert curve.tpr.tobytes() == tpr.tobytes() and curve.fpr.tobytes() == fpr.tobytes()
    assert held_bytes(curve) <= 20 * points + 64  # computed at each use, not kept again
    f64 = binary_clf_curve(s.astype(np.float64), y, w)  # float64 scores: float64 thresholds, the same values
    assert f64.thresholds.dtype == np.float64
    np.testing.assert_array_equal(f64.thresholds, curve.thresholds)


@pytest.mark.parametrize("signed", [False, True])
def test_scalar_lookups_equal_the_rate_arrays_and_float64_cuts(signed):
    s, y, w = continuous_toy(20_000, 2, signed)
    s[:50] = np.float32(0.57)  # a score just below the float64 cut 0.57: not selected by s >= 0.57
    assert float(np.float32(0.57)) < 0.57
    curve = binary_clf_curve(s, y, np.abs(w) if not signed else w)
    thr64 = curve.thresholds.astype(np.float64)
    cuts = [0.57, float(np.float32(0.57)), 0.0, 1.0, 0.3, float(curve.thresholds[17]), -1.0, 2.0, np.inf]
    for cut in cuts:
        k = int(np.searchsorted(-thr64, -cut, side="right")) - 1
        assert curve.point_at(cut) == k
        assert at_threshold(curve, cut) == (float(curve.tpr[k]), float(curve.fpr[k]))
    selected = s.astype(np.float64) >= 0.57
    used = np.abs(w) if not signed else w
    assert at_threshold(curve, 0.57)[0] == pytest.approx(used[y & selected].sum() / used[y].sum(), rel=1e-12)
    curve.release_rates()
    for k in (0, 1, 500, curve.tps.size - 1):
        assert curve.rates_at(k) == (float(curve.tpr[k]), float(curve.fpr[k]))
    chunks = list(curve.rate_chunks(size=4096))
    assert len(chunks) == -(-curve.tps.size // 4096)
    assert np.concatenate([t for t, _ in chunks]).tobytes() == curve.tpr.tobytes()
    assert np.concatenate([f for _, f in chunks]).tobytes() == curve.fpr.tobytes()


def test_precision_recall_in_place_equals_the_derived_curve():
    s, y, w = continuous_toy(50_000, 3)
    w[::4] = 0.0
    curve = binary_clf_curve(s, y, w)
    pr = precision_recall(curve)
    precision = np.r_[_precision(curve)[::-1], 1.0]
    recall = np.r_[(curve.tps[1:] / curve.total_signal)[::-1], 0.0]
    assert pr.precision.tobytes() == precision.tobytes() and pr.recall.tobytes() == recall.tobytes()
    np.testing.assert_array_equal(pr.thresholds, curve.thresholds[:0:-1])
