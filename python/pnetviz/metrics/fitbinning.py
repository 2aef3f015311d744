"""The binning of one signal-vs-background pair for its binned fit, cross-validated (issue 39).

Edges are chosen on the training split (metrics.binning's exact optimum, and the analysts'
heuristics for comparison: uniform, flat signal, TRExFitter's TransfoD) and evaluated on the
test split, whose events are disjoint from them: the report gives both numbers and the optimism
(train - test; the optimum chosen on a finite sample is biased upward on that sample). The
number of bins K is chosen on the training split too (`choose`: the smallest K within 1% of the
best train value), so that neither the edges nor K depend on the test events they are judged on. The
binning efficiency is the test value over its unbinned limit (FIP2 on the test ROC's convex hull
for the binned FIP, Valassi eq. 5). Yields: each split's weights scaled to the yields the pair's
metrics use (`signal_yield`, `background_yield`: relative training weights, or --expected-yields).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import binning as bn
from pnetviz.metrics import hep
from pnetviz.metrics.prefixsums import BACKGROUND, SIGNAL, SortedSums
from pnetviz.metrics.roc import BinaryCurve, binary_clf_curve

BASELINES = ("uniform", "flat_signal", "transfo_d")
CHOSEN_WITHIN = 0.01  # the chosen K: the smallest whose value on the split the edges were chosen on is within 1% of the best
CHOSEN_BY = ("the smallest K whose value on the events the edges were chosen on (never the test events) is within 1% "
             "of the best K's value there")  # fmt: skip


@dataclass(frozen=True)
class Events:
    """One split's events of the pair: scores, signal flags, weights used, the factors that
    turn the weights into the reported signal and background yields, and optionally each
    event's background class (for the per-class MC guard; signal events' entries ignored)."""

    scores: np.ndarray
    is_signal: np.ndarray
    weights: np.ndarray
    scale: tuple[float, float]
    classes: np.ndarray | None = None

    @functools.cached_property
    def _sums(self) -> SortedSums:
        """Each class's events in increasing score order (one sort per split: the ROC kernel's radix
        sort, macros/sorted_runs.h) and their prefix sums (row: the sums below an edge) of the columns
        s, b, background MC event, background w^2, one per background class (metrics.prefixsums)."""
        return SortedSums(self.scores, self.is_signal, self.weights, self.scale, self.classes)

    def fine_edges(self, m: int) -> np.ndarray:
        """metrics.binning.fine_edges of these events from their sorted runs (the same edges, no argsort)."""
        half = max(m // 2, 1)
        inner = np.r_[self._sums.quantiles(SIGNAL, half), self._sums.quantiles(BACKGROUND, half)]
        inner = np.unique(inner[(inner > 0.0) & (inner < 1.0)])
        return np.r_[0.0, inner, 1.0]

    def sums(self, edges: np.ndarray) -> np.ndarray:
        """Per bin of `edges` (rows; bins as metrics.binning.fill makes them: [e_i, e_i+1), below
        the first edge in the first bin, from the last inner edge up in the last) the columns of
        `_sums`, as differences of the prefix sums: no pass over the events, an empty bin exactly 0."""
        return self.sums_of_sets([np.asarray(edges, float)])

    def sums_of_sets(self, edge_sets: list[np.ndarray]) -> np.ndarray:
        """`sums` of several edge sets at once, their bins one after the other."""
        table = self._sums
        edges = np.concatenate(edge_sets)
        sizes = np.array([e.size for e in edge_sets])
        last = np.cumsum(sizes) - 1
        first = last - sizes + 1
        pos = table.positions(edges)  # per edge: (background, signal) events below it
        pos[first], pos[last] = 0, table.n
        lower, upper = np.ones(edges.size, bool), np.ones(edges.size, bool)
        lower[last], upper[first] = False, False
        rows = table.rows(np.concatenate([pos[upper], pos[lower]]))
        return rows[: rows.shape[0] // 2] - rows[rows.shape[0] // 2 :]

    def fill(self, edges: np.ndarray) -> bn.FineBins:
        """The yields per bin of `edges` (`sums`) as metrics.binning.FineBins."""
        sums = self.sums(edges)
        s, b, nb, w2 = sums[:, :4].T
        return bn.FineBins(edges=np.asarray(edges, float), s=s, b=b, nb=nb, w2=w2,
                           classes=sums[:, 4:] if self.classes is not None else None)  # fmt: skip

    def values(self, edge_sets: list[np.ndarray], objective: str) -> tuple[list[float], list[int]]:
        """For each bin-edge set: the reported objective (`value_in`) and the fewest background MC
        events in a bin, computed for all sets at once."""
        if not edge_sets:
            return [], []
        sums = self.sums_of_sets(edge_sets)
        s, b, nb, w2 = sums[:, :4].T
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = bn.segment_objective(objective, s, b, w2)
        terms = np.where(np.isfinite(terms) & (s + b > 0), terms, 0.0)
        starts = np.cumsum([0] + [e.size - 1 for e in edge_sets[:-1]])
        totals, fewest = np.add.reduceat(terms, starts), np.minimum.reduceat(nb, starts)
        signal = float(self._sums.total[0])
        return _reported(objective, totals, signal), fewest.astype(np.int64).tolist()


def _reported(objective: str, totals: np.ndarray, signal: float) -> list[float]:
    """binning.report_value of each of `totals`, computed for all at once (the same IEEE operations)."""
    if objective == "binned_fip" and signal == 0.0:  # report_value's own error (a division by zero)
        return [bn.report_value(objective, float(v), signal) for v in totals]
    with np.errstate(invalid="ignore"):  # max(t, 0.0) as np.where: a -0.0 kept, as max keeps it
        values = totals / signal if objective == "binned_fip" else np.sqrt(np.where(totals < 0.0, 0.0, totals))
    return np.where(np.isfinite(totals), values, math.nan).tolist()


def value_of(edges: np.ndarray, events: Events, objective: str) -> float:
    """The reported objective of the bins `edges` filled with `events` (bins with s + b <= 0 add nothing)."""
    return value_in(events.fill(edges), objective)


def value_in(f: bn.FineBins, objective: str) -> float:
    """The reported objective of filled bins `f` (bins with s + b <= 0 add nothing)."""
    terms = bn.segment_objective(objective, f.s, f.b, f.w2)
    total = float(np.sum(terms[np.isfinite(terms) & (f.s + f.b > 0)]))
    return bn.report_value(objective, total, float(f.s.sum()))


def uniform_edges(k: int) -> np.ndarray:
    edges = np.arange(k + 1) / k
    edges[-1] = 1.0
    return edges


def _edges_at(fine: bn.FineBins, cuts) -> np.ndarray:
    """The score edges of the fine-bin boundaries `cuts` (any order, repeats dropped), 0 and M added."""
    return fine.edges[sorted({0, fine.size, *cuts})]


def flat_signal_sets(fine: bn.FineBins, k_max: int) -> list[np.ndarray]:
    """For k = 1..k_max: edges (fine-bin boundaries) where the cumulative signal crosses multiples of S/k."""
    cum = np.cumsum(fine.s)
    ks = np.arange(1, k_max + 1)
    fractions = np.concatenate([np.arange(1, k) / k for k in ks])
    cuts = np.clip(np.searchsorted(cum, cum[-1] * fractions, side="left") + 1, 1, max(fine.size - 1, 1)).tolist()
    starts = np.concatenate([[0], np.cumsum(ks - 1)]).tolist()
    return [_edges_at(fine, cuts[starts[k - 1]:starts[k]]) for k in ks]


def flat_signal_edges(fine: bn.FineBins, k: int) -> np.ndarray:
    """Edges (fine-bin boundaries) where the cumulative signal crosses multiples of S/k."""
    return flat_signal_sets(fine, k)[-1]


def transfo_d_edges(fine: bn.FineBins, k: int) -> np.ndarray:
    """TRExFitter's AutoBin TransfoD with z_s = z_b = k/2: merge fine bins from the high-score end
    until z_b b/B + z_s s/S >= 1; a remainder at the low end joins the last bin made."""
    return transfo_d_sets(fine, k)[-1]


def transfo_d_sets(fine: bn.FineBins, k_max: int) -> list[np.ndarray]:
    """transfo_d_edges for k = 1..k_max: every k's z at once (row k - 1: 0.5 k (b/B + s/S), the
    same products), the merging pass over the fine bins in C++ (binning.transfo_d_kernel)."""
    if k_max < 1:
        return []
    S, B = fine.s.sum(), fine.b.sum()
    z = np.ascontiguousarray((0.5 * np.arange(1, k_max + 1))[:, None] * (fine.b / B + fine.s / S), dtype=np.float64)
    idx, counts = np.empty((k_max, fine.size + 1), dtype=np.int32), np.empty(k_max, dtype=np.int32)
    bn.transfo_d_kernel()(z.ravel(), k_max, fine.size, idx.ravel(), counts)
    return [fine.edges[row[:n]] for row, n in zip(idx, counts.tolist(), strict=True)]


def baseline_sets(kind: str, fine: bn.FineBins, k_max: int) -> list[np.ndarray]:
    """The baseline's edges for k = 1..k_max (a baseline may make fewer bins than asked)."""
    if kind == "uniform":
        return [uniform_edges(k) for k in range(1, k_max + 1)]
    if kind == "flat_signal":
        return flat_signal_sets(fine, k_max)
    return transfo_d_sets(fine, k_max)


