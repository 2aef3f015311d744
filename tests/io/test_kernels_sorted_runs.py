"""macros/sorted_runs.h (the binning for the fit's sorted runs), both builds: each class's events in
numpy's stable argsort order, the sums over a run's first events equal to numpy.cumsum bit for bit, and
the weighted quantiles equal to metrics.binning.weighted_quantiles; toys with ties, negative and zero
weights, -0.0 scores, one-key classes, float32 and float64 (brute force: numpy on every event)."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from pnetviz.io import kernels
from pnetviz.metrics import binning as bn

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CXX") or "c++") is None,
                                reason="no C++ compiler: the kernels are cling's only")

DTYPES = [(np.float32, np.float32), (np.float32, np.float64), (np.float64, np.float32), (np.float64, np.float64)]


@pytest.fixture(scope="module")
def builds():
    """(host-compiled, cling) kernels."""
    path = kernels.library()
    assert path is not None
    return kernels.load(path), kernels.jit()


def toy(n: int, score_dtype, weight_dtype, seed: int = 5, decimals: int = 2):
    """Scores rounded (ties; some -0.0 and negative), weights of both signs and some zeros, 40% signal."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = np.round(rng.normal(0.4 + 0.2 * y, 0.25), decimals)
    s[rng.random(n) < 0.05] = -0.0
    w = rng.normal(0.8, 0.6, n)
    w[rng.random(n) < 0.03] = 0.0
    return s.astype(score_dtype), y, w.astype(weight_dtype)


def runs(k, s, y, w, with_index=1):
    """(background, signal) runs: scores, weights, indices (buffers of one entry at least: cling takes
    no empty array)."""
    n_sig = int(y.sum())
    sizes = (y.size - n_sig, n_sig)
    out = [(np.empty(max(m, 1), s.dtype), np.empty(max(m, 1), w.dtype), np.empty(max(m, 1), np.uint32)) for m in sizes]
    code = f"class_runs_f{8 * s.itemsize}_w{8 * w.itemsize}"
    if s.size:
        getattr(k, code)(s, w, y.view(np.uint8), s.size, *out[1], *out[0], with_index)
    return [tuple(a[:m] for a in run) for run, m in zip(out, sizes)]


@pytest.mark.parametrize(("score_dtype", "weight_dtype"), DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 3000, 70_001])
def test_runs_are_each_class_in_the_stable_argsort_order(builds, score_dtype, weight_dtype, n):
    s, y, w = toy(n, score_dtype, weight_dtype, seed=n)
    order = np.argsort(s, kind="stable")  # -0.0 and 0.0 are equal: input order
    got = [runs(k, s, y, w, with_index) for k in builds for with_index in (0, 1)]
    for c, flag in enumerate((False, True)):
        part = order[y[order] == flag]
        for j, (x, weights, index) in enumerate(g[c] for g in got):
            if j % 2:  # with the indices
                assert index.tolist() == part.tolist()
            assert np.array_equal(weights, w[part]) and weights.dtype == w.dtype
            assert np.array_equal(x, s[part]) and x.dtype == s.dtype  # -0.0 back as +0.0: equal


def test_a_class_of_one_score_keeps_its_input_order(builds):
    s = np.r_[np.full(5, 0.25), np.linspace(0.0, 1.0, 6)].astype(np.float32)  # signal: one key; background: six
    y = np.r_[np.ones(5, bool), np.zeros(6, bool)]
    w = np.arange(11, dtype=np.float64)
    for k in builds:
        (xb, wb, ib), (xs, ws, i_s) = runs(k, s, y, w)
        assert i_s.tolist() == [0, 1, 2, 3, 4] and ws.tolist() == [0, 1, 2, 3, 4]
        assert ib.tolist() == [5, 6, 7, 8, 9, 10] and xb.tolist() == pytest.approx(np.linspace(0, 1, 6).tolist())


@pytest.mark.parametrize("weight_dtype", [np.float32, np.float64])
def test_run_sums_are_numpy_cumsum_bit_for_bit(builds, weight_dtype):
    rng = np.random.default_rng(8)
    w = rng.normal(0.5, 1.0, 20_000).astype(weight_dtype)
    w[::50] = 0.0
    scale = 0.0731
    v = np.asarray(w, float) * scale
    cum, cum2 = np.r_[0.0, np.cumsum(v)], np.r_[0.0, np.cumsum(v**2)]
    at = np.unique(np.r_[0, 1, 2, rng.integers(0, w.size + 1, 500), w.size]).astype(np.int64)
    for k in builds:
        total, squares = np.empty(at.size), np.empty(at.size)
        getattr(k, f"run_sums_w{8 * w.itemsize}")(w, w.size, scale, at, at.size, total, squares)
        assert np.array_equal(total, cum[at]) and np.array_equal(squares, cum2[at])


def test_run_sums_add_in_float64():
    # 2^24 + 1 is not a float32: a float32 sum would stay at 2^24
    w = np.array([2.0**24, 1.0, 1.0], np.float32)
    total, squares = np.empty(2), np.empty(2)
    kernels.kernels().run_sums_w32(w, 3, 1.0, np.array([2, 3]), 2, total, squares)
    assert total.tolist() == [2.0**24 + 1, 2.0**24 + 2]


@pytest.mark.parametrize(("score_dtype", "weight_dtype"), DTYPES)
@pytest.mark.parametrize("k", [1, 2, 5, 1000])
def test_run_quantiles_are_weighted_quantiles(builds, score_dtype, weight_dtype, k):
    s, y, w = toy(5000, score_dtype, weight_dtype, decimals=3)
    expected = bn.weighted_quantiles(s[y], w[y], k)
    for build in builds:
        _, (x, weights, _) = runs(build, s, y, w)
        at = np.empty(max(k - 1, 1), np.int64)
        m = getattr(build, f"run_quantiles_w{8 * w.itemsize}")(weights, weights.size, k, at)
        assert m == k - 1
        assert np.array_equal(np.asarray(x[at[:m]], float), expected)


def test_run_quantiles_without_weight_are_none(builds):
    at = np.empty(4, np.int64)
    for build in builds:
        assert build.run_quantiles_w64(np.zeros(3), 3, 5, at) == 0  # weighted_quantiles: empty
        assert build.run_quantiles_w64(np.zeros(1), 0, 5, at) == 0  # no events
    # one event carries all the weight: every quantile is its score
    w = np.array([0.0, 0.0, 2.0, 0.0])
    assert bn.weighted_quantiles(np.arange(4.0), w, 4).tolist() == [2.0, 2.0, 2.0]
    assert kernels.kernels().run_quantiles_w64(w, 4, 4, at) == 3 and at[:3].tolist() == [2, 2, 2]
