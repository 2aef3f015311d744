"""The numeric kernels compiled for the host (pnetviz.io.kernels) give cling's values bit for bit,
the ROC equals scikit-learn's, and without a compiler (or with PNETVIZ_KERNELS=jit) cling's build runs."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score, roc_curve

from pnetviz.io import kernels

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CXX") or "c++") is None,
                                reason="no C++ compiler: the kernels are cling's only")


@pytest.fixture(scope="module")
def builds():
    """(host-compiled, cling) kernels; the library of the user's cache (built there once per user)."""
    path = kernels.library()
    assert path is not None and path.name.startswith("kernels-")
    return kernels.load(path), kernels.jit()


def toy(n: int, dtype, seed: int = 3):
    """Scores rounded to 1e-2 (many ties), weights of both signs and some zeros, 40% signal."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.uint8)
    s = np.round(rng.normal(0.4 + 0.2 * y, 0.25), 2).astype(dtype)
    w = rng.uniform(-0.3, 1.0, n)
    w[rng.random(n) < 0.02] = 0.0
    return s, y, w


def roc(k, s, y, w):
    n = s.size
    tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
    m = (k.roc_curve_f32 if s.dtype == np.float32 else k.roc_curve_f64)(s, w, y, n, tps, fps, thr, auc)
    return tps[:m], fps[:m], thr[:m], auc[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_roc_both_builds_bit_for_bit_and_equal_to_sklearn(builds, dtype):
    s, y, w = toy(20_000, dtype)
    compiled, cling = (roc(k, s, y, w) for k in builds)
    for a, b in zip(compiled, cling):
        np.testing.assert_array_equal(a, b)
    tps, fps, thr, auc = compiled
    assert len(thr) == len(np.unique(s[w != 0])) + 1  # one point per distinct score, ties together
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)  # negative weights: no roc_auc_score
    np.testing.assert_allclose(fps / fps[-1], fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tps / tps[-1], tpr, rtol=0, atol=1e-12)
    assert auc == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)
    keep = w > 0
    assert roc(builds[0], s[keep], y[keep], w[keep])[3] == pytest.approx(
        roc_auc_score(y[keep], s[keep], sample_weight=w[keep]), abs=1e-12)


def test_chunks_bootstrap_and_weight_modes_both_builds(builds):
    s, y, w = toy(5_000, np.float32, seed=5)
    n, results = s.size, []
    for k in builds:
        tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
        chunks, count = np.empty((4, n // 50 + 1)), np.zeros(1, np.uint64)
        k.roc_curve_chunks_f32(s, w, y, n, tps, fps, thr, auc, 50, chunks, count)
        boot = np.empty((4, 64))
        k.roc_bootstrap_f32(s, w, y, n, 64, 11, 0.5, 1, boot[0], boot[1])
        c = int(count[0])
        rows = [np.ascontiguousarray(chunks[i, :c]) for i in range(4)]
        k.bootstrap_chunks(*rows, c, 64, 11, 0.5, boot[2], boot[3])
        modes = np.empty(3)
        k.auc_weight_modes_f32(s, w, y, n, modes)
        results.append((auc, chunks[:, :c], boot, modes))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    modes = results[0][3]
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    assert modes[1] == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)  # signed weights
    assert modes[0] == pytest.approx(roc_auc_score(y, s, sample_weight=np.abs(w)), abs=1e-12)


def test_hull_tables_and_decimation_both_builds(builds):
    rng = np.random.default_rng(8)
    x = np.sort(rng.random(500))
    y = np.sqrt(x) + rng.normal(0, 0.01, 500)
    scores = rng.random((3, 2_000)).astype(np.float32)  # k rows of n
    label, w, sel = rng.integers(0, 3, 2_000).astype(np.int32), rng.random(2_000), np.ones(2_000, np.uint8)
    out = []
    for k in builds:
        index, mark = np.empty(500, np.int64), np.empty(500, np.uint8)
        m = k.upper_hull(x, y, 500, index)
        k.decimate_mask(x, y, 500, 1e-2, mark)
        tables = [np.zeros(9), np.zeros(9), np.zeros(3 * 3 * 10), np.zeros(3 * 3 * 10)]
        k.class_tables_f32(scores, 2_000, 3, label, w, sel, 10, *tables)
        out.append((index[:m], mark, *tables))
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)
    assert out[0][2].sum() == pytest.approx(w.sum())  # every selected event in the confusion once
    best = np.argmax(scores, axis=0)
    assert out[0][2][label[0] * 3 + best[0]] >= w[0]  # event 0 in its (true, argmax) cell
    assert out[0][3].sum() == 2_000  # counts of nonzero weights


def test_jit_forced_by_the_environment(monkeypatch, builds):
    monkeypatch.setenv("PNETVIZ_KERNELS", "jit")
    assert kernels.kernels() is kernels.jit()


def test_without_a_compiler_cling_runs(monkeypatch, tmp_path):
    monkeypatch.setenv("CXX", shutil.which("false") or "/bin/false")  # a compiler that fails every build
    assert kernels.library(tmp_path) is None
    assert list(tmp_path.glob("kernels-*.failed"))  # recorded: not tried again for that key
    monkeypatch.setenv("PNETVIZ_CACHE", str(tmp_path))
    kernels.native.cache_clear()
    try:
        assert kernels.native() is None
        assert kernels.kernels() is kernels.jit()
    finally:
        kernels.native.cache_clear()


def test_wrong_array_type_is_refused(builds):
    s, y, w = toy(10, np.float32)
    with pytest.raises(TypeError, match="argument 2 must be a contiguous float64 array"):
        roc(builds[0], s, y, w.astype(np.float32))


@pytest.mark.parametrize("f32_weights", [True, False])
def test_one_sort_per_class_gives_the_mixed_sorts_bits(builds, f32_weights):
    """roc_curve sorts signal and background apart (macros/roc_split.h; 8-byte records when the
    weights are float32 values): the curve and AUC are those of one sort of mixed records
    (sort_run + sweep_run), bit for bit, and its chunk sums those the binned bootstrap makes."""
    from pnetviz.rootenv import compiled  # noqa: PLC0415

    s, y, w = toy(30_000, np.float64, seed=13)
    if f32_weights:
        w = w.astype(np.float32).astype(np.float64)
    n = s.size
    mixed = compiled('#include "weighted_roc.h"', "weighted_roc.h").pnetviz
    run = mixed.sort_run_f64(s, w, y, n)
    tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
    m = int(mixed.sweep_run_f64(run, tps, fps, thr, auc))
    for k in builds:
        split = roc(k, s, y, w)
        for a, b in zip(split, (tps[:m], fps[:m], thr[:m], auc[0])):
            np.testing.assert_array_equal(a, b)
        s32 = s.astype(np.float32)
        chunks, count = np.empty((4, n // 40 + 1)), np.zeros(1, np.uint64)
        k.roc_curve_chunks_f32(s32, w, y, n, np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1), 40,
                               chunks, count)  # fmt: skip
        c = int(count[0])
        assert 0 < c <= n // 40 + 1
        np.testing.assert_allclose(chunks[0, :c].sum(), w[(y == 1)].sum(), rtol=1e-12)
        replicas = np.empty((4, 32))
        k.bootstrap_chunks(*[np.ascontiguousarray(chunks[i, :c]) for i in range(4)], c, 32, 7, 0.5, replicas[0], replicas[1])
        k.roc_bootstrap_f32(s32, w, y, n, 32, 7, 0.5, 40, replicas[2], replicas[3])  # the mixed sort's chunk sums
        np.testing.assert_array_equal(replicas[:2], replicas[2:])


DISTINCT_MIN = 1 << 17  # macros/roc_distinct.h's kDistinctMinEvents: from there few distinct scores are summed


def sorted_curve(s, y, w):
    """The curve of one sort of mixed records (weighted_roc.h's sort_run + sweep_run, cling): event by event."""
    from pnetviz.rootenv import compiled  # noqa: PLC0415

    mixed = compiled('#include "weighted_roc.h"', "weighted_roc.h").pnetviz
    n = s.size
    tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
    m = int(mixed.sweep_run_f64(mixed.sort_run_f64(s.astype(np.float64), w, y, n), tps, fps, thr, auc))
    return tps[:m], fps[:m], thr[:m], auc[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_few_distinct_scores_summed_per_score_equal_the_sort_and_sklearn(builds, dtype):
    """From 2^17 events, scores of few distinct values are summed per score (macros/roc_distinct.h),
    not sorted: both builds agree bit for bit, the points are the sort's (the same thresholds, tps
    and fps to 1e-14 of the totals), and the curve and AUC equal scikit-learn's to 1e-12."""
    s, y, w = toy(DISTINCT_MIN + 9_000, dtype, seed=17)
    compiled, cling = (roc(k, s, y, w) for k in builds)
    for a, b in zip(compiled, cling):
        np.testing.assert_array_equal(a, b)
    tps, fps, thr, auc = compiled
    sort_tps, sort_fps, sort_thr, sort_auc = sorted_curve(s, y, w)
    np.testing.assert_array_equal(thr, sort_thr)
    assert len(thr) == len(np.unique(s[w != 0])) + 1 < 300
    np.testing.assert_allclose(tps, sort_tps, rtol=0, atol=1e-14 * abs(sort_tps[-1]))
    np.testing.assert_allclose(fps, sort_fps, rtol=0, atol=1e-14 * abs(sort_fps[-1]))
    assert auc == pytest.approx(sort_auc, abs=1e-14)
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(fps / fps[-1], fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tps / tps[-1], tpr, rtol=0, atol=1e-12)
    assert auc == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)


def test_sums_per_score_are_taken_from_2_17_events(builds):
    """Signal weights 2^53 at score 0.9 and 1, 1 at 0.5: event by event the running sum rounds each
    1 away (2^53 + 1 is not a double), the sum per score adds 2 exactly. Below 2^17 events the sort
    (and its bits) is kept; from 2^17 the scores (3 distinct) are summed."""
    for n, second in ((DISTINCT_MIN - 1, 2.0**53), (DISTINCT_MIN, 2.0**53 + 2)):
        s = np.full(n, 0.1, np.float32)
        s[:3] = [0.9, 0.5, 0.5]
        y = np.zeros(n, np.uint8)
        y[:3] = 1
        w = np.ones(n)
        w[0] = 2.0**53
        tps, fps, thr, _ = roc(builds[0], s, y, w)
        np.testing.assert_array_equal(thr, [np.inf, np.float32(0.9), np.float32(0.5), np.float32(0.1)])
        assert tps[2] == second and fps[3] == n - 3


def test_many_distinct_scores_keep_the_sorts_bits(builds):
    """Past one distinct score per 8 events the pass stops and the radix sort runs: continuous
    scores at 2^17 + 9000 events give the curve of one mixed sort bit for bit."""
    rng = np.random.default_rng(21)
    n = DISTINCT_MIN + 9_000
    s, y = rng.random(n).astype(np.float32), (rng.random(n) < 0.4).astype(np.uint8)
    w = rng.uniform(-0.2, 1.0, n).astype(np.float32).astype(np.float64)
    for a, b in zip(roc(builds[0], s, y, w), sorted_curve(s, y, w)):
        np.testing.assert_array_equal(a, b)


def test_chunk_sums_per_score_close_where_the_sort_closes(builds):
    """The bootstrap's chunk sums from the sums per score: a chunk closes at the first score
    boundary after min_chunk events, as the sort's (numpy: events by decreasing score)."""
    s, y, w = toy(DISTINCT_MIN + 9_000, np.float32, seed=19)
    s = np.round(s, 1)  # ~20 distinct scores: chunks of several scores
    n, min_chunk = s.size, 20_000
    chunks, count = np.empty((4, n // min_chunk + 1)), np.zeros(1, np.uint64)
    builds[0].roc_curve_chunks_f32(s, w, y, n, np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1),
                                   min_chunk, chunks, count)  # fmt: skip
    keep = w != 0
    score, sig, weight = s[keep], y[keep] == 1, w[keep]
    values, per_score = np.unique(-score, return_counts=True)  # decreasing score
    ends, filled = [], 0
    for i, k in enumerate(per_score):
        filled += k
        if filled >= min_chunk or i == len(per_score) - 1:
            ends.append(-values[i])
            filled = 0
    assert int(count[0]) == len(ends) > 3
    for j, (top, bottom) in enumerate(zip([np.inf, *ends[:-1]], ends)):
        inside = (score < top) & (score >= bottom)
        for row, cls in ((0, sig), (2, ~sig)):
            np.testing.assert_allclose(chunks[row, j], weight[inside & cls].sum(), rtol=1e-12)
            np.testing.assert_allclose(chunks[row + 1, j], (weight[inside & cls] ** 2).sum(), rtol=1e-12)


def test_weight_modes_from_sums_per_score_equal_sklearn(builds):
    """auc_weight_modes from 2^17 events with few distinct scores (sums per score of |w|, w and
    max(w, 0)): both builds bit for bit, each mode's AUC that of scikit-learn's curve to 1e-12."""
    s, y, w = toy(DISTINCT_MIN + 9_000, np.float32, seed=23)
    modes = [np.empty(3), np.empty(3)]
    for k, out in zip(builds, modes):
        k.auc_weight_modes_f32(s, w, y, s.size, out)
    np.testing.assert_array_equal(*modes)
    for got, weights in zip(modes[0], (np.abs(w), w, np.maximum(w, 0.0))):
        fpr, tpr, _ = roc_curve(y, s, sample_weight=weights, drop_intermediate=False)
        assert got == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)
    assert modes[0][0] == pytest.approx(roc_auc_score(y, s, sample_weight=np.abs(w)), abs=1e-12)


def _chunks_of(k, s, y, w, min_chunk):
    n = s.size
    tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
    chunks, count = np.empty((4, n // min_chunk + 1)), np.zeros(1, np.uint64)
    m = int(k.roc_curve_chunks_f32(s, w, y, n, tps, fps, thr, auc, min_chunk, chunks, count))
    return tps[:m], fps[:m], thr[:m], auc[0], chunks[:, : int(count[0])]


@pytest.mark.parametrize("case", ["float32 weights", "float64 weights", "crowded buckets"])
def test_bucket_sort_of_float32_scores_keeps_the_sorts_bits(builds, case):
    """Continuous float32 scores are scattered by their key's top 16 bits and each bucket sorted and
    swept in cache (macros/roc_msd.h; 8-byte records in the fps output, 12-byte ones apart): both
    builds give the curve of one sort of mixed records bit for bit, chunk sums that close where the
    events by decreasing score reach min_chunk, and scikit-learn's curve and AUC to 1e-12."""
    rng = np.random.default_rng(23)
    n, min_chunk = 60_000, 700
    y = (rng.random(n) < 0.4).astype(np.uint8)
    s = rng.beta(2 + 3 * y, 5 - 3 * y).astype(np.float32)
    if case == "crowded buckets":  # most events in a few buckets of [0.99, 1): in-bucket radix passes
        s = np.where(rng.random(n) < 0.7, 1 - rng.random(n).astype(np.float32) * 1e-2, s).astype(np.float32)
        s[:50] = s[50]  # ties
        s[50:60] = -0.0
        s[60:70] = 0.0
    w = rng.uniform(-0.3, 1.0, n)
    w[rng.random(n) < 0.02] = 0.0
    if case != "float64 weights":
        w = w.astype(np.float32).astype(np.float64)
    results = [_chunks_of(k, s, y, w, min_chunk) for k in builds]
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    tps, fps, thr, auc, chunks = results[0]
    for a, b in zip((tps, fps, thr, auc), sorted_curve(s, y, w)):
        np.testing.assert_array_equal(a, b)
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(fps / fps[-1], fpr, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tps / tps[-1], tpr, rtol=0, atol=1e-12)
    assert auc == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)
    keep = w != 0
    order = np.argsort(-s[keep].astype(np.float64), kind="stable")
    score, sig, weight = s[keep][order], y[keep][order] == 1, w[keep][order]
    last = np.r_[score[1:] != score[:-1], True]  # the last event of each distinct score
    ends, filled = [], 0
    for i in range(score.size):
        filled += 1
        if last[i] and (filled >= min_chunk or i == score.size - 1):
            ends.append(i + 1)
            filled = 0
    assert chunks.shape[1] == len(ends) > 50
    for j, (lo, hi) in enumerate(zip([0, *ends[:-1]], ends)):
        for row, cls in ((0, sig[lo:hi]), (2, ~sig[lo:hi])):
            part = weight[lo:hi][cls]
            assert chunks[row, j] == pytest.approx(part.sum(), rel=1e-12, abs=1e-12)
            assert chunks[row + 1, j] == pytest.approx((part**2).sum(), rel=1e-12, abs=1e-12)
