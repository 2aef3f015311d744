"""Performance versus an observer (VarVsEff) and the sculpting check (issue 36 item 2): the
numbers of pnetviz.metrics.observers against an independent numpy recomputation and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from pnetviz.metrics import observers


def sample(n: int = 4000, seed: int = 3) -> tuple[np.ndarray, ...]:
    """Observer, score, is-signal, weights: the background's observer grows with its score."""
    rng = np.random.default_rng(seed)
    sig = rng.random(n) < 0.35
    score = np.clip(rng.normal(np.where(sig, 0.7, 0.35), 0.2), 0, 1)
    x = np.where(sig, rng.normal(90, 7, n), 20 + rng.exponential(40, n) + 60 * score * ~sig)
    return x, score, sig, rng.uniform(0.1, 2.0, n)


def recompute(x, score, sig, w, target):
    """VarVsEff by loops over the bins, written from the definition."""
    order = np.argsort(-score[sig])
    frac = np.cumsum(w[sig][order]) / w[sig].sum()
    cut = score[sig][order][np.nonzero(frac >= target - 1e-12)[0][0]]
    edges = np.unique(np.quantile(x, np.linspace(0, 1, observers.N_BINS + 1)))
    eff_s, err_s, rej, err_r = [], [], [], []
    for i in range(edges.size - 1):
        last = i == edges.size - 2
        inside = (x >= edges[i]) & ((x <= edges[i + 1]) if last else (x < edges[i + 1]))
        for cls, out, err in ((sig, eff_s, err_s), (~sig, rej, err_r)):
            sel = inside & cls
            W, P = w[sel].sum(), w[sel & (score >= cut)].sum()
            e = P / W
            var = sum(wi**2 * ((1 - e) ** 2 if si >= cut else e**2) for wi, si in zip(w[sel], score[sel]))
            if out is eff_s:
                out.append(e), err.append(np.sqrt(var) / W)
            else:
                out.append(1 / e if e > 0 else np.nan), err.append(np.sqrt(var) / W / e**2 if e > 0 else np.nan)
    return cut, edges, np.array(eff_s), np.array(err_s), np.array(rej), np.array(err_r)


def test_var_vs_eff_equals_a_numpy_recomputation():
    x, score, sig, w = sample()
    v = observers.var_vs_eff(x, score, sig, w, target=0.7)
    cut, edges, eff_s, err_s, rej, err_r = recompute(x, score, sig, w, 0.7)
    assert v.threshold == cut
    np.testing.assert_allclose(v.edges, edges)
    np.testing.assert_allclose(v.eps_s, eff_s, rtol=1e-12)
    np.testing.assert_allclose(v.eps_s_error, err_s, rtol=1e-10)
    np.testing.assert_allclose(v.rejection, rej, rtol=1e-12)
    np.testing.assert_allclose(v.rejection_error, err_r, rtol=1e-10)
    assert v.inclusive_eps_s == pytest.approx(0.7, abs=2e-3)
    assert v.n_signal.sum() == sig.sum() and v.n_background.sum() == (~sig).sum()


def test_unweighted_error_is_the_binomial_one():
    x, score, sig, _ = sample(seed=8)
    v = observers.var_vs_eff(x, score, sig, np.ones(x.size))
    np.testing.assert_allclose(v.eps_s_error, np.sqrt(v.eps_s * (1 - v.eps_s) / v.n_signal), rtol=1e-10)


def test_bin_without_passing_background_has_no_rejection():
    x = np.array([1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0])
    sig = np.array([True] * 4 + [False] * 4)
    score = np.array([0.9, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.95])
    v = observers.var_vs_eff(x, score, sig, np.ones(8), target=1.0, bins=2)
    assert v.threshold == 0.9
    np.testing.assert_array_equal(v.eps_b, [0.0, 0.5])
    assert np.isnan(v.rejection[0]) and v.rejection[1] == 2.0


def test_jsd_equals_scipy_squared():
    rng = np.random.default_rng(1)
    for _ in range(20):
        p, q = rng.random(12), rng.random(12)
        p[rng.random(12) < 0.3] = 0.0
        assert observers.jensen_shannon(p, q) == pytest.approx(jensenshannon(p, q, base=2) ** 2, abs=1e-12)
    assert observers.jensen_shannon([1, 0], [0, 1]) == pytest.approx(1.0)
    assert observers.jensen_shannon([0.5, 0.5], [0.5, 0.5]) == 0.0


def test_sculpting_shapes_and_divergence():
    x, score, sig, w = sample(seed=4)
    s = observers.sculpting(x, score, sig, w)
    b = ~sig
    lo, hi = np.percentile(x[b], [1, 99])
    np.testing.assert_allclose(s.edges, np.linspace(lo, hi, observers.SCULPT_BINS + 1))
    idx = np.clip(np.searchsorted(s.edges, x[b], side="right") - 1, 0, observers.SCULPT_BINS - 1)
    inclusive = np.bincount(idx, w[b], observers.SCULPT_BINS) / w[b].sum()
    np.testing.assert_allclose(s.inclusive, inclusive, rtol=1e-12)
    for t, cut, shape, jsd in zip(s.targets, s.thresholds, s.passing, s.jsd, strict=True):
        keep = score[b] >= cut
        assert w[sig][score[sig] >= cut].sum() / w[sig].sum() >= t - 1e-12
        expected = np.bincount(idx[keep], w[b][keep], observers.SCULPT_BINS) / w[b][keep].sum()
        np.testing.assert_allclose(shape, expected, rtol=1e-12)
        assert jsd == pytest.approx(jensenshannon(expected, inclusive, base=2) ** 2, abs=1e-12)
    assert s.jsd[0] > s.jsd[2] > 0.01  # the tighter cut sculpts the background more (it is built so)
