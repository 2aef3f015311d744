"""The exact optimal binning of a score for a binned likelihood fit (issue 39).

A K-bin partition of M fine bins of the score that maximises an additive objective under
per-bin constraints, for every K = 1..K_max in one dynamic-programming pass (C++ kernel
`macros/optimal_binning.h`; `optimal_numpy` is the same recursion in numpy, the reference).

Objectives (per bin, summed over bins): `binned_fip`, Valassi eq. 4, s^2 / (s + b) (reported
divided by the total signal, as hep.binned_fip); `asimov`, 2((s+b) ln(1+s/b) - s) (reported as
Z = sqrt of the sum); `asimov_mc`, the Asimov Z^2 with the background MC variance sum w^2.
Constraints per bin: background MC events >= N_min, sqrt(sum w^2) / b <= e_max, b > 0, and
optionally every background class >= its own minimum of MC events (the multi-class guard).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

from pnetviz.io.kernels import kernels

OBJECTIVES = {"binned_fip": 0, "asimov": 1, "asimov_mc": 2}
FINE_BINS = 2000
K_MAX = 20


@dataclass(frozen=True)
class Constraints:
    """Per-bin constraints of the partition (a value <= 0 switches one off)."""

    min_background_events: float = 10.0  # background MC events (unweighted)
    max_relative_error: float = 0.3  # sqrt(sum w^2) / sum w of the background
    min_class_events: float = 0.0  # MC events of every background class (1: the `flatsguarded` guard)

    def report(self) -> dict:
        return {"min_background_events": self.min_background_events, "max_relative_error": self.max_relative_error,
                "min_class_events": self.min_class_events, "background_yield_positive": True}  # fmt: skip

    def relaxed(self, name: str) -> Constraints:
        """The same constraints with `name` switched off."""
        return Constraints(**{**self.__dict__, name: 0.0})


NONE = Constraints(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class FineBins:
    """Per fine bin (increasing score): signal and background yields, background MC events and
    sum w^2, and the MC events of each background class (M x n_classes, or None)."""

    edges: np.ndarray  # M + 1 score values, edges[0] = 0, edges[-1] = 1
    s: np.ndarray
    b: np.ndarray
    nb: np.ndarray
    w2: np.ndarray
    classes: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int(self.s.size)


@dataclass(frozen=True)
class Partition:
    """The optimum with exactly k bins: fine-bin boundaries `cuts`, score `edges`, the objective
    as reported (`value`) and as summed (`total`), and the constraints that bind (relaxing
    each alone gives a higher optimum)."""

    k: int
    cuts: np.ndarray
    edges: np.ndarray
    value: float
    total: float
    binding: list[str] = field(default_factory=list)


def weighted_quantiles(scores: np.ndarray, weights: np.ndarray, n: int, order: np.ndarray | None = None) -> np.ndarray:
    """The n - 1 inner quantiles of the weighted score distribution (|w|). `order`: indices of the
    events to use, in increasing score order (a stable order: equal scores by index), e.g. one
    class's part of its split's one order (`sorted_part`); default all events, sorted here."""
    if order is None:
        order = np.argsort(scores, kind="stable")
    cum = np.abs(np.asarray(weights[order], float))
    np.cumsum(cum, out=cum)
    if cum.size == 0 or cum[-1] <= 0:
        return np.empty(0)
    targets = cum[-1] * np.arange(1, n) / n
    return np.asarray(scores[order[np.minimum(np.searchsorted(cum, targets, side="left"), cum.size - 1)]], float)


def sorted_part(order: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """The events of `order` (a stable increasing-score order of a split) whose flag is set, in that
    order: the stable order of that part's scores alone, without sorting it again."""
    return order[np.asarray(flags, bool)[order]]


