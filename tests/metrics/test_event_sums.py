"""metrics/eventsums.py (macros/event_sums.h) and the passes moved onto it or onto other one-pass
sums (issue 55): every number equal, bit for bit, to the numpy expression it replaced (written out
here as the oracle), on toys with negative and zero weights, float32 and float64 columns; both
builds of the kernels (host-compiled and cling's); plus hand-worked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.io import kernels
from pnetviz.metrics import binning as bn
from pnetviz.metrics import eventsums, folds, trainercheck
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.evaluate import yields
from pnetviz.metrics.hep import mode_weights
from pnetviz.metrics import roc
from pnetviz.metrics.roc import binary_clf_curve

SIZES = [0, 1, 7, 8, 9, 127, 128, 129, 300, 1000, 4097, 70001]


def toy(n: int, seed: int):
    rng = np.random.default_rng(seed)
    w = rng.normal(0.8, 1.0, n) * 10.0 ** rng.integers(-3, 3, n)
    w[rng.random(n) < 0.03] = 0.0
    return w, rng.random(n) < 0.35, rng.random(n) < 0.7


def oracle(w: np.ndarray, y: np.ndarray, keep: np.ndarray | None, mode: str):
    sel = np.ones(y.size, bool) if keep is None else keep
    return ((yields(w[sel & y]), yields(w[sel & ~y])),
            (float(np.sum(mode_weights(w[sel & y], mode))), float(np.sum(mode_weights(w[sel & ~y], mode)))))  # fmt: skip


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("mode", ["abs", "signed", "drop"])
def test_class_yields_are_the_yields_of_each_class(n, mode):
    w, y, keep = toy(n, n + 11)
    for k in (None, keep):
        assert eventsums.class_yields(w, y, k, mode) == oracle(w, y, k, mode)


@pytest.mark.parametrize("n", [9, 300, 70001])
def test_class_yields_of_float32_weights_are_their_float64_sums(n):
    w, y, keep = toy(n, n)
    w32 = w.astype(np.float32)
    assert eventsums.class_yields(w32, y, keep, "drop") == oracle(w32.astype(np.float64), y, keep, "drop")


def test_class_yields_hand_worked():
    w, y = np.array([2.0, -1.0, 3.0, -4.0, 0.5]), np.array([True, True, False, False, False])
    (sig, bkg), sums = eventsums.class_yields(w, y, None, "drop")
    assert sig == {"events": 2, "sum_weights": 1.0, "sum_abs_weights": 3.0,
                   "negative_weight_fraction": {"events": 0.5, "abs_weight": 1 / 3}}  # fmt: skip
    assert bkg["events"] == 3 and bkg["sum_weights"] == -0.5 and bkg["sum_abs_weights"] == 7.5
    assert bkg["negative_weight_fraction"] == {"events": 1 / 3, "abs_weight": 4 / 7.5}
    assert sums == (2.0, 3.5)
    (sig, bkg), sums = eventsums.class_yields(w, y, np.array([0, 0, 1, 0, 0], bool), "abs")
    assert sig == {"events": 0, "sum_weights": 0.0, "sum_abs_weights": 0.0,
                   "negative_weight_fraction": {"events": 0.0, "abs_weight": 0.0}} and sums == (0.0, 3.0)  # fmt: skip
    with pytest.raises(ValueError, match="weight mode"):
        eventsums.class_yields(w, y, None, "none")


@pytest.mark.parametrize("n", [8, 300, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_edge_bin_sums_are_bincounts_of_bin_index(n, dtype):
    rng = np.random.default_rng(n)
    w, y, _ = toy(n, n + 1)
    s = rng.uniform(-0.1, 1.1, n).astype(dtype)
    s[:3] = [np.nan, 0.25, 1.0]
    edges = np.unique(np.r_[0.0, 0.25, rng.random(5), 1.0])
    idx, v = bn.bin_index(edges, s), w[y] * 0.37
    got = eventsums.edge_bin_sums(edges, s, w, y, 0.37)
    assert np.array_equal(got[0], np.bincount(idx[y], weights=v, minlength=edges.size - 1))
    assert np.array_equal(got[1], np.bincount(idx[y], weights=v * v, minlength=edges.size - 1))


def test_edge_bin_sums_hand_worked():
    s, w = np.array([0.1, 0.5, 0.5, 0.9, -1.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    sw, sw2 = eventsums.edge_bin_sums(np.array([0.0, 0.5, 1.0]), s, w, np.array([1, 1, 0, 1, 1], bool), 2.0)
    assert sw.tolist() == [12.0, 12.0] and sw2.tolist() == [104.0, 80.0]


def test_both_builds_agree():
    if kernels.library() is None:
        pytest.skip("no host-compiled kernels")
    native, jit = kernels.load(kernels.library()), kernels.jit()
    w, y, keep = toy(4097, 5)
    flags, sel = y.view(np.uint8), keep.view(np.uint8)
    outs = []
    for k in (native, jit):
        out = np.empty(12)
        k.class_yields_w64(w, flags, sel, w.size, 1, 2, out)
        edges, bins = np.array([0.0, 0.3, 0.6, 1.0]), np.empty(6)
        k.edge_bin_sums_f32(np.linspace(0, 1, w.size, dtype=np.float32), w, flags, w.size, edges, edges.size, 0.5, bins)
        totals, rates = np.empty(4), np.empty(w.size)
        k.class_totals(w, flags, w.size, totals)
        k.rates(np.cumsum(w), w.size, 7.0, 1, rates)
        outs.append(np.r_[out, bins, totals, rates])
    assert np.array_equal(outs[0], outs[1])


@pytest.mark.parametrize("n", [1, 100, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_recompute_binary_is_recompute_of_the_stacked_columns(n, dtype):
    rng = np.random.default_rng(n)
    s, y = rng.random(n).astype(dtype), (rng.random(n) < 0.4).astype(np.int32)
    s[: min(n, 6)] = [0.5, 0.0, 1.0, np.nan, 0.5, 1e-30][: min(n, 6)]
    want = trainercheck.recompute(y, np.column_stack([s, 1 - s]), np.ones(n, bool))
    got = trainercheck.recompute_binary(y, s)
    assert got[1] == want[1] and (got[0] == want[0] or (math.isnan(got[0]) and math.isnan(want[0])))
    finite = ~np.isnan(s)
    assert trainercheck.recompute_binary(y[finite], s[finite]) == trainercheck.recompute(y[finite], np.column_stack(
        [s[finite], 1 - s[finite]]), np.ones(int(finite.sum()), bool))  # fmt: skip


def test_recompute_binary_hand_worked():
    loss, accuracy = trainercheck.recompute_binary(np.array([0, 1, 1]), np.array([0.8, 0.4, 0.5], np.float32))
    assert accuracy == 2 / 3  # the tie (0.5, 0.5) of the third event is class 0, as argmax: wrong
    assert loss == pytest.approx(-(math.log(0.8) + math.log(0.6) + math.log(0.5)) / 3, rel=1e-7)
    assert trainercheck.check_numbers({}, lambda: pytest.fail("computed without trainer numbers")) == ({}, [])


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_passing_background_events_from_the_curve(ties, dtype):
    rng = np.random.default_rng(7)
    n = 20000
    s = rng.random(n)
    s = (np.round(s, 2) if ties else s).astype(dtype)
    y, w = rng.random(n) < 0.4, rng.lognormal(0, 1, n)
    w[rng.random(n) < 0.05] = 0.0
    want = wp.passing_background_events(s, y, w, binary_clf_curve(s, y, w).thresholds[1:])
    for min_chunk in (0, 1000):  # the job's curve comes with the bootstrap's chunk sums (min_chunk > 0)
        curve = binary_clf_curve(s, y, w, min_chunk=min_chunk)
        assert np.array_equal(wp.passing_background_events(s, y, w, curve.thresholds[1:], curve), want)


@pytest.mark.parametrize("clip", [False, True])
def test_rates_are_numpys_division_and_clip(clip):
    rng = np.random.default_rng(11)
    c = np.cumsum(rng.normal(0.3, 1.0, 70001))
    c[[5, 7, 9, 11]] = [np.nan, -0.0, np.inf, -np.inf]
    for total in (float(c[-1]), 1e-300, -3.0):
        want = c / total
        if clip:
            np.clip(want, 0.0, 1.0, out=want)
        got = roc._rates(c, total, clip)
        assert np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want))


def test_curve_rates_hand_worked():
    curve = binary_clf_curve(np.array([0.9, 0.8, 0.8, 0.1]), np.array([True, False, True, False]), np.array([1.0, 2.0, 3.0, 4.0]))
    assert curve.tpr.tolist() == [0.0, 0.25, 1.0, 1.0] and curve.fpr.tolist() == [0.0, 0.0, 2 / 6, 1.0]
    assert [r.tolist() for r in next(curve.rate_chunks())] == [curve.tpr.tolist(), curve.fpr.tolist()]


@pytest.mark.parametrize("n", SIZES)
def test_class_totals_equal_numpys_sum_of_each_class(n):
    w, y, _ = toy(n, n + 3)
    want = [float(v) for v in (np.sum(w[y]), np.sum(w[y] ** 2), np.sum(w[~y]), np.sum(w[~y] ** 2))]
    pushed = np.empty(4)
    kernels.kernels().class_totals(w, y.view(np.uint8), n, pushed)
    assert pushed.tolist() == want


def old_precision_recall(curve):
    n = curve.tps.size - 1
    tps, fps = curve.tps[:0:-1], curve.fps[:0:-1]
    precision, recall = np.zeros(n + 1), np.empty(n + 1)
    selected = np.add(tps, fps, out=recall[:n])
    np.divide(tps, selected, out=precision[:n], where=selected != 0)
    np.divide(tps, curve.total_signal, out=recall[:n])
    precision[n], recall[n] = 1.0, 0.0
    return precision, recall


@pytest.mark.parametrize("signed", [False, True])
def test_precision_recall_is_numpys_reversed_divisions(signed):
    rng = np.random.default_rng(13)
    s, y = np.round(rng.random(5000), 3), rng.random(5000) < 0.4
    w = rng.normal(0.5, 1.0, 5000) if signed else rng.lognormal(0, 1, 5000)
    curve = binary_clf_curve(s, y, w)
    pr = roc.precision_recall(curve)
    want = old_precision_recall(curve)
    assert np.array_equal(pr.precision, want[0], equal_nan=True) and np.array_equal(pr.recall, want[1], equal_nan=True)
    assert pr.precision[-1] == 1.0 and pr.recall[-1] == 0.0 and pr.thresholds.tolist() == curve.thresholds[:0:-1].tolist()


@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("held", [False, True])
def test_rates_searched_and_read_without_the_arrays(signed, held):
    rng = np.random.default_rng(17)
    s, y = np.round(rng.random(20000), 3).astype(np.float32), rng.random(20000) < 0.4
    w = rng.normal(0.6, 1.0, 20000) if signed else rng.lognormal(0, 1, 20000)
    curve = binary_clf_curve(s, y, w)
    tpr, fpr = curve.tpr.copy(), curve.fpr.copy()
    if not held:
        curve.release_rates()
    grid = np.r_[-0.5, 0.0, np.linspace(0, 1, 301), fpr[[3, 50, 400]], tpr[[7, 70]], 1.0, 1.5]
    for name, rate in (("tpr", tpr), ("fpr", fpr)):
        for side in ("left", "right"):
            if roc.non_decreasing(rate):  # numpy's answer is unique on a sorted array only
                assert np.array_equal(curve.search_rate(name, grid, side), np.searchsorted(rate, grid, side=side))
        index = rng.integers(0, rate.size, 500)
        assert np.array_equal(curve.rate_values(name, index), rate[index])
    assert np.array_equal(folds.tpr_on_grid(curve), old_tpr_on_grid(tpr, fpr))


def old_tpr_on_grid(tpr, fpr, grid=None):
    grid = folds.FPR_GRID if grid is None else grid
    k = np.searchsorted(fpr, grid, side="right")
    lo, hi = np.clip(k - 1, 0, fpr.size - 1), np.clip(k, 0, fpr.size - 1)
    span = fpr[hi] - fpr[lo]
    frac = np.divide(grid - fpr[lo], span, out=np.zeros_like(grid, dtype=float), where=span > 0)
    return tpr[lo] + frac * (tpr[hi] - tpr[lo])
