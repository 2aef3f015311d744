"""HEP metrics beyond AUC, computed from the exact weighted ROC (`roc.BinaryCurve`).

Conventions: eps_s = TPR (signal efficiency), eps_b = FPR (background efficiency); yields are
weight sums, S = signal_scale * sum(w_signal) and B = sum(w_background), so the prevalence is
pi_s = S / (S + B). References: A. Valassi (seed 003) for FIP1/FIP2/Punzi, seed 002 for the ROC
convex hull and iso-accuracy lines, seed 004 for PR-from-ROC and negative weights.

The ROC hull and the prevalence-aware metrics (FIP, Punzi, Asimov, operating points) are in
metrics.prevalence, re-exported here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics.delong import delong_error
from pnetviz.metrics.prevalence import (  # noqa: F401 - hep.<name> as before the split
    PREVALENCE_LEFT_OUT, PUNZI_SIGMA, Hull, asimov, at_threshold, best_cut, binned_fip, convex_hull, fip2, hull_excess,
    operating_point, optimal_operating_point, precision_from_roc, prevalence_defined, prevalence_metrics,
    prevalence_note,
)
from pnetviz.metrics.roc import BinaryCurve, binary_clf_curve
from pnetviz.io.kernels import kernels
from pnetviz.rootenv import root

REJECTION_EFFICIENCIES = (0.3, 0.5, 0.7, 0.9)
PARTIAL_AUC_FPR = (0.01, 0.1)
WEIGHT_MODES = ("abs", "signed", "drop")


def mode_weights(weights: np.ndarray, mode: str) -> np.ndarray:
    """Weights a metric uses: abs -> |w| (the spec's choice); signed -> w as stored (rates may
    leave [0, 1]); drop -> w for w > 0 and 0 otherwise (zero-weight events are ignored by every
    curve, histogram and matrix, so this equals removing the negative-weight events)."""
    if mode == "abs":
        return np.abs(weights)
    if mode == "signed":
        return np.asarray(weights, dtype=np.float64)
    if mode == "drop":
        return np.where(weights > 0, weights, 0.0)
    raise ValueError(f"unknown weight mode {mode!r}; choose one of {WEIGHT_MODES}")


def background_efficiency_at(curve: BinaryCurve, eps_s: float) -> float:
    """eps_b where the exact curve first reaches signal efficiency eps_s along the threshold sweep
    (linear between points). With signed weights TPR need not be monotone: the first crossing is
    the convention, the same as the C++ bootstrap replicas."""
    tpr, fpr = curve.tpr, curve.fpr
    reached = tpr >= eps_s
    if not reached.any():
        return float(fpr[-1])
    k = int(np.argmax(reached))
    if k == 0:
        return float(fpr[0])
    frac = (eps_s - tpr[k - 1]) / (tpr[k] - tpr[k - 1])
    return float(fpr[k - 1] + frac * (fpr[k] - fpr[k - 1]))


REJECTION_CL = 0.95  # confidence level of the lower limit on a rejection where no background passes
INTERVAL_CL = 0.6827  # central bootstrap interval of a rejection (the +-1 sigma coverage)
REJECTION_LIMIT_RULE = ("where no background event passes (eps_b = 0) the rejection is a lower limit: 1 / the "
                        "one-sided Clopper-Pearson upper limit on eps_b for zero passing events out of the effective "
                        "number of background events N_eff = (sum w)^2 / sum w^2, 1 - (1 - CL)^(1/N_eff), CL = 0.95; "
                        "across folds, eps_b is averaged (zeros included) and the rejection is 1 / mean(eps_b), a "
                        "lower limit from the folds' summed N_eff where that mean is 0")  # fmt: skip


def eps_b_limit(n_eff: float, cl: float = REJECTION_CL) -> float:
    """Upper limit on eps_b at confidence `cl` when none of n_eff (effective) background events
    passes: the one-sided Clopper-Pearson bound 1 - (1 - cl)^(1/n_eff) (about 3.0/n_eff at 95%)."""
    return 1.0 - (1.0 - cl) ** (1.0 / n_eff) if n_eff > 0 else 1.0


def binomial_error(eff, n_eff: float):
    """sqrt(eps (1 - eps) / N_eff): the binomial error of an efficiency (scalar or array, clipped
    to [0, 1]) measured on N_eff (effective) events; infinite without events (unbounded: a band
    covers everything, a report shows it as undefined)."""
    eff = np.clip(np.asarray(eff, float), 0.0, 1.0)
    err = np.sqrt(eff * (1.0 - eff) / n_eff) if n_eff > 0 else np.full(eff.shape, np.inf)
    return float(err) if err.ndim == 0 else err


def ratio_error(eff, pass_w2, fail_w2, total):
    """Error of an efficiency eps = P / (P + F) from weighted sums (first-order propagation of the
    ratio of sums): sqrt((1 - eps)^2 sum_pass w^2 + eps^2 sum_fail w^2) / |sum w|. Equals the
    binomial sqrt(eps (1 - eps) / N) for unit weights, and stays right when the weights correlate with
    passing (the class's N_eff does not). Scalars or arrays; NaN where the total is 0."""
    eff, total = np.asarray(eff, float), np.asarray(total, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(total != 0, np.sqrt((1 - eff) ** 2 * pass_w2 + eff**2 * fail_w2) / np.abs(total), np.nan)
    return float(err) if err.ndim == 0 else err


def rejection_value(eps_b: float, n_eff: float) -> tuple[float, bool]:
    """(1/eps_b, False) where eps_b > 0; (the lower limit 1/eps_b_limit(n_eff), True) where eps_b = 0."""
    if eps_b > 0:
        return 1.0 / eps_b, False
    return 1.0 / eps_b_limit(n_eff), True


def monotone_limits(values: dict[str, float], limits: dict[str, bool]) -> dict[str, float]:
    """Rejections keyed by eps_s ('0.5'): with non-negative weights a rejection is non-increasing in
    eps_s, so a lower limit at eps_s is raised to every measured (not limit) value at a larger eps_s."""
    out = dict(values)
    for e, value in values.items():
        measured = [values[f] for f in values if float(f) > float(e) and not limits[f]]
        if limits[e] and measured:
            out[e] = max(value, *measured)
    return out


def rejection_interval(eps_b: np.ndarray, cl: float = INTERVAL_CL) -> dict:
    """Central `cl` interval of a rejection from bootstrap replicas of eps_b, every replica
    counted (those without passing background too): quantiles of eps_b, then inverted. The
    upper edge is unbounded (None) where the lower eps_b quantile is 0."""
    eps_b = np.asarray(eps_b, float)
    if eps_b.size < 2:
        return {"low": math.nan, "high": math.nan, "unbounded_above": False, "cl": cl, "replicas": int(eps_b.size),
                "replicas_without_background": int(np.sum(eps_b <= 0))}  # fmt: skip
    q_low, q_high = np.quantile(eps_b, [(1 - cl) / 2, (1 + cl) / 2])
    return {"low": 1.0 / q_high if q_high > 0 else math.inf, "high": 1.0 / q_low if q_low > 0 else None,
            "unbounded_above": bool(q_low <= 0), "cl": cl, "replicas": int(eps_b.size),
            "replicas_without_background": int(np.sum(eps_b <= 0))}  # fmt: skip


def rejection_at(curve: BinaryCurve, eps_s: float) -> float:
    """Background rejection 1/eps_b at signal efficiency eps_s (inf when eps_b = 0)."""
    eps_b = background_efficiency_at(curve, eps_s)
    return math.inf if eps_b <= 0 else 1.0 / eps_b


def partial_auc(curve: BinaryCurve, max_fpr: float) -> dict[str, float]:
    """Area under the ROC for FPR in [0, max_fpr]: raw, and McClish-standardised as scikit-learn's
    roc_auc_score(max_fpr=...) (0.5 = random, 1 = perfect). Integrated along the threshold sweep up
    to where FPR first passes max_fpr (signed weights: FPR need not be monotone)."""
    fpr, tpr = curve.fpr, curve.tpr
    beyond = fpr > max_fpr
    stop = int(np.argmax(beyond)) if beyond.any() else fpr.size  # first point past max_fpr along the sweep
    x, y = fpr[:stop], tpr[:stop]
    if stop < fpr.size:  # close the area on the segment that first crosses max_fpr
        frac = (max_fpr - fpr[stop - 1]) / (fpr[stop] - fpr[stop - 1])
        x, y = np.r_[x, max_fpr], np.r_[y, tpr[stop - 1] + frac * (tpr[stop] - tpr[stop - 1])]
    raw = float(np.trapezoid(y, x))
    lo, hi = 0.5 * max_fpr**2, max_fpr
    return {"raw": raw, "mcclish": 0.5 * (1 + (raw - lo) / (hi - lo))}


def effective_events(weights: np.ndarray) -> float:
    """(sum w)^2 / sum w^2: the unweighted sample size with the same relative statistical error."""
    w2 = float(np.sum(np.square(weights)))
    return float(np.sum(weights)) ** 2 / w2 if w2 > 0 else 0.0


MIN_VALID_REPLICAS = 20  # fewer defined replicas than this (or than half of them): the DeLong error instead


@dataclass(frozen=True)
class Bootstrap:
    """Replicas of AUC and eps_b at eps_s = 0.5; a replica without signal or without background
    (possible on tiny samples) is undefined (NaN): dropped from the spreads and counted (`dropped`).
    Where fewer than half of the replicas, or fewer than MIN_VALID_REPLICAS, remain, the AUC error is
    the weighted DeLong error (`delong`, metrics/delong.py) and `auc_error_method` says so."""

    auc: np.ndarray
    eps_b_50: np.ndarray  # eps_b at eps_s = 0.5, per replica (0 where no background passes)
    delong: float = math.nan  # the weighted DeLong error of the sample (computed when the replicas are too few)

    @property
    def valid(self) -> np.ndarray:
        return np.isfinite(self.auc) & np.isfinite(self.eps_b_50)

    @property
    def dropped(self) -> int:
        return int(self.auc.size - np.count_nonzero(self.valid))

    @property
    def enough(self) -> bool:
        n = int(np.count_nonzero(self.valid))
        return n > 1 and 2 * n >= self.auc.size and n >= min(MIN_VALID_REPLICAS, self.auc.size)

    @property
    def auc_error_method(self) -> str:
        return "bootstrap" if self.enough or self.auc.size == 0 else "delong"

    @property
    def auc_error(self) -> float:
        if self.auc.size == 0:
            return math.nan
        return float(np.std(self.auc[self.valid], ddof=1)) if self.enough else self.delong

    @property
    def rejection_50_interval(self) -> dict:
        """The rejection at eps_s = 0.5: central interval over every defined replica (rejection_interval);
        undefined (NaN) where too few are defined."""
        eps_b = self.eps_b_50[self.valid] if self.enough else self.eps_b_50[:0]
        return rejection_interval(eps_b) | {"replicas_dropped": self.dropped}


BINNED_BOOTSTRAP_FROM = 200_000  # events; above, replicas run over ~BOOTSTRAP_CHUNKS chunks
BOOTSTRAP_CHUNKS = 4096  # of at least 64 events each


def bootstrap_chunk_size(n: int, binned: bool | None = None) -> int:
    """Events per chunk of the binned bootstrap for n events; 0 = exact per-event replicas."""
    if binned is None:
        binned = n > BINNED_BOOTSTRAP_FROM
    return max(64, -(-n // BOOTSTRAP_CHUNKS)) if binned else 0


def bootstrap(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, replicas: int = 200,
              seed: int = 20251001, binned: bool | None = None, chunks: np.ndarray | None = None) -> Bootstrap:  # fmt: skip
    """Seeded Poisson bootstrap (weights x Poisson(1) per event) of AUC and rejection at eps_s = 0.5
    (C++ core, one sort). Exact per-event replicas up to BINNED_BOOTSTRAP_FROM events; above (or
    binned=True), per-chunk normal draws with the same mean and variance, O(chunks) per replica.
    `chunks`: the chunk sums a curve already computed from its sort (BinaryCurve.chunks, made
    with min_chunk = bootstrap_chunk_size(n)); then nothing is sorted again, same replicas."""
    if chunks is not None:
        auc, eps_b = np.empty(replicas), np.empty(replicas)
        if replicas > 0:
            ws, vs, wb, vb = (np.ascontiguousarray(row) for row in chunks)
            kernels().bootstrap_chunks(ws, vs, wb, vb, ws.size, replicas, seed, 0.5, auc, eps_b)
        return _bootstrap_result(auc, eps_b, (scores, is_signal, weights))
    scores = np.asarray(scores)
    scores = np.ascontiguousarray(scores if scores.dtype == np.float32 else scores.astype(np.float64))
    labels = np.ascontiguousarray(np.asarray(is_signal) != 0).view(np.uint8)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    auc, eps_b = np.empty(replicas), np.empty(replicas)
    if replicas > 0:
        core = kernels()
        kernel = core.roc_bootstrap_f32 if scores.dtype == np.float32 else core.roc_bootstrap_f64
        chunk = max(1, bootstrap_chunk_size(scores.size, binned))
        kernel(scores, w, labels, scores.size, replicas, seed, 0.5, chunk, auc, eps_b)
    return _bootstrap_result(auc, eps_b, (scores, is_signal, w))


def _bootstrap_result(auc: np.ndarray, eps_b: np.ndarray, sample: tuple) -> Bootstrap:
    """The replicas, with the DeLong error of `sample` (scores, is_signal, weights) where they are too few."""
    boot = Bootstrap(auc=auc, eps_b_50=np.maximum(eps_b, 0.0))
    if boot.auc.size and not boot.enough:
        boot = Bootstrap(boot.auc, boot.eps_b_50, delong_error(*sample))
    return boot


def weighted_ks(a: np.ndarray, wa: np.ndarray, b: np.ndarray, wb: np.ndarray) -> dict[str, float]:
    """Two-sample Kolmogorov-Smirnov test with weights (|w| expected), as TMVA's overtraining check:
    D = max |F_a - F_b| of the weighted ECDFs, p = KolmogorovProb(D sqrt(n_a n_b / (n_a + n_b)))
    with effective event counts n = (sum w)^2 / sum w^2.

    D is computed as max |TPR - FPR| of the exact ROC of sample a against sample b: the ROC's
    points are the pairs of survival functions at every distinct value, so this is the same
    maximum, from one radix sort in the C++ core instead of two argsorts."""
    both = np.result_type(np.asarray(a).dtype, np.asarray(b).dtype)
    scores = np.concatenate([np.asarray(a, dtype=both), np.asarray(b, dtype=both)])
    from_a = np.r_[np.ones(len(a), dtype=bool), np.zeros(len(b), dtype=bool)]
    wa, wb = np.asarray(wa, dtype=float), np.asarray(wb, dtype=float)
    curve = binary_clf_curve(scores, from_a, np.r_[wa, wb])
    d = max(float(np.max(np.abs(tpr - fpr))) for tpr, fpr in curve.rate_chunks())  # no curve-long rate arrays
    return ks_result(d, effective_events(wa), effective_events(wb))


def ks_result(d: float, na: float, nb: float) -> dict[str, float]:
    """weighted_ks's result from the distance D and the effective event counts of the two samples."""
    z = d * math.sqrt(na * nb / (na + nb))
    return {"statistic": d, "p_value": float(root().TMath.KolmogorovProb(z)), "n_eff": [na, nb]}


def curve_flags(curve: BinaryCurve) -> dict[str, bool]:
    """What signed weights can do to a ROC: rates outside [0, 1], a non-monotone curve."""
    outside = any(bool(rate.min() < 0 or rate.max() > 1) for rate in (curve.tpr, curve.fpr))  # finite rates
    non_monotone = any(bool(np.any(c[1:] < c[:-1])) for c in (curve.tps, curve.fps))
    return {"rates_outside_unit_interval": outside, "non_monotone": non_monotone}


def _sorted_auc_parts(scores: np.ndarray, is_signal: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order by decreasing score, the signal flags in that order, and the last index of each tie group."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    ordered = np.asarray(scores, dtype=np.float64)[order]
    ends = np.r_[np.flatnonzero(np.diff(ordered) != 0), ordered.size - 1]
    return order, np.asarray(is_signal, bool)[order], ends


def _auc_from_sorted(weights: np.ndarray, sig: np.ndarray, ends: np.ndarray) -> float:
    tp = np.cumsum(np.where(sig, weights, 0.0))[ends]
    fp = np.cumsum(np.where(sig, 0.0, weights))[ends]
    area = np.sum(np.diff(np.r_[0.0, fp]) * (tp + np.r_[0.0, tp[:-1]]))
    return 0.5 * area / (tp[-1] * fp[-1]) if tp[-1] != 0 and fp[-1] != 0 else math.nan


def paired_bootstrap(scores_a: np.ndarray, scores_b: np.ndarray, is_signal: np.ndarray, weights_a: np.ndarray,
                     weights_b: np.ndarray, replicas: int, seed: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """AUC replicas of two classifiers evaluated on the *same* events (aligned arrays): each
    replica multiplies an event's weight by the same Poisson(1) count in both, so the spread of
    the difference includes their correlation. Each model is sorted once; a replica is O(n)."""
    parts_a, parts_b = _sorted_auc_parts(scores_a, is_signal), _sorted_auc_parts(scores_b, is_signal)
    rng = np.random.default_rng(seed)
    auc_a, auc_b = np.empty(replicas), np.empty(replicas)
    wa, wb = np.asarray(weights_a, float), np.asarray(weights_b, float)
    for r in range(replicas):  # replicas, not events: each is a vectorised pass
        counts = rng.poisson(1.0, wa.size)
        (oa, sa, ea), (ob, sb, eb) = parts_a, parts_b
        auc_a[r] = _auc_from_sorted((wa * counts)[oa], sa, ea)
        auc_b[r] = _auc_from_sorted((wb * counts)[ob], sb, eb)
    return auc_a, auc_b


def auc_weight_modes(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray) -> dict[str, float | None]:
    """AUC under abs, signed and drop weights from one sort (C++); None where a class has no weight."""
    scores = np.asarray(scores)
    scores = np.ascontiguousarray(scores if scores.dtype == np.float32 else scores.astype(np.float64))
    labels = np.ascontiguousarray(np.asarray(is_signal) != 0).view(np.uint8)
    out = np.empty(3)
    core = kernels()
    kernel = core.auc_weight_modes_f32 if scores.dtype == np.float32 else core.auc_weight_modes_f64
    kernel(scores, np.ascontiguousarray(weights, dtype=np.float64), labels, scores.size, out)
    return {mode: (float(v) if np.isfinite(v) else None) for mode, v in zip(("abs", "signed", "drop"), out, strict=True)}
