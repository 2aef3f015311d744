"""Asymptotic expected results (Cowan, Cranmer, Gross, Vitells, arXiv:1007.1727), given the
Asimov test statistics; the fits that give them are in limits/fit.py.

- Discovery: on the Asimov data of signal + background (mu = 1, nuisances nominal), the
  median significance is Z = sqrt(q0) with q0 = -2 ln [L(0, theta_hat_0) / L(1, theta_nominal)]
  (the unconditional fit of Asimov data is its generating point).
- Limit: on the background-only Asimov data, r(mu) = sqrt(q_mu,A) with
  q_mu,A = -2 ln [L(mu, theta_hat_mu) / L(0, theta_nominal)]. The CLs of the expected band N
  (N = -2..2, + = weaker) at mu is Phi(N - r(mu)) / Phi(N), pyhf's `expected_pvalues` for
  qtilde with its default (normal) base distribution; the 95 % limit of band N is the mu where
  r(mu) = x_N = N - Phi^-1(0.05 Phi(N)) (x_0 = 1.96). r is found by root finding on mu with
  inverse interpolation through the points already fitted (every fit serves every band).

Without nuisance parameters both statistics are closed forms of the templates (`closed_form_*`),
which the tests prove equal to the RooFit fits.
"""

from __future__ import annotations

from collections.abc import Callable
from statistics import NormalDist

import numpy as np

from pnetviz.limits.spec import Limit

BANDS = (-2, -1, 0, 1, 2)  # the order of Limit's fields: m2, m1, median, p1, p2
CL = 0.95
RTOL = 1e-3  # relative tolerance on r(mu) = x_N (about that on mu; the expected CLs to ~2e-4)
MAX_FITS = 60


class FitFailed(Exception):
    """A fit did not converge: its message is the one line of Expected.error."""


def target(n: int, cl: float = CL) -> float:
    """x_N: the sqrt(q_mu,A) at which the expected CLs of band N is 1 - cl."""
    unit = NormalDist()
    return n - unit.inv_cdf((1 - cl) * unit.cdf(n))


def cls_expected(sqrt_qa: float, n: int) -> float:
    """The expected CLs of band N at a mu of sqrt(q_mu,A) = sqrt_qa."""
    unit = NormalDist()
    return unit.cdf(n - sqrt_qa) / unit.cdf(n)


def closed_form_significance(signal: np.ndarray, background: np.ndarray) -> float:
    """sqrt(sum 2((s+b) ln(1+s/b) - s)): the binned Asimov Z without nuisance parameters."""
    s, b = np.asarray(signal, dtype=np.float64), np.asarray(background, dtype=np.float64)
    return float(np.sqrt(max(0.0, 2 * np.sum((s + b) * np.log1p(s / b) - s))))


def closed_form_sqrt_qa(signal: np.ndarray, background: np.ndarray) -> Callable[[float], float]:
    """mu -> sqrt(q_mu,A) on the background-only Asimov data, without nuisance parameters:
    q_mu,A = 2 sum(mu s - b ln(1 + mu s/b))."""
    s, b = np.asarray(signal, dtype=np.float64), np.asarray(background, dtype=np.float64)

    def sqrt_qa(mu: float) -> float:
        return float(np.sqrt(max(0.0, 2 * np.sum(mu * s - b * np.log1p(mu * s / b)))))
    return sqrt_qa


def _next_mu(points: list[tuple[float, float]], x: float) -> float:
    """The mu where r = x by inverse interpolation through the (up to 3) fitted points nearest in r."""
    near = sorted(points, key=lambda p: abs(p[1] - x))[:3]
    if len(near) == 1 or len({r for _, r in near}) < len(near):
        mu, r = near[0]
        return mu * x / r if r > 0 else 2 * mu
    if len(near) == 3:  # Lagrange in r (inverse quadratic), kept only if it stays between sane bounds
        (m0, r0), (m1, r1), (m2, r2) = near
        mu = (m0 * (x - r1) * (x - r2) / ((r0 - r1) * (r0 - r2)) + m1 * (x - r0) * (x - r2) / ((r1 - r0) * (r1 - r2))
              + m2 * (x - r0) * (x - r1) / ((r2 - r0) * (r2 - r1)))
        lo, hi = min(m for m, _ in near) * 0.5, max(m for m, _ in near) * 2
        if lo < mu < hi:
            return mu
    (m0, r0), (m1, r1) = near[:2]
    return m0 + (x - r0) * (m1 - m0) / (r1 - r0)


def solve_limit(sqrt_qa: Callable[[float], float], mu_start: float, cl: float = CL) -> tuple[Limit, int]:
    """The expected CLs limit and its bands from r(mu) = sqrt(q_mu,A) (each call may be a fit),
    and the number of calls made. FitFailed if r does not grow with mu or does not converge."""
    points: list[tuple[float, float]] = []

    def evaluate(mu: float) -> float:
        if not (np.isfinite(mu) and mu > 0):
            raise FitFailed(f"the limit's root finding left mu > 0 (mu = {mu:.4g})")
        if len(points) >= MAX_FITS:
            raise FitFailed(f"the limit's root finding did not converge in {MAX_FITS} fits")
        r = float(sqrt_qa(mu))
        if not np.isfinite(r) or r <= 0:
            raise FitFailed(f"sqrt(q_mu,A) is {r:.4g} at mu = {mu:.4g}: the signal does not change the likelihood")
        points.append((mu, r))
        return r

    evaluate(mu_start)
    found = {}
    for n in (0, -1, 1, -2, 2):
        x = target(n, cl)
        best = min(points, key=lambda p: abs(p[1] - x))
        while abs(best[1] - x) > RTOL * x:
            mu = _next_mu(points, x)
            best = (mu, evaluate(mu))
        found[n] = best[0]
    mus = sorted(found.items())
    if any(b[1] < a[1] for a, b in zip(mus, mus[1:])):
        raise FitFailed("the expected limit's bands are not ordered (sqrt(q_mu,A) does not grow with mu)")
    return Limit(median=found[0], m2=found[-2], m1=found[-1], p1=found[1], p2=found[2]), len(points)


def closed_form_limit(signal: np.ndarray, background: np.ndarray, cl: float = CL) -> Limit:
    """The expected CLs limit without nuisance parameters (no fit)."""
    z1 = closed_form_sqrt_qa(signal, background)(1.0)
    return solve_limit(closed_form_sqrt_qa(signal, background), target(0, cl) / z1 if z1 > 0 else 1.0, cl)[0]
