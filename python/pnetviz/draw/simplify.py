"""The points of a drawn line: the exact curve simplified within a tolerance of its frame, and
coordinates as a canvas stores them.

A canvas is a drawing: its lines need no more points than the figure can show, and the ROOT file
keeps the exact curve beside it (draw.plots.stored_graph). `drawn_points` keeps the points of a
line such that the drawn polyline is within DRAW_TOLERANCE of the exact one, measured in fractions
of the frame (x and y each divided by the frame's range, log10 on a log axis): 1e-3 of an 8 cm
frame is 0.08 mm, a tenth of a 2-pixel line on a 600-pixel figure. `canvas_values` rounds the
kept coordinates to single precision (relative 6e-8, far below any pixel), which the file's
compression then stores in fewer bytes.
"""

from __future__ import annotations

import functools

import numpy as np

from pnetviz.io.kernels import kernels

DRAW_TOLERANCE = 1e-3  # distance of a drawn line to the exact curve, in fractions of the frame


@functools.cache
def _kernel():
    """simplify_drawn of macros/simplify.h (compiled once per process)."""
    return kernels().simplify_drawn


def simplify(x: np.ndarray, y: np.ndarray, tolerance: float) -> np.ndarray:
    """Indices (ascending, both ends included) of the points of the line (x, y) to keep so that
    the line through them is within `tolerance` (Euclidean, in the coordinates given) of the line
    through all: Ramer-Douglas-Peucker (macros/simplify.h) on the points metrics.roc.decimate
    keeps at half the tolerance (its bound: each dropped point within that L1 arc length of a kept
    one), each half bounding its own step. Decimating first bounds the work on long curves (about
    4/tolerance points per unit of arc length enter the O(n log n) typical, O(n^2) worst-case
    search). A non-finite point is kept and splits the line (no decimation first then)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if x.size <= 2:
        return np.arange(x.size)
    keep = np.empty(x.size, dtype=np.uint8)
    _kernel()(x, y, x.size, tolerance, keep)  # both steps in one call (decimate's arithmetic in C++)
    return np.flatnonzero(keep)


def frame_fractions(values: np.ndarray, limits: tuple[float, float], log: bool) -> np.ndarray:
    """`values` as fractions of the axis range `limits` (log10 on a log axis; values <= 0 there
    become -inf, kept by `simplify` as breaks, as ROOT does not draw them)."""
    lo, hi = limits
    values = np.asarray(values, dtype=np.float64)
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log10(values / lo) / np.log10(hi / lo)
    return (values - lo) / (hi - lo)


def drawn_points(x: np.ndarray, y: np.ndarray, xlim: tuple[float, float], ylim: tuple[float, float],
                 logx: bool = False, logy: bool = False, tolerance: float = DRAW_TOLERANCE) -> np.ndarray:  # fmt: skip
    """Indices of the points of (x, y) a frame with these limits draws within `tolerance` of its
    size (`simplify` in frame fractions)."""
    return simplify(frame_fractions(x, xlim, logx), frame_fractions(y, ylim, logy), tolerance)


SINGLE_RANGE = (1e-30, 1e30)  # magnitudes rounded to single precision (inside float32's normal range)


def canvas_values(values: np.ndarray) -> np.ndarray:
    """`values` as a canvas stores them (contiguous doubles): rounded to single precision where
    their magnitude is inside SINGLE_RANGE, as they are elsewhere (0, non-finite, extremes)."""
    values = np.asarray(values, dtype=np.float64)
    size = np.abs(values)
    with np.errstate(over="ignore", invalid="ignore"):
        rounded = values.astype(np.float32).astype(np.float64)
    inside = (size > SINGLE_RANGE[0]) & (size < SINGLE_RANGE[1])
    return np.ascontiguousarray(np.where(inside, rounded, values))
