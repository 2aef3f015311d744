"""multijob.class_reliability (macros/class_reliability.h): every class's reliability sums of one
split in one pass are, bit for bit, calibration.reliability_sums of that class's score over the
split's copied events (p[sel], label[sel] == c, w[sel]), and those sums are np.bincount's."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.jobs.multijob import class_reliability
from pnetviz.metrics.calibration import reliability_sums
from pnetviz.metrics.evaluate import equal_bins


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_pass_is_the_per_class_sums_of_the_split(dtype):
    rng = np.random.default_rng(3)
    k, n = 4, 20_000
    scores = rng.dirichlet(np.ones(k), n).T.astype(dtype).copy()
    scores[0, :6] = [0.0, 1.0, -0.1, 1.2, 0.1, 0.3]  # edges, out of range
    label = rng.integers(0, k, n).astype(np.int32)
    w = rng.normal(1.0, 1.0, n)
    w[::17] = 0.0  # events without weight are not counted
    sel = rng.random(n) < 0.6
    got = class_reliability(scores, label, w, sel)
    assert got.shape == (k, 6, 10)
    for c in range(k):
        assert got[c].tobytes() == reliability_sums(scores[c][sel], (label == c)[sel], w[sel]).tobytes()
    # and by hand for one class: sum w and the events with w != 0, per bin
    bins, ws = equal_bins(scores[2][sel], 10), w[sel]
    assert np.array_equal(got[2, 0], np.bincount(bins, ws, 10))
    assert np.array_equal(got[2, 5], np.bincount(bins, ws != 0, 10))
    assert np.array_equal(got[2, 1], np.bincount(bins, np.where(label[sel] == 2, ws, 0.0), 10))
