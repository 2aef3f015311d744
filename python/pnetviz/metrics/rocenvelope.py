"""Lower and upper envelopes of ROC curves in ROC space, exact (no binning): at every background
efficiency the lowest and highest signal efficiency of the curves, left and right limits at vertical
steps, crossings between points as corners (used by the profiled ROC, metrics/profiled.py)."""

from __future__ import annotations

import numpy as np


def envelope(rates: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lowest and highest TPR over the curves at every FPR, each FPR listed twice (left and right
    limits), so vertical steps keep zero area: for one curve this is the curve itself, trapezoidal
    area included. Where two curves cross between points, the crossing is a point of the envelope."""
    env = Envelope()
    for fpr, tpr in rates:
        env.add(fpr, tpr)
    return env.result()


Line = tuple[np.ndarray, np.ndarray, np.ndarray]  # x strictly increasing; the curve's left and right limits at x


def _line(fpr: np.ndarray, tpr: np.ndarray) -> Line:
    """A curve (fpr non-decreasing, a vertical step = several points at one fpr) as a Line."""
    first = np.flatnonzero(np.r_[True, fpr[1:] != fpr[:-1]])
    return fpr[first], tpr[first], tpr[np.r_[first[1:] - 1, fpr.size - 1]]


def _values(line: Line, x: np.ndarray, k: np.ndarray, on: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right limits of `line` at the sorted x; k: how many of its points lie below each x,
    on: x is one of its points (from _merged, no search)."""
    px, left, right = line
    i, j = np.minimum(k, px.size - 1), np.maximum(k - 1, 0)
    span = px[i] - px[j]
    between = right[j] + np.divide(x - px[j], span, out=np.zeros_like(x), where=span > 0) * (left[i] - right[j])
    between[k == 0] = left[0]  # before the first point (beyond the last: right[-1] already)
    return np.where(on, left[i], between), np.where(on, right[i], between)


def _merged(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The sorted union x of two strictly increasing arrays and, for a and for b, how many of its
    values lie below each x and whether x is one of them."""
    both = np.concatenate([a, b])
    order = np.argsort(both, kind="stable")  # two sorted runs: merged in linear time, a's value first at a tie
    xs, from_a = both[order], order < a.size
    first = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    below_a = (np.cumsum(from_a) - from_a)[first]
    on_a = from_a[first]
    on_b = ~on_a | (np.r_[first[1:], xs.size] - first == 2)  # a's value, then b's equal one
    return xs[first], below_a, on_a, first - below_a, on_b


def _lower(a: Line, b: Line) -> Line:
    """The exact pointwise minimum of two Lines, without the points that add nothing: a point of one
    Line where the other is strictly lower on both sides (and straight there) is dropped."""
    x, ka, a_on, kb, b_on = _merged(a[0], b[0])
    al, ar = _values(a, x, ka, a_on)
    bl, br = _values(b, x, kb, b_on)
    keep = ~((~a_on & (al < bl) & (ar < br)) | (~b_on & (bl < al) & (br < ar)))
    d0, d1 = (ar - br)[:-1], (al - bl)[1:]  # a - b just after each point and just before the next
    k = np.flatnonzero(d0 * d1 < 0)  # the Lines cross strictly between x[k] and x[k + 1]
    frac = d0[k] / (d0[k] - d1[k])
    xc = x[k] + frac * (x[k + 1] - x[k])
    yc = ar[k] + frac * (al[k + 1] - ar[k])
    inside = (xc > x[k]) & (xc < x[k + 1])  # a crossing closer to a point than rounding: that point is the corner
    xs = np.concatenate([x[keep], xc[inside]])
    order = np.argsort(xs, kind="stable")
    return (xs[order], np.concatenate([np.minimum(al, bl)[keep], yc[inside]])[order],
            np.concatenate([np.minimum(ar, br)[keep], yc[inside]])[order])  # fmt: skip


def _negated(line: Line) -> Line:
    return line[0], -line[1], -line[2]


class Envelope:
    """Lower and upper envelopes of curves added one at a time (the curves themselves are not kept)."""

    def __init__(self) -> None:
        self.low: Line | None = None
        self.high: Line | None = None

    def add(self, fpr: np.ndarray, tpr: np.ndarray) -> None:
        line = _line(np.asarray(fpr, dtype=np.float64), np.asarray(tpr, dtype=np.float64))
        if self.low is None:
            self.low, self.high = line, line
            return
        self.low = _lower(self.low, line)
        self.high = _negated(_lower(_negated(self.high), _negated(line)))

    def result(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(fpr listed twice, lowest tpr, highest tpr) at the points of either envelope."""
        x, k_low, on_low, k_high, on_high = _merged(self.low[0], self.high[0])
        low = np.stack(_values(self.low, x, k_low, on_low), axis=1).ravel()
        high = np.stack(_values(self.high, x, k_high, on_high), axis=1).ravel()
        return np.repeat(x, 2), low, np.maximum(high, low)  # max: rounding where the two touch between points
