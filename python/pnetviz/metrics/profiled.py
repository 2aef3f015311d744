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

Several nuisances add their per-event changes. A configuration is one theta vector in the box
|theta_i| <= kappa; the configurations evaluated (the report states the rule, the count, the
lowest-AUC one and, up to MAX_LISTED, their names):

* n <= GRID_MAX = 6 nuisances: every vertex of the grid {-kappa, 0, +kappa}^n (3^6 = 729 at most);
  a worst case that combines nuisances at different nodes, e.g. (+kappa, 0, -kappa), is among them;
* n > 6 (3^n grows too fast: 2187 at n = 7): nominal, each nuisance alone at +-kappa, every pair of
  nuisances on its full 3x3 grid, all 2^n corners while 2^n <= MAX_CORNERS = 512 (n <= 9; beyond,
  only all-up and all-down), every nuisance at its own lowest-AUC node together (to first order
  in the nuisances' effects, the worst vertex), every vertex within two nuisances of that one
  (where normalisation effects make one or two nuisances worst elsewhere in combination), and, for
  the nuisances that move one class's weights only, the vertex that is worst at each threshold of the
  nominal order (metrics/worstvertex.py: exact, Dinkelbach's iteration on the separable ratio of
  yields). With only such nuisances every point of the profiled curve is exact (between two points
  the envelope of all 3^n curves can lie lower by less than a step: 1e-8 in AUC on toys where both
  classes move, 0 where only the background does); nuisances that move scores or both classes are
  covered only by the vertices above and the theta scan;
* plus a theta scan of every nuisance whose extremes need not be at the nodes (below): theta at the
  SCAN_POINTS = 9 equally spaced values over [-kappa, kappa], i.e. the 6 interior ones +-kappa/4,
  +-kappa/2, +-3kappa/4, with the other nuisances at every grid value while (scanned nuisances) x 6
  x 3^(n-1) <= SCAN_BUDGET = 729 (always for n <= 4), otherwise with the others at nominal and at the
  lowest-AUC vertex. Two scanned nuisances are never both at interior values. Then each scanned
  nuisance at every kappa/40 with the others at the lowest-AUC configuration so far, bisected 4 times
  around its own lowest-AUC value (to kappa/640): a scan, not a guarantee (a worst window narrower
  than kappa/40 can be missed); up to 80 more configurations per scanned nuisance.

Why the nodes suffice for some nuisances and not others: a nuisance that moves the weights of one
class only (no score, no weight changing sign over the box) changes that class's efficiency at a
fixed threshold as a ratio of yields linear in theta_i on each side of 0 (linear-fractional: monotone,
and jointly quasi-linear on each orthant of the box, so the extremes over the box are at grid
vertices), and leaves the other class's efficiency alone. With only such nuisances, at every
threshold the highest FPR and the lowest TPR are reached together at one grid vertex, so every
interior configuration's point lies above the lower envelope of the grid curves: the grid is exact
(for these nuisances, given the values of any scanned ones). A weight nuisance moving both classes keeps each
efficiency monotone at a fixed threshold, but the two move at different rates (different
normalisation changes), so a ROC point at an interior theta can fall below every node's curve; a
nuisance moving scores moves events past each other, and the curve need not be monotone in theta at
all (two populations crossing the background at different theta make the middle of the range the
worst). Those are scanned.

The profiled curve is the lower envelope of those configurations' exact curves in ROC space: at
every background efficiency the lowest signal efficiency of any configuration (each configuration
is an exact weighted ROC of the same events; where two curves cross between their points the
crossing is a corner of the envelope). Where the nuisances move only the background (the article's
example), this is the worst FPR at each threshold; in general it is its conservative form, so the
profiled AUC never exceeds the nominal one. Exact: the curves' own points (left and right limits at
vertical steps), no binning. Cost: configurations that move no score reuse the nominal sort (a
weighted cumulative sum each), every nuisance's per-event changes are computed once, and the
envelope is merged one curve at a time, keeping only its own corners (points of a curve that lies
above the envelope there are dropped), so it stays about as large as one curve.
"""

from __future__ import annotations

import math

import itertools
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import hep
from pnetviz.errors import InputError
from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.hep import mode_weights
from pnetviz.metrics.rocenvelope import Envelope as _Envelope
from pnetviz.metrics.rocenvelope import envelope  # noqa: F401 (part of this module's interface)
from pnetviz.metrics.roc import BinaryCurve, SingleClassError, binary_clf_curve
from pnetviz.metrics.worstvertex import neighbours, threshold_vertices

GRID_MAX = 6  # the full {-kappa, 0, +kappa}^n grid up to this many nuisances (3^6 = 729 configurations)
MAX_CORNERS = 512  # n > GRID_MAX: all 2^n corners while 2^n <= this, else all-up and all-down only
SCAN_POINTS = 9  # theta scan: equally spaced values over [-kappa, kappa]; the nodes are on the grid already
SCAN_FRACTIONS = tuple(float(f) for f in np.linspace(-1.0, 1.0, SCAN_POINTS) if f not in (-1.0, 0.0, 1.0))
FINE_STEPS = 40  # then each scanned nuisance at every kappa/40, the others at the lowest-AUC configuration so far
REFINE_LEVELS = 4  # and bisected around its lowest-AUC value down to kappa/640
FINE_RULE = (f"each scanned nuisance at every kappa/{FINE_STEPS} with the others at the lowest-AUC configuration so far, "
             f"bisected {REFINE_LEVELS} times around its own lowest-AUC value (to kappa/{FINE_STEPS * 2**REFINE_LEVELS})")
SCAN_BUDGET = 729  # scan x every grid value of the other nuisances while it costs at most this many configurations
MAX_LISTED = 100  # the report names every configuration up to this many (always: the rule and the count)
COMBINATION = ("lower envelope in ROC space (lowest signal efficiency at each background efficiency) over the box "
               "|theta_i| <= kappa: for n <= 6 nuisances every vertex of the grid {-kappa, 0, +kappa}^n; for n > 6 "
               "nominal, each nuisance alone at +-kappa, every pair on its 3x3 grid, all 2^n corners while 2^n <= 512 "
               "(else all-up and all-down), each nuisance at its own lowest-AUC node together and every vertex within two "
               "nuisances of that one; plus a theta scan "
               "(+-kappa/4, +-kappa/2, +-3kappa/4) of each nuisance that moves scores, moves the weights of both classes "
               "or can flip a weight's sign, with the other nuisances at every grid value while that costs <= 729 "
               "configurations, else at nominal and at the lowest-AUC vertex, then at every kappa/40 with the others at the "
               "lowest-AUC configuration, bisected to kappa/640 around its lowest AUC. Weight nuisances of one class have "
               "their extremes at the grid nodes (rates linear-fractional in theta)")  # fmt: skip
INTERPOLATION = ("per event, linear between nominal (theta = 0) and Up/Down (theta = +-1), extrapolated beyond: "
                 "score s0 + |theta| (s_up/down - s0), weight w0 + |theta| (w_up/down - w0); for weights this is the "
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
    configurations: list[str]  # every configuration evaluated, in order ("nominal", "jes up & xsec theta=-0.5", ...)
    rule: str = ""  # which configurations, for this number of nuisances, and why
    aucs: tuple[float, ...] = ()  # the AUC of each configuration
    scanned: tuple[str, ...] = ()  # the nuisances given the theta scan
    kappa: float = 1.0
    background_events: float = math.nan  # the nominal sample's effective background events (rejection limits)

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
    names = [n.name for n in nuisances]
    events = _Events(nominal, nuisances, kappa, weight_mode)
    nominal_curve = nominal_curve or _curve(nominal)
    env = _Envelope()
    aucs: dict[tuple[float, ...], float] = {}  # configuration (theta / kappa of each nuisance) -> its AUC
    variations: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}

    def evaluate(configs: list[tuple[float, ...]]) -> None:
        for c in configs:
            if c in aucs:
                continue
            fpr, tpr, aucs[c] = events.curve(c) if any(c) else (nominal_curve.fpr, nominal_curve.tpr, nominal_curve.auc)
            env.add(fpr, tpr)
            moved = [(i, f) for i, f in enumerate(c) if f]
            if len(moved) == 1 and abs(moved[0][1]) == 1:
                variations[(names[moved[0][0]], "up" if moved[0][1] > 0 else "down")] = (fpr, tpr)

    vertices, rule = _vertices(len(names))
    evaluate(vertices)
    if len(names) > GRID_MAX:  # each nuisance at its own lowest-AUC node, all together, and every vertex near it
        unit = [tuple(f if j == i else 0 for j in range(len(names))) for i in range(len(names)) for f in (1, 0, -1)]
        worst = tuple(min((0, 1, -1), key=lambda f, i=i: aucs[unit[3 * i + 1 - f]]) for i in range(len(names)))
        evaluate([worst, *neighbours(worst)])
        used = mode_weights(events.weights, events.mode)
        evaluate(threshold_vertices(events.nominal.scores, events.is_signal, used, events.used_changes(used), events.node_exact))
    scanned = [i for i, exact in enumerate(events.node_exact) if not exact]
    if scanned:
        configs, how = _scan(len(names), scanned, min(aucs, key=aucs.get))
        evaluate(configs)
        for i in scanned:  # finer, around the lowest-AUC configuration so far, then refined around its own lowest
            base = min(aucs, key=aucs.get)
            evaluate(_fine(base, i))
            _refine(base, i, aucs, evaluate)
        rule += f"; theta scan of {', '.join(names[i] for i in scanned)} at theta/kappa = " \
                f"{', '.join(f'{f:+g}' for f in SCAN_FRACTIONS)} with {how}, then {FINE_RULE}"
    exact = [names[i] for i, e in enumerate(events.node_exact) if e]
    if exact:
        rule += f"; grid values only (move no score and the weights of one class at most): {', '.join(exact)}"
    fpr, low, high = env.result()
    return Profiled(nominal_curve, variations, fpr, low, high, [_name(names, c, kappa) for c in aucs],
                    f"{len(aucs)} configurations: {rule}", tuple(aucs.values()), tuple(names[i] for i in scanned),
                    kappa, hep.effective_events(nominal.used[~nominal.is_signal]))  # fmt: skip


class _Events:
    """What every configuration shares: the nominal events in float64, each nuisance's per-event
    changes at theta = +-kappa (computed once), whether its extremes are at the nodes, and the
    nominal score order (configurations that move no score reuse it: one weighted cumulative sum)."""

    def __init__(self, nominal: BinarySample, nuisances: list[Nuisance], kappa: float, mode: str):
        self.nominal, self.mode = nominal, mode
        self.is_signal = np.asarray(nominal.is_signal, dtype=bool)
        self.scores = np.asarray(nominal.scores, dtype=np.float64)
        self.weights = np.asarray(nominal.weights, dtype=np.float64)
        self.changes = []  # per nuisance: {+1: (d_score, d_weight), -1: (...)}, None where nothing moves
        for n in nuisances:
            k = kappa if n.kind == "template" else 1.0
            sides = {}
            for sign, varied in ((1, n.up), (-1, n.down)):
                ds = k * (np.asarray(varied.scores, dtype=np.float64) - self.scores)
                dw = k * (np.asarray(varied.weights, dtype=np.float64) - self.weights)
                sides[sign] = (ds if ds.any() else None, dw if dw.any() else None)
            self.changes.append(sides)
        self.node_exact = self._node_exact()
        self._sorted: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _node_exact(self) -> list[bool]:
        """Per nuisance: moves the weights of one class only, no score, and no weight touched can change
        sign anywhere in the box (|w| or max(w, 0) would not be linear in theta)."""
        low, high = self.weights.copy(), self.weights.copy()
        for sides in self.changes:
            dws = [dw for _, dw in sides.values() if dw is not None]
            if dws:
                low += np.minimum.reduce([np.minimum(dw, 0.0) for dw in dws])
                high += np.maximum.reduce([np.maximum(dw, 0.0) for dw in dws])
        flips = (low < 0) & (high > 0)
        out = []
        for sides in self.changes:
            if any(ds is not None for ds, _ in sides.values()):
                out.append(False)
                continue
            touched = np.zeros(self.weights.size, dtype=bool)
            for _, dw in sides.values():
                if dw is not None:
                    touched |= dw != 0
            one_class = not (touched & self.is_signal).any() or not (touched & ~self.is_signal).any()
            out.append(one_class and not (touched & flips).any())
        return out

    def used_changes(self, used: np.ndarray) -> list[dict]:
        """Each nuisance's weight changes at +-kappa in the weights after the weight mode (`used`: the nominal ones)."""
        return [{f: (ds, None if dw is None else mode_weights(self.weights + dw, self.mode) - used) for f, (ds, dw) in sides.items()}
                for sides in self.changes]  # fmt: skip

    def moved(self, c: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
        """Scores and signed weights at configuration c (theta / kappa per nuisance); whether scores moved."""
        scores, weights, moved = self.scores, self.weights, False
        for f, sides in zip(c, self.changes):
            if f:
                ds, dw = sides[1 if f > 0 else -1]
                if ds is not None:
                    scores, moved = scores + abs(f) * ds, True
                if dw is not None:
                    weights = weights + abs(f) * dw
        return scores, weights, moved

    def curve(self, c: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, float]:
        """(fpr, tpr, auc) of the exact weighted ROC at configuration c."""
        scores, weights, moved = self.moved(c)
        used = mode_weights(weights, self.mode)
        if moved:
            curve = binary_clf_curve(scores, self.is_signal, used)
            return curve.fpr, curve.tpr, curve.auc
        if self._sorted is None:  # the nominal thresholds (in the nominal dtype), as binary_clf_curve has them
            s = np.asarray(self.nominal.scores)
            order = np.argsort(-s, kind="stable")
            ss = s[order]
            self._sorted = order, np.r_[np.flatnonzero(ss[1:] != ss[:-1]), s.size - 1], self.is_signal[order]
        order, last, signal = self._sorted
        w = used[order]
        tps = np.r_[0.0, np.cumsum(np.where(signal, w, 0.0))[last]]
        fps = np.r_[0.0, np.cumsum(np.where(signal, 0.0, w))[last]]
        step = np.r_[True, (tps[1:] != tps[:-1]) | (fps[1:] != fps[:-1])]  # scores of zero-weight events only: no point
        tps, fps = tps[step], fps[step]
        for name, total in (("signal", tps[-1]), ("background", fps[-1])):
            if total <= 0:
                raise SingleClassError(f"ROC undefined: the {name} events have zero total weight")
        fpr, tpr = np.clip(fps / fps[-1], 0.0, 1.0), np.clip(tps / tps[-1], 0.0, 1.0)
        return fpr, tpr, trapezoid(fpr, tpr)


def _vertices(n: int) -> tuple[list[tuple[int, ...]], str]:
    """The grid configurations (theta / kappa in {-1, 0, +1} per nuisance): nominal first, then each
    nuisance alone (up, down), then the rest; and the rule that chose them."""
    nominal = (0,) * n
    alone = [tuple(f if j == i else 0 for j in range(n)) for i in range(n) for f in (1, -1)]
    if n <= GRID_MAX:
        rest = sorted((c for c in itertools.product((1, 0, -1), repeat=n) if np.count_nonzero(c) > 1), key=np.count_nonzero)
        return [nominal, *alone, *rest], f"n = {n}: every vertex of {{-kappa, 0, +kappa}}^{n} ({3**n})"
    pairs = [tuple(a if k == i else b if k == j else 0 for k in range(n))
             for i, j in itertools.combinations(range(n), 2) for a, b in itertools.product((1, -1), repeat=2)]  # fmt: skip
    if 2**n <= MAX_CORNERS:
        corners, which = list(itertools.product((1, -1), repeat=n)), f"all 2^{n} = {2**n} corners"
    else:
        corners, which = [(1,) * n, (-1,) * n], f"the all-up and all-down corners (2^{n} > {MAX_CORNERS})"
    return [nominal, *alone, *pairs, *corners], (
        f"n = {n} > {GRID_MAX} (the full grid would be 3^{n} = {3**n}): nominal, each nuisance alone at +-kappa "
        f"({2 * n}), every pair on its 3x3 grid ({len(pairs)} more), {which}, and every nuisance at its own "
        "lowest-AUC node together, with every vertex within two nuisances of it, and at every threshold the vertex "
        "worst for the nuisances that move one class's weights only (exact: Dinkelbach's iteration)")  # fmt: skip


def _scan(n: int, scanned: list[int], worst: tuple[float, ...]) -> tuple[list[tuple[float, ...]], str]:
    """Theta-scan configurations: each scanned nuisance at the interior SCAN_FRACTIONS, the others at
    every grid value if that stays within SCAN_BUDGET, else at nominal and at `worst` (the lowest-AUC
    vertex); and how the others were set."""
    if len(scanned) * len(SCAN_FRACTIONS) * 3 ** (n - 1) <= SCAN_BUDGET:
        others = list(itertools.product((1, 0, -1), repeat=n - 1))
        how = f"the other nuisances at every grid value ({len(scanned)} x {len(SCAN_FRACTIONS)} x 3^{n - 1})"
        return [(*o[:i], f, *o[i:]) for i in scanned for f in SCAN_FRACTIONS for o in others], how
    bases = [(0,) * n, worst]
    how = (f"the other nuisances at nominal and at the lowest-AUC vertex (every grid value would be "
           f"{len(scanned)} x {len(SCAN_FRACTIONS)} x 3^{n - 1} > {SCAN_BUDGET})")  # fmt: skip
    return [(*b[:i], f, *b[i + 1 :]) for i in scanned for f in SCAN_FRACTIONS for b in bases], how


def _fine(base: tuple[float, ...], i: int) -> list[tuple[float, ...]]:
    """Nuisance i at every FINE_STEPS-th of kappa over [-kappa, kappa], the others as in `base`."""
    return [(*base[:i], float(k) / FINE_STEPS, *base[i + 1 :]) for k in range(-FINE_STEPS, FINE_STEPS + 1)]


def _refine(base: tuple[float, ...], i: int, aucs: dict[tuple[float, ...], float], evaluate) -> None:
    """Bisection around the lowest-AUC value of nuisance i on its fine scan (the others as in `base`):
    REFINE_LEVELS halvings of the step, evaluating both neighbours of the running minimum."""

    def at(t: float) -> tuple[float, ...]:
        return (*base[:i], t, *base[i + 1 :])

    best, step = min((k / FINE_STEPS for k in range(-FINE_STEPS, FINE_STEPS + 1)), key=lambda t: aucs[at(t)]), 1.0 / FINE_STEPS
    for _ in range(REFINE_LEVELS):
        step /= 2
        near = [t for t in (best - step, best + step) if abs(t) <= 1.0]
        evaluate([at(t) for t in near])
        best = min([best, *near], key=lambda t: aucs[at(t)])


def _name(names: list[str], c: tuple[float, ...], kappa: float) -> str:
    """'nominal', or e.g. 'jes up & xsec theta=-0.5' (up / down: theta = +-kappa)."""
    sides = {1: "up", -1: "down"}
    return " & ".join(f"{name} {sides.get(f) or f'theta={f * kappa:+g}'}" for name, f in zip(names, c) if f) or "nominal"


def summary(prof: Profiled) -> dict:
    """The report's `systematics` numbers: AUC and rejection at the usual eps_s, nominal, per
    variation (theta = +-kappa) and profiled, the impact of each nuisance on the AUC, and the
    configurations: how many, the rule, the grid and scan values, the lowest-AUC one and (up to
    MAX_LISTED) their names."""

    def numbers(curve: BinaryCurve) -> dict:
        """AUC and rejection (a 95% CL lower limit from the nominal N_eff where eps_b = 0, flagged)."""
        values = {f"{e:g}": hep.rejection_value(hep.background_efficiency_at(curve, e), prof.background_events)
                  for e in hep.REJECTION_EFFICIENCIES}  # fmt: skip
        return {"auc": curve.auc, "rejection": {k: v for k, (v, _) in values.items()},
                "rejection_lower_limit": {k: limit for k, (_, limit) in values.items()}}

    nominal = numbers(prof.nominal)
    out = {"nominal": nominal, "variations": {}, "impact": {}}
    for (name, side), (fpr, tpr) in prof.variations.items():
        entry = numbers(prof.curve(fpr, tpr))
        out["variations"].setdefault(name, {})[side] = entry
        out["impact"].setdefault(name, {})[f"delta_auc_{side}"] = entry["auc"] - nominal["auc"]
    out["profiled"] = numbers(prof.curve())
    lowest = int(np.argmin(prof.aucs))
    out["configurations"] = {"count": len(prof.configurations), "rule": prof.rule,
                             "theta_grid": [-prof.kappa, 0.0, prof.kappa], "scanned": list(prof.scanned),
                             "theta_scan": [f * prof.kappa for f in SCAN_FRACTIONS] if prof.scanned else [],
                             "lowest_auc": {"configuration": prof.configurations[lowest], "auc": prof.aucs[lowest]}}  # fmt: skip
    if len(prof.configurations) <= MAX_LISTED:
        out["configurations"]["names"] = prof.configurations
    return out
