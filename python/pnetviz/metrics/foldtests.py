"""Paired tests over cross-validation folds: the corrected resampled t-test of Nadeau & Bengio
(Machine Learning 52 (2003) 239), the default test of pnetviz's fold comparisons, with the naive
paired Student t kept for reference.

The k per-fold differences d_i of two models are not independent: each fold's model is trained
on data the other folds' models also saw. The corrected test replaces the variance of the mean
var(d)/k by var(d) (1/k + n_test/n_train), n_test/n_train the ratio of test to training events
of the folds (their mean over the folds compared), with k - 1 degrees of freedom; for k = 5 and
n_test/n_train = 1/4 the variance grows 2.25x and t shrinks 1.5x.

Identical folds: differences all within IDENTICAL_ULPS units in the last place (or
IDENTICAL_RTOL relative) of zero are rounding noise, "no difference" (t = 0, p = 1), not a
t of -1 and p of 0.5 from the sign of the noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pnetviz.rootenv import root

IDENTICAL_ULPS = 4
IDENTICAL_RTOL = 1e-12
RATIO_CONVENTION = ("n_test/n_train = test events / training events (the train split; validation events not "
                    "counted) of the compared pair, signal plus background, from each fold's summary_report.json, "
                    "averaged over the folds compared (both models' folds for a comparison of two); 1/(k-1) for k "
                    "folds when a report lacks the training counts")  # fmt: skip


def identical(a: Sequence[float], b: Sequence[float]) -> bool:
    """True when every |a_i - b_i| is within IDENTICAL_ULPS ulp of max(|a_i|, |b_i|) or
    IDENTICAL_RTOL of it: the two models give the same per-fold values up to rounding."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = np.maximum(np.abs(a), np.abs(b))
    tolerance = np.maximum(IDENTICAL_ULPS * np.spacing(scale), IDENTICAL_RTOL * scale)
    return bool(a.size and np.all(np.abs(a - b) <= tolerance))


def two_sided_p(t_value: float, dof: int) -> float:
    """Two-sided p-value of Student's t with `dof` degrees of freedom (ROOT::Math)."""
    return 2.0 * float(root().Math.tdistribution_cdf_c(abs(t_value), dof))


def events_ratio(test_events: Sequence[float | None], train_events: Sequence[float | None]) -> float | None:
    """Mean of n_test/n_train over the folds where both counts are known and positive; None when
    no fold has them (the caller states its fallback, RATIO_CONVENTION)."""
    ratios = [t / n for t, n in zip(test_events, train_events, strict=True)
              if isinstance(t, (int, float)) and isinstance(n, (int, float)) and n > 0 and t >= 0]  # fmt: skip
    return float(np.mean(ratios)) if ratios else None


def corrected_paired_test(a: Sequence[float], b: Sequence[float], ratio: float | None) -> dict:
    """The corrected resampled t-test of the per-fold differences d = a - b (Nadeau-Bengio).

    `ratio` is n_test/n_train (events_ratio); None: 1/(k-1), the k-fold value. Returns mean,
    std (ddof=1), standard_error = std sqrt(1/k + ratio) and t = mean/standard_error with k - 1
    degrees of freedom and its two-sided p_value; the naive paired t (std/sqrt(k)) as
    standard_error_naive, t_naive and p_naive_t (= scipy.stats.ttest_rel); `identical` (rounding
    noise only: t = 0, p = 1). Undefined entries (fewer than two folds, a constant nonzero
    difference) are None."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    k = int(d.size)
    ratio = (1.0 / (k - 1) if k > 1 else None) if ratio is None else float(ratio)
    out: dict = {"folds": k, "mean": float(d.mean()) if k else None, "std": None, "standard_error": None,
                 "standard_error_naive": None, "t": None, "t_naive": None, "dof": k - 1 if k > 1 else None,
                 "p_value": None, "p_naive_t": None, "test_train_ratio": ratio, "identical": identical(a, b)}  # fmt: skip
    if k < 2:
        return out
    if out["identical"]:
        return out | {"std": 0.0, "standard_error": 0.0, "standard_error_naive": 0.0, "t": 0.0, "t_naive": 0.0,
                      "p_value": 1.0, "p_naive_t": 1.0}  # fmt: skip
    std = float(np.std(d, ddof=1))
    out |= {"std": std, "standard_error": std * math.sqrt(1.0 / k + ratio), "standard_error_naive": std / math.sqrt(k)}
    if std > 0:
        t_value, t_naive = out["mean"] / out["standard_error"], out["mean"] / out["standard_error_naive"]
        out |= {"t": t_value, "p_value": two_sided_p(t_value, k - 1), "t_naive": t_naive,
                "p_naive_t": two_sided_p(t_naive, k - 1)}  # fmt: skip
    return out
