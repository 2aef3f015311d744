"""Multiplicity control over a family of p-values: Holm's step-down adjustment (family-wise error
rate; Holm, Scand. J. Statist. 6 (1979) 65) and Benjamini-Hochberg q-values (false discovery
rate; Benjamini & Hochberg, J. R. Statist. Soc. B 57 (1995) 289).

The family is the finite p-values given; None, NaN and values outside [0, 1] are not tests (no
p-value could be computed) and stay NaN in the output, at their place. An empty family gives an
empty list. Adjusted values are capped at 1 and monotone in the raw p-values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def _family(p_values: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    """(indices of the tests, their p-values): the entries that are finite numbers in [0, 1]."""
    raw = np.array([p if isinstance(p, (int, float)) and not isinstance(p, bool) else math.nan for p in p_values], dtype=float)
    tests = np.flatnonzero(np.isfinite(raw) & (raw >= 0) & (raw <= 1))
    return tests, raw[tests]


def family_size(p_values: Sequence[float | None]) -> int:
    """How many entries of `p_values` are tests (finite, in [0, 1])."""
    return int(_family(p_values)[0].size)


def holm(p_values: Sequence[float | None]) -> list[float]:
    """Holm-adjusted p-values: sorted ascending p_(1) <= ... <= p_(m), adjusted
    p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)); NaN where the input is not a test."""
    tests, p = _family(p_values)
    out = np.full(len(p_values), math.nan)
    m = p.size
    if m:
        order = np.argsort(p, kind="stable")
        adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
        out[tests[order]] = adjusted
    return out.tolist()


def benjamini_hochberg(p_values: Sequence[float | None]) -> list[float]:
    """Benjamini-Hochberg q-values: q_(i) = min_{j >= i} min(1, m p_(j) / j) over the ascending
    p-values; NaN where the input is not a test."""
    tests, p = _family(p_values)
    out = np.full(len(p_values), math.nan)
    m = p.size
    if m:
        order = np.argsort(p, kind="stable")
        scaled = m * p[order] / np.arange(1, m + 1)
        out[tests[order]] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out.tolist()
