"""One pass per split (evaluate.split_tables, evaluate.gather): the histograms' sums, the confusion
matrix and the calibration sums are numpy's (np.histogram, np.bincount) to the last bit, on a
hand-worked toy and on random samples with ties, edges, zero and negative weights; both kernel
builds (host-compiled and cling) agree bit for bit."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from pnetviz.io import kernels
from pnetviz.metrics import evaluate as ev
from pnetviz.metrics.calibration import reliability, reliability_from_sums


def toy(n: int, dtype, seed: int = 1):
    """Scores on the 1/50 and 1/10 edges (0.58, 0.3, ...), exact 0 and 1, outside [0, 1], and
    rounded (ties); weights of both signs with zeros; 30% signal."""
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    s[: n // 4] = np.round(s[: n // 4], 2)  # every edge k/50 and k/10 among them
    s[:8] = [0.0, 1.0, -0.2, 1.3, 0.58, 0.3, 0.5, np.nextafter(0.5, 0)]
    y = rng.random(n) < 0.3
    w = rng.uniform(-0.5, 2.0, n)
    w[rng.random(n) < 0.05] = 0.0
    return s.astype(dtype), y, w


def test_hand_worked_toy():
    s = np.array([0.1, 0.58, 0.5, 0.95, 0.3])  # float64: 0.58 itself (float32's 0.58 is below the edge)
    y = np.array([True, True, False, False, True])
    w = np.array([1.0, 2.0, 3.0, -1.0, 0.0])
    t = ev.split_tables(s, y, w)
    sig_w, sig_w2 = t.binned[0]
    assert sig_w[5] == 1.0 and sig_w[29] == 2.0 and sig_w[15] == 0.0  # 0.58 is the lower edge of bin 29
    assert sig_w2[29] == 4.0 and sig_w.sum() == 3.0
    bkg_w, bkg_w2 = t.binned[1]
    assert bkg_w[25] == 3.0 and bkg_w[47] == -1.0 and bkg_w2[47] == 1.0
    # signal predicted at s >= 0.5: signal 0.58 (w 2) right, 0.1 (w 1) and 0.3 (w 0) wrong; background 0.5, 0.95 wrong
    np.testing.assert_array_equal(t.weighted, [[2.0, 1.0], [2.0, 0.0]])
    np.testing.assert_array_equal(t.counts, [[1.0, 1.0], [2.0, 0.0]])
    W, P, w2_pos, w2_neg, wp, events = t.reliability  # 10 bins: 0.1 -> 1, 0.58 -> 5, 0.5 -> 5, 0.95 -> 9, 0.3 -> 2 (< 3 * 0.1)
    np.testing.assert_array_equal(W, [0, 1, 0, 0, 0, 5, 0, 0, 0, -1])
    np.testing.assert_array_equal(P, [0, 1, 0, 0, 0, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(w2_neg, [0, 0, 0, 0, 0, 9, 0, 0, 0, 1])
    np.testing.assert_array_equal(events, [0, 1, 0, 0, 0, 2, 0, 0, 0, 1])
    assert wp[5] == 2.0 * 0.58 + 3.0 * 0.5 and wp[2] == 0.0 and w2_pos[2] == 0.0
    assert ev.equal_bins(np.array([0.3]), 10)[0] == 2 and ev.equal_bins(np.array([0.3]), 50)[0] == 15


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tables_equal_numpy_bit_for_bit(dtype):
    s, y, w = toy(50_000, dtype)
    t = ev.split_tables(s, y, w)
    for k, cls in enumerate((y, ~y)):
        sums = ev.binned_sums(s[cls], w[cls])
        np.testing.assert_array_equal(t.binned[k, 0], sums[0])
        np.testing.assert_array_equal(t.binned[k, 1], sums[1])
        inside = np.clip(s[cls].astype(np.float64), 0.0, 1.0)
        np.testing.assert_allclose(t.binned[k, 0], np.histogram(inside, 50, (0, 1), weights=w[cls])[0], rtol=1e-12, atol=1e-9)
    sample = ev.BinarySample(s, y, w, w)
    confusion = ev.binary_confusion(sample, ("s", "b"))
    np.testing.assert_array_equal(t.weighted, confusion.weighted)
    np.testing.assert_array_equal(t.counts, confusion.counts)
    a, b = reliability(s, y, w), reliability_from_sums(t.reliability)
    for name in ("edges", "mean_predicted", "fraction", "fraction_error", "sum_weights", "events"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_evaluate_split_uses_the_tables():
    s, y, w = toy(20_000, np.float32, seed=4)
    w = np.abs(w)
    r = ev.evaluate_split(ev.BinarySample(s, y, w, w), "test_tables", ("s", "b"))
    values, _ = ev.hist_contents(r.hist_signal)
    reference, _ = ev.hist_contents(ev.score_histogram("ref_tables", s[y], w[y]))
    np.testing.assert_array_equal(values, reference)
    assert r.hist_background.GetEntries() == np.count_nonzero(~y)
    np.testing.assert_array_equal(r.confusion.weighted, ev.binary_confusion(r.sample, ("s", "b")).weighted)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64, np.bool_, np.float16])
def test_gather_is_the_boolean_index(dtype):
    rng = np.random.default_rng(2)
    for n, p in ((0, 0.5), (1, 1.0), (7, 0.0), (10_001, 0.57), (10_001, 1.0)):
        sel = rng.random(n) < p
        a = (rng.random(n) * 100).astype(dtype)
        (got,) = ev.gather(sel, a)
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, a[sel])


def test_gather_splits_is_the_boolean_index_of_each_split(monkeypatch):
    """One pass for every selection and array (blocks of 4096 events; overlapping selections, an empty
    one, every element size) gives each array's boolean index per selection; the jit build the same."""
    rng = np.random.default_rng(4)
    for n in (0, 1, 4095, 4096, 10_001):
        code = rng.integers(0, 3, n)
        sels = [code == 1, code == 2, code >= 1, np.zeros(n, bool), np.ones(n, bool)]
        arrays = [rng.random(n).astype(np.float32), rng.random(n) < 0.4, rng.normal(size=n),
                  rng.integers(-9, 9, n).astype(np.int32), rng.integers(0, 9, n).astype(np.uint64)]  # fmt: skip
        for build in ("native", "jit"):
            if build == "jit":
                monkeypatch.setenv("PNETVIZ_KERNELS", "jit")
            got = ev.gather_splits(sels, *arrays)
            assert len(got) == len(sels)
            for sel, per_split in zip(sels, got, strict=True):
                for a, g in zip(arrays, per_split, strict=True):
                    assert g.dtype == a.dtype
                    np.testing.assert_array_equal(g, a[sel])
            monkeypatch.delenv("PNETVIZ_KERNELS", raising=False)
    s16 = rng.random(5).astype(np.float16)  # an element size of 2: each selection gathered apart
    np.testing.assert_array_equal(ev.gather_splits([s16 > 0.5], s16)[0][0], s16[s16 > 0.5])
    with pytest.raises(ValueError, match="shape"):
        ev.gather_splits([np.ones(3, bool)], np.ones(4))


