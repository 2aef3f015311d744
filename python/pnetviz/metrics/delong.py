"""Weighted DeLong error of an AUC (DeLong, DeLong & Clarke-Pearson, Biometrics 44, 837 (1988)),
the fallback of the Poisson bootstrap where too few of its replicas are defined (a replica without
signal or without background has no AUC: tiny samples).

With signal weights w_i, background weights v_j and psi(s, b) = 1 (s > b), 1/2 (s = b), 0:
AUC = sum_ij w_i v_j psi / (W_s W_b); the structural components V10_i = sum_j v_j psi(s_i, b_j) / W_b
and V01_j = sum_i w_i psi(s_i, b_j) / W_s; and
    Var = n_s/(n_s - 1) sum_i w_i^2 (V10_i - AUC)^2 / W_s^2 + n_b/(n_b - 1) sum_j v_j^2 (V01_j - AUC)^2 / W_b^2
with n = (sum w)^2 / sum w^2 the effective event counts: for unit weights exactly DeLong's
S10/m + S01/n (sample variances with m - 1, n - 1)."""

from __future__ import annotations

import math

import numpy as np


def _below_half_ties(values: np.ndarray, ref: np.ndarray, ref_w: np.ndarray) -> np.ndarray:
    """For each value: the weight of `ref` strictly below it plus half the weight equal to it."""
    order = np.argsort(ref, kind="stable")
    r, cum = ref[order], np.r_[0.0, np.cumsum(ref_w[order])]
    lo, hi = np.searchsorted(r, values, "left"), np.searchsorted(r, values, "right")
    return cum[lo] + 0.5 * (cum[hi] - cum[lo])


def delong_error(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray) -> float:
    """The weighted DeLong standard error of the AUC (see the module); NaN where a class has no
    weight or fewer than two effective events."""
    scores = np.asarray(scores, dtype=np.float64)
    sig = np.asarray(is_signal, dtype=bool)
    w = np.asarray(weights, dtype=np.float64)
    s, ws, b, wb = scores[sig], w[sig], scores[~sig], w[~sig]
    W_s, W_b = float(ws.sum()), float(wb.sum())
    if W_s == 0 or W_b == 0:
        return math.nan
    v10 = _below_half_ties(s, b, wb) / W_b
    v01 = (W_s - _below_half_ties(b, s, ws)) / W_s  # signal weight above b_j plus half the ties
    auc = float(np.sum(ws * v10) / W_s)
    n_s, n_b = W_s**2 / float(np.sum(ws**2)), W_b**2 / float(np.sum(wb**2))
    if n_s <= 1 or n_b <= 1:
        return math.nan
    var = n_s / (n_s - 1) * np.sum(ws**2 * (v10 - auc) ** 2) / W_s**2 + n_b / (n_b - 1) * np.sum(wb**2 * (v01 - auc) ** 2) / W_b**2
    return float(math.sqrt(var))



def delong_error_from_sums(signal_w: np.ndarray, signal_w2: np.ndarray, background_w: np.ndarray,
                           background_w2: np.ndarray) -> float:  # fmt: skip
    """`delong_error` from per-score sums of w and w^2 of each class (one row per distinct score,
    scores increasing: the streamed summaries, metrics.summaries): every event of one class at one
    score has the same structural component, so each sum over events is a sum over scores,
    sum_i w_i^2 (V10_i - AUC)^2 = sum_k (sum w^2)_k (V10_k - AUC)^2. Equal to `delong_error` on the
    events to round-off; NaN as there."""
    ws, ws2, wb, wb2 = (np.asarray(a, dtype=np.float64) for a in (signal_w, signal_w2, background_w, background_w2))
    W_s, W_b = float(ws.sum()), float(wb.sum())
    if W_s == 0 or W_b == 0:
        return math.nan
    below_b, below_s = np.r_[0.0, np.cumsum(wb)[:-1]], np.r_[0.0, np.cumsum(ws)[:-1]]
    v10 = (below_b + 0.5 * wb) / W_b
    v01 = (W_s - (below_s + 0.5 * ws)) / W_s
    auc = float(np.sum(ws * v10) / W_s)
    n_s, n_b = W_s**2 / float(np.sum(ws2)), W_b**2 / float(np.sum(wb2))
    if n_s <= 1 or n_b <= 1:
        return math.nan
    var = n_s / (n_s - 1) * np.sum(ws2 * (v10 - auc) ** 2) / W_s**2 + n_b / (n_b - 1) * np.sum(wb2 * (v01 - auc) ** 2) / W_b**2
    return float(math.sqrt(var))
