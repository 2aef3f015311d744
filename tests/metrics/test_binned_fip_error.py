"""binned_fip_error's replicas at once (C++ Poisson sums from numpy's generator, row-wise FIP) give
the per-replica numpy loop's numbers to the last bit, on random inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.metrics import hep, pairmetrics
from pnetviz.metrics.evaluate import N_BINS, BinarySample, equal_bins


def loop_error(sample, factors, replicas, seed):
    """The per-replica numpy loop binned_fip_error replaced, written out."""
    bins, sig = equal_bins(sample.scores, N_BINS), np.asarray(sample.is_signal, bool)
    w = np.asarray(sample.used, dtype=np.float64)
    rng = np.random.default_rng(seed)
    per_bin = w.size > pairmetrics.FIP_NORMAL_FROM
    sums = [(np.bincount(bins[m], w[m], N_BINS), np.bincount(bins[m], w[m] ** 2, N_BINS)) for m in (sig, ~sig)]
    values = []
    for _ in range(replicas):
        if per_bin:
            s, b = (np.maximum(rng.normal(mean, np.sqrt(var)), 0.0) for mean, var in sums)
        else:
            c = rng.poisson(1.0, w.size) * w
            s, b = np.bincount(bins[sig], c[sig], N_BINS), np.bincount(bins[~sig], c[~sig], N_BINS)
        if s.sum() > 0:
            values.append(hep.binned_fip(s * factors[0], b * factors[1]))
    return float(np.std(values, ddof=1)) if len(values) > 1 else math.nan


def sample(n, seed, negative=False, spread=0.15):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.clip(rng.normal(np.where(y, 0.65, 0.4), spread), 0, 1)
    w = rng.uniform(-0.3 if negative else 0.2, 1.5, n)
    return BinarySample(s, y, w, w)


@pytest.mark.parametrize("n, seed, negative, spread", [(600, 1, False, 0.15), (3000, 2, True, 0.15),
                                                       (40, 3, False, 0.05), (7, 4, True, 0.3), (1500, 5, False, 0.02)])  # fmt: skip
def test_poisson_replicas_match_the_numpy_loop_exactly(n, seed, negative, spread):
    x = sample(n, seed, negative, spread)
    for factors, replicas in (((1.0, 1.0), 200), ((0.37, 2.9), 57), ((3.0, 0.01), 2)):
        new, old = pairmetrics.binned_fip_error(x, factors, replicas, seed + 10), loop_error(x, factors, replicas, seed + 10)
        assert new == old or (math.isnan(new) and math.isnan(old))
    assert math.isfinite(pairmetrics.binned_fip_error(sample(600, 1), (1.0, 1.0), 200, 5))


def test_normal_replicas_above_the_event_limit_match_the_numpy_loop(monkeypatch):
    monkeypatch.setattr(pairmetrics, "FIP_NORMAL_FROM", 100)
    for n, seed, spread in ((2000, 6, 0.15), (300, 7, 0.03)):
        x = sample(n, seed, spread=spread)
        assert pairmetrics.binned_fip_error(x, (0.8, 1.7), 150, seed) == loop_error(x, (0.8, 1.7), 150, seed)


def test_no_spread_without_two_replicas_or_events():
    x = sample(100, 8)
    assert math.isnan(pairmetrics.binned_fip_error(x, (1.0, 1.0), 1, 3))
    assert math.isnan(pairmetrics.binned_fip_error(BinarySample(np.empty(0), np.empty(0, bool), np.empty(0), np.empty(0)), (1.0, 1.0), 50, 3))
    only_background = BinarySample(x.scores, np.zeros(100, bool), x.weights, x.used)
    assert math.isnan(pairmetrics.binned_fip_error(only_background, (1.0, 1.0), 50, 3))


def test_poisson_sums_are_numpys_and_leave_the_generator_where_numpy_would():
    rng = np.random.default_rng(11)
    key, w = rng.integers(0, 9, 5000), rng.normal(1.0, 2.0, 5000)
    mine, theirs = np.random.default_rng(12), np.random.default_rng(12)
    got = pairmetrics.poisson_binned_sums(key, w, 9, 30, mine)
    want = np.array([np.bincount(key, theirs.poisson(1.0, w.size) * w, 9) for _ in range(30)])
    assert np.array_equal(got, want)
    assert mine.random() == theirs.random()


def test_row_fips_are_hep_binned_fip():
    rng = np.random.default_rng(13)
    s, b = rng.exponential(1.0, (300, N_BINS)), rng.exponential(3.0, (300, N_BINS))
    s[::7, 3], b[::7, 3] = 0.0, 0.0  # empty bins, a different number per row: rows of every length summed
    empty = rng.random((300, N_BINS)) < np.linspace(0.0, 1.0, 300)[:, None]
    s[empty], b[empty] = 0.0, 0.0
    s[5], b[5, 7] = 0.0, 0.0  # no signal: NaN (0/0) as hep.binned_fip
    s[9, 4], b[9, 4] = 2.0, -2.0  # n = 0 with signal: left out
    got = pairmetrics.binned_fips(s, b)
    with np.errstate(invalid="ignore"):
        want = [hep.binned_fip(s[r], b[r]) for r in range(300)]
    assert np.array_equal(got, want, equal_nan=True) and np.isnan(got[5]) and np.isfinite(got).sum() > 250


@pytest.mark.parametrize("chunk", [5, 64, 1000, 1 << 20])
def test_poisson_sums_drawn_ahead_resume_across_chunks(monkeypatch, chunk):
    """Uniforms drawn ahead in chunks (a PCG64 generator): an event cut by a chunk's end is taken
    again from its first draw; sums and the generator's whole state (its cached 32-bit half too)
    are numpy's, whatever the chunk."""
    monkeypatch.setattr(pairmetrics, "DRAWN_CHUNK", chunk)
    rng = np.random.default_rng(21)
    key, w = rng.integers(0, 7, 700), rng.normal(1.0, 2.0, 700)
    mine, theirs = np.random.default_rng(22), np.random.default_rng(22)
    for g in (mine, theirs):
        g.integers(0, 2**32, dtype=np.uint32)  # a cached 32-bit half in the state
    got = pairmetrics.poisson_binned_sums(key, w, 7, 40, mine)
    want = np.array([np.bincount(key, theirs.poisson(1.0, w.size) * w, 7) for _ in range(40)])
    assert np.array_equal(got, want)
    assert mine.bit_generator.state == theirs.bit_generator.state
    assert mine.random() == theirs.random()


