"""Cross-fold aggregation: per-fold metric table with mean +- std, mean ROC and rejection
curves with +-1 sigma bands on common grids.

Rejection is never averaged as 1/eps_b (infinite where no background passes, and its
arithmetic and geometric means disagree): eps_b is averaged over folds (zeros included) and
the rejection is 1/mean(eps_b) everywhere, a lower limit (hep.REJECTION_LIMIT_RULE) where that
mean is 0.

Only small per-fold summaries are kept (curves interpolated on fixed grids, scalars), so
aggregating folds of 1e7-event ntuples costs no memory. std is the sample standard deviation
(numpy ddof=1) over folds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import hep
from pnetviz.metrics.curvesums import CurveSums, curve_sums
from pnetviz.metrics.foldtests import identical
from pnetviz.metrics.evaluate import SplitResult
from pnetviz.metrics.roc import BinaryCurve
from pnetviz.rootenv import root

# Common grids: FPR dense near 0 (log-spaced from 1e-4) plus linear; eps_s for rejection.
FPR_GRID = np.unique(np.r_[0.0, np.logspace(-4, 0, 300), np.linspace(0, 1, 101)])
EFF_GRID = np.linspace(0.1, 1.0, 91)


def _fpr_position(curve: BinaryCurve, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, frac) of each background efficiency in `grid` on the curve: between points lo and
    hi, the fraction frac of the way (the upper end of a vertical step where the grid hits it)."""
    size = curve.fps.size  # the rate read at the points searched only (not the whole array: BinaryCurve.search_rate)
    k = curve.search_rate("fpr", grid, "right")  # first point beyond g
    lo = np.clip(k - 1, 0, size - 1)
    hi = np.clip(k, 0, size - 1)
    at_lo = curve.rate_values("fpr", lo)
    span = curve.rate_values("fpr", hi) - at_lo
    return lo, hi, np.divide(grid - at_lo, span, out=np.zeros_like(grid, dtype=float), where=span > 0)


