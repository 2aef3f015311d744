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
from pnetviz.io.kernels import kernels


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
    scores = np.asarray(scores)
    scores = np.ascontiguousarray(scores if scores.dtype == np.float32 else scores.astype(np.float64, copy=False))  # compared with the float64 thresholds exactly
    labels = np.ascontiguousarray(np.asarray(is_signal).astype(bool, copy=False)).view(np.uint8)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    ascending = np.ascontiguousarray(ascending, dtype=np.float64)
    bins = np.empty((2, ascending.size + 1))  # signal, background: sum w^2 per bin
    totals = np.empty((2, 2))  # signal, background: sum w, sum w^2
    # per CHUNK events: np.searchsorted(ascending, s, "right"), np.bincount of w^2 per class and np.sum of
    # w and w^2 per class, added to the running sums: one pass in C++ (macros/pair_sums.h), the same sums
    kernel = kernels().curve_bin_sums_f32 if scores.dtype == np.float32 else kernels().curve_bin_sums_f64
    kernel(scores, w, labels, scores.size, ascending, ascending.size, CHUNK, bins.reshape(-1), totals.reshape(-1))
    size = curve.thresholds.size
    return CurveSums(*(ClassSums(_selected(bins[k], size, points), float(totals[k, 0]), float(totals[k, 1])) for k in range(2)))
