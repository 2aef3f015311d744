"""The ROC's upper convex hull and the prevalence-aware metrics: FIP1, FIP2 (Valassi eqs. 4-5),
Punzi, Asimov, the iso-accuracy optimal operating point (seed 002), precision, recall and F1 at a
cut, and the precision from the ROC (seed 004), from yields S = signal_scale * sum(w_signal) and
B = sum(w_background) and the prevalence pi_s = S / (S + B). (metrics.hep re-exports them.)
Under --weights signed a class's weights can sum to 0, or the two classes' sums can have opposite
signs (NLO samples): then pi_s is not a fraction (S + B = 0 divides by zero, or pi_s < 0 or > 1)
and the prevalence-aware metrics mean nothing. They are left out (`prevalence_defined`): FIP1,
FIP2 (hull), Punzi, Asimov, the iso-accuracy optimal operating point and the precision from the
ROC are NaN in the report, `prevalence_left_out` says why with the sums, and one warning line
names them. The rates (ROC, AUC, rejections, partial AUC) need each class's own sum only.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from pnetviz.errors import PnetvizWarning
from pnetviz.metrics.roc import BinaryCurve, non_decreasing
from pnetviz.io.kernels import kernels

PUNZI_SIGMA = 3.0  # Punzi's a: eps_s / (a/2 + sqrt(B_sel))


@dataclass(frozen=True)
class Hull:
    """Upper convex hull of the ROC: vertex indices into the curve, rates and thresholds."""

    index: np.ndarray
    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray


def convex_hull(curve: BinaryCurve) -> Hull:
    """ROC convex hull (seed 002): the upper convex hull of the curve's points in (eps_b, eps_s),
    from the leftmost to the rightmost point ((0, 0) to (1, 1) for non-negative weights).

    The points are ordered by eps_b (then eps_s) first: with signed weights the threshold sweep
    is not monotone in eps_b (a negative-weight background event moves it back), and the
    monotone-chain hull needs its points ordered in x. For non-negative weights the sweep is
    already in that order and nothing changes."""
    fpr, tpr = curve.fpr, curve.tpr  # once each: a curve whose rates are released computes them at each use
    if non_decreasing(fpr) and non_decreasing(tpr):  # the sweep's order: the rates as they are
        order, x, y = None, np.ascontiguousarray(fpr), np.ascontiguousarray(tpr)
    else:
        order = np.lexsort((tpr, fpr))
        x, y = np.ascontiguousarray(fpr[order]), np.ascontiguousarray(tpr[order])
    index = np.empty(x.size, dtype=np.int64)
    m = int(kernels().upper_hull(x, y, x.size, index))
    idx = index[:m].copy() if order is None else order[index[:m]]
    return Hull(index=idx, fpr=fpr[idx], tpr=tpr[idx], thresholds=curve.thresholds[idx])


def fip2(hull: Hull, signal: float, background: float) -> float:
    """Valassi eq. 5: integral over eps_s of the local purity S d eps_s / (S d eps_s + B d eps_b),
    on the convex hull (exact for its piecewise-linear segments)."""
    ds, db = np.diff(hull.tpr), np.diff(hull.fpr)
    s, b = signal * ds, background * db
    rho = np.divide(s, s + b, out=np.zeros_like(s), where=(s + b) > 0)
    return float(np.sum(rho * ds))


def binned_fip(signal_yields: np.ndarray, background_yields: np.ndarray) -> float:
    """Valassi eq. 4: sum_k s_k^2 / n_k / sum_k s_k over bins with n_k = s_k + b_k > 0."""
    s, n = np.asarray(signal_yields, float), np.asarray(signal_yields, float) + np.asarray(background_yields, float)
    used = n > 0
    return float(np.sum(s[used] ** 2 / n[used]) / np.sum(s))


def asimov(s: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Asimov significance sqrt(2((s+b) ln(1+s/b) - s)); NaN where b <= 0 (a cut selecting no
    background has no finite Z; such cuts are excluded from the best-cut search)."""
    s, b = np.asarray(s, float), np.asarray(b, float)
    if s.ndim == 0 or b.ndim == 0 or s.shape != b.shape:
        with np.errstate(divide="ignore", invalid="ignore"):
            z2 = 2 * ((s + b) * np.log1p(s / b) - s)
        return np.where(b > 0, np.sqrt(np.maximum(z2, 0.0)), np.nan)
    # the same operations, in place in one array (no temporary per step over the curve's points)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.divide(s, b)
        np.log1p(z, out=z)
        np.multiply(s + b, z, out=z)
        np.subtract(z, s, out=z)
        np.multiply(2, z, out=z)
        np.maximum(z, 0.0, out=z)
        np.sqrt(z, out=z)
    z[~(b > 0)] = np.nan
    return z