def baseline(kind: str, fine: bn.FineBins, k: int) -> np.ndarray:
    return baseline_sets(kind, fine, k)[-1]


def unbinned_limit(objective: str, test: Events, curve: BinaryCurve | None = None) -> float | None:
    """The binned objective's limit for infinitely many bins along the test ROC's convex hull: FIP2
    on the hull for the binned FIP; for Asimov, sqrt of the sum over hull segments (None where a
    segment selects signal without background: the limit is infinite)."""
    curve = curve or binary_clf_curve(test.scores, test.is_signal, test.weights)
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
                 k_max: int = bn.K_MAX, fine_bins: int = bn.FINE_BINS, test_curve: BinaryCurve | None = None) -> dict:  # fmt: skip
    """binning.json's content for one pair: per K the optimum chosen on train (edges, train and
    test values, optimism, binding constraints, the test bins' fewest background MC events), the
    baselines' test values, the unbinned limit, the chosen K and its efficiency. `test_curve`:
    the test events' ROC curve if already made (same scores and weights)."""
    fine_bins = min(fine_bins, max(20, train.scores.size // 20))  # ~20 MC events per fine bin at least
    edges = train.fine_edges(fine_bins)
    fine = train.fill(edges)
    limit = unbinned_limit(objective, test, test_curve)
    best = bn.partitions(fine, k_max, objective, constraints)
    base_sets = {kind: baseline_sets(kind, fine, k_max) for kind in BASELINES}
    flat_sets = [e for sets in base_sets.values() for e in sets]
    # every edge set of a split in one `values` call (one pass over the prefix sums)
    test_values, test_fewest = test.values([p.edges for p in best] + flat_sets, objective)
    train_values, train_fewest = train.values(flat_sets, objective)
    values, fewest = test_values[: len(best)], test_fewest[: len(best)]
    by_k = []
    for p, value, n_min, table in zip(best, values, fewest, bn.bin_tables(fine, [p.cuts for p in best]), strict=True):
        by_k.append({"k": p.k, "edges": p.edges.tolist(), "train": p.value, "test": value, "optimism": p.value - value,
                     "efficiency": value / limit if limit else None, "binding": p.binding,
                     "bins": table, "test_min_background_mc_events": n_min})  # fmt: skip
    baselines, at = {}, 0
    for kind, sets in base_sets.items():
        on_test = test_values[len(best) + at : len(best) + at + len(sets)]
        on_train, fewest = train_values[at : at + len(sets)], train_fewest[at : at + len(sets)]
        at += len(sets)
        baselines[kind] = [{"k": k, "bins": int(e.size - 1), "edges": e.tolist(), "test": v_test, "train": v_train,
                            "train_min_background_mc_events": n}
                           for k, e, v_test, v_train, n in zip(range(1, k_max + 1), sets, on_test, on_train, fewest, strict=True)]  # fmt: skip
    chosen = choose(by_k)
    return {"objective": objective, "constraints": constraints.report(), "fine_bins": int(fine.size), "k_max": k_max,
            "chosen_on": "train", "chosen_by": CHOSEN_BY, "evaluated_on": "test", "by_k": by_k, "baselines": baselines,
            "unbinned_limit": limit, "chosen_k": chosen["k"] if chosen else None,
            "efficiency": chosen["efficiency"] if chosen else None, "value": chosen["test"] if chosen else None}  # fmt: skip


def choose(by_k: list[dict], on: str = "train") -> dict | None:
    """The smallest K whose value on the split `on` (the one the edges were chosen on: never the
    test split, whose values are reported at that K) is within CHOSEN_WITHIN of the best there;
    a K without a finite test value is never chosen."""
    finite = [r for r in by_k if r[on] is not None and np.isfinite(r[on]) and r["test"] is not None and np.isfinite(r["test"])]
    if not finite:
        return None
    top = max(r[on] for r in finite)
    return next(r for r in finite if r[on] >= top - CHOSEN_WITHIN * abs(top))
