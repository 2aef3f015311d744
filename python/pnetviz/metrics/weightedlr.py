"""The analysis' own multi-class score (`--score weighted-lr`): the cross-section-weighted
likelihood ratio

    s0 / (s0 + sum_i w_i s_i)

of the class scores s_k = P(class k | x), with w_i the background classes' expected yields
normalised to sum 1 (the trainer's SignalRegionStudy, background_weights.json). A network
trained on classes of equal total weight outputs s_k proportional to p_k(x), so the score is a
monotone function of p_0(x) / sum_i w_i p_i(x): the likelihood ratio of the signal against the
background mixture of those yields, by Neyman-Pearson the optimal test of signal vs all
backgrounds. Pure arrays: the weights, the score, and the per-event factors that bring each
background class to its share w_i of the background (the signal-vs-all-backgrounds sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pnetviz.errors import InputError

NAME = "weighted_lr"  # the score's name in reports, file names and the fold summary
FROM_YIELDS = "expected-yields"
FROM_TOTALS = "ntuple class totals"

AXIS = "s_{0} / (s_{0} + #Sigma_{i} w_{i} s_{i})"  # the score as an axis title (TLatex), in fold and folds/ sets alike


@dataclass(frozen=True)
class Weights:
    """The background weights w_i (class -> w, summing to 1, in label order) and where they come
    from: FROM_YIELDS (--expected-yields) or FROM_TOTALS (the ntuple's weighted class totals)."""

    weights: dict[str, float]
    source: str
    yields: dict[str, float]  # class -> the yield or weight total w_i was normalised from

    @property
    def vector(self) -> np.ndarray:
        return np.array(list(self.weights.values()), dtype=np.float64)

    def line(self, labels: dict[str, str] | None = None) -> str:
        """The figures' context line: "w: Nonprompt 0.72, Diboson 0.19, t#bar{t}X 0.0875 (expected yields)"
        (`labels`: class -> plot label)."""
        text = ", ".join(f"{(labels or {}).get(c, c)} {w:.3g}" for c, w in self.weights.items())
        return f"w: {text} ({'expected yields' if self.source == FROM_YIELDS else 'ntuple totals'})"

    def report(self, weight_mode: str) -> dict:
        meaning = ("--expected-yields, normalised to sum 1 over the background classes" if self.source == FROM_YIELDS else
                   f"the ntuple's class totals (sum of the weights after --weights {weight_mode}, all splits, within --subset "
                   "when given), "
                   "normalised to sum 1 over the background classes; --expected-yields sets them")  # fmt: skip
        return {"score": formula(tuple(self.weights)), "weights": dict(self.weights), "source": self.source,
                "normalised_from": dict(self.yields), "meaning": meaning}  # fmt: skip


def formula(backgrounds: tuple[str, ...], signal: str = "s0") -> str:
    return f"{signal} / ({signal} + " + " + ".join(f"w_{b} s_{b}" for b in backgrounds) + ")"


def resolve(backgrounds: tuple[str, ...], yields: dict[str, float] | None, totals: dict[str, float],
            where: str) -> Weights:  # fmt: skip
    """The weights of the background classes: from `yields` (--expected-yields, which must name
    every background class), else from `totals` (each class's summed weights in the ntuple
    `where`); InputError (one line) for a class without a yield, or a zero, negative or
    non-finite one."""
    if yields is not None:
        missing = [b for b in backgrounds if b not in yields]
        if missing:
            raise InputError(f"--score weighted-lr: --expected-yields has no yield for {', '.join(missing)} (it gives "
                             f"{', '.join(yields)}). Fix: give every background class's expected events.")  # fmt: skip
        raw, source, fix = {b: yields[b] for b in backgrounds}, FROM_YIELDS, "give positive expected events"
    else:
        raw, source = {b: float(totals.get(b, 0.0)) for b in backgrounds}, FROM_TOTALS
        fix = "give the classes' expected events with --expected-yields"
    bad = [f"{b} = {v:g}" for b, v in raw.items() if not (math.isfinite(v) and v > 0)]
    if bad:
        what = "--expected-yields" if source == FROM_YIELDS else f"{where}: the weighted class totals"
        raise InputError(f"--score weighted-lr: {what} give {', '.join(bad)}: a weight must be a positive yield. Fix: {fix}.")
    total = sum(raw.values())
    return Weights({b: v / total for b, v in raw.items()}, source, raw)


def score(p_signal: np.ndarray, p_backgrounds: list[np.ndarray] | np.ndarray, weights: np.ndarray) -> np.ndarray:
    """s0 / (s0 + sum_i w_i s_i) per event, float64; NaN where the denominator is 0 (the caller
    names those events). `p_backgrounds`: one array per background class, in the order of `weights`."""
    s0 = np.asarray(p_signal, dtype=np.float64)
    denominator = s0.copy()
    for w, p in zip(weights, p_backgrounds, strict=True):
        denominator += w * np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return s0 / denominator


def mixture_factors(weights: Weights, totals: dict[str, float]) -> dict[str, float]:
    """class -> the factor on its events' weights that makes each background class's share of
    the background w_i (the total background weight kept): w_i sum_j T_j / T_i with T the class
    totals. 1 for every class when the weights are the totals themselves (FROM_TOTALS)."""
    if weights.source == FROM_TOTALS:
        return dict.fromkeys(weights.weights, 1.0)
    t = {b: float(totals.get(b, 0.0)) for b in weights.weights}
    empty = [b for b, v in t.items() if not (math.isfinite(v) and v > 0)]
    if empty:
        raise InputError(f"--score weighted-lr: the background classes {', '.join(empty)} have no positive weighted total "
                         "in the ntuple, so signal vs all backgrounds cannot be weighted to the expected yields. "
                         "Fix: check the ntuple's true_label and weights (or --subset).")  # fmt: skip
    whole = sum(t.values())
    return {b: w * whole / t[b] for b, w in weights.weights.items()}


def class_totals(classes: tuple[str, ...], label: np.ndarray, used: np.ndarray, keep: np.ndarray | None = None) -> dict[str, float]:
    """class -> the summed weights `used` (after the weight mode) of its events, all splits,
    within `keep` (--subset) when given."""
    sel = np.ones(label.size, dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    sums = np.bincount(label[sel], weights=used[sel], minlength=len(classes))
    return {c: float(sums[k]) for k, c in enumerate(classes)}
