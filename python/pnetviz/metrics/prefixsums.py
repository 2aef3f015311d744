"""Prefix sums of one split's events in score order, at any position, without the n x columns table.

The binning for the fit (metrics.fitbinning.Events) asks for the cumulative sums of a few per-event
columns (signal yield, background yield, background MC event, background w^2, one MC column per
background class) at the positions where bin edges fall in the sorted scores. A full float64 table
costs 8 bytes per event and column (5 columns of 6e6 training events: 240 MB); here only the sorted
events (score, weight and flag as given: 9 bytes per event for float32 inputs) and every STRIDE-th
row of the table are kept, and a row is finished on demand from the checkpoint below it.

Bit for bit the table numpy.cumsum makes: cumsum adds sequentially (row i = row i-1 + event i), so a
checkpoint is the same float64 number, and continuing from it over the same values in the same
order (again with cumsum, which is sequential along its axis; never a pairwise sum) gives the same
row. Padding after a row's last event adds +0.0, which changes no sum (a running sum starts at +0.0
and is never -0.0).
"""

from __future__ import annotations

import numpy as np

STRIDE = 128  # rows between checkpoints: 40 bytes / 128 = 0.3 bytes per event for 5 columns
BLOCK = 1 << 16  # events per pass when the checkpoints are made (a bounded float64 scratch)


class SortedSums:
    """The events of a split in increasing score order and their prefix sums (`rows`).

    scores, is_signal, weights: the split's events; order: their stable increasing-score order;
    scale: (signal, background) factors of the yields; classes: each event's class (background
    MC columns per class present among the background events, increasing), or None."""

    def __init__(self, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, order: np.ndarray,
                 scale: tuple[float, float], classes: np.ndarray | None = None) -> None:  # fmt: skip
        self.scale = scale
        self.x = np.asarray(scores)[order]  # the dtype given: float32 scores stay 4 bytes
        self.sig = np.asarray(is_signal, bool)[order]
        self.w = np.asarray(weights)[order]
        self.cls = None if classes is None else np.asarray(classes)[order]
        self.present = np.empty(0) if self.cls is None else np.unique(self.cls[~self.sig])
        self.n = self.sig.size
        self.width = 4 + self.present.size
        self.checkpoints = self._checkpoints()

    def columns(self, lo: int, hi: int) -> np.ndarray:
        """The per-event columns of events lo..hi-1 (rows), float64, as the full table would sum them."""
        sig, w = self.sig[lo:hi], np.asarray(self.w[lo:hi], float)
        out = np.empty((hi - lo, self.width))
        out[:, 0] = np.where(sig, w * self.scale[0], 0.0)
        background = w * self.scale[1]
        out[:, 1] = np.where(sig, 0.0, background)
        out[:, 2] = (~sig).astype(float)
        out[:, 3] = np.where(sig, 0.0, background**2)
        for j, c in enumerate(self.present):
            out[:, 4 + j] = (~sig & (self.cls[lo:hi] == c)).astype(float)
        return out

    def _checkpoints(self) -> np.ndarray:
        """Rows 0, STRIDE, 2 STRIDE, ... of the prefix table, one pass in blocks."""
        marks = np.arange(0, self.n + 1, STRIDE)
        out = np.zeros((marks.size, self.width))
        carry = np.zeros(self.width)
        for lo in range(0, self.n, BLOCK):
            hi = min(lo + BLOCK, self.n)
            run = np.cumsum(np.vstack([carry, self.columns(lo, hi)]), axis=0)  # row r: prefix row lo + r
            inside = marks[(marks > lo) & (marks <= hi)]
            out[inside // STRIDE] = run[inside - lo]
            carry = run[-1]
        return out

    def rows(self, positions: np.ndarray) -> np.ndarray:
        """Prefix rows at `positions` (0..n; row i: the sums over the first i events in score order)."""
        positions = np.asarray(positions, np.int64)
        wanted, back = np.unique(positions, return_inverse=True)
        base = wanted // STRIDE
        extra = wanted - base * STRIDE  # events after the checkpoint, < STRIDE
        out = self.checkpoints[base].copy()
        todo = np.flatnonzero(extra > 0)
        if todo.size:
            steps = int(extra[todo].max())
            run = np.zeros((todo.size, steps + 1, self.width))
            run[:, 0] = out[todo]
            for i, t in enumerate(todo.tolist()):
                lo = int(base[t]) * STRIDE
                run[i, 1 : 1 + int(extra[t])] = self.columns(lo, lo + int(extra[t]))
            out[todo] = np.cumsum(run, axis=1)[:, -1]
        return out[back.ravel()]

    def positions(self, edges: np.ndarray) -> np.ndarray:
        """np.searchsorted(sorted scores, edges, side='left') as float64 would compare, without a
        float64 copy of float32 scores: for float32 x, x < e exactly when x < the smallest float32 >= e."""
        edges = np.asarray(edges, float)
        if self.x.dtype != np.float32:
            return np.searchsorted(self.x, edges, side="left")
        with np.errstate(over="ignore"):
            near = edges.astype(np.float32)
        up = np.where(near.astype(float) < edges, np.nextafter(near, np.float32(np.inf)), near)
        return np.searchsorted(self.x, up.astype(np.float32), side="left")
