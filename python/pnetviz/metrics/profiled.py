"""Profiled ROC under systematic uncertainties (spec, the ROC article: "Handling Systematic
Uncertainties"): at every threshold, the worst background efficiency the nuisances allow.

Nuisances, each a pair of alternative samples of the same events at theta = +kappa and -kappa:

* template variations stored in the ntuple (`score_<class>__<syst>Up/Down`, `weight__<syst>Up/Down`):
  between nominal (theta = 0) and Up/Down (theta = +-1) each event's weight and score move linearly,
  w0 + |theta| (w_up/down - w0) and s0 + |theta| (s_up/down - s0), extrapolated beyond |theta| = 1.
  For weights this is exactly the linear interpolation of the cumulative signal and background yields
  above every threshold; for scores it keeps every configuration a real sample (interpolating the
  cumulative yields of a score template, or adding two nuisances' yield changes, can make a yield
  fall as the threshold falls: a negative density). At theta = +-1 both are the templates;
* an analytic score shift of one class (`--score-shift background=0.02`): that class's
  discriminant scores move by theta in [-kappa tau, kappa tau]; the samples at +-kappa tau are exact.

Several nuisances add their per-event changes. For weight nuisances FPR(t) and TPR(t) are ratios of
yields linear in each theta_i, monotone between the nodes {-kappa, 0, +kappa}, so the extremes of one
nuisance are at theta = 0 or +-kappa; the configurations evaluated are nominal, each nuisance alone
at +-kappa and all 2^n corners of the box (the report lists them).

The profiled curve is the lower envelope of those configurations' exact curves in ROC space: at
every background efficiency where any of them has a point, the lowest signal efficiency (each
configuration is an exact weighted ROC of the same events). Where the
nuisances move only the background (the article's example), this is the worst FPR at each
threshold; in general it is its conservative form, so the profiled AUC never exceeds the nominal
one. Exact: the curves' own points (left and right limits at vertical steps), no binning.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import hep
from pnetviz.errors import InputError
from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.hep import mode_weights
from pnetviz.metrics.roc import BinaryCurve, binary_clf_curve

COMBINATION = ("lower envelope in ROC space (lowest signal efficiency at each background efficiency) of: nominal, "
               "each nuisance alone at theta = +-kappa, and all 2^n corners of the box |theta_i| <= kappa")  # fmt: skip
INTERPOLATION = ("per event, linear between nominal (theta = 0) and Up/Down (theta = +-1), extrapolated beyond: "
                 "score s0 + theta (s_up/down - s0), weight w0 + theta (w_up/down - w0); for weights this is the "
                 "linear interpolation of the cumulative yields above every threshold, and at theta = +-1 the "
                 "templates themselves; several nuisances add their changes")  # fmt: skip


@dataclass(frozen=True)
class Nuisance:
    """One nuisance: the same events at theta = +1 and -1 (template) or +-kappa tau (shift)."""

    name: str
    kind: str  # "template" or "shift"
    up: BinarySample
    down: BinarySample


@dataclass(frozen=True)
class Profiled:
    """The nominal curve, each variation at theta = +-kappa and the profiled envelope."""

    nominal: BinaryCurve
    variations: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]  # (name, up|down) -> (fpr, tpr) at +-kappa
    fpr: np.ndarray  # envelope abscissae (each point twice: left and right limit)
    tpr: np.ndarray  # profiled: the lowest signal efficiency of any configuration at each fpr
    best_tpr: np.ndarray  # the highest (upper edge of the band)
    configurations: list[str]

    @property
    def auc(self) -> float:
        return trapezoid(self.fpr, self.tpr)

    def curve(self, fpr: np.ndarray | None = None, tpr: np.ndarray | None = None) -> BinaryCurve:
        """A BinaryCurve of rates (totals 1) for hep.rejection_at: the profiled one by default."""
        fpr = self.fpr if fpr is None else fpr
        tpr = self.tpr if tpr is None else tpr
        return BinaryCurve(np.full(fpr.size, np.nan), tpr, fpr, auc=trapezoid(fpr, tpr))


def trapezoid(fpr: np.ndarray, tpr: np.ndarray) -> float:
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2.0)


def tpr_limits(fpr: np.ndarray, tpr: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Signal efficiency of the piecewise-linear curve at each x, approached from the left (the
    foot of a vertical step) and from the right (its top); fpr must be non-decreasing."""

    def at(k_lo: np.ndarray, k_hi: np.ndarray) -> np.ndarray:
        lo, hi = np.clip(k_lo, 0, fpr.size - 1), np.clip(k_hi, 0, fpr.size - 1)
        span = fpr[hi] - fpr[lo]
        frac = np.divide(x - fpr[lo], span, out=np.zeros_like(x), where=span > 0)
        return tpr[lo] + frac * (tpr[hi] - tpr[lo])

    left = np.searchsorted(fpr, x, side="left")  # first point at or beyond x
    right = np.searchsorted(fpr, x, side="right")  # first point beyond x
    return at(left - 1 + (fpr[np.clip(left, 0, fpr.size - 1)] == x), left), at(right - 1, right)


