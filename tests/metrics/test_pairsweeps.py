"""metrics/pairsweeps.py and the metrics moved onto it (macros/pair_sums.h): every number equal, bit
for bit, to the numpy expression it replaced (written out here as the oracle), on toys with ties,
zero weights, float32 and float64 scores; plus hand-worked values."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from scipy import stats

from pnetviz.io import kernels
from pnetviz.metrics import calibration, curvesums, hep, pairmetrics, pairsweeps, prevalence, roc
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.evaluate import BinarySample, equal_bins, evaluate_split


def toy(n: int, seed: int, dtype=np.float32, ties: bool = False, zeros: bool = True):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = np.where(y, rng.beta(4, 2, n), rng.beta(2, 4, n))
    if ties:
        s = np.round(s, 2)
    w = rng.lognormal(0, 0.5, n)
    if zeros:
        w[rng.random(n) < 0.05] = 0.0
    return s.astype(dtype), y, w


CASES = [(n, seed, dtype, ties) for n, seed in ((9, 1), (300, 2), (5000, 3)) for dtype in (np.float32, np.float64)
         for ties in (False, True)]  # fmt: skip


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 257, 1000, 4097, 70001])
def test_class_totals_are_numpys_pairwise_sums(n):
    rng = np.random.default_rng(n)
    w, y = rng.lognormal(0, 3, n), rng.random(n) < 0.3
    got = pairsweeps.class_totals(w, y)
    want = [np.sum(w[y]), np.sum(w[y] ** 2), np.sum(w[~y]), np.sum(w[~y] ** 2)]
    assert got.tolist() == [float(v) for v in want]


def test_class_totals_hand_worked():
    assert pairsweeps.class_totals(np.array([1.0, 2.0, 3.0]), np.array([True, False, True])).tolist() == [4.0, 10.0, 2.0, 4.0]
    assert pairsweeps.effective_events(np.array([1.0, 3.0, 2.0]), np.array([True, True, False])) == (16 / 10, 1.0)


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_class_bin_sums_equal_bincounts(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    bins, p = equal_bins(s, 10), np.asarray(s, np.float64)
    want = [np.bincount(bins, w, 10), np.bincount(bins, np.where(y, w, 0.0), 10), np.bincount(bins, np.where(y, 0.0, w), 10),
            np.bincount(bins, np.where(y, w * w, 0.0), 10), np.bincount(bins, np.where(y, 0.0, w * w), 10),
            np.bincount(bins, w * p, 10), np.bincount(bins, (w != 0).astype(float), 10)]  # fmt: skip
    assert np.array_equal(pairsweeps.class_bin_sums(s, w, y, 10), np.array(want))


def test_class_bin_sums_edges_follow_numpy_histogram():
    x = np.array([-0.5, 0.0, 0.58, 0.5799999999, 1.0, 2.0])  # 0.58 * 50 = 28.999999999999996: bin 29, as numpy
    got = pairsweeps.class_bin_sums(x, np.ones(6), np.ones(6, bool), 50)[0]
    assert np.array_equal(got, np.histogram(np.clip(x, 0, 1), bins=50, range=(0, 1))[0].astype(float))


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_cut_w2_sums_equal_masked_sums(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    cuts = [0.3, float(s[0]), 0.5000001, 2.0, -1.0]
    got = pairsweeps.cut_w2_sums(s, w, y, cuts)
    for row, cut in zip(got, cuts, strict=True):
        want = []
        for cls in (y, ~y):
            sc, w2 = s[cls], w[cls] ** 2
            want += [np.sum(w2[sc >= cut]), np.sum(w2[~(sc >= cut)])]
        assert row.tolist() == [float(v) for v in want]


def old_ks(a, wa, b, wb):
    scores = np.concatenate([a, b])
    curve = roc.binary_clf_curve(scores, np.r_[np.ones(len(a), bool), np.zeros(len(b), bool)], np.r_[wa, wb])
    return float(np.max(np.abs(curve.tpr - curve.fpr)))


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES[4:])
def test_ks_from_split_curves_is_the_merged_curves(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    train = np.random.default_rng(seed + 100).random(n) < 0.6
    samples = {k: BinarySample(s[m], y[m], w[m], w[m]) for k, m in (("train", train), ("test", ~train))}
    results = {k: evaluate_split(v, k, ("sig", "bkg")) for k, v in samples.items()}
    got = pairmetrics.overtraining(results, {"train": 0.01, "test": 0.01})
    for name, cls in (("signal", y), ("background", ~y)):
        a, b = cls & train, cls & ~train
        assert got[f"ks_{name}"] == hep.weighted_ks(s[a], w[a], s[b], w[b])
        assert got[f"ks_{name}"]["statistic"] == old_ks(s[a], w[a], s[b], w[b])


def test_ks_distance_against_scipy():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, 400), rng.normal(0.3, 1, 300)
    ta, tb = np.r_[np.inf, np.sort(a)[::-1]], np.r_[np.inf, np.sort(b)[::-1]]
    ra, rb = np.r_[0.0, np.arange(1, 401) / 400], np.r_[0.0, np.arange(1, 301) / 300]  # survival fractions
    assert pairsweeps.ks_distance(ta, ra, tb, rb) == pytest.approx(stats.ks_2samp(a, b).statistic, abs=1e-15)


def test_last_at_least_hand_worked():
    t = np.array([np.inf, 0.9, 0.5, 0.5000001, 0.2])[[0, 1, 3, 2, 4]]  # inf, .9, .5000001, .5, .2
    got = pairsweeps.last_at_least(t, np.array([2.0, 0.9, 0.6, 0.5, 0.3, 0.1]))
    assert got.tolist() == [0, 1, 1, 3, 3, 4]
    assert got.tolist() == (np.searchsorted(-t, -np.array([2.0, 0.9, 0.6, 0.5, 0.3, 0.1]), side="right") - 1).tolist()


def old_passing(scores, is_signal, weights, thresholds):
    bkg = ~np.asarray(is_signal, bool)
    order = np.argsort(-np.asarray(scores, float)[bkg], kind="stable")
    ranked, w = np.asarray(scores, float)[bkg][order], np.asarray(weights, float)[bkg][order]
    sw, sw2 = np.r_[0.0, np.cumsum(w)], np.r_[0.0, np.cumsum(w * w)]
    k = np.searchsorted(-ranked, -np.asarray(thresholds, float), side="right")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sw2[k] > 0, sw[k] ** 2 / np.where(sw2[k] > 0, sw2[k], 1.0), 0.0)


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_passing_background_events_as_the_argsort(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    y[0], y[1] = True, False
    curve = roc.binary_clf_curve(s, y, w)
    for t in (curve.thresholds[1:], np.array([0.7, 0.2, 0.9, -1.0])):
        assert np.array_equal(wp.passing_background_events(s, y, w, t), old_passing(s, y, w, t))


def test_passing_background_events_hand_worked():
    s, y, w = np.array([0.9, 0.8, 0.8, 0.1]), np.array([False, True, False, False]), np.array([1.0, 5.0, 1.0, 2.0])
    assert wp.passing_background_events(s, y, w, np.array([0.95, 0.85, 0.8, 0.1])).tolist() == [0.0, 1.0, 2.0, 16 / 6]


def old_errors(sample, threshold, eps):
    w = np.asarray(sample.used, dtype=np.float64)
    out = []
    for cls, e in zip((sample.is_signal, ~sample.is_signal), eps, strict=True):
        sc, w2, total = sample.scores[cls], w[cls] ** 2, float(np.sum(w[cls]))
        pc = sc >= threshold
        out.append(hep.ratio_error(e, float(np.sum(w2[pc])), float(np.sum(w2[~pc])), total))
    return tuple(out)


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_working_point_errors_as_masked_sums(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    sample = BinarySample(s, y, w, w)
    for t in (float(s[0]), 0.5, 0.25):
        assert wp.efficiency_errors(sample, t, (0.6, 0.2)) == old_errors(sample, t, (0.6, 0.2))


def old_best(values, curve):
    return prevalence.best_cut(values[1:], curve.thresholds[1:], curve.tpr[1:], curve.fpr[1:])


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_best_cuts_in_chunks_equal_whole_arrays(n, seed, dtype, ties, monkeypatch):
    s, y, w = toy(n, seed, dtype, ties)
    y[0], y[1] = True, False
    curve = roc.binary_clf_curve(s, y, w)
    S, B = 3.0 * curve.total_signal, 40.0 * curve.total_background
    whole = prevalence.cut_figures(curve.tpr, curve.fpr, S, B)
    monkeypatch.setattr(prevalence, "SWEEP_CHUNK", 7)  # many chunks, ties across their borders
    got = prevalence.best_cuts(curve, S, B)
    assert got == {name: old_best(values, curve) for name, values in whole.items()}


def test_vertices_hand_worked_and_as_numpy():
    x, y = np.array([0, 0, 0, 1, 2, 2, 3.0]), np.array([0, 1, 2, 2, 2, 3, 3.0])
    assert roc.vertices(x, y).tolist() == [0, 2, 4, 5, 6]
    rng = np.random.default_rng(3)
    x, y = np.cumsum(rng.random(2000) < 0.5), np.cumsum(rng.random(2000) < 0.3).astype(float)
    x = x.astype(float)
    x[50] = np.nan
    a, b, c, d, e, f = x[:-2], x[1:-1], x[2:], y[:-2], y[1:-1], y[2:]
    inside = ((d == e) & (e == f) & (((a <= b) & (b <= c)) | ((a >= b) & (b >= c)))) | (
        (a == b) & (b == c) & (((d <= e) & (e <= f)) | ((d >= e) & (e >= f))))  # fmt: skip
    assert roc.vertices(x, y).tolist() == np.concatenate(([0], np.flatnonzero(~inside) + 1, [x.size - 1])).tolist()


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_precision_as_numpy_divide(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    y[0], y[1] = True, False
    curve = roc.binary_clf_curve(s, y, w)
    tps, sel = curve.tps[1:], curve.tps[1:] + curve.fps[1:]
    assert np.array_equal(roc._precision(curve), np.divide(tps, sel, out=np.zeros_like(tps), where=sel != 0))


def old_reliability_sums(p, pos, w, bins=10):
    p, w = np.asarray(p, np.float64), np.asarray(w, np.float64)
    index = equal_bins(p, bins)

    def total(values):
        return np.bincount(index, weights=values, minlength=bins)

    return total(w), total(np.where(pos, w, 0.0)), total(w * p)


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_reliability_sums_as_bincounts(n, seed, dtype, ties):
    s, y, w = toy(n, seed, dtype, ties)
    got = calibration.reliability(s, y, w)
    W, P, WP = old_reliability_sums(s, y, w)
    assert np.array_equal(got.sum_weights, W)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.array_equal(got.fraction, np.where(W != 0, P / W, np.nan), equal_nan=True)
        assert np.array_equal(got.mean_predicted, np.where(W != 0, WP / W, np.nan), equal_nan=True)


@pytest.mark.parametrize(("n", "seed", "dtype", "ties"), CASES)
def test_curve_sums_as_chunked_bincounts(n, seed, dtype, ties, monkeypatch):
    s, y, w = toy(n, seed, dtype, ties)
    y[0], y[1] = True, False
    curve = roc.binary_clf_curve(s, y, w)
    monkeypatch.setattr(curvesums, "CHUNK", 64)
    points = np.arange(0, curve.thresholds.size, 3)
    got = curvesums.curve_sums(curve, s, y, w, points)
    ascending = curve.thresholds[points][::-1]
    bins, totals = np.zeros((2, ascending.size + 1)), np.zeros((2, 2))
    for start in range(0, s.size, 64):
        sc, sig, wc = s[start : start + 64], y[start : start + 64], w[start : start + 64]
        reached, w2 = np.searchsorted(ascending, sc, side="right"), wc**2
        for k, cls in enumerate((sig, ~sig)):
            bins[k] += np.bincount(reached[cls], weights=w2[cls], minlength=ascending.size + 1)
            totals[k] += (np.sum(wc[cls]), np.sum(w2[cls]))
    for k, side in enumerate((got.signal, got.background)):
        assert (side.total_w, side.total_w2) == tuple(totals[k])
        want = np.full(curve.thresholds.size, np.nan)
        want[points] = np.cumsum(bins[k][::-1])[::-1][1:][::-1]
        assert np.array_equal(side.pass_w2, want, equal_nan=True)


def test_binned_fip_error_sums_as_bincounts(monkeypatch):
    s, y, w = toy(3000, 8)
    monkeypatch.setattr(pairmetrics, "FIP_NORMAL_FROM", 100)  # the per-bin normal draws from the binned sums
    sample = BinarySample(s, y, w, w)
    got = pairmetrics.binned_fip_error(sample, (1.0, 1.0), 50, 7)
    bins = equal_bins(s, 50)
    sums = np.array([(np.bincount(bins[m], w[m], 50), np.bincount(bins[m], w[m] ** 2, 50)) for m in (y, ~y)])
    rng = np.random.default_rng(7)
    yields = np.maximum(rng.normal(sums[:, 0], np.sqrt(sums[:, 1]), (50, 2, 50)), 0.0)
    keep = yields[:, 0].sum(axis=1) > 0
    values = pairmetrics.binned_fips(np.ascontiguousarray(yields[keep, 0]), np.ascontiguousarray(yields[keep, 1]))
    assert got == float(np.std(values, ddof=1))


@pytest.mark.skipif(shutil.which(os.environ.get("CXX") or "c++") is None, reason="no C++ compiler: cling's build only")
def test_pair_sums_host_build_and_cling_bit_for_bit():
    path = kernels.library()
    assert path is not None
    s, y, w = toy(3000, 11, np.float32, ties=True)
    lab = y.astype(np.uint8)
    curve = roc.binary_clf_curve(s, y, w)
    t = np.ascontiguousarray(curve.thresholds, dtype=np.float64)  # float32 scores keep float32 thresholds; the kernels take float64
    out = []
    for k in (kernels.load(path), kernels.jit()):
        bins, cuts, totals, ks = np.empty(70), np.empty(8), np.empty(4), np.empty(1)
        k.class_bin_sums_f32(s, w, lab, s.size, 10, bins)
        k.cut_w2_sums_f32(s, w, lab, s.size, np.array([0.3, 0.6]), 2, cuts)
        k.class_totals(w, lab, s.size, totals)
        k.ks_distance(t, curve.tpr, t.size, t, curve.fpr, t.size, ks)
        cb, ct = np.empty(2 * 11), np.empty(4)
        k.curve_bin_sums_f32(s, w, lab, s.size, np.ascontiguousarray(t[1:11][::-1]), 10, 256, cb, ct)
        idx, keep, prec = np.empty(t.size - 1, np.int64), np.empty(t.size, np.uint8), np.empty(t.size - 1)
        k.last_at_least(t, t.size, np.ascontiguousarray(t[1:]), t.size - 1, idx)
        k.vertices_mask(curve.fpr, curve.tpr, t.size, keep)
        k.precision(curve.tps, curve.fps, t.size, prec)
        out.append((bins, cuts, totals, ks, cb, ct, idx, keep, prec))
    for a, b in zip(*out, strict=True):
        np.testing.assert_array_equal(a, b)
    assert out[0][6].tolist() == list(range(1, t.size))  # each threshold is its own last point
