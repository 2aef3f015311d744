"""metrics.prefixsums: the rows from the sorted runs equal the full numpy.cumsum table (over the stable
argsort, as fitbinning built it before) bit for bit, the quantiles are binning.weighted_quantiles', and
the float32 search equals numpy.searchsorted on a float64 copy."""

import numpy as np
import pytest

from pnetviz.metrics import binning as bn
from pnetviz.metrics.prefixsums import BACKGROUND, SIGNAL, SortedSums


def full_table(scores, is_signal, weights, scale, classes=None):
    """The table as fitbinning built it before (one column_stack, one cumsum) and its stable order."""
    order = np.argsort(scores, kind="stable")
    sig, w = is_signal[order], np.asarray(weights, float)[order]
    cols = [np.where(sig, w * scale[0], 0.0), np.where(sig, 0.0, w * scale[1]), (~sig).astype(float),
            np.where(sig, 0.0, (w * scale[1]) ** 2)]  # fmt: skip
    if classes is not None:
        cls = classes[order]
        cols += [(~sig & (cls == c)).astype(float) for c in np.unique(cls[~sig])]
    prefix = np.zeros((sig.size + 1, len(cols)))
    np.cumsum(np.column_stack(cols), axis=0, out=prefix[1:])
    return prefix, sig


def per_class(sig_sorted, positions):
    """Merged positions (the first p events in score order) as (background, signal) counts."""
    below = np.r_[0, np.cumsum(sig_sorted)]
    return np.stack([positions - below[positions], below[positions]], axis=1)


@pytest.mark.parametrize("n", [1, 127, 5000, 70001])
@pytest.mark.parametrize("with_classes", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_equal_the_full_table_bit_for_bit(n, with_classes, dtype):
    rng = np.random.default_rng(n)
    scores = (np.round(rng.random(n) * 300) / 300).astype(dtype)  # ties
    sig = rng.random(n) < 0.4
    weights = rng.normal(1.0, 0.7, n).astype(dtype)  # negative weights too
    weights[rng.random(n) < 0.02] = 0.0
    classes = rng.integers(1, 5, n) if with_classes else None
    table = SortedSums(scores, sig, weights, (1.3, 0.07), classes)
    expected, sig_sorted = full_table(scores, sig, weights, (1.3, 0.07), classes)
    positions = np.r_[0, n, rng.integers(0, n + 1, 300)]
    if n <= 5000:
        positions = np.arange(n + 1)  # every row
    got = table.rows(per_class(sig_sorted, positions))
    assert got.shape == (positions.size, expected.shape[1])
    assert np.array_equal(got, expected[positions])  # exact, not close: the same sums in the same order
    assert np.array_equal(table.total, expected[-1])


def test_rows_sum_in_float64_from_float32_weights():
    # 2^24 + 1 is not a float32: the sums must not run in float32
    table = SortedSums(np.array([0.1, 0.2, 0.3], np.float32), np.ones(3, bool), np.array([2.0**24, 1.0, 1.0], np.float32),
                       (1.0, 1.0))  # fmt: skip
    assert table.rows(np.array([[0, 2], [0, 3]]))[:, 0].tolist() == [2.0**24 + 1, 2.0**24 + 2]


def test_a_split_of_one_class_has_empty_rows_of_the_other():
    table = SortedSums(np.array([0.3, 0.1], np.float32), np.ones(2, bool), np.array([1.0, 2.0]), (0.5, 1.0))
    assert table.n.tolist() == [0, 2]
    assert table.rows(np.array([[0, 1], [0, 2]])).tolist() == [[1.0, 0, 0, 0], [1.5, 0, 0, 0]]
    assert table.quantiles(BACKGROUND, 10).size == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quantiles_are_weighted_quantiles_of_each_class(dtype):
    rng = np.random.default_rng(4)
    scores = np.round(rng.random(20000), 3).astype(dtype)
    sig = rng.random(20000) < 0.3
    weights = rng.normal(0.5, 1.0, 20000).astype(dtype)  # |w| for the quantiles
    table = SortedSums(scores, sig, weights, (1.0, 1.0))
    for c, part in ((SIGNAL, sig), (BACKGROUND, ~sig)):
        for k in (1, 2, 50, 1000):
            assert np.array_equal(table.quantiles(c, k), bn.weighted_quantiles(scores[part], weights[part], k))


def test_positions_equal_searchsorted_on_float64():
    rng = np.random.default_rng(2)
    x = np.sort(rng.random(10000).astype(np.float32))
    x[100:120] = x[100]
    exact = x[::97].astype(float)  # edges equal to a score: that score is not below the edge
    between = (x[:-1:53].astype(float) + x[1::53].astype(float)) / 2  # float64 values no float32 equals
    nudged = np.nextafter(exact, 2.0)  # just above a float32 score: that score is below it
    edges = np.r_[-1.0, 0.0, exact, between, nudged, 1.0, 2.0, np.inf, -np.inf, 1e300]
    sig = rng.random(x.size) < 0.5
    want = np.stack([np.searchsorted(x[flags].astype(float), edges, side="left") for flags in (~sig, sig)], axis=1)
    for scores in (x, x.astype(float)):
        table = SortedSums(scores, sig, np.ones(x.size, scores.dtype), (1.0, 1.0))
        assert np.array_equal(table.positions(edges), want)
