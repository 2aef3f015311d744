"""Probability diagnostics of a classifier: reliability (calibration) in weighted bins, and the
one-vs-one (pairwise) AUC matrix of a multi-class model.

Reliability: the events are binned in the predicted probability p of a class (CALIBRATION_BINS
equal bins of [0, 1]; p <= 0 in the first, p >= 1 in the last, as the score histograms). Per bin,
with weights w (after the weight mode), W = sum w, P = sum w of the events of the class:
the weighted mean predicted probability sum(w p) / W, the observed fraction f = P / W and its
error from the sums of squared weights,
    sigma_f^2 = ((1 - f)^2 sum_{class} w^2 + f^2 sum_{others} w^2) / W^2
(first-order propagation of f = P / (P + N)). A perfectly calibrated model has f = p (the
diagonal). The weights are the training weights, so the fractions are those of the weighted
sample (its class balance), not of data.

Pairwise AUC (weaver-core's one-vs-one matrix): entry (i, j), i != j, is the weighted AUC of
class i (positive) against class j on the events of those two classes only, with the score
P_i / (P_i + P_j + 1e-10); the diagonal is undefined (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import hep
from pnetviz.metrics.evaluate import CALIBRATION_BINS, lr_score
from pnetviz.metrics.pairsweeps import class_bin_sums
from pnetviz.metrics.roc import SingleClassError, binary_clf_curve


@dataclass(frozen=True)
class Reliability:
    """Per bin of predicted probability (NaN where a bin has no weight)."""

    edges: np.ndarray  # CALIBRATION_BINS + 1
    mean_predicted: np.ndarray  # weighted mean of p
    fraction: np.ndarray  # weighted fraction of the class
    fraction_error: np.ndarray  # from sum w^2
    sum_weights: np.ndarray
    events: np.ndarray  # events with non-zero weight

    @property
    def filled(self) -> np.ndarray:
        return self.sum_weights != 0

    @property
    def expected_calibration_error(self) -> float:
        """sum_bins W_b |f_b - p_b| / sum W_b over the filled bins."""
        ok = self.filled
        total = float(np.sum(self.sum_weights[ok]))
        if total == 0:
            return math.nan
        return float(np.sum(self.sum_weights[ok] * np.abs(self.fraction[ok] - self.mean_predicted[ok])) / total)

    def report(self) -> dict:
        return {"edges": self.edges, "mean_predicted": self.mean_predicted, "fraction": self.fraction,
                "fraction_error": self.fraction_error, "sum_weights": self.sum_weights, "events": self.events,
                "expected_calibration_error": self.expected_calibration_error}  # fmt: skip


def reliability(probability: np.ndarray, is_class: np.ndarray, weights: np.ndarray,
                bins: int = CALIBRATION_BINS) -> Reliability:  # fmt: skip
    """Reliability of `probability` (predicted P(class)) against the truth `is_class` (see module)."""
    return reliability_from_sums(reliability_sums(probability, is_class, weights, bins))


def reliability_sums(probability: np.ndarray, is_class: np.ndarray, weights: np.ndarray,
                     bins: int = CALIBRATION_BINS) -> np.ndarray:  # fmt: skip
    """Per bin (rows): sum w, sum w of the class, sum w^2 of the class, sum w^2 of the others,
    sum w p, events with w != 0 (each in event order, np.bincount's sums over equal_bins(p, bins);
    evaluate.split_tables sums the same): one pass in C++ (pairsweeps.class_bin_sums)."""
    W, P, _, w2_pos, w2_neg, wp, events = class_bin_sums(probability, weights, np.asarray(is_class, dtype=bool), bins)
    return np.array([W, P, w2_pos, w2_neg, wp, events])


def reliability_from_sums(sums: np.ndarray) -> Reliability:
    """The Reliability of reliability_sums' table (one column a bin)."""
    W, P, w2_pos, w2_neg, wp, events = np.asarray(sums, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(W != 0, P / W, np.nan)
        mean = np.where(W != 0, wp / W, np.nan)
    err = hep.ratio_error(f, w2_pos, w2_neg, W)
    return Reliability(np.linspace(0.0, 1.0, W.size + 1), mean, f, err, W, events.astype(np.int64))


PREVALENCE_TOLERANCE = 0.01  # class fractions of the splits differing by more than this (absolute) are stated


def prevalence_note(per_split: Mapping[str, Reliability]) -> str | None:
    """Where the class's weighted fraction differs between the splits (class-dependent split
    fractions), the sentence saying that the curves differ by that prevalence change alone (the
    fractions are the weighted sample's); None where the splits agree."""
    share = {s: float(np.nansum(r.fraction * r.sum_weights) / np.sum(r.sum_weights)) for s, r in per_split.items()
             if np.sum(r.sum_weights) != 0}  # fmt: skip
    if len(share) < 2 or max(share.values()) - min(share.values()) <= PREVALENCE_TOLERANCE:
        return None
    return ("the class's weighted fraction differs between the splits (" + ", ".join(f"{s} {v:.3f}" for s, v in share.items())
            + "): the split curves differ by this prevalence change alone, even for the same model and calibration")


def pairwise_auc(scores: Sequence[np.ndarray], label: np.ndarray, weights: np.ndarray,
                 known: Mapping[tuple[int, int], float] | None = None) -> np.ndarray:  # fmt: skip
    """k x k matrix: (i, j) = AUC of class i vs class j on their events, score P_i / (P_i + P_j + 1e-10),
    class i positive, `weights` as given (|w| by default upstream); NaN on the diagonal and where
    a class has no weight. `scores[k]`: P(class k) of every event; `label`: the true class.
    `known`: cells already computed on these events and weights (a multi-class job's
    signal-vs-background curves), taken as they are."""
    k = len(scores)
    label = np.asarray(label)
    out = np.full((k, k), np.nan)
    masks = [label == c for c in range(k)]
    for i in range(k):
        for j in range(k):  # k(k-1) curves over a handful of classes, each vectorised over events
            if i == j:
                continue
            if known and (i, j) in known:
                out[i, j] = known[i, j]
                continue
            events = np.flatnonzero(masks[i] | masks[j])
            positive = masks[i][events]
            w = np.asarray(weights, dtype=np.float64)[events]
            try:
                out[i, j] = binary_clf_curve(lr_score(scores[i][events], scores[j][events]), positive, w).auc
            except SingleClassError:  # a class without events or weight in this split: undefined
                continue
    return out