def test_poisson_sums_of_another_bit_generator_are_numpys():
    rng = np.random.default_rng(23)
    key, w = rng.integers(0, 5, 300), rng.random(300)
    mine, theirs = np.random.Generator(np.random.Philox(4)), np.random.Generator(np.random.Philox(4))
    got = pairmetrics.poisson_binned_sums(key, w, 5, 25, mine)
    want = np.array([np.bincount(key, theirs.poisson(1.0, w.size) * w, 5) for _ in range(25)])
    assert np.array_equal(got, want) and mine.random() == theirs.random()


def test_normal_replicas_have_the_poisson_replicas_spread(monkeypatch):
    """Above FIP_NORMAL_FROM events the per-bin normal replicas stand for the Poisson ones: on a toy
    just above it, the error averaged over 8 seeds agrees with the Poisson replicas' (forced by a
    higher limit) to 5% (each seed's error has ~5% noise from its 200 replicas: the means' ~2%)."""
    x = sample(pairmetrics.FIP_NORMAL_FROM + 1000, 31)
    normal = np.mean([pairmetrics.binned_fip_error(x, (1.0, 1.0), 200, seed) for seed in range(8)])
    monkeypatch.setattr(pairmetrics, "FIP_NORMAL_FROM", 10**9)
    poisson = np.mean([pairmetrics.binned_fip_error(x, (1.0, 1.0), 200, seed) for seed in range(8)])
    assert normal == pytest.approx(poisson, rel=0.05) and normal > 0
