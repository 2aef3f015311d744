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
