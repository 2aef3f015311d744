"""One-pass sums and sweeps behind the pair metrics (C++: macros/pair_sums.h), each equal, bit for
bit, to the numpy expression it replaces, without that expression's temporaries (a masked copy of
the events per class and cut, a boolean per curve point per comparison): at 1e7 events those
copies, not the arithmetic, were most of the metrics' CPU time (benchmarks/README.md, issue 55).

* class_bin_sums: per bin of N equal bins of [0, 1] (evaluate.equal_bins' rule) np.bincount's sums,
  in event order: all w, w and w^2 per class, w x, and the events with non-zero weight;
* class_totals: per class np.sum(w[cls]) and np.sum(w[cls] ** 2) (numpy's pairwise summation);
* cut_w2_sums: per cut s >= t and class, np.sum(w2[passing]) and np.sum(w2[failing]);
* effective_events: hep.effective_events of each class's weights, from class_totals;
* ks_distance: max |r_a - r_b| of two curves' step functions over the union of their thresholds.
"""

from __future__ import annotations

import numpy as np

from pnetviz.io.kernels import kernels


def _scores(values: np.ndarray) -> np.ndarray:
    """float32 kept (compared in float32 as numpy does), anything else as contiguous float64."""
    values = np.asarray(values)
    return np.ascontiguousarray(values if values.dtype == np.float32 else values.astype(np.float64, copy=False))


def _labels(flags: np.ndarray) -> np.ndarray:
    flags = np.asarray(flags)
    return np.ascontiguousarray(flags).view(np.uint8) if flags.dtype == np.bool_ else np.ascontiguousarray(flags != 0).view(np.uint8)


def _weights(weights: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(weights, dtype=np.float64)


def class_bin_sums(x: np.ndarray, weights: np.ndarray, is_class: np.ndarray, nbins: int) -> np.ndarray:
    """7 x nbins: per bin of evaluate.equal_bins(x, nbins) the sums of all w, w of the class, w of the
    others, w^2 of the class, w^2 of the others, w x (x as float64), and the number of events with
    w != 0 (as a float): np.bincount of each, in event order."""
    x, w, c = _scores(x), _weights(weights), _labels(is_class)
    out = np.empty(7 * nbins)
    core = kernels()
    (core.class_bin_sums_f32 if x.dtype == np.float32 else core.class_bin_sums_f64)(x, w, c, x.size, int(nbins), out)
    return out.reshape(7, nbins)


def class_totals(weights: np.ndarray, is_signal: np.ndarray) -> np.ndarray:
    """np.sum(w[sig]), np.sum(w[sig] ** 2), np.sum(w[~sig]), np.sum(w[~sig] ** 2), bit for bit."""
    w, y, out = _weights(weights), _labels(is_signal), np.empty(4)
    kernels().class_totals(w, y, w.size, out)  # event_sums.h: both classes in one pass
    return out


def effective_events(weights: np.ndarray, is_signal: np.ndarray) -> tuple[float, float]:
    """hep.effective_events(weights[is_signal]) and of weights[~is_signal], without the copies."""
    sw, sw2, bw, bw2 = (float(v) for v in class_totals(weights, is_signal))
    return (sw**2 / sw2 if sw2 > 0 else 0.0), (bw**2 / bw2 if bw2 > 0 else 0.0)


def cut_w2_sums(scores: np.ndarray, weights: np.ndarray, is_signal: np.ndarray, cuts) -> np.ndarray:
    """len(cuts) x 4: np.sum(w2[sel]) for the signal passing s >= cut, failing, the background
    passing, failing (w2 = w ** 2; float32 scores compared with the cut in float32, as numpy)."""
    s, w, y = _scores(scores), _weights(weights), _labels(is_signal)
    cuts = np.ascontiguousarray(cuts, dtype=np.float64).ravel()
    out = np.empty(4 * cuts.size)
    core = kernels()
    (core.cut_w2_sums_f32 if s.dtype == np.float32 else core.cut_w2_sums_f64)(s, w, y, s.size, cuts, cuts.size, out)
    return out.reshape(cuts.size, 4)


def ks_distance(thresholds_a: np.ndarray, rate_a: np.ndarray, thresholds_b: np.ndarray, rate_b: np.ndarray) -> float:
    """max |F_a - F_b| of two step functions given at decreasing thresholds (each curve's value
    holds down to its next threshold; both start at +inf), over the union of the thresholds."""
    ta, ra, tb, rb = (np.ascontiguousarray(a, dtype=np.float64) for a in (thresholds_a, rate_a, thresholds_b, rate_b))
    out = np.empty(1)
    kernels().ks_distance(ta, ra, ta.size, tb, rb, tb.size, out)
    return float(out[0])


def last_at_least(thresholds: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """For each query (decreasing, none above thresholds[0]) the last index of the decreasing
    `thresholds` whose value is >= it: np.searchsorted(-thresholds, -queries, side="right") - 1."""
    t, q = np.ascontiguousarray(thresholds, dtype=np.float64), np.ascontiguousarray(queries, dtype=np.float64)
    out = np.empty(q.size, dtype=np.int64)
    kernels().last_at_least(t, t.size, q, q.size, out)
    return out
