"""Weighted sums beside an exact ROC: per class, sum w^2 of the events each curve point selects
(s >= threshold), and the class's sum w and sum w^2. They give every efficiency on the curve its
ratio-of-sums error (hep.ratio_error, the working points' error) without keeping the events: a
ratio panel's band reads them at its grid points (metrics.folds.roc_ratio, rejection_ratio).

Memory: one float64 per curve point and class (only the points a grid reads where asked).
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


CHUNK = 1 << 18  # events binned at a time: the transient memory stays ~10 MB whatever the sample's size


def _selected(from_bins: np.ndarray, size: int, points: np.ndarray) -> np.ndarray:
    """Per curve point the sum over the events reaching it, from the per-bin sums (bin r: events
    reaching r of the ascending thresholds), summed from the highest bin down (no cancellation of
    a small selected sum against the total); NaN at the points not asked for."""
    from_top = np.cumsum(from_bins[::-1])[::-1]
    out = np.full(size, np.nan)
    out[points] = from_top[1:][::-1]
    return out


def curve_sums(curve: BinaryCurve, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
               points: np.ndarray | None = None) -> CurveSums:  # fmt: skip
    """The sums of `curve`, made by binary_clf_curve(scores, is_signal, weights) (the same events
    and weights: after the weight mode), at every point of the curve or only at `points` (indices
    of curve points, e.g. those a grid reads: folds.grid_sums), NaN at the others. Each event is
    binned by how many of those thresholds it reaches (one binary search; no sort, no copy of the
    sample: CHUNK events at a time)."""
    points = np.arange(curve.thresholds.size) if points is None else np.unique(np.asarray(points, dtype=np.intp))
    ascending = curve.thresholds[points][::-1]  # the curve's thresholds decrease; selected at ascending[k] iff reached > k
    scores, is_signal, weights = np.asarray(scores), np.asarray(is_signal), np.asarray(weights)
    bins = np.zeros((2, ascending.size + 1))  # signal, background: sum w^2 per bin
    totals = np.zeros((2, 2))  # signal, background: sum w, sum w^2
    for start in range(0, scores.size, CHUNK):
        s = scores[start : start + CHUNK]
        s = s if s.dtype == np.float32 else s.astype(np.float64, copy=False)  # compared with the float64 thresholds exactly
        sig = is_signal[start : start + CHUNK].astype(bool, copy=False)
        w = weights[start : start + CHUNK].astype(np.float64, copy=False)
        reached, w2 = np.searchsorted(ascending, s, side="right"), w**2
        for k, cls in enumerate((sig, ~sig)):
            bins[k] += np.bincount(reached[cls], weights=w2[cls], minlength=ascending.size + 1)
            totals[k] += (np.sum(w[cls]), np.sum(w2[cls]))
    size = curve.thresholds.size
    return CurveSums(*(ClassSums(_selected(bins[k], size, points), float(totals[k, 0]), float(totals[k, 1])) for k in range(2)))
