"""Weighted sums beside an exact ROC: per class, sum w^2 of the events each curve point selects
(s >= threshold), and the class's sum w and sum w^2. They give every efficiency on the curve its
ratio-of-sums error (hep.ratio_error, the working points' error) without keeping the events: a
ratio panel's band reads them at its grid points (metrics.folds.roc_ratio, rejection_ratio).

Memory: one float64 per curve point and class, the size of the curve itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import hep
from pnetviz.metrics.roc import BinaryCurve


@dataclass(frozen=True)
class ClassSums:
    """One class of a curve: `pass_w2[i]` = sum w^2 of the class's events selected at point i of
    the curve (thresholds[i]; 0 at point 0, +inf), `total_w` and `total_w2` over all its events."""

    pass_w2: np.ndarray
    total_w: float
    total_w2: float

    def error(self, eff: np.ndarray, pass_w2: np.ndarray) -> np.ndarray:
        """The ratio-of-sums error of the efficiencies `eff` whose selected events have `pass_w2`."""
        fail_w2 = np.maximum(self.total_w2 - pass_w2, 0.0)  # rounding never makes it negative
        return hep.ratio_error(eff, pass_w2, fail_w2, self.total_w)


@dataclass(frozen=True)
class CurveSums:
    signal: ClassSums
    background: ClassSums


def _class_sums(thresholds: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> ClassSums:
    """sum w^2 of the events with score >= each threshold, summed from the highest score down
    (no cancellation of a small selected sum against the total)."""
    order = np.argsort(scores, kind="stable")
    sorted_scores = scores[order]
    from_top = np.r_[0.0, np.cumsum(weights[order][::-1] ** 2)]  # from_top[k]: the k highest scores
    selected = scores.size - np.searchsorted(sorted_scores, thresholds, side="left")  # events with s >= t
    return ClassSums(from_top[selected], float(np.sum(weights)), float(from_top[-1]))


def curve_sums(curve: BinaryCurve, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray) -> CurveSums:
    """The sums of `curve`, made by binary_clf_curve(scores, is_signal, weights) (the same events
    and weights: after the weight mode)."""
    scores = np.asarray(scores, dtype=np.float64)  # the curve's thresholds are float64 copies of the scores
    is_signal = np.asarray(is_signal, dtype=bool)
    weights = np.asarray(weights, dtype=np.float64)
    return CurveSums(_class_sums(curve.thresholds, scores[is_signal], weights[is_signal]),
                     _class_sums(curve.thresholds, scores[~is_signal], weights[~is_signal]))  # fmt: skip
