"""The binning of one signal-vs-background pair for its binned fit, cross-validated (issue 39).

Edges are chosen on the training split (metrics.binning's exact optimum, and the analysts'
heuristics for comparison: uniform, flat signal, TRExFitter's TransfoD) and evaluated on the
test split, whose events are disjoint from them: the report gives both numbers and the optimism
(train - test; the optimum chosen on a finite sample is biased upward on that sample). The
binning efficiency is the test value over its unbinned limit (FIP2 on the test ROC's convex hull
for the binned FIP, Valassi eq. 5). Yields: each split's weights scaled to the yields the pair's
metrics use (`signal_yield`, `background_yield`: relative training weights, or --expected-yields).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import binning as bn
from pnetviz.metrics import hep
from pnetviz.metrics.roc import binary_clf_curve

BASELINES = ("uniform", "flat_signal", "transfo_d")
CHOSEN_WITHIN = 0.01  # the chosen K: the smallest whose test value is within 1% of the best


@dataclass(frozen=True)
class Events:
    """One split's events of the pair: scores, signal flags, weights used, and the factors that
    turn the weights into the reported signal and background yields."""

    scores: np.ndarray
    is_signal: np.ndarray
    weights: np.ndarray
    scale: tuple[float, float]

    def fill(self, edges: np.ndarray) -> bn.FineBins:
        return bn.fill(edges, self.scores, self.is_signal, self.weights, self.scale)


def value_of(edges: np.ndarray, events: Events, objective: str) -> float:
    """The reported objective of the bins `edges` filled with `events` (bins with s + b <= 0 add nothing)."""
    f = events.fill(edges)
    terms = bn.segment_objective(objective, f.s, f.b, f.w2)
    total = float(np.sum(terms[np.isfinite(terms) & (f.s + f.b > 0)]))
    return bn.report_value(objective, total, float(f.s.sum()))


def uniform_edges(k: int) -> np.ndarray:
    return np.linspace(0.0, 1.0, k + 1)


def flat_signal_edges(fine: bn.FineBins, k: int) -> np.ndarray:
    """Edges (fine-bin boundaries) where the cumulative signal crosses multiples of S/k."""
    cum = np.cumsum(fine.s)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, k) / k, side="left") + 1
    return fine.edges[np.unique(np.r_[0, np.clip(cuts, 1, fine.size - 1), fine.size])]


def transfo_d_edges(fine: bn.FineBins, k: int) -> np.ndarray:
    """TRExFitter's AutoBin TransfoD with z_s = z_b = k/2: merge fine bins from the high-score end
    until z_b b/B + z_s s/S >= 1; a remainder at the low end joins the last bin made."""
    S, B = fine.s.sum(), fine.b.sum()
    z = 0.5 * k * (fine.b / B + fine.s / S)
    cuts, acc = [fine.size], 0.0
    for j in range(fine.size - 1, 0, -1):
        acc += z[j]
        if acc >= 1.0:
            cuts.append(j)
            acc = 0.0
    if acc > 0 and len(cuts) > 1:
        cuts.pop()
    return fine.edges[np.unique(np.r_[0, cuts])]


def baseline(kind: str, fine: bn.FineBins, k: int) -> np.ndarray:
    return {"uniform": lambda: uniform_edges(k), "flat_signal": lambda: flat_signal_edges(fine, k),
            "transfo_d": lambda: transfo_d_edges(fine, k)}[kind]()  # fmt: skip


def unbinned_limit(objective: str, test: Events) -> float | None:
    """The binned objective's limit for infinitely many bins along the test ROC's convex hull: FIP2
    on the hull for the binned FIP; for Asimov, sqrt of the sum over hull segments (None where a
    segment selects signal without background: the limit is infinite)."""
    curve = binary_clf_curve(test.scores, test.is_signal, test.weights)
    hull = hep.convex_hull(curve)
    S, B = curve.total_signal * test.scale[0], curve.total_background * test.scale[1]
    if objective == "binned_fip":
        return hep.fip2(hull, S, B)
    s, b = S * np.diff(hull.tpr), B * np.diff(hull.fpr)
    used = s > 0
    if np.any(b[used] <= 0):
        return None
    return math.sqrt(float(np.sum(bn.segment_objective("asimov", s[used], b[used]))))


def min_mc(edges: np.ndarray, events: Events) -> int:
    """The fewest background MC events in a bin of `edges`."""
    return int(events.fill(edges).nb.min())


def pair_binning(train: Events, test: Events, objective: str = "binned_fip", constraints: bn.Constraints = bn.Constraints(),
                 k_max: int = bn.K_MAX, fine_bins: int = bn.FINE_BINS) -> dict:  # fmt: skip
    """binning.json's content for one pair: per K the optimum chosen on train (edges, train and
    test values, optimism, binding constraints, the test bins' fewest background MC events), the
    baselines' test values, the unbinned limit, the chosen K and its efficiency."""
    fine_bins = min(fine_bins, max(20, train.scores.size // 20))  # ~20 MC events per fine bin at least
    edges = bn.fine_edges(train.scores, train.is_signal, train.weights, fine_bins)
    fine = train.fill(edges)
    limit = unbinned_limit(objective, test)
    by_k = []
    for p in bn.partitions(fine, k_max, objective, constraints):
        value = value_of(p.edges, test, objective)
        by_k.append({"k": p.k, "edges": p.edges.tolist(), "train": p.value, "test": value, "optimism": p.value - value,
                     "efficiency": value / limit if limit else None, "binding": p.binding,
                     "bins": bn.bin_table(fine, p.cuts), "test_min_background_mc_events": min_mc(p.edges, test)})  # fmt: skip
    baselines = {}
    for kind in BASELINES:
        rows = []
        for k in range(1, k_max + 1):
            e = baseline(kind, fine, k)
            rows.append({"k": k, "bins": int(e.size - 1), "edges": e.tolist(), "test": value_of(e, test, objective),
                         "train": value_of(e, train, objective), "train_min_background_mc_events": min_mc(e, train)})  # fmt: skip
        baselines[kind] = rows
    chosen = choose(by_k)
    return {"objective": objective, "constraints": constraints.report(), "fine_bins": int(fine.size), "k_max": k_max,
            "chosen_on": "train", "evaluated_on": "test", "by_k": by_k, "baselines": baselines,
            "unbinned_limit": limit, "chosen_k": chosen["k"] if chosen else None,
            "efficiency": chosen["efficiency"] if chosen else None, "value": chosen["test"] if chosen else None}  # fmt: skip


def choose(by_k: list[dict]) -> dict | None:
    """The smallest K whose test value is within CHOSEN_WITHIN of the best test value."""
    finite = [r for r in by_k if np.isfinite(r["test"])]
    if not finite:
        return None
    top = max(r["test"] for r in finite)
    return next(r for r in finite if r["test"] >= (1 - CHOSEN_WITHIN) * top)
