"""Performance versus an observer variable (puma's VarVsEff) and the sculpting check, as plain data.

An observer is a float branch of the ntuple that the classifier does not see as its output (a
mass, a transverse momentum: `--observe m_mumu,pt_lead`). Every function here takes the test
events' arrays (observer value, score, is-signal flag, the weights the evaluation uses) and
returns numpy arrays and numbers; drawing is in `pnetviz.draw.observerplots`.

- `var_vs_eff`: one global cut on the score at a fixed signal efficiency (WORKING_POINT of the
  test signal, weighted) and, in each bin of the observer, the signal efficiency and the
  background rejection 1/eps_b of that cut, with weighted binomial errors
  var(eps) = (sum_pass w^2 (1 - eps)^2 + sum_fail w^2 eps^2) / W^2 (e (1 - e) / N unweighted) and
  sigma(1/eps_b) = sigma(eps_b) / eps_b^2. Bins: N_BINS equal-count bins of the observer over all
  test events, signal and background together (unweighted quantiles; repeated edges merged),
  an event on the last edge in the last bin.
- `sculpting`: the background's observer distribution, normalised to unit sum, inclusive and for
  the events passing the cuts at SCULPT_TARGETS signal efficiency, in SCULPT_BINS equal bins from
  the 1st to the 99th percentile of the inclusive background (events outside counted in the edge
  bins), and the Jensen-Shannon divergence of each passing shape to the inclusive one with
  base-2 logarithms (0: same shape, 1: disjoint), which equals
  scipy.spatial.distance.jensenshannon(p, q, base=2) ** 2. Negative weights (--weights signed)
  count as 0 in these shapes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WORKING_POINT = 0.7  # signal efficiency of the VarVsEff cut
N_BINS = 8  # VarVsEff bins (quantiles of the observer)
SCULPT_TARGETS = (0.5, 0.7, 0.9)
SCULPT_BINS = 20


@dataclass(frozen=True)
class VarVsEff:
    """Per bin of the observer: edges (n + 1), signal efficiency and background rejection of the
    global cut `threshold` with their errors (NaN where undefined: no event, or no background
    passing), and the events per class in the bin."""

    edges: np.ndarray
    threshold: float
    target: float
    inclusive_eps_s: float
    eps_s: np.ndarray
    eps_s_error: np.ndarray
    eps_b: np.ndarray
    eps_b_error: np.ndarray
    rejection: np.ndarray
    rejection_error: np.ndarray
    n_signal: np.ndarray
    n_background: np.ndarray

    def report(self) -> dict:
        """The report's section: every per-bin array as a list (NaN becomes null in the JSON)."""
        return {"working_point_eps_s": self.target, "threshold": self.threshold, "inclusive_eps_s": self.inclusive_eps_s,
                "bins": "quantiles of the observer over all test events", "edges": self.edges,
                "eps_s": self.eps_s, "eps_s_error": self.eps_s_error, "eps_b": self.eps_b, "eps_b_error": self.eps_b_error,
                "rejection": self.rejection, "rejection_error": self.rejection_error,
                "n_signal": self.n_signal, "n_background": self.n_background}  # fmt: skip


@dataclass(frozen=True)
class Sculpting:
    """The background's normalised observer shapes: inclusive and passing each cut, with the
    Jensen-Shannon divergence (base 2) of each passing shape to the inclusive one."""

    edges: np.ndarray
    inclusive: np.ndarray
    targets: tuple[float, ...]
    thresholds: np.ndarray
    passing: np.ndarray  # (len(targets), bins)
    jsd: np.ndarray  # NaN when no background passes
    n_passing: np.ndarray  # background events passing each cut

    def report(self) -> dict:
        """The report's section: the JSD per target efficiency, and the shapes."""
        return {"bins": f"{len(self.inclusive)} equal bins, 1st to 99th percentile of the background",
                "divergence": "Jensen-Shannon, base 2 (scipy jensenshannon(p, q, base=2) ** 2)",
                "edges": self.edges, "inclusive": self.inclusive,
                "cuts": [{"eps_s": t, "threshold": c, "jsd": j, "background_events_passing": int(n), "shape": p}
                         for t, c, j, n, p in zip(self.targets, self.thresholds, self.jsd, self.n_passing, self.passing,
                                                  strict=True)]}  # fmt: skip


def threshold_at(scores: np.ndarray, weights: np.ndarray, target: float) -> float:
    """The highest cut t with sum(w, signal with s >= t) >= target * sum(w, signal): `scores`
    and `weights` of the signal events. NaN without signal weight."""
    if not scores.size or weights.sum() <= 0:
        return float("nan")
    order = np.argsort(scores, kind="stable")[::-1]
    cumulative = np.cumsum(weights[order])
    reached = cumulative >= target * cumulative[-1] * (1 - 1e-12)  # not monotonic with signed weights
    return float(scores[order][int(np.argmax(reached)) if reached.any() else scores.size - 1])


