"""Prefix sums of one split's events in score order, at any edge, from one sorted run per class.

The binning for the fit (metrics.fitbinning.Events) asks for the cumulative sums of a few per-event
columns (signal yield, background yield, background MC events, background w^2, MC events per
background class) below bin edges, and for the weighted quantiles of each class's scores (the fine
bins). Every column is one class's: the sums below an edge are the sums over that class's events
below it. So each class's events are kept sorted by increasing score (stable: equal scores in input
order), as the ROC kernel sorts them (macros/sorted_runs.h: its radix sort, one run per class, no
argsort, no per-event table): scores and weights in the dtypes given (8 bytes per event for
float32 inputs; no flags: the run is the class).

Bit for bit the table numpy.cumsum made over the stable argsort: a class's column summed the same
values in the same order, the other class's events adding +0.0 (which changes no running sum that
starts at +0.0), and the kernel adds them one after the other from +0.0 (run_sums).
"""

from __future__ import annotations

import functools

import numpy as np

from pnetviz.io.kernels import kernels

BACKGROUND, SIGNAL = 0, 1


def _dtype(values: np.ndarray) -> np.ndarray:
    """float32 kept (4 bytes), anything else as float64."""
    values = np.asarray(values)
    return np.ascontiguousarray(values, dtype=np.float32 if values.dtype == np.float32 else np.float64)


def _code(values: np.ndarray) -> str:
    return "32" if values.dtype == np.float32 else "64"


def class_runs(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, with_index: bool = False) -> list[tuple]:
    """Per class (BACKGROUND, SIGNAL): its scores, weights and (with_index) input indices, else None,
    by increasing score, stable."""
    x, w = _dtype(scores), _dtype(weights)
    sig = np.ascontiguousarray(np.asarray(is_signal, bool)).view(np.uint8)
    n = x.size
    if sig.size != n or w.size != n:
        raise ValueError(f"scores ({n}), flags ({sig.size}) and weights ({w.size}) differ in length")
    n_sig = int(np.count_nonzero(sig))
    sizes = (n - n_sig, n_sig)
    # at least one entry each: cling's binding takes no empty array for a pointer
    runs = [(np.empty(max(size, 1), x.dtype), np.empty(max(size, 1), w.dtype),
             np.empty(max(size, 1) if with_index else 1, np.uint32)) for size in sizes]  # fmt: skip
    if n:
        kernel = getattr(kernels(), f"class_runs_f{_code(x)}_w{_code(w)}")
        kernel(x, w, sig, n, *runs[SIGNAL], *runs[BACKGROUND], int(with_index))
    return [(x[:size], w[:size], i[:size] if with_index else None) for (x, w, i), size in zip(runs, sizes, strict=True)]


def run_quantiles(x: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """metrics.binning.weighted_quantiles (|w|) of one run: the k - 1 inner quantiles' scores (float64)."""
    if w.size == 0 or k < 2:
        return np.empty(0)
    at = np.empty(k - 1, np.int64)
    m = int(getattr(kernels(), f"run_quantiles_w{_code(w)}")(w, w.size, k, at))
    return np.asarray(x[at[:m]], float)


class SortedSums:
    """The events of a split in increasing score order, one run per class, and their prefix sums (`rows`).

    scores, is_signal, weights: the split's events; scale: (signal, background) factors of the
    yields; classes: each event's class (background MC columns per class present among the
    background events, increasing), or None."""

    def __init__(self, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
                 scale: tuple[float, float], classes: np.ndarray | None = None) -> None:  # fmt: skip
        self.scale = scale
        runs = class_runs(scores, is_signal, weights, with_index=classes is not None)
        self.x = [x for x, _, _ in runs]
        self.w = [w for _, w, _ in runs]
        self.n = np.array([x.size for x in self.x], np.int64)  # (background, signal)
        self.present = np.empty(0, np.int64)
        self.at_class: list[np.ndarray] = []  # per present class: its positions in the background run
        if classes is not None:
            cls = np.asarray(classes)[runs[BACKGROUND][2]]
            self.present = np.unique(cls)
            self.at_class = [np.flatnonzero(cls == c) for c in self.present]
        self.width = 4 + self.present.size

    def quantiles(self, c: int, k: int) -> np.ndarray:
        """The k - 1 inner weighted (|w|) quantiles of class c's scores (binning.weighted_quantiles)."""
        return run_quantiles(self.x[c], self.w[c], k)

    def rows(self, positions: np.ndarray) -> np.ndarray:
        """Prefix rows at `positions` (rows of (background, signal) counts: the sums over each class's
        first events in score order), columns s, b, background MC events, background w^2, per class."""
        positions = np.asarray(positions, np.int64).reshape(-1, 2)
        out = np.empty((positions.shape[0], self.width))
        for c, scale in ((SIGNAL, self.scale[0]), (BACKGROUND, self.scale[1])):
            wanted, back = np.unique(positions[:, c], return_inverse=True)
            total, squares = np.empty(wanted.size), np.empty(wanted.size)
            w = self.w[c] if self.w[c].size else np.zeros(1, self.w[c].dtype)  # no empty array for cling
            getattr(kernels(), f"run_sums_w{_code(w)}")(w, self.w[c].size, float(scale), wanted, wanted.size, total, squares)
            if c == SIGNAL:
                out[:, 0] = total[back.ravel()]
            else:
                out[:, 1], out[:, 3] = total[back.ravel()], squares[back.ravel()]
        out[:, 2] = positions[:, BACKGROUND]
        for j, at in enumerate(self.at_class):
            out[:, 4 + j] = np.searchsorted(at, positions[:, BACKGROUND], side="left")
        return out

    @functools.cached_property
    def total(self) -> np.ndarray:
        """The row of every event (computed once)."""
        return self.rows(self.n[None, :])[0]

    def positions(self, edges: np.ndarray) -> np.ndarray:
        """Per edge (rows) and class (columns: background, signal): how many of the class's events
        score below it, as numpy.searchsorted(sorted scores, edges, side='left') in float64."""
        return np.stack([_below(self.x[c], edges) for c in (BACKGROUND, SIGNAL)], axis=1)


def _below(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """np.searchsorted(x, edges, side='left') as float64 would compare, without a float64 copy of
    float32 scores: for float32 x, x < e exactly when x < the smallest float32 >= e."""
    edges = np.asarray(edges, float)
    if x.dtype != np.float32:
        return np.searchsorted(x, edges, side="left")
    with np.errstate(over="ignore"):
        near = edges.astype(np.float32)
    up = np.where(near.astype(float) < edges, np.nextafter(near, np.float32(np.inf)), near)
    return np.searchsorted(x, up.astype(np.float32), side="left")