def test_binary_samples_equal_boolean_indexing():
    s, y, w = toy(30_000, np.float32, seed=6)
    rng = np.random.default_rng(7)
    masks = {"train": rng.random(s.size) < 0.6}
    masks["test"] = ~masks["train"]
    keep = rng.random(s.size) < 0.5
    for split, sample in ev.binary_samples(s, y, w, masks, keep).items():
        sel = masks[split] & keep
        for got, want in ((sample.scores, s[sel]), (sample.is_signal, y[sel]), (sample.weights, w[sel]),
                          (sample.used, np.abs(w[sel]))):  # fmt: skip
            np.testing.assert_array_equal(got, want)


def test_binary_samples_widen_float32_weights_to_the_same_values():
    """float32 weights (read_predictions' narrow) give each split the float64 weights, value for value,
    and so the same curve and tables as float64 weights of the same values."""
    s, y, w = toy(30_000, np.float32, seed=8)
    w32 = (w * np.where(np.arange(w.size) % 7 == 0, -1, 1)).astype(np.float32)  # some negative
    masks = {"train": np.arange(s.size) % 3 != 0}
    masks["test"] = ~masks["train"]
    narrow, wide = (ev.binary_samples(s, y, v, masks) for v in (w32, w32.astype(np.float64)))
    for split in masks:
        assert narrow[split].weights.dtype == narrow[split].used.dtype == np.float64
        np.testing.assert_array_equal(narrow[split].weights, wide[split].weights)
        np.testing.assert_array_equal(narrow[split].used, np.abs(w32[masks[split]]).astype(np.float64))
        a, b = (ev.evaluate_split(x[split], split, ("s", "b")) for x in (narrow, wide))
        assert a.curve.auc == b.curve.auc
        np.testing.assert_array_equal(a.tables.binned, b.tables.binned)


@pytest.mark.skipif(shutil.which(os.environ.get("CXX") or "c++") is None, reason="no C++ compiler: cling only")
def test_both_builds_bit_for_bit():
    compiled, cling = kernels.load(kernels.library()), kernels.jit()
    s, y, w = toy(20_000, np.float32, seed=9)
    y8 = y.view(np.uint8)
    out = []
    for k in (compiled, cling):
        tables = [np.empty(4 * 50), np.empty(4), np.empty(4), np.empty(60)]
        k.split_tables_f32(s, w, y8, s.size, 50, 0.5, 10, *tables)
        k.split_tables_f64(s.astype(np.float64), w, y8, s.size, 50, 0.5, 10, *(t2 := [np.empty(t.size) for t in tables]))
        dst = np.empty(int(y.sum()))
        k.compress_i8(y8, y.size, w.view(np.int64), dst.view(np.int64), dst.size)
        out.append((*tables, *t2, dst))
    for a, b in zip(*out, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(out[0][-1], w[y])