def best_cut(values: np.ndarray, thresholds: np.ndarray, eps_s: np.ndarray, eps_b: np.ndarray,
             **at_cut: np.ndarray) -> dict[str, float]:  # fmt: skip
    """The cut of the largest finite value (the first such cut on ties): value, threshold,
    efficiencies and each `at_cut` array's entry there; NaN everywhere when no value is finite."""
    values = np.asarray(values, float)
    columns = {"threshold": thresholds, "eps_s": eps_s, "eps_b": eps_b, **at_cut}
    finite = np.isfinite(values)
    if not finite.any():
        return {"value": math.nan} | {name: math.nan for name in columns}
    k = int(np.argmax(np.where(finite, values, -np.inf)))
    return {"value": float(values[k])} | {name: float(column[k]) for name, column in columns.items()}


PREVALENCE_LEFT_OUT = ("FIP1, FIP2 (hull), Punzi, Asimov, the optimal operating point and the precision from the "
                       "ROC are left out (NaN): the signal and background weight sums (S = {S:g}, B = {B:g}) are not "
                       "both positive, so the prevalence S / (S + B) is no fraction (--weights signed with weights "
                       "summing to zero or of opposite sign); the rates, the AUC and the rejections are kept")  # fmt: skip


def prevalence_defined(signal: float, background: float) -> bool:
    """True when the yields S, B give a prevalence S / (S + B) in (0, 1): both finite and positive."""
    return math.isfinite(signal) and math.isfinite(background) and signal > 0 and background > 0


def prevalence_note(signal: float, background: float) -> str:
    """The report's note (and the warning line) for yields without a prevalence: names the sums."""
    return PREVALENCE_LEFT_OUT.format(S=signal, B=background)


def optimal_operating_point(hull: Hull, signal: float, background: float) -> dict[str, float]:
    """Iso-accuracy optimum (seed 002): the hull vertex maximising pi_s eps_s - (1 - pi_s) eps_b,
    i.e. the weighted accuracy for the weighted class priors; NaN without a prevalence."""
    if not prevalence_defined(signal, background):
        return dict.fromkeys(("eps_s", "eps_b", "threshold", "accuracy", "prevalence"), math.nan)
    pi = signal / (signal + background)
    k = int(np.argmax(pi * hull.tpr - (1 - pi) * hull.fpr))
    accuracy = pi * hull.tpr[k] + (1 - pi) * (1 - hull.fpr[k])
    return {"eps_s": float(hull.tpr[k]), "eps_b": float(hull.fpr[k]), "threshold": float(hull.thresholds[k]),
            "accuracy": float(accuracy), "prevalence": pi}  # fmt: skip


def prevalence_metrics(curve: BinaryCurve, signal_scale: float = 1.0, scale: tuple[float, float] = (1.0, 1.0),
                       hull: Hull | None = None) -> dict:  # fmt: skip
    """FIP1, FIP2 (hull), Punzi and Asimov of the best cut, with yields S, B from the weights
    (times `scale`: signal and background factors, e.g. from a split to the full sample);
    `hull`: the curve's convex hull if already computed."""
    S, B = signal_scale * curve.total_signal * scale[0], curve.total_background * scale[1]
    if not prevalence_defined(S, B):
        note = prevalence_note(S, B)
        warnings.warn(note, PnetvizWarning, stacklevel=2)
        cut = dict.fromkeys(("value", "threshold", "eps_s", "eps_b"), math.nan)
        return {"signal_yield": S, "background_yield": B, "fip1": dict(cut), "fip2_hull": math.nan, "punzi": dict(cut),
                "asimov": dict(cut), "optimal_operating_point": optimal_operating_point(hull, S, B),
                "prevalence_left_out": note}  # fmt: skip
    hull = convex_hull(curve) if hull is None else hull
    best = best_cuts(curve, S, B)
    return {
        "signal_yield": S,
        "background_yield": B,
        "fip1": best["fip1"],
        "fip2_hull": fip2(hull, S, B),
        "punzi": best["punzi"],
        "asimov": best["asimov"],
        "optimal_operating_point": optimal_operating_point(hull, S, B),
    }


SWEEP_CHUNK = 1 << 14  # curve points a time: the figures' temporaries stay in the cache (no page faults)


