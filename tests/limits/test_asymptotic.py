"""The asymptotic formulas on hand-worked cases: with sigma independent of mu, the bands are
CCGV's closed form mu_N = sigma (Phi^-1(1 - 0.05 Phi(N)) + N); a likelihood that mu does not
change is a failure, never a number."""

from __future__ import annotations

from statistics import NormalDist

import pytest

from pnetviz.limits.asymptotic import FitFailed, cls_expected, solve_limit, target


def test_median_target_is_196():
    assert target(0) == pytest.approx(1.959964, abs=1e-6)
    for n in (-2, -1, 0, 1, 2):
        assert cls_expected(target(n), n) == pytest.approx(0.05, rel=1e-12)


def test_bands_of_a_constant_sigma_are_ccgvs_formula():
    sigma = 0.37
    limit, calls = solve_limit(lambda mu: mu / sigma, mu_start=1.0)
    unit = NormalDist()
    for n, value in zip((-2, -1, 0, 1, 2), (limit.m2, limit.m1, limit.median, limit.p1, limit.p2)):
        assert value == pytest.approx(sigma * (unit.inv_cdf(1 - 0.05 * unit.cdf(n)) + n), rel=1e-9)
    assert calls == 6  # the start, then one step per band: r is linear in mu


def test_a_flat_likelihood_is_a_failure():
    with pytest.raises(FitFailed, match="does not change the likelihood"):
        solve_limit(lambda mu: 0.0, mu_start=1.0)