def _tpr_position(curve: BinaryCurve, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, frac) where the curve first reaches each signal efficiency in `grid`."""
    k = np.clip(curve.search_rate("tpr", grid, "left"), 1, curve.tps.size - 1)
    at_lo = curve.rate_values("tpr", k - 1)
    span = curve.rate_values("tpr", k) - at_lo
    return k - 1, k, np.divide(grid - at_lo, span, out=np.zeros_like(grid, dtype=float), where=span > 0)


def _at(values: np.ndarray, position: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    lo, hi, frac = position
    return values[lo] + frac * (values[hi] - values[lo])


def _rate_at(curve: BinaryCurve, name: str, position: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """_at(curve.tpr or curve.fpr, position), the rate read at the two points only."""
    lo, hi, frac = position
    at_lo = curve.rate_values(name, lo)
    return at_lo + frac * (curve.rate_values(name, hi) - at_lo)


def tpr_on_grid(curve: BinaryCurve, grid: np.ndarray = FPR_GRID) -> np.ndarray:
    """Signal efficiency of the exact (step) curve at each background efficiency in `grid`:
    linear between points, the upper end of a vertical step where the grid hits it exactly."""
    return _rate_at(curve, "tpr", _fpr_position(curve, np.asarray(grid, float)))


def eps_b_on_grid(curve: BinaryCurve, grid: np.ndarray = EFF_GRID) -> np.ndarray:
    """Background efficiency where the curve first reaches each signal efficiency in `grid`."""
    return _rate_at(curve, "fpr", _tpr_position(curve, np.asarray(grid, float)))


def grid_sums(curve: BinaryCurve, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
              fpr_grid: np.ndarray = FPR_GRID, eff_grid: np.ndarray = EFF_GRID) -> CurveSums:  # fmt: skip
    """curvesums.curve_sums at the curve points tpr_on_grid(fpr_grid) and eps_b_on_grid(eff_grid)
    read (at most four a grid point): what the ratio bands on those grids need."""
    points = [p for pos in (_fpr_position(curve, np.asarray(fpr_grid, float)), _tpr_position(curve, np.asarray(eff_grid, float)))
              for p in pos[:2]]  # fmt: skip
    return curve_sums(curve, scores, is_signal, weights, np.concatenate(points))


def tpr_error_on_grid(curve: BinaryCurve, sums: CurveSums, grid: np.ndarray = FPR_GRID) -> np.ndarray:
    """The ratio-of-sums error (hep.ratio_error, the working points' error) of tpr_on_grid: the
    signal's selected sum w^2 read at the same place of the curve (linear between points)."""
    position = _fpr_position(curve, np.asarray(grid, float))
    return sums.signal.error(_rate_at(curve, "tpr", position), _at(sums.signal.pass_w2, position))


def eps_b_error_on_grid(curve: BinaryCurve, sums: CurveSums, grid: np.ndarray = EFF_GRID) -> np.ndarray:
    """The ratio-of-sums error of eps_b_on_grid, as tpr_error_on_grid for the background."""
    position = _tpr_position(curve, np.asarray(grid, float))
    return sums.background.error(_rate_at(curve, "fpr", position), _at(sums.background.pass_w2, position))


@dataclass(frozen=True)
class FoldCurves:
    """One fold, one split: curves on the common grids and the scalar metrics to tabulate."""

    fold: int
    tpr: np.ndarray  # on FPR_GRID
    eps_b: np.ndarray  # on EFF_GRID (0 where no background passes)
    background_events: float  # effective number of background events (for the rejection limits)
    scalars: dict[str, float]


TABULATED = {  # report key -> path in a split's hep_metrics
    "auc": ("auc",),
    "average_precision": ("average_precision",),
    "partial_auc_0.1": ("partial_auc", "0.1", "mcclish"),
    "fip1": ("fip1", "value"),
    "fip2_hull": ("fip2_hull",),
    "punzi": ("punzi", "value"),
    "asimov": ("asimov", "value"),
}
REJECTIONS = {"rejection_0.5": "0.5", "rejection_0.9": "0.9"}  # report key -> eps_s; from background_efficiency


def fold_curves(fold: int, result: SplitResult, split_metrics: dict) -> FoldCurves:
    scalars = {}
    for key, path in TABULATED.items():
        value = split_metrics
        for part in path:
            value = value[part]
        scalars[key] = float(value)
    for key, eps_s in REJECTIONS.items():
        scalars[key] = float(split_metrics["background_efficiency"][eps_s])  # eps_b, turned into rejection in aggregate
    n_eff = float(split_metrics["rejection_limit"]["effective_background_events"])
    return FoldCurves(fold=fold, tpr=tpr_on_grid(result.curve), eps_b=np.maximum(eps_b_on_grid(result.curve), 0.0),
                      background_events=n_eff, scalars=scalars)  # fmt: skip


def mean_std(values) -> tuple[float, float]:
    """Mean and sample std (ddof=1) of the finite values (None and inf/nan left out); (nan, nan)
    when none, std 0 for one value or identical values."""
    values = np.array([v for v in np.ravel(np.asarray(values, dtype=object)) if v is not None], dtype=float)
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.nan, math.nan
    if np.ptp(finite) == 0:  # identical folds: exactly no spread (np.std would leave ~1e-16)
        return float(finite[0]), 0.0
    return float(np.mean(finite)), float(np.std(finite, ddof=1))


def _band(stack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise mean and sample std over folds; exact where all folds agree."""
    mean = np.mean(stack, axis=0)
    std = np.std(stack, axis=0, ddof=1) if stack.shape[0] > 1 else np.zeros(stack.shape[1])
    same = np.max(stack, axis=0) == np.min(stack, axis=0)
    return np.where(same, stack[0], mean), np.where(same, 0.0, std)


REJECTION_INTERVAL_RULE = ("rejection over folds: central value R = 1/mean(eps_b) (zeros included); interval "
                           "[R exp(-s), R exp(+s)] with s the sample std (ddof=1) of ln(eps_b) over folds (the fold "
                           "spread of ln R), a fold with eps_b = 0 entering with the 95% CL upper limit on eps_b "
                           "from the folds' mean N_eff; asymmetric, positive, containing R; where every fold has "
                           "eps_b = 0 a lower limit without interval")  # fmt: skip


@dataclass(frozen=True)
class Rejection:
    """A rejection over folds from eps_b (REJECTION_INTERVAL_RULE): R = 1/mean(eps_b) with the
    asymmetric fold interval [R exp(-s), R exp(+s)], s = std(ln eps_b, ddof=1) over folds (0 for one
    fold or identical folds), so the interval is positive, contains R and never reads as "R +- x"
    with x > R. Where every fold has eps_b = 0: the lower limit 1/eps_b_limit(N_eff), lower and
    upper None."""

    value: float
    lower: float | None
    upper: float | None
    lower_limit: bool

    @staticmethod
    def over_folds(eps_b: np.ndarray, background_events: float) -> Rejection:
        eps = np.asarray(eps_b, float)
        eps = eps[np.isfinite(eps)]
        mean = float(np.mean(eps)) if eps.size else math.nan
        if not mean > 0:
            if eps.size == 0:
                return Rejection(math.nan, None, None, False)
            return Rejection(1.0 / hep.eps_b_limit(background_events), None, None, True)
        floor = hep.eps_b_limit(background_events / eps.size)  # a fold's limit on eps_b where none passes
        logs = np.log(np.where(eps > 0, eps, floor))
        spread = float(np.std(logs, ddof=1)) if eps.size > 1 and np.ptp(logs) > 0 else 0.0
        return Rejection(1.0 / mean, math.exp(-spread) / mean, math.exp(spread) / mean, False)


@dataclass(frozen=True)
class Aggregate:
    folds: list[int]
    table: dict[str, dict[str, float]]  # metric -> {fold: value}; rejection: 1/eps_b or its lower limit
    lower_limits: dict[str, dict[str, bool]]  # rejection metric -> {fold: is a lower limit}
    mean: dict[str, float]
    std: dict[str, float | None]
    mean_lower_limit: dict[str, bool]  # rejection metric -> the mean is a lower limit
    interval: dict[str, tuple[float | None, float | None]]  # rejection metric -> (lower, upper), Rejection
    tpr_mean: np.ndarray
    tpr_std: np.ndarray
    eps_b_mean: np.ndarray  # on EFF_GRID, zeros included
    eps_b_std: np.ndarray
    eps_b_floor: float  # the smallest resolvable eps_b: the limit from the folds' summed N_eff

    @property
    def rejection_mean(self) -> np.ndarray:
        """1/mean(eps_b) over folds; where the mean is 0, the lower limit 1/eps_b_floor."""
        return 1.0 / np.where(self.eps_b_mean > 0, self.eps_b_mean, self.eps_b_floor)

    @property
    def rejection_band(self) -> tuple[np.ndarray, np.ndarray]:
        """1/(mean +- std of eps_b): the fold spread of eps_b inverted; where mean - std <= 0 the
        upper edge is unbounded and drawn at the larger of the rejection and 1/eps_b_floor."""
        m, s = self.eps_b_mean, self.eps_b_std
        top = 1.0 / np.minimum(np.where(m > 0, m, self.eps_b_floor), self.eps_b_floor)
        low = 1.0 / np.where(m + s > 0, m + s, self.eps_b_floor)
        high = np.where(m - s > 0, 1.0 / np.where(m - s > 0, m - s, 1.0), top)
        return low, high


def aggregate(curves: Sequence[FoldCurves]) -> Aggregate:
    """Mean and sample std (ddof=1; 0 for one fold) of every tabulated metric and curve."""
    folds = [c.fold for c in curves]
    present = [key for key in (*TABULATED, *REJECTIONS) if all(key in c.scalars for c in curves)]  # curves alone: none
    table = {key: {str(c.fold): c.scalars[key] for c in curves} for key in TABULATED if key in present}
    stats = {key: mean_std(np.array(list(v.values()))) for key, v in table.items()}
    mean = {k: m for k, (m, _) in stats.items()}
    std: dict[str, float | None] = {k: s for k, (_, s) in stats.items()}
    n_eff = float(sum(c.background_events for c in curves))
    lower_limits, mean_limit, interval = {}, {}, {}
    for key in (k for k in REJECTIONS if k in present):
        per_fold = {str(c.fold): hep.rejection_value(c.scalars[key], c.background_events) for c in curves}
        table[key] = {f: v for f, (v, _) in per_fold.items()}
        lower_limits[key] = {f: limit for f, (_, limit) in per_fold.items()}
        rej = Rejection.over_folds(np.array([c.scalars[key] for c in curves]), n_eff)
        mean[key], std[key], mean_limit[key], interval[key] = rej.value, None, rej.lower_limit, (rej.lower, rej.upper)
    limited = {REJECTIONS[k]: k for k in REJECTIONS if k in present}  # eps_s -> key; limits raised to larger eps_s' values
    raised = hep.monotone_limits({e: mean[k] for e, k in limited.items()}, {e: mean_limit[k] for e, k in limited.items()})
    mean |= {k: raised[e] for e, k in limited.items()}
    for f in (str(c.fold) for c in curves):
        per = hep.monotone_limits({e: table[k][f] for e, k in limited.items()}, {e: lower_limits[k][f] for e, k in limited.items()})
        for e, k in limited.items():
            table[k][f] = per[e]
    tpr_mean, tpr_std = _band(np.stack([c.tpr for c in curves]))
    eps_mean, eps_std = _band(np.stack([c.eps_b for c in curves]))
    return Aggregate(folds=folds, table=table, lower_limits=lower_limits, mean=mean, std=std, mean_lower_limit=mean_limit,
                     interval=interval,
                     tpr_mean=tpr_mean, tpr_std=tpr_std, eps_b_mean=eps_mean, eps_b_std=eps_std,
                     eps_b_floor=hep.eps_b_limit(n_eff))  # fmt: skip


def aggregate_report(agg: Aggregate, missing: Sequence[int]) -> dict:
    """JSON-ready summary: per-fold table, mean +- std, the bands on their grids."""
    return {
        "folds": agg.folds,
        "missing_folds": list(missing),
        "std_convention": "sample standard deviation over folds (ddof=1); rejection: no std, see rejection_interval",
        "per_fold": agg.table,
        "per_fold_lower_limits": agg.lower_limits,
        "mean": agg.mean,
        "std": agg.std,
        "mean_lower_limit": agg.mean_lower_limit,
        "rejection_interval": {"convention": REJECTION_INTERVAL_RULE,
                               **{k: {"lower": lo, "upper": hi} for k, (lo, hi) in agg.interval.items()}},
        "rejection_convention": hep.REJECTION_LIMIT_RULE,
        "roc_band": {"fpr": FPR_GRID, "tpr_mean": agg.tpr_mean, "tpr_std": agg.tpr_std},
        "rejection_band": {
            "convention": "rejection = 1/mean(eps_b) over folds; band = 1/(mean(eps_b) +- std(eps_b)), capped at "
                          "1/eps_b_floor (the 95% CL limit from the folds' summed effective background events)",
            "eps_s": EFF_GRID,
            "rejection": agg.rejection_mean,
            "low": agg.rejection_band[0],
            "high": agg.rejection_band[1],
            "eps_b_mean": agg.eps_b_mean,
            "eps_b_std": agg.eps_b_std,
            "eps_b_floor": agg.eps_b_floor,
        },
    }


def paired_difference(a: Sequence[float], b: Sequence[float], errors: Sequence[float] | None = None) -> dict:
    """Two models evaluated on the same folds: statistics of the per-fold differences d = a - b.

    mean, sample std (ddof=1), standard error std/sqrt(n), the paired Student t = mean/se with
    n - 1 degrees of freedom and its two-sided p-value; and, with per-fold errors of d, the
    inverse-variance combination sum(d/e^2)/sum(1/e^2) with error 1/sqrt(sum(1/e^2)).
    Undefined entries (one fold, zero spread, missing errors) are None; differences within
    rounding (foldtests.identical) give t = 0, p = 1."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = int(d.size)
    out: dict = {"folds": n, "mean": float(d.mean()) if n else None, "std": None, "standard_error": None,
                 "t": None, "dof": n - 1 if n > 1 else None, "p_value": None, "combined": None, "combined_error": None}  # fmt: skip
    if n > 1 and identical(a, b):  # rounding noise only: no difference, not t = -1, p = 0.5
        out |= {"std": 0.0, "standard_error": 0.0, "t": 0.0, "p_value": 1.0}
    elif n > 1:
        std = float(np.std(d, ddof=1))
        se = std / math.sqrt(n)
        out |= {"std": std, "standard_error": se}
        if se > 0:
            t_value = out["mean"] / se
            out |= {"t": t_value, "p_value": 2.0 * float(root().Math.tdistribution_cdf_c(abs(t_value), n - 1))}
    if errors is not None:
        e = np.asarray(errors, float)
        if e.size == n and n and np.all(np.isfinite(e)) and np.all(e > 0):
            w = 1.0 / e**2
            out |= {"combined": float(np.sum(w * d) / np.sum(w)), "combined_error": float(1.0 / math.sqrt(np.sum(w)))}
    return out


# --- ratios of curves to a reference (the lower panel of every curve comparison) ---

RATIO_CONVENTION = ("each curve divided by the reference on a common grid (signal efficiency at fixed background "
                    "efficiency for ROC curves, rejection at fixed signal efficiency); band: the curve's own error "
                    "divided by the reference, the working points' error: for one evaluation the ratio-of-sums error "
                    "sqrt((1 - eps)^2 sum_pass w^2 + eps^2 sum_fail w^2) / |sum w| of the efficiency (hep.ratio_error, "
                    "the selected sums read at the grid point), for fold means the fold spread (std over folds, "
                    "ddof=1, as the working points over folds); rejection ratios in log space, r exp(+-d) with d "
                    "the relative error of eps_b, never below 0; the reference's band around 1; stored unclipped "
                    "(only the drawn band is clipped to the axis); undefined (NaN) where the reference is 0 or the "
                    "rejection is infinite")  # fmt: skip


@dataclass(frozen=True)
class CurveRatio:
    """values / reference on `x`, with the band ratio -+ error/reference (NaN where undefined)."""

    x: np.ndarray
    ratio: np.ndarray
    low: np.ndarray
    high: np.ndarray


def ratio_to_reference(x: np.ndarray, values: np.ndarray, reference: np.ndarray,
                       errors: np.ndarray | None = None) -> CurveRatio:  # fmt: skip
    """values/reference point by point (both on the grid `x`); `errors` (absolute, of `values`)
    divided by the reference give the band. NaN where the reference is not positive or a value
    is not finite."""
    values, reference = np.asarray(values, float), np.asarray(reference, float)
    ok = (reference > 0) & np.isfinite(reference) & np.isfinite(values)
    safe = np.where(ok, reference, 1.0)
    ratio = np.where(ok, values / safe, np.nan)
    err = np.zeros_like(ratio) if errors is None else np.where(ok, np.nan_to_num(np.asarray(errors, float)) / safe, np.nan)
    return CurveRatio(np.asarray(x, float), ratio, ratio - err, ratio + err)


def roc_ratio(curve: BinaryCurve, reference: BinaryCurve, error: CurveSums | np.ndarray,
              grid: np.ndarray = FPR_GRID) -> CurveRatio:  # fmt: skip
    """Signal efficiency of `curve` over the reference's at each background efficiency of `grid`,
    band from the ratio-of-sums error of the curve's signal efficiency: `error` the curve's sums
    (curvesums.curve_sums) or that error on `grid` already read from them (tpr_error_on_grid)."""
    tpr = tpr_on_grid(curve, grid)
    err = tpr_error_on_grid(curve, error, grid) if isinstance(error, CurveSums) else np.asarray(error, float)
    return ratio_to_reference(grid, tpr, tpr_on_grid(reference, grid), err)


def rejection_ratio(curve: BinaryCurve, reference: BinaryCurve, error: CurveSums | np.ndarray,
                    grid: np.ndarray = EFF_GRID) -> CurveRatio:  # fmt: skip
    """Background rejection 1/eps_b of `curve` over the reference's at each signal efficiency of
    `grid` (= eps_b of the reference over eps_b of the curve); band from the ratio-of-sums error
    of the curve's eps_b (`error`: the curve's sums, or that error on `grid`, eps_b_error_on_grid),
    relative error of 1/eps_b = that of eps_b. Undefined where either eps_b is 0 (infinite rejection)."""
    err = eps_b_error_on_grid(curve, error, grid) if isinstance(error, CurveSums) else np.asarray(error, float)
    return rejection_ratio_from_eps(grid, eps_b_on_grid(curve, grid), eps_b_on_grid(reference, grid), err)


def rejection_ratio_from_eps(grid: np.ndarray, eps_b: np.ndarray, reference_eps_b: np.ndarray,
                             eps_b_error: np.ndarray | None = None) -> CurveRatio:  # fmt: skip
    """Rejection ratio (1/eps_b)/(1/eps_b_ref) from background efficiencies on `grid`, with the
    band of `eps_b_error` propagated in log space: relative error d = eps_b_error/eps_b (that of
    1/eps_b), band r exp(-d) to r exp(+d), asymmetric and never below zero."""
    eps_b, reference_eps_b = np.asarray(eps_b, float), np.asarray(reference_eps_b, float)
    ok = (eps_b > 0) & (reference_eps_b > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rejection = np.where(ok, 1.0 / np.where(ok, eps_b, 1.0), np.nan)
        ref = np.where(ok, 1.0 / np.where(ok, reference_eps_b, 1.0), np.nan)
        err = None if eps_b_error is None else rejection * np.asarray(eps_b_error, float) / np.where(ok, eps_b, 1.0)
    out = ratio_to_reference(grid, rejection, ref, err)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rel = np.where(out.ratio > 0, (out.high - out.ratio) / out.ratio, np.nan)  # relative error of the ratio
        return CurveRatio(out.x, out.ratio, out.ratio * np.exp(-rel), out.ratio * np.exp(rel))


def fold_ratios(agg: Aggregate, reference: Aggregate) -> tuple[CurveRatio, CurveRatio]:
    """(ROC ratio on FPR_GRID, rejection ratio on EFF_GRID) of two fold means, each with the band
    of its own fold spread (std over folds) divided by the reference mean."""
    roc = ratio_to_reference(FPR_GRID, agg.tpr_mean, reference.tpr_mean, agg.tpr_std)
    return roc, rejection_ratio_from_eps(EFF_GRID, agg.eps_b_mean, reference.eps_b_mean, agg.eps_b_std)