def quantile_edges(values: np.ndarray, bins: int = N_BINS) -> np.ndarray:
    """Bin edges at equal quantiles of `values`, repeated edges merged (fewer bins for discrete
    observers)."""
    return np.unique(np.quantile(values, np.linspace(0.0, 1.0, bins + 1)))


def bin_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each value: [e_i, e_i+1), the last bin closed, values outside clipped to the end bins."""
    return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(edges) - 2)


def binomial(passed: np.ndarray, weights: np.ndarray, index: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Per bin, the weighted efficiency sum_pass w / sum w and its binomial error (NaN if empty)."""
    total = np.bincount(index, weights, bins)
    passing = np.bincount(index, weights * passed, bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        eff = passing / total
    e = eff[index]
    var = np.bincount(index, weights**2 * np.where(passed, (1 - e) ** 2, e**2), bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.sqrt(var) / np.abs(total)
    empty = total == 0
    eff[empty], err[empty] = np.nan, np.nan
    return eff, err


def var_vs_eff(observer: np.ndarray, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
               target: float = WORKING_POINT, bins: int = N_BINS) -> VarVsEff:  # fmt: skip
    """Signal efficiency and background rejection per bin of `observer` at the global cut that
    keeps `target` of the signal (module docstring)."""
    cut = threshold_at(scores[is_signal], weights[is_signal], target)
    edges = quantile_edges(observer, bins)
    if edges.size < 2:  # one value only: one bin around it
        edges = np.array([edges[0] - 0.5, edges[0] + 0.5]) if edges.size else np.array([0.0, 1.0])
    n = edges.size - 1
    index = bin_index(observer, edges)
    passed = scores >= cut
    s, b = is_signal, ~is_signal
    eps_s, eps_s_err = binomial(passed[s], weights[s], index[s], n)
    eps_b, eps_b_err = binomial(passed[b], weights[b], index[b], n)
    with np.errstate(invalid="ignore", divide="ignore"):
        rejection = np.where(eps_b > 0, 1.0 / eps_b, np.nan)
        rejection_err = np.where(eps_b > 0, eps_b_err / eps_b**2, np.nan)
    total_s = weights[s].sum()
    inclusive = float(weights[s][passed[s]].sum() / total_s) if total_s > 0 else float("nan")
    return VarVsEff(edges, cut, target, inclusive, eps_s, eps_s_err, eps_b, eps_b_err, rejection, rejection_err,
                    np.bincount(index[s], minlength=n), np.bincount(index[b], minlength=n))  # fmt: skip


def shape(values: np.ndarray, weights: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The normalised distribution of `values` in `edges` (outside values in the end bins;
    negative weights as 0); all zeros without positive weight."""
    counts = np.bincount(bin_index(values, edges), np.clip(weights, 0.0, None), edges.size - 1)
    total = counts.sum()
    return counts / total if total > 0 else counts


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> float:
    """The Jensen-Shannon divergence of two distributions with base-2 logarithms (each normalised
    here): 0.5 KL(p || m) + 0.5 KL(q || m), m = (p + q) / 2. NaN if either is empty."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    if p.sum() <= 0 or q.sum() <= 0:
        return float("nan")
    p, q = p / p.sum(), q / q.sum()
    m = 0.5 * (p + q)

    def kl(a: np.ndarray) -> float:
        ok = a > 0
        return float(np.sum(a[ok] * np.log2(a[ok] / m[ok])))

    return max(0.5 * kl(p) + 0.5 * kl(q), 0.0)


def sculpting(observer: np.ndarray, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
              targets: tuple[float, ...] = SCULPT_TARGETS, bins: int = SCULPT_BINS) -> Sculpting:  # fmt: skip
    """The background's observer shape, inclusive and passing each cut (module docstring)."""
    b = ~is_signal
    values, w = observer[b], weights[b]
    lo, hi = (np.percentile(values, [1.0, 99.0]) if values.size else (0.0, 1.0))
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    inclusive = shape(values, w, edges)
    cuts = np.array([threshold_at(scores[is_signal], weights[is_signal], t) for t in targets])
    passing = np.array([shape(values[scores[b] >= c], w[scores[b] >= c], edges) for c in cuts])
    jsd = np.array([jensen_shannon(p, inclusive) for p in passing])
    return Sculpting(edges, inclusive, tuple(targets), cuts, passing, jsd, np.array([(scores[b] >= c).sum() for c in cuts]))
