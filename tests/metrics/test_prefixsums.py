"""metrics.prefixsums: the checkpointed prefix sums equal the full numpy.cumsum table bit for bit,
and the float32 search equals numpy.searchsorted on a float64 copy."""

import numpy as np
import pytest

from pnetviz.metrics import prefixsums
from pnetviz.metrics.prefixsums import SortedSums


def full_table(scores, is_signal, weights, scale, classes=None):
    """The table as fitbinning built it before (one column_stack, one cumsum)."""
    order = np.argsort(scores, kind="stable")
    sig, w = is_signal[order], np.asarray(weights, float)[order]
    cols = [np.where(sig, w * scale[0], 0.0), np.where(sig, 0.0, w * scale[1]), (~sig).astype(float),
            np.where(sig, 0.0, (w * scale[1]) ** 2)]  # fmt: skip
    if classes is not None:
        cls = classes[order]
        cols += [(~sig & (cls == c)).astype(float) for c in np.unique(cls[~sig])]
    prefix = np.zeros((sig.size + 1, len(cols)))
    np.cumsum(np.column_stack(cols), axis=0, out=prefix[1:])
    return prefix


@pytest.mark.parametrize("n", [1, 127, 128, 129, 5000, 70001])
@pytest.mark.parametrize("with_classes", [False, True])
def test_rows_equal_the_full_table_bit_for_bit(n, with_classes):
    rng = np.random.default_rng(n)
    scores = (np.round(rng.random(n) * 300) / 300).astype(np.float32)  # ties
    sig = rng.random(n) < 0.4
    weights = rng.normal(1.0, 0.7, n).astype(np.float32)  # negative weights too
    classes = rng.integers(1, 5, n) if with_classes else None
    table = SortedSums(scores, sig, weights, np.argsort(scores, kind="stable"), (1.3, 0.07), classes)
    expected = full_table(scores, sig, weights, (1.3, 0.07), classes)
    positions = np.r_[0, n, rng.integers(0, n + 1, 300), np.arange(0, n + 1, prefixsums.STRIDE)]
    got = table.rows(positions)
    assert got.shape == (positions.size, expected.shape[1])
    assert np.array_equal(got, expected[positions])  # exact, not close: sequential sums continued
    if n <= 5000:  # every row (a python step per row: small n only)
        assert np.array_equal(table.rows(np.arange(n + 1)), expected)


def test_rows_sum_in_float64_from_float32_weights():
    # 2^24 + 1 is not a float32: the sums must not run in float32
    n = 3
    table = SortedSums(np.array([0.1, 0.2, 0.3], np.float32), np.ones(n, bool), np.array([2.0**24, 1.0, 1.0], np.float32),
                       np.arange(n), (1.0, 1.0))  # fmt: skip
    assert table.rows(np.array([2, 3]))[:, 0].tolist() == [2.0**24 + 1, 2.0**24 + 2]


def test_positions_equal_searchsorted_on_float64():
    rng = np.random.default_rng(2)
    x = np.sort(rng.random(10000).astype(np.float32))
    x[100:120] = x[100]
    exact = x[::97].astype(float)  # edges equal to a score: that score is not below the edge
    between = (x[:-1:53].astype(float) + x[1::53].astype(float)) / 2  # float64 values no float32 equals
    nudged = np.nextafter(exact, 2.0)  # just above a float32 score: that score is below it
    edges = np.r_[-1.0, 0.0, exact, between, nudged, 1.0, 2.0, np.inf, -np.inf, 1e300]
    table = SortedSums(x, np.ones(x.size, bool), np.ones(x.size, np.float32), np.arange(x.size), (1.0, 1.0))
    assert np.array_equal(table.positions(edges), np.searchsorted(x.astype(float), edges, side="left"))
    x64 = SortedSums(x.astype(float), np.ones(x.size, bool), np.ones(x.size), np.arange(x.size), (1.0, 1.0))
    assert np.array_equal(x64.positions(edges), np.searchsorted(x.astype(float), edges, side="left"))
