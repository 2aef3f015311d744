"""metrics.summaries: integer sums exact for float32 weights, a 4-way split-and-merge bit-identical
to one pass, and the ROC/AUC of a summary equal to the in-memory exact ROC."""

from fractions import Fraction

import numpy as np
import pytest

from pnetviz.errors import InputError
from pnetviz.metrics import summaries as sm
from pnetviz.metrics.roc import binary_clf_curve


def events(n, seed):
    rng = np.random.default_rng(seed)
    scores = rng.random(n).astype(np.float32)
    scores[: n // 3] = np.round(scores[: n // 3] * 500) / 500  # ties
    scores[0] = -0.0
    is_signal = rng.random(n) < 0.35
    weights = rng.normal(1.0, 0.6, n).astype(np.float32)  # some negative
    weights[:5] = [2.0**-16, -(2.0**22), 3e-3, 0.0, 1e4]
    return scores, is_signal, weights


def test_limbs_hold_float32_weights_and_their_squares_exactly():
    _, _, w = events(2000, 1)
    w = w.astype(float)
    for values in (w, w * w):
        parts = sm.limbs(values)
        exact = sum(Fraction(float(v)) for v in values)
        total = sum(int(p) << (32 * k) for row in parts.tolist() for k, p in enumerate(row))
        assert Fraction(total, 2**sm.UNIT_BITS) == exact  # no rounding anywhere
        assert ((parts[:, :-1] >= 0) & (parts[:, :-1] < 2**32)).all()


def test_four_way_split_and_merge_is_bit_identical_to_one_pass():
    scores, is_signal, weights = events(40000, 2)
    whole = sm.of_events(scores, is_signal, weights)
    rng = np.random.default_rng(3)
    perm = rng.permutation(scores.size)  # events in another order, cut at uneven places
    cuts = np.split(perm, [3000, 17000, 17001])
    parts = [sm.of_events(scores[c], is_signal[c], weights[c]) for c in cuts]
    assert sm.merge(*parts).equals(whole)
    assert sm.merge(parts[2], sm.merge(parts[3], parts[0]), parts[1]).equals(whole)
    chained = sm.ScoreSummary.empty()
    for c in cuts[::-1]:
        chained = chained.add(scores[c], is_signal[c], weights[c])
    assert chained.equals(whole)
    # not a test that cannot fail: one event's weight changed by one float32 ulp changes the summary
    nudged = weights.copy()
    nudged[7] = np.nextafter(nudged[7], np.float32(10))
    assert not sm.of_events(scores, is_signal, nudged).equals(whole)


def test_counts_and_sums_per_score():
    s = np.array([0.5, 0.25, 0.5, 0.5, -0.0, 0.0], np.float32)
    sig = np.array([True, False, False, True, True, False])
    w = np.array([1.5, 2.0, -0.5, 0.25, 1.0, 3.0], np.float32)  # every weight nonzero
    summary = sm.of_events(s, sig, w)
    assert summary.keys.tolist() == [0.0, 0.25, 0.5]
    assert summary.events.tolist() == [[1, 1, 2], [0, 1, 1], [2, 1, 3]]
    assert summary.column("signal_w").tolist() == [1.0, 0.0, 1.75]
    assert summary.column("signal_w2").tolist() == [1.0, 0.0, 1.5**2 + 0.25**2]
    assert summary.column("background_w").tolist() == [3.0, 2.0, -0.5]
    assert summary.column("background_w2").tolist() == [9.0, 4.0, 0.25]


@pytest.mark.parametrize("n", [1000, 200000])
def test_auc_and_curve_equal_the_in_memory_roc(n):
    scores, is_signal, weights = events(n, 4)
    w = np.abs(weights)  # the default weight mode
    curve = binary_clf_curve(scores, is_signal, w)
    parts = [sm.of_events(scores[i::4], is_signal[i::4], w[i::4]) for i in range(4)]
    streamed = sm.roc(sm.merge(*parts))
    assert abs(streamed.auc - curve.auc) < 1e-12
    assert streamed.tps.size == curve.tps.size  # a point per distinct score, as in memory
    np.testing.assert_allclose(streamed.tps, curve.tps, rtol=1e-13, atol=1e-9)
    np.testing.assert_allclose(streamed.fps, curve.fps, rtol=1e-13, atol=1e-9)
    assert np.array_equal(streamed.thresholds[1:], curve.thresholds[1:])


def test_weights_outside_the_range_and_nan_scores_are_refused():
    with pytest.raises(InputError, match=r"weight 1\.67772e\+07 is outside"):
        sm.of_events(np.array([0.1, 0.2], np.float32), np.array([True, False]), np.array([1.0, 2.0**24]))
    with pytest.raises(InputError, match="NaN score"):
        sm.of_events(np.array([np.nan], np.float32), np.array([True]), np.array([1.0]))


def test_coarse_keys_merge_bit_identically_and_bound_the_auc():
    rng = np.random.default_rng(8)
    n = 60000
    is_signal = rng.random(n) < 0.4
    scores = (1 / (1 + np.exp(-rng.normal(np.where(is_signal, 0.7, -0.7), 1.0)))).astype(np.float32)  # continuous
    w = rng.uniform(0.2, 2.0, n).astype(np.float32)
    exact = sm.of_events(scores, is_signal, w)
    coarse = sm.of_events(scores, is_signal, w, drop_bits=12)  # 11 mantissa bits: many events per key
    assert coarse.keys.size < exact.keys.size / 5
    parts = [sm.of_events(scores[i::4], is_signal[i::4], w[i::4], drop_bits=12) for i in range(4)]
    assert sm.merge(*parts).equals(coarse)
    truth = binary_clf_curve(scores, is_signal, w).auc
    bound = sm.auc_bound(coarse)
    assert sm.auc_bound(exact) == 0.0 and 0 < abs(sm.roc(coarse).auc - truth) <= bound < 1e-3
    assert sm.auc_bound(coarse, nonnegative=False) >= bound  # the Cauchy-Schwarz bound is looser
    assert np.array_equal(sm.key_scores(coarse.keys, 12), coarse.keys) and np.all(sm.key_scores(scores, 12) <= scores)  # toward 0
    with pytest.raises(ValueError, match="drop_bits"):
        sm.merge(exact, coarse)


def test_histograms_and_fine_bins_equal_the_in_memory_ones():
    from pnetviz.metrics import binning
    from pnetviz.metrics.evaluate import binned_sums

    scores, is_signal, weights = events(30000, 9)
    w = np.abs(weights).astype(float)
    summary = sm.of_events(scores, is_signal, w)
    sums = sm.binned(summary)
    for name, sel in (("signal", is_signal), ("background", ~is_signal)):
        for got, want in zip(sums[name], binned_sums(scores[sel], w[sel]), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    edges = binning.fine_edges(scores, is_signal, w, 200)
    assert np.array_equal(sm.fine_edges(summary, 200), edges)
    fine, memory = sm.fine_bins(summary, edges), binning.fill(edges, scores, is_signal, w)
    for a, b in ((fine.s, memory.s), (fine.b, memory.b), (fine.nb, memory.nb), (fine.w2, memory.w2)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