def _curve(sample: BinarySample) -> BinaryCurve:
    return binary_clf_curve(sample.scores, sample.is_signal, sample.used)


def profile(nominal: BinarySample, nuisances: list[Nuisance], kappa: float, weight_mode: str = "abs",
            nominal_curve: BinaryCurve | None = None) -> Profiled:  # fmt: skip
    """The profiled ROC of `nominal` under `nuisances` (see the module docstring); `nominal_curve`:
    its exact curve when the caller has it already (not sorted again)."""
    if weight_mode == "signed":
        raise InputError("the profiled ROC needs non-negative weights (efficiencies must grow as the threshold "
                         "falls). Fix: --weights abs or drop.")  # fmt: skip
    configs = _configurations([n.name for n in nuisances])
    by_name = {n.name: n for n in nuisances}
    curves = [nominal_curve or _curve(nominal)]
    curves += [_curve(configuration(nominal, [(by_name[name], side) for name, side in c], kappa, weight_mode))
               for c in configs[1:]]  # fmt: skip
    variations = {c[0]: (curve.fpr, curve.tpr) for c, curve in zip(configs, curves) if len(c) == 1}
    fpr, low, high = envelope([(c.fpr, c.tpr) for c in curves])
    names = [" & ".join(f"{name} {side}" for name, side in c) or "nominal" for c in configs]
    return Profiled(curves[0], variations, fpr, low, high, names)


def configuration(nominal: BinarySample, moves: list[tuple[Nuisance, str]], kappa: float, mode: str) -> BinarySample:
    """The events with every nuisance in `moves` at its end: per event, scores and weights change by
    the sum of the nuisances' changes, templates scaled by kappa (shifts are made at +-kappa tau)."""
    if not moves:
        return nominal
    scores, weights = nominal.scores.astype(np.float64), nominal.weights.astype(np.float64)
    for nuisance, side in moves:
        varied = nuisance.up if side == "up" else nuisance.down
        k = kappa if nuisance.kind == "template" else 1.0
        scores = scores + k * (np.asarray(varied.scores, dtype=np.float64) - nominal.scores)
        weights = weights + k * (varied.weights - nominal.weights)
    return BinarySample(scores, nominal.is_signal, weights, mode_weights(weights, mode))


def envelope(rates: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lowest and highest TPR over the curves at every FPR where any curve has a point, each FPR
    listed twice (left and right limits), so vertical steps keep zero area: for one curve this is
    the curve itself, trapezoidal area included."""
    x = np.unique(np.concatenate([f for f, _ in rates]))
    limits = [tpr_limits(f, t, x) for f, t in rates]
    lo = np.minimum.reduce([np.stack(pair) for pair in limits])  # 2 x len(x): left, right
    hi = np.maximum.reduce([np.stack(pair) for pair in limits])
    return np.repeat(x, 2), lo.T.ravel(), hi.T.ravel()


def _configurations(names: list[str]) -> list[tuple[tuple[str, str], ...]]:
    """Nominal, each nuisance alone at up and down, then every corner (all nuisances at up or down)."""
    alone = [((name, side),) for name in names for side in ("up", "down")]
    corners = [tuple(zip(names, sides)) for sides in itertools.product(("up", "down"), repeat=len(names))]
    return [(), *alone, *(c for c in corners if len(names) > 1)]


def summary(prof: Profiled) -> dict:
    """The report's `systematics` numbers: AUC and rejection at the usual eps_s, nominal, per
    variation (theta = +-kappa) and profiled, and the impact of each nuisance on the AUC."""

    def numbers(curve: BinaryCurve) -> dict:
        return {"auc": curve.auc, "rejection": {f"{e:g}": hep.rejection_at(curve, e) for e in hep.REJECTION_EFFICIENCIES}}

    nominal = numbers(prof.nominal)
    out = {"nominal": nominal, "variations": {}, "impact": {}}
    for (name, side), (fpr, tpr) in prof.variations.items():
        entry = numbers(prof.curve(fpr, tpr))
        out["variations"].setdefault(name, {})[side] = entry
        out["impact"].setdefault(name, {})[f"delta_auc_{side}"] = entry["auc"] - nominal["auc"]
    out["profiled"] = numbers(prof.curve())
    out["configurations"] = prof.configurations
    return out
