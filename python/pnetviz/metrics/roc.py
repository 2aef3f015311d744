"""Exact weighted ROC and precision-recall curves over the C++ core in `macros/weighted_roc.h`.

Conventions (throughout pnetviz):
  * signal is the positive class; an event is selected when ``score >= threshold``;
  * events with equal scores form a single curve point; zero-weight events are ignored;
  * cumulative weights are float64; the AUC is the trapezoidal area of the exact curve, which
    equals the weighted Mann-Whitney statistic with ties counted 1/2.

`binary_clf_curve` is the one private-ish core; every public curve is derived from it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.kernels import kernels


class SingleClassError(InputError):
    """The ROC is undefined: one of the two classes has no events or zero total weight."""


@dataclass(frozen=True)
class BinaryCurve:
    """Cumulative selected weights at each distinct threshold, thresholds decreasing.

    Point 0 is (0, 0) at threshold +inf; the last point selects every event. `auc` is the
    trapezoidal area of the exact curve (computed in the same pass as the curve). The thresholds
    are float32 where the scores are (the score values themselves: a cut s >= t selects the same
    events), so a curve holds 20 bytes per point of float32 scores (24 of float64), and 16 more
    while its rates are kept (`tpr`, `fpr`; `release_rates`).
    """

    thresholds: np.ndarray
    tps: np.ndarray  # selected signal weight
    fps: np.ndarray  # selected background weight
    auc: float
    chunks: np.ndarray | None = None  # binned-bootstrap chunk sums from the same sort (4 x chunks), if asked

    @property
    def total_signal(self) -> float:
        return float(self.tps[-1])

    @property
    def total_background(self) -> float:
        return float(self.fps[-1])

    @property
    def tpr(self) -> np.ndarray:
        """Signal efficiency eps_s (kept after the first use until `release_rates`)."""
        return self._rate("tpr", self.tps)

    @property
    def fpr(self) -> np.ndarray:
        """Background efficiency eps_b (kept after the first use until `release_rates`)."""
        return self._rate("fpr", self.fps)

    def _rate(self, name: str, cumulative: np.ndarray) -> np.ndarray:
        cache = self.__dict__  # frozen: the rates and the monotone flags are a cache, not fields
        if name in cache:
            return cache[name]
        rate = _rates(cumulative, float(cumulative[-1]), self._monotone(name, cumulative))
        if not cache.get("rates_released"):
            cache[name] = rate
        return rate

    def _monotone(self, name: str, cumulative: np.ndarray) -> bool:
        """Whether the rate's cumulative weights never decrease (non-negative steps: only rounding
        can leave [0, 1], and the rate is clipped to it); checked once per curve."""
        key = "monotone_" + name
        if key not in self.__dict__:
            self.__dict__[key] = non_decreasing(cumulative)
        return self.__dict__[key]

    def release_rates(self) -> None:
        """Free the kept rates (16 bytes per point) and compute them at each later use instead (the
        same values): for a job's last phases, whose few uses do not pay for holding them."""
        self.__dict__.pop("tpr", None)
        self.__dict__.pop("fpr", None)
        self.__dict__["rates_released"] = True

    def keep_rates(self) -> None:
        """Keep the rates again from their next use (after the phases that released them)."""
        self.__dict__.pop("rates_released", None)

    def rate_chunks(self, size: int = 1 << 18):
        """(tpr, fpr) a chunk of points at a time, the same values as the arrays (for a reduction
        over the curve without its two rate arrays)."""
        monotone = (self._monotone("tpr", self.tps), self._monotone("fpr", self.fps))
        totals = (float(self.tps[-1]), float(self.fps[-1]))
        for start in range(0, self.tps.size, size):
            out = []
            for cumulative, total, clip in zip((self.tps, self.fps), totals, monotone):
                out.append(_rates(cumulative[start : start + size], total, clip))
            yield out[0], out[1]

    def rates_at(self, k: int) -> tuple[float, float]:
        """(tpr[k], fpr[k]), the same values, without the rate arrays."""
        out = []
        for name, cumulative in (("tpr", self.tps), ("fpr", self.fps)):
            if name in self.__dict__:
                out.append(float(self.__dict__[name][k]))
                continue
            rate = float(cumulative[k] / cumulative[-1])
            out.append(min(max(rate, 0.0), 1.0) if self._monotone(name, cumulative) else rate)
        return out[0], out[1]

    def rate_values(self, name: str, index: np.ndarray) -> np.ndarray:
        """self.tpr[index] (name "tpr") or self.fpr[index], the same values, without the rate array
        where it is not held (the division and clip at those points only)."""
        if name in self.__dict__:
            return self.__dict__[name][index]
        cumulative = self.tps if name == "tpr" else self.fps
        rate = cumulative[index] / float(cumulative[-1])
        return np.clip(rate, 0.0, 1.0, out=rate) if self._monotone(name, cumulative) else rate

    def search_rate(self, name: str, values: np.ndarray, side: str) -> np.ndarray:
        """np.searchsorted(self.tpr or self.fpr, values, side): where the rate is not held and never
        decreases (the usual curve), a bisection reading the rate at its probes only (the answer is
        unique on a sorted array); else numpy's search of the rate array."""
        values = np.asarray(values, float)
        cumulative = self.tps if name == "tpr" else self.fps
        if name in self.__dict__ or not self._monotone(name, cumulative) or np.isnan(values).any():
            return np.searchsorted(getattr(self, name), values, side=side)
        lo, hi = np.zeros(values.shape, np.intp), np.full(values.shape, cumulative.size, np.intp)
        while True:
            active = lo < hi
            if not active.any():
                return lo
            mid = (lo + hi) // 2
            rate = self.rate_values(name, np.minimum(mid, cumulative.size - 1))
            below = (rate < values) if side == "left" else (rate <= values)
            lo = np.where(active & below, mid + 1, lo)
            hi = np.where(active & ~below, mid, hi)

    def point_at(self, threshold: float) -> int:
        """The last point whose threshold is >= `threshold` (the point of the cut s >= threshold),
        by bisection with float64 comparisons: exact whatever the thresholds' dtype, no temporaries.
        The same as searchsorted(-thresholds, -threshold, side="right") - 1 in float64."""
        t, x = self.thresholds, float(threshold)
        lo, hi = 0, t.size
        if x != x:  # NaN: sorted after every threshold
            return hi - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if float(t[mid]) >= x:
                lo = mid + 1
            else:
                hi = mid
        return lo - 1


