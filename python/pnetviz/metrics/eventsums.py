"""Sums over every event of a split (or of the ntuple) by class, in one C++ pass each
(macros/event_sums.h), each equal, bit for bit, to the numpy expression it replaces without that
expression's masked copies of the columns per class (at 1e7 events those copies, not the sums, were
the cost: benchmarks/README.md, issue 55):

* class_yields: evaluate.yields of each class's weights, and the sum of each class's weights after
  the weight mode (np.sum(hep.mode_weights(w[cls], mode)));
* edge_bin_sums: np.bincount of v = w scale and of v^2 over the selected events in the bins of
  sorted edges (binning.bin_index's rule).
"""

from __future__ import annotations

import numpy as np

from pnetviz.io.kernels import kernels

MODES = {"abs": 0, "signed": 1, "drop": 2}


def _flags(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values)
    return np.ascontiguousarray(values).view(np.uint8) if values.dtype == np.bool_ else np.ascontiguousarray(values != 0).view(np.uint8)


def class_yields(weights: np.ndarray, is_signal: np.ndarray, keep: np.ndarray | None = None,
                 mode: str = "signed") -> tuple[tuple[dict, dict], tuple[float, float]]:  # fmt: skip
    """((yields of the signal events, of the others), (sum of the signal's mode weights, of the
    others')), over the events where `keep` (None: every event) is true: evaluate.yields(weights[cls])
    and float(np.sum(hep.mode_weights(weights[cls], mode))), bit for bit. float32 weights are summed
    in float64 (as their float64 copy would be)."""
    if mode not in MODES:
        raise ValueError(f"unknown weight mode {mode!r}; choose one of {tuple(MODES)}")
    w = np.asarray(weights)
    w = np.ascontiguousarray(w if w.dtype == np.float32 else w.astype(np.float64, copy=False))
    y = _flags(is_signal)
    sel = np.zeros(1, np.uint8) if keep is None else _flags(keep)
    if not (w.size == y.size and (keep is None or sel.size == w.size)):
        raise ValueError(f"weights ({w.size}), labels ({y.size}) and selection ({sel.size}) differ in length")
    out = np.empty(12)
    kernel = kernels().class_yields_w32 if w.dtype == np.float32 else kernels().class_yields_w64
    kernel(w, y, sel, w.size, int(keep is not None), MODES[mode], out)
    yields, sums = [], []
    for events, total, abs_total, negative, negative_abs, mode_sum in out.reshape(2, 6).tolist():
        yields.append({"events": int(events), "sum_weights": total, "sum_abs_weights": abs_total,
                       "negative_weight_fraction": {"events": negative / events if events else 0.0,
                                                    "abs_weight": negative_abs / abs_total if abs_total > 0 else 0.0}})  # fmt: skip
        sums.append(mode_sum)
    return (yields[0], yields[1]), (sums[0], sums[1])


def edge_bin_sums(edges: np.ndarray, scores: np.ndarray, weights: np.ndarray, sel: np.ndarray,
                  scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(sum v, sum v^2) per bin of `edges` (binning.bin_index) of v = weights * scale over the events
    where `sel`: np.bincount(idx[sel], weights=v) and of v * v, bit for bit (float64 weights)."""
    e = np.ascontiguousarray(edges, dtype=np.float64)
    s = np.asarray(scores)
    s = np.ascontiguousarray(s if s.dtype == np.float32 else s.astype(np.float64, copy=False))
    w, flags = np.ascontiguousarray(weights, dtype=np.float64), _flags(sel)
    if not s.size == w.size == flags.size:
        raise ValueError(f"scores ({s.size}), weights ({w.size}) and selection ({flags.size}) differ in length")
    m = e.size - 1
    out = np.empty(2 * m)
    kernel = kernels().edge_bin_sums_f32 if s.dtype == np.float32 else kernels().edge_bin_sums_f64
    kernel(s, w, flags, s.size, e, e.size, float(scale), out)
    return out[:m], out[m:]