def fine_edges(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, m: int = FINE_BINS,
               order: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Fine-bin edges covering [0, 1]: m/2 weighted quantiles of the signal scores and m/2 of the
    background's (so both the signal-rich and the background-rich ends are resolved), unique.
    `order`: the events' stable increasing-score order if known (one sort per split)."""
    sig = np.asarray(is_signal, bool)
    half = max(m // 2, 1)
    if order is None:
        order = np.argsort(scores, kind="stable")
    inner = np.r_[weighted_quantiles(scores, weights, half, sorted_part(order, sig)),
                  weighted_quantiles(scores, weights, half, sorted_part(order, ~sig))]  # fmt: skip
    inner = np.unique(inner[(inner > 0.0) & (inner < 1.0)])
    return np.r_[0.0, inner, 1.0]


def bin_index(edges: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The bin [edges[i], edges[i+1]) of each score; below 0 in the first bin, 1 and above in the last."""
    return np.clip(np.searchsorted(edges, np.asarray(scores, float), side="right") - 1, 0, edges.size - 2)


def fill(edges: np.ndarray, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
         scale: tuple[float, float] = (1.0, 1.0), classes: np.ndarray | None = None) -> FineBins:  # fmt: skip
    """Yields per bin of `edges`: signal and background weights times `scale`; background MC
    events and sum (scale w)^2; `classes` (per event: the background class index, signal events
    ignored) for the per-class counts."""
    m = edges.size - 1
    idx = bin_index(edges, scores)
    sig = np.asarray(is_signal, bool)
    w = np.asarray(weights, float)
    s = np.bincount(idx[sig], weights=w[sig], minlength=m) * scale[0]
    b = np.bincount(idx[~sig], weights=w[~sig], minlength=m) * scale[1]
    nb = np.bincount(idx[~sig], minlength=m).astype(float)
    w2 = np.bincount(idx[~sig], weights=w[~sig] ** 2, minlength=m) * scale[1] ** 2
    per_class = None
    if classes is not None:
        cls = np.asarray(classes)[~sig]
        values = np.unique(cls)
        per_class = np.stack([np.bincount(idx[~sig][cls == c], minlength=m) for c in values], axis=1).astype(float)
    return FineBins(edges=np.asarray(edges, float), s=s, b=b, nb=nb, w2=w2, classes=per_class)


def segment_objective(objective: str, s, b, w2=None):
    """The objective of bins with yields s, b (and background sum w^2 for asimov_mc), numpy."""
    s, b = np.asarray(s, float), np.asarray(b, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if objective == "binned_fip":
            return s * s / (s + b)
        z2 = 2.0 * ((s + b) * np.log1p(s / b) - s)
        if objective == "asimov":
            return z2
        v, n = np.asarray(w2, float), s + b
        # ln(n (b + v) / (b^2 + n v)) as ln(1 + s b / (b^2 + n v)): the same number, without the
        # ratio's rounding (which left the difference of the two terms meaningless at s/b < 1e-8)
        mc = 2.0 * (n * np.log1p(s * b / (b * b + n * v)) - b * b / v * np.log1p(v * s / (b * (b + v))))
        return np.where(v > 0, np.maximum(mc, 0.0), z2)


def report_value(objective: str, total: float, signal: float) -> float:
    """The reported objective: binned FIP = sum / total signal (hep.binned_fip); Z = sqrt(sum Z^2)."""
    if not np.isfinite(total):
        return math.nan
    return total / signal if objective == "binned_fip" else math.sqrt(max(total, 0.0))


@functools.cache
def _kernel():
    return kernels().optimal_binning


@functools.cache
def transfo_d_kernel():
    """macros/optimal_binning.h's transfo_d_cuts (fitbinning.transfo_d_sets)."""
    return kernels().transfo_d_cuts


def _arrays(fine: FineBins) -> tuple:
    """The kernel's inputs: four contiguous float64 vectors and the class counts, flattened
    (one unused entry without classes: cppyy takes no empty buffer), with their number."""
    n_cls = fine.classes.shape[1] if fine.classes is not None else 0
    c = np.ascontiguousarray(fine.classes, dtype=np.float64).ravel() if n_cls else np.zeros(1)
    return (*(np.ascontiguousarray(a, dtype=np.float64) for a in (fine.s, fine.b, fine.nb, fine.w2)), c, n_cls)


def optimal_cuts(fine: FineBins, k_max: int = K_MAX, objective: str = "binned_fip",
                 constraints: Constraints = Constraints()) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The C++ dynamic programme: (totals[k-1], cuts[k-1, 0..k]) for k = 1..k_max; -inf and -1
    where no allowed partition into k bins exists."""
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown binning objective {objective!r}; choose one of {tuple(OBJECTIVES)}")
    s, b, nb, w2, c, n_cls = _arrays(fine)
    totals = np.empty(k_max)
    cuts = np.empty((k_max, k_max + 1), dtype=np.int32)
    status = _kernel()(s, b, nb, w2, c, n_cls, fine.size, k_max, OBJECTIVES[objective],
                       constraints.min_background_events, constraints.max_relative_error, constraints.min_class_events,
                       totals, cuts.ravel())  # fmt: skip
    if status != 0:
        raise ValueError(f"optimal_binning: invalid sizes (M = {fine.size}, K_max = {k_max})")
    return totals, cuts


def allowed(fine: FineBins, lo: int, hi: int, constraints: Constraints) -> bool:
    """Whether the fine bins lo..hi-1 merged meet `constraints`."""
    b, nb, v, s = fine.b[lo:hi].sum(), fine.nb[lo:hi].sum(), fine.w2[lo:hi].sum(), fine.s[lo:hi].sum()
    ok = b > 0 and s + b > 0 and nb >= constraints.min_background_events
    if constraints.max_relative_error > 0:
        ok = ok and v <= (constraints.max_relative_error * b) ** 2
    if fine.classes is not None and fine.classes.shape[1]:
        ok = ok and bool(np.all(fine.classes[lo:hi].sum(axis=0) >= constraints.min_class_events))
    return bool(ok)


def optimal_numpy(fine: FineBins, k_max: int = K_MAX, objective: str = "binned_fip",
                  constraints: Constraints = Constraints()) -> np.ndarray:  # fmt: skip
    """Reference: the same recursion with one numpy vector per end bin j (totals only)."""
    S, B, N, V = (np.r_[0.0, np.cumsum(a)] for a in (fine.s, fine.b, fine.nb, fine.w2))
    C = np.vstack([np.zeros((1, fine.classes.shape[1])), np.cumsum(fine.classes, axis=0)]) if fine.classes is not None else None
    m = fine.size
    best = np.full((k_max + 1, m + 1), -np.inf)
    best[0, 0] = 0.0
    for j in range(1, m + 1):
        s, b, v = S[j] - S[:j], B[j] - B[:j], V[j] - V[:j]
        ok = (b > 0) & (s + b > 0) & (N[j] - N[:j] >= constraints.min_background_events)
        if constraints.max_relative_error > 0:
            ok &= v <= (constraints.max_relative_error * b) ** 2
        if C is not None and C.shape[1]:
            ok &= np.all(C[j] - C[:j] >= constraints.min_class_events, axis=1)
        f = np.where(ok, segment_objective(objective, s, b, v), -np.inf)
        best[1:, j] = np.max(best[:-1, :j] + f, axis=1)
    return best[1:, m]


def partitions(fine: FineBins, k_max: int = K_MAX, objective: str = "binned_fip",
               constraints: Constraints = Constraints()) -> list[Partition]:  # fmt: skip
    """Every feasible optimum for k = 1..k_max, with the constraints that bind at each k."""
    totals, cuts = optimal_cuts(fine, k_max, objective, constraints)
    active = [name for name, v in constraints.__dict__.items() if v > 0 and (name != "min_class_events" or fine.classes is not None)]
    relaxed = {name: optimal_cuts(fine, k_max, objective, constraints.relaxed(name))[0] for name in active}
    signal = float(fine.s.sum())
    out = []
    for k in range(1, k_max + 1):
        total = float(totals[k - 1])
        if not np.isfinite(total):
            continue
        cut = cuts[k - 1, : k + 1].astype(np.int64)
        binding = [n for n, t in relaxed.items() if t[k - 1] > total * (1 + 1e-9) + 1e-300]
        out.append(Partition(k, cut, fine.edges[cut], report_value(objective, total, signal), total, binding))
    return out


def prefix_sums(fine: FineBins) -> np.ndarray:
    """Rows 0..M: the sums of s, b, nb, w2 over the first j fine bins (for `bin_table`)."""
    out = np.zeros((fine.size + 1, 4))
    np.cumsum(np.column_stack([fine.s, fine.b, fine.nb, fine.w2]), axis=0, out=out[1:])
    return out


def bin_table(fine: FineBins, cuts: np.ndarray, prefix: np.ndarray | None = None) -> dict[str, list[float]]:
    """Per bin of a partition: yields, background MC events and relative MC error (`prefix`:
    `prefix_sums(fine)`, if already made)."""
    prefix = prefix_sums(fine) if prefix is None else prefix
    s, b, nb, w2 = (prefix[cuts[1:]] - prefix[cuts[:-1]]).T
    rel = np.divide(np.sqrt(np.maximum(w2, 0.0)), b, out=np.full_like(b, np.inf), where=b > 0)
    return {"signal": s.tolist(), "background": b.tolist(), "background_mc_events": nb.tolist(),
            "background_relative_error": rel.tolist()}  # fmt: skip


def bin_tables(fine: FineBins, cuts: list[np.ndarray], prefix: np.ndarray | None = None) -> list[dict[str, list[float]]]:
    """`bin_table` of each partition of `cuts`, the same numbers, computed for all at once."""
    if not cuts:
        return []
    prefix = prefix_sums(fine) if prefix is None else prefix
    s, b, nb, w2 = (prefix[np.concatenate([c[1:] for c in cuts])] - prefix[np.concatenate([c[:-1] for c in cuts])]).T
    rel = np.divide(np.sqrt(np.maximum(w2, 0.0)), b, out=np.full_like(b, np.inf), where=b > 0)
    columns = [v.tolist() for v in (s, b, nb, rel)]
    tables, at = [], 0
    for c in cuts:
        end = at + c.size - 1
        tables.append({"signal": columns[0][at:end], "background": columns[1][at:end], "background_mc_events": columns[2][at:end],
                       "background_relative_error": columns[3][at:end]})  # fmt: skip
        at = end
    return tables