def cut_figures(tpr: np.ndarray, fpr: np.ndarray, S: float, B: float) -> dict[str, np.ndarray]:
    """FIP1 (eps_s times the purity S eps_s / (S eps_s + B eps_b), 0 where nothing is selected),
    Punzi and Asimov of the cuts with efficiencies (tpr, fpr) for the yields S, B."""
    s_sel, b_sel = S * tpr, B * fpr
    selected = s_sel + b_sel
    purity = np.divide(s_sel, selected, out=np.zeros_like(s_sel), where=selected > 0)
    return {"fip1": tpr * purity, "punzi": tpr / (PUNZI_SIGMA / 2 + np.sqrt(np.maximum(b_sel, 0.0))),
            "asimov": asimov(s_sel, b_sel)}  # fmt: skip


def best_cuts(curve: BinaryCurve, S: float, B: float) -> dict[str, dict[str, float]]:
    """best_cut of each cut_figures figure over the curve's points after the first (which selects
    nothing), SWEEP_CHUNK points at a time: the same values (elementwise) and the same first
    maximum as over the whole arrays at once."""
    tpr, fpr = curve.tpr, curve.fpr
    best = {name: (-np.inf, -1) for name in ("fip1", "punzi", "asimov")}  # (value, index) of the first maximum
    for start in range(1, tpr.size, SWEEP_CHUNK):
        stop = min(tpr.size, start + SWEEP_CHUNK)
        for name, values in cut_figures(tpr[start:stop], fpr[start:stop], S, B).items():
            finite = np.isfinite(values)
            if finite.any():
                k = int(np.argmax(np.where(finite, values, -np.inf)))
                if best[name][1] < 0 or values[k] > best[name][0]:
                    best[name] = (float(values[k]), start + k)
    out = {}
    for name, (value, k) in best.items():
        if k < 0:
            out[name] = {"value": math.nan, "threshold": math.nan, "eps_s": math.nan, "eps_b": math.nan}
        else:
            out[name] = {"value": value, "threshold": float(curve.thresholds[k]), "eps_s": float(tpr[k]), "eps_b": float(fpr[k])}
    return out


def hull_excess(curve: BinaryCurve, auc_error: float, hull: Hull | None = None) -> dict[str, float | bool | None]:
    """How far the ROC lies below its convex hull, against the AUC's statistical error.

    `value` = hull area - AUC (>= 0). A finite sample's exact ROC always has small concave
    dents, so the hull's area exceeds the AUC by a few 1e-4 even when the true ROC is concave
    (e.g. 4.8e-4 at 1e5 binormal events); the excess says something only compared with the
    AUC's bootstrap error: `concave_within_errors` is True when value <= auc_error (the dents
    are noise), False when the curve is genuinely non-concave (a high-score region of low purity),
    None without a bootstrap error."""
    hull = convex_hull(curve) if hull is None else hull
    value = float(np.trapezoid(hull.tpr, hull.fpr)) - curve.auc
    ok = auc_error == auc_error and auc_error > 0
    return {"value": value, "in_auc_errors": value / auc_error if ok else None,
            "concave_within_errors": bool(value <= auc_error) if ok else None}  # fmt: skip


def operating_point(eps_s: float, eps_b: float, signal_yield: float, background_yield: float) -> dict[str, float]:
    """Weighted precision (purity for the yields S, B: the same yields the operating points were
    found with), recall and F1 at (eps_b, eps_s)."""
    s, b = signal_yield * eps_s, background_yield * eps_b
    precision = s / (s + b) if s + b > 0 else math.nan
    f1 = 2 * precision * eps_s / (precision + eps_s) if precision + eps_s > 0 else math.nan
    return {"eps_s": eps_s, "eps_b": eps_b, "precision": precision, "recall": eps_s, "f1": f1}


def at_threshold(curve: BinaryCurve, threshold: float) -> tuple[float, float]:
    """(eps_s, eps_b) of the cut score >= threshold."""
    return curve.rates_at(curve.point_at(threshold))  # last threshold >= cut, compared in float64 (float32 thresholds too)


def precision_from_roc(curve: BinaryCurve, signal_scale: float = 1.0, yields: tuple[float, float] | None = None) -> np.ndarray:
    """Seed 004: P = pi_s R / (pi_s R + (1 - pi_s) eps_b) at every ROC point after the first, with
    pi_s = S / (S + B): `yields` (S, B) where given (the report's signal_yield and background_yield:
    the full sample's or the expected ones, the prevalence of the operating points), else the
    curve's own weight sums, the signal times `signal_scale`."""
    S, B = yields if yields is not None else (signal_scale * curve.total_signal, curve.total_background)
    r, e = curve.tpr[1:], curve.fpr[1:]
    if not prevalence_defined(S, B):
        return np.full(r.shape, np.nan)
    pi = S / (S + B)
    den = pi * r + (1 - pi) * e
    return np.divide(pi * r, den, out=np.zeros_like(r), where=den > 0)
