"""Cross-fold aggregation: per-fold metric table with mean +- std, mean ROC and rejection
curves with +-1 sigma bands on common grids (rejection: in log10, geometric mean).

Only small per-fold summaries are kept (curves interpolated on fixed grids, scalars), so
aggregating folds of 1e7-event ntuples costs no memory. std is the sample standard deviation
(numpy ddof=1) over folds.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics.evaluate import SplitResult
from pnetviz.metrics.roc import BinaryCurve

# Common grids: FPR dense near 0 (log-spaced from 1e-4) plus linear; eps_s for rejection.
FPR_GRID = np.unique(np.r_[0.0, np.logspace(-4, 0, 300), np.linspace(0, 1, 101)])
EFF_GRID = np.linspace(0.1, 1.0, 91)


def tpr_on_grid(curve: BinaryCurve, grid: np.ndarray = FPR_GRID) -> np.ndarray:
    """Signal efficiency of the exact (step) curve at each background efficiency in `grid`:
    linear between points, the upper end of a vertical step where the grid hits it exactly."""
    fpr, tpr = curve.fpr, curve.tpr
    k = np.searchsorted(fpr, grid, side="right")  # first point beyond g
    lo = np.clip(k - 1, 0, fpr.size - 1)
    hi = np.clip(k, 0, fpr.size - 1)
    span = fpr[hi] - fpr[lo]
    frac = np.divide(grid - fpr[lo], span, out=np.zeros_like(grid), where=span > 0)
    return tpr[lo] + frac * (tpr[hi] - tpr[lo])


def eps_b_on_grid(curve: BinaryCurve, grid: np.ndarray = EFF_GRID) -> np.ndarray:
    """Background efficiency where the curve first reaches each signal efficiency in `grid`."""
    fpr, tpr = curve.fpr, curve.tpr
    k = np.clip(np.searchsorted(tpr, grid, side="left"), 1, tpr.size - 1)
    span = tpr[k] - tpr[k - 1]
    frac = np.divide(grid - tpr[k - 1], span, out=np.zeros_like(grid), where=span > 0)
    return fpr[k - 1] + frac * (fpr[k] - fpr[k - 1])


@dataclass(frozen=True)
class FoldCurves:
    """One fold, one split: curves on the common grids and the scalar metrics to tabulate."""

    fold: int
    tpr: np.ndarray  # on FPR_GRID
    rejection: np.ndarray  # 1/eps_b on EFF_GRID (inf where eps_b = 0)
    scalars: dict[str, float]


TABULATED = {  # report key -> path in a split's hep_metrics
    "auc": ("auc",),
    "average_precision": ("average_precision",),
    "rejection_0.5": ("rejection", "0.5"),
    "rejection_0.9": ("rejection", "0.9"),
    "partial_auc_0.1": ("partial_auc", "0.1", "mcclish"),
    "fip1": ("fip1", "value"),
    "fip2_hull": ("fip2_hull",),
    "punzi": ("punzi", "value"),
    "asimov": ("asimov", "value"),
}


def fold_curves(fold: int, result: SplitResult, split_metrics: dict) -> FoldCurves:
    scalars = {}
    for key, path in TABULATED.items():
        value = split_metrics
        for part in path:
            value = value[part]
        scalars[key] = float(value)
    with np.errstate(divide="ignore"):
        rejection = 1.0 / eps_b_on_grid(result.curve)
    return FoldCurves(fold=fold, tpr=tpr_on_grid(result.curve), rejection=rejection, scalars=scalars)


def _mean_std(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.nan, math.nan
    if np.ptp(finite) == 0:  # identical folds: exactly no spread (np.std would leave ~1e-16)
        return float(finite[0]), 0.0
    return float(np.mean(finite)), float(np.std(finite, ddof=1))


def _band(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise mean and sample std over folds (NaN ignored); exact where all folds agree."""
    with warnings.catch_warnings():  # all-NaN columns (eps_b = 0 in every fold) stay NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(stack, axis=0)
        std = np.nanstd(stack, axis=0, ddof=1) if stack.shape[0] > 1 else np.zeros(stack.shape[1])
        same = np.nanmax(stack, axis=0) == np.nanmin(stack, axis=0)
    mean = np.where(same, stack[0], mean)
    return mean, np.where(same, 0.0, np.nan_to_num(std))


@dataclass(frozen=True)
class Aggregate:
    folds: list[int]
    table: dict[str, dict[str, float]]  # metric -> {fold: value}
    mean: dict[str, float]
    std: dict[str, float]
    tpr_mean: np.ndarray
    tpr_std: np.ndarray
    # log10(1/eps_b) over the folds with eps_b > 0 at that eps_s: rejection spans decades, so its
    # spread is taken in log space (a linear mean - std falls below 1 at low eps_s)
    log_rejection_mean: np.ndarray
    log_rejection_std: np.ndarray

    @property
    def rejection_mean(self) -> np.ndarray:
        """Geometric mean of 1/eps_b over folds."""
        return 10.0**self.log_rejection_mean

    @property
    def rejection_band(self) -> tuple[np.ndarray, np.ndarray]:
        """+-1 sigma of log10(1/eps_b), as rejections (never below 1)."""
        m, s = self.log_rejection_mean, self.log_rejection_std
        return np.maximum(10.0 ** (m - s), 1.0), 10.0 ** (m + s)


def aggregate(curves: Sequence[FoldCurves]) -> Aggregate:
    """Mean and sample std (ddof=1; 0 for one fold) of every tabulated metric and curve."""
    folds = [c.fold for c in curves]
    table = {key: {str(c.fold): c.scalars[key] for c in curves} for key in TABULATED}
    stats = {key: _mean_std(np.array(list(v.values()))) for key, v in table.items()}
    tpr_mean, tpr_std = _band(np.stack([c.tpr for c in curves]))
    rej = np.stack([c.rejection for c in curves])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_mean, log_std = _band(np.where(np.isfinite(rej) & (rej > 0), np.log10(rej), np.nan))
    return Aggregate(
        folds=folds,
        table=table,
        mean={k: m for k, (m, _) in stats.items()},
        std={k: s for k, (_, s) in stats.items()},
        tpr_mean=tpr_mean,
        tpr_std=tpr_std,
        log_rejection_mean=log_mean,
        log_rejection_std=log_std,
    )


def aggregate_report(agg: Aggregate, missing: Sequence[int]) -> dict:
    """JSON-ready summary: per-fold table, mean +- std, the bands on their grids."""
    return {
        "folds": agg.folds,
        "missing_folds": list(missing),
        "std_convention": "sample standard deviation over folds (ddof=1)",
        "per_fold": agg.table,
        "mean": agg.mean,
        "std": agg.std,
        "roc_band": {"fpr": FPR_GRID, "tpr_mean": agg.tpr_mean, "tpr_std": agg.tpr_std},
        "rejection_band": {
            "convention": "mean and sample std of log10(1/eps_b) over folds; band = 10^(mean +- std)",
            "eps_s": EFF_GRID,
            "geometric_mean": agg.rejection_mean,
            "low": agg.rejection_band[0],
            "high": agg.rejection_band[1],
            "log10_mean": agg.log_rejection_mean,
            "log10_std": agg.log_rejection_std,
        },
    }