def _rates(cumulative: np.ndarray, total: float, clip: bool) -> np.ndarray:
    """cumulative / total, np.clip'ed to [0, 1] if `clip`: the same values from one C++ pass
    (macros/event_sums.h rates) instead of numpy's division and clip."""
    c = np.ascontiguousarray(cumulative, dtype=np.float64)
    out = np.empty(c.size)
    kernels().rates(c, c.size, float(total), int(bool(clip)), out)
    return out


def non_decreasing(values: np.ndarray) -> bool:
    """np.all(np.diff(values) >= 0) for finite values (a - b >= 0 iff a >= b), with one boolean
    temporary instead of the float64 difference array."""
    return bool(np.all(values[1:] >= values[:-1]))


def binary_clf_curve(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray | None = None,
                     min_chunk: int = 0) -> BinaryCurve:  # fmt: skip
    """Exact weighted ROC ingredients of a binary problem.

    scores: float32 or float64 (float32 keeps its own precision, others are cast to float64);
    is_signal: boolean-like (nonzero = signal); weights: event weights (default 1), as given.
    min_chunk > 0 also returns, from the same sort, the chunk sums of the binned bootstrap
    (rows: signal sum w, sum w^2, background sum w, sum w^2; see hep.bootstrap).
    Raises SingleClassError, naming the missing class, when signal or background weight is 0.
    """
    scores = np.asarray(scores)
    if scores.dtype != np.float32:
        scores = scores.astype(np.float64, copy=False)
    scores = np.ascontiguousarray(scores)
    labels = _as_uint8_labels(is_signal)
    n = scores.size
    w = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    if labels.size != n or w.size != n:
        raise ValueError(f"scores ({n}), labels ({labels.size}) and weights ({w.size}) differ in length")
    n_signal = int(np.count_nonzero(labels))
    for name, count in (("signal", n_signal), ("background", n - n_signal)):
        if count == 0:
            raise SingleClassError(f"ROC undefined: there are no {name} events")
    tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
    core = kernels()
    chunks = None
    if min_chunk > 0:
        chunks, n_chunks = np.empty((4, n // min_chunk + 1)), np.zeros(1, dtype=np.uint64)
        kernel = core.roc_curve_chunks_f32 if scores.dtype == np.float32 else core.roc_curve_chunks_f64
        m = int(kernel(scores, w, labels, n, tps, fps, thr, auc, min_chunk, chunks, n_chunks))
        chunks = np.ascontiguousarray(chunks[:, : int(n_chunks[0])])
    else:
        kernel = core.roc_curve_f32 if scores.dtype == np.float32 else core.roc_curve_f64
        m = int(kernel(scores, w, labels, n, tps, fps, thr, auc))
    for name, total in (("signal", tps[m - 1]), ("background", fps[m - 1])):
        if total == 0:
            raise SingleClassError(f"ROC undefined: the {name} events have zero total weight")
    thresholds = thr[:m].astype(np.float32) if scores.dtype == np.float32 else _shrink(thr, m)  # exact: score values
    del thr
    return BinaryCurve(thresholds=thresholds, tps=_shrink(tps, m), fps=_shrink(fps, m), auc=float(auc[0]), chunks=chunks)


def _as_uint8_labels(is_signal: np.ndarray) -> np.ndarray:
    labels = np.asarray(is_signal)
    if labels.dtype == np.bool_:
        return np.ascontiguousarray(labels).view(np.uint8)
    return (labels != 0).view(np.uint8)


def _shrink(buffer: np.ndarray, m: int) -> np.ndarray:
    """The first m entries; copied only when that frees most of the buffer."""
    return buffer[:m].copy() if 4 * m < buffer.size else buffer[:m]


def roc_auc(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Weighted AUC (signal positive) from the exact curve."""
    return binary_clf_curve(scores, is_signal, weights).auc


@dataclass(frozen=True)
class PrecisionRecall:
    """Weighted precision-recall curve in scikit-learn's layout (>= 1.9, no truncation).

    Thresholds increase, recall decreases; a final point (recall 0, precision 1) is appended.
    """

    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray

    @property
    def average_precision(self) -> float:
        """AP = sum_n (R_n - R_{n-1}) P_n (step-wise, no interpolation), as scikit-learn."""
        return float(-np.sum(np.diff(self.recall) * self.precision[:-1]))


def _precision(curve: BinaryCurve) -> np.ndarray:
    """Selected signal / selected weight at every point after the first (0 where nothing is selected)."""
    out = np.empty(curve.tps.size - 1)  # np.divide(tps, tps + fps, where != 0, else 0) in one pass (C++)
    kernels().precision(np.ascontiguousarray(curve.tps), np.ascontiguousarray(curve.fps), curve.tps.size, out)
    return out


def precision_recall(curve: BinaryCurve) -> PrecisionRecall:
    """Precision-recall curve derived from the ROC ingredients (signal positive): the values of
    `_precision` and tps / total, reversed, written in place into their two arrays (16 bytes a
    point; the thresholds a reversed view of the curve's)."""
    m = curve.tps.size
    precision, recall = np.empty(m), np.empty(m)  # numpy's divisions of the reversed views, in one C++ pass (event_sums.h)
    kernels().precision_recall(np.ascontiguousarray(curve.tps), np.ascontiguousarray(curve.fps), m, curve.total_signal,
                               precision, recall)  # fmt: skip
    return PrecisionRecall(precision=precision, recall=recall, thresholds=curve.thresholds[:0:-1])


def average_precision(curve: BinaryCurve) -> float:
    """AP of `precision_recall(curve)` without building the curve: sum over points of
    (R_n - R_{n-1}) P_n, with P = 0 where nothing is selected (as scikit-learn)."""
    return float(np.dot(np.diff(curve.tps), _precision(curve)) / curve.total_signal)


VERTEX_CHUNK = 1 << 18  # points per pass of `vertices`: its boolean temporaries stay ~2 MB at any length


def vertices(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of a polyline's points that are not inside an axis-parallel straight run: a point
    whose two neighbours have its y (its x) and which lies between them in x (in y) is on the
    segment joining them, so the polyline through the other points is the same line, point for
    point (linear interpolation and the trapezoidal area unchanged). A weighted ROC or rejection
    curve is a staircase of such runs (events of one class in a row): ~80% of its points go.
    Both ends are kept, and any point next to a NaN (NaN equals nothing)."""
    n = len(x)
    if n <= 2:
        return np.arange(n)
    keep = np.empty(n, dtype=np.uint8)  # one pass in C++ (macros/pair_sums.h), compared as float64
    kernels().vertices_mask(np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64), n, keep)
    return np.flatnonzero(keep)


def decimate(x: np.ndarray, y: np.ndarray, step: float = 1e-3) -> np.ndarray:
    """Indices of a monotone curve's points to keep for plotting.

    A point is kept each time the L1 arc length crosses a multiple of `step`, together with the
    point before any single jump longer than step/2, and both end points. Every dropped point
    lies inside the bounding box of its neighbouring kept segment, so the distance of the exact
    curve to the drawn one is below `step`; the count is about 2/step for a ROC.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if x.size <= 2:
        return np.arange(x.size)
    mark = np.empty(x.size, dtype=np.uint8)
    _decimate_kernel()(x, y, x.size, step, mark)  # macros/simplify.h, also the first step of draw.simplify
    return np.flatnonzero(mark)


@functools.cache
def _decimate_kernel():
    """decimate_mask of macros/simplify.h (compiled once per process)."""
    return kernels().decimate_mask
