"""The optimal-binning kernel's pruning (macros/optimal_binning.h): the bound it relies on for the
Asimov objectives, their numerical stability, and the kernel against the numpy recursion at the
scale where the branch and bound skips most blocks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pnetviz.metrics import binning as bn


def random_yields(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Signal, background and background sum w^2 over many decades (s/b from 1e-16 to 1e8,
    sigma_b/b from 1e-7 to 1e3)."""
    rng = np.random.default_rng(seed)
    s, b = 10 ** rng.uniform(-10, 4, n), 10 ** rng.uniform(-4, 6, n)
    return s, b, b * b * 10 ** rng.uniform(-14, 6, n)


@pytest.mark.parametrize("objective", ["asimov", "asimov_mc"])
def test_asimov_objectives_stay_below_the_kernels_block_bound(objective):
    """The kernel skips a block of candidates when s^2/b (1 + 1e-12) + 1e-13 s, from the block's
    extreme yields, is below a maximum already found: valid only if no segment's computed Z^2
    exceeds it."""
    s, b, v = random_yields(2_000_000, 39)
    z2 = bn.segment_objective(objective, s, b, v)
    assert np.all(np.isfinite(z2))
    assert np.all(z2 <= s * s / b * (1 + 1e-12) + 1e-13 * s)


def test_asimov_with_mc_variance_tends_to_asimov_as_the_variance_vanishes():
    """s/b = 1e-9, sigma_b/b = 1e-5: both are s^2/b to 1e-6; the ratio of the two logarithm
    terms' rounding used to leave ~1e6 times that."""
    s, b = 1e-3, 1e6
    v = (1e-5 * b) ** 2
    plain = float(bn.segment_objective("asimov", s, b))
    with_mc = float(bn.segment_objective("asimov_mc", s, b, v))
    assert plain == pytest.approx(s * s / b, rel=1e-6)
    assert with_mc == pytest.approx(s * s / b / (1 + v / b), rel=1e-6)


def logistic_toy(m: int) -> bn.FineBins:
    """The benchmark's toy (benchmarks/bench_binning.py), smaller: S = 50, B = 5000 expected."""
    rng = np.random.default_rng(1)
    y = rng.random(100_000) < 0.05
    x = 1 / (1 + np.exp(-rng.normal(np.where(y, 1.5, -1.0), 1.0)))
    w = rng.uniform(0.5, 1.5, y.size)
    return bn.fill(bn.fine_edges(x, y, w, m), x, y, w, (50 / w[y].sum(), 5000 / w[~y].sum()))


@pytest.mark.parametrize("objective", list(bn.OBJECTIVES))
def test_kernel_equals_numpy_where_the_branch_and_bound_skips_most_blocks(objective):
    """M ~ 800 fine bins (13 blocks of candidates), K = 1..20: every optimum as the numpy
    recursion's, every returned partition summing to it and meeting the constraints."""
    fine = logistic_toy(800)
    constraints = bn.Constraints()
    totals, cuts = bn.optimal_cuts(fine, 20, objective, constraints)
    reference = bn.optimal_numpy(fine, 20, objective, constraints)
    assert np.all(np.isfinite(totals))
    np.testing.assert_allclose(totals, reference, rtol=1e-12)
    for k in range(1, 21):
        cut = cuts[k - 1, : k + 1]
        assert cut[0] == 0 and cut[-1] == fine.size and np.all(np.diff(cut) > 0)
        assert all(bn.allowed(fine, lo, hi, constraints) for lo, hi in itertools.pairwise(cut))
        parts = [float(bn.segment_objective(objective, fine.s[lo:hi].sum(), fine.b[lo:hi].sum(), fine.w2[lo:hi].sum()))
                 for lo, hi in itertools.pairwise(cut)]  # fmt: skip
        assert sum(parts) == pytest.approx(totals[k - 1], rel=1e-10)
