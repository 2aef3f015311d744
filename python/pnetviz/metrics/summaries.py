"""Mergeable per-class score summaries for evaluating an ntuple chunk by chunk (issue 55, item 4).

A `ScoreSummary` holds, for every distinct float32 score of the events it has seen, the sums of w
and w^2 of the signal and of the background events: a histogram exact at float32 resolution (a
bin per representable score value that occurs), so the ROC derived from it has the same points
as the in-memory ROC of the same events (a curve point per distinct threshold).

The sums are integers, not float64 running sums: each w (and w^2) is taken as an integer multiple
of 2^-UNIT_BITS (exact for float32 weights, as ntuples store them, down to |w| >= 2^-16; below that,
and for float64 weights, the part below 2^-80 is dropped: an absolute error under 2^-80 per event),
split in LIMBS signed 32-bit limbs, and the limbs are added in int64. Integer addition is
associative, so a summary does not depend on how the events were cut into chunks, files, threads
or workers: merging the summaries of any partition gives the same bits (`merge`). Limits: |w| <
2^23 (w^2 must stay below 2^48) and fewer than 2^31 events; `of_events` refuses a weight outside
(InputError naming it) and a NaN score, it never wraps silently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pnetviz.errors import InputError

UNIT_BITS = 80  # sums are integers in units of 2^-80
LIMBS = 4  # 4 x 32 bits: |value| < 2^(128 - 80) = 2^48
LARGEST = 2.0**23  # |w| below this: w^2 < 2^46 fits the limbs
COLUMNS = ("signal_w", "signal_w2", "background_w", "background_w2")


def exact_domain(weights: np.ndarray) -> np.ndarray:
    """Which weights the integer sums hold (finite, |w| < 2^23)."""
    return np.abs(np.asarray(weights, float)) < LARGEST


def limbs(values: np.ndarray) -> np.ndarray:
    """values (float64, |v| < 2^48) as (n, LIMBS) int64: sum_k limb_k 2^(32k - 80) = floor(v 2^80) 2^-80."""
    x = np.ldexp(np.asarray(values, float), UNIT_BITS)  # exact: a power-of-two scaling
    out = np.empty((x.size, LIMBS), np.int64)
    for k in range(LIMBS - 1, 0, -1):  # top limb signed (floor), lower limbs in [0, 2^32)
        top = np.floor(np.ldexp(x, -32 * k))
        out[:, k] = top.astype(np.int64)
        x = x - np.ldexp(top, 32 * k)  # exact: the low bits of x
    out[:, 0] = np.floor(x).astype(np.int64)
    return out


def to_float(parts: np.ndarray) -> np.ndarray:
    """float64 values of limb rows (..., LIMBS), summed from the top limb down (a fixed order)."""
    parts = np.asarray(parts)
    total = np.zeros(parts.shape[:-1])
    for k in range(LIMBS - 1, -1, -1):
        total = total + np.ldexp(parts[..., k].astype(float), 32 * k - UNIT_BITS)
    return total


@dataclass(frozen=True)
class ScoreSummary:
    """keys: distinct float32 scores, increasing; sums: (keys, 4 columns (COLUMNS), LIMBS) int64;
    events: (keys, 3) int64, per score: signal events, background events, events of nonzero weight
    (a score whose events all weigh 0 is no point of the ROC, as in metrics.roc)."""

    keys: np.ndarray
    sums: np.ndarray
    events: np.ndarray

    @staticmethod
    def empty() -> ScoreSummary:
        return ScoreSummary(np.empty(0, np.float32), np.zeros((0, 4, LIMBS), np.int64), np.zeros((0, 3), np.int64))

    def add(self, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, what: str = "weight") -> ScoreSummary:
        """This summary merged with one chunk of events (scores cast to float32, -0.0 as +0.0)."""
        return merge(self, of_events(scores, is_signal, weights, what))

    def column(self, name: str) -> np.ndarray:
        """A column's per-score sums as float64."""
        return to_float(self.sums[:, COLUMNS.index(name)])

    def equals(self, other: ScoreSummary) -> bool:
        """Bit-identical summaries (same keys, same integer sums and counts)."""
        return (np.array_equal(self.keys.view(np.uint32), other.keys.view(np.uint32))
                and np.array_equal(self.sums, other.sums) and np.array_equal(self.events, other.events))  # fmt: skip


def of_events(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, what: str = "weight") -> ScoreSummary:
    """The summary of one chunk of events."""
    s = np.asarray(scores, np.float32) + np.float32(0.0)  # -0.0 -> +0.0: one key per value
    w = np.asarray(weights, float)
    sig = np.asarray(is_signal, bool)
    if np.isnan(s).any():
        raise InputError(f"{what}: a NaN score cannot be summarised; drop or fix the event before streaming.")
    bad = ~exact_domain(w)
    if bad.any():
        raise InputError(f"{what}: weight {w[bad][0]:.6g} is outside the streaming summaries' exact range "
                         f"(|w| < 2^23); evaluate in memory.")  # fmt: skip
    order = np.argsort(s, kind="stable")  # one sort; each class's limbs summed per score in that order
    s, sig, w = s[order], sig[order], w[order]
    new = np.r_[True, s[1:] != s[:-1]] if s.size else np.empty(0, bool)
    keys, group = s[new], np.cumsum(new) - 1
    sums = np.zeros((keys.size, 4, LIMBS), np.int64)
    for j, part in ((0, sig), (2, ~sig)):
        g, wp = group[part], w[part]
        if g.size:
            starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
            sums[g[starts], j] = np.add.reduceat(limbs(wp), starts, axis=0)
            sums[g[starts], j + 1] = np.add.reduceat(limbs(wp * wp), starts, axis=0)
    counts = [np.bincount(group[m], minlength=keys.size) for m in (sig, ~sig, w != 0)]
    return ScoreSummary(keys, sums, np.stack(counts, axis=1).astype(np.int64))


def _grouped(inverse: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Integer sums of `rows` per group index `inverse` (0..n-1): exact, any order."""
    out = np.zeros((n, *rows.shape[1:]), np.int64)
    if inverse.size:
        order = np.argsort(inverse, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(inverse[order]) != 0])
        out[inverse[order][starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return out


def merge(*summaries: ScoreSummary) -> ScoreSummary:
    """One summary of the union of the summaries' events: exact (integer sums), in any order."""
    keys = np.concatenate([s.keys for s in summaries])
    merged, inverse = np.unique(keys, return_inverse=True)
    inverse = inverse.ravel()
    return ScoreSummary(merged, _grouped(inverse, np.concatenate([s.sums for s in summaries]), merged.size),
                        _grouped(inverse, np.concatenate([s.events for s in summaries]), merged.size))  # fmt: skip


@dataclass(frozen=True)
class SummaryCurve:
    """The ROC of a summary, thresholds decreasing, point 0 at (0, 0) (as metrics.roc.BinaryCurve)."""

    thresholds: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    auc: float


def roc(summary: ScoreSummary) -> SummaryCurve:
    """The exact weighted ROC (cut score >= threshold) and its trapezoidal AUC from a summary: the
    cumulative sums are exact integers (int64 limbs) converted once to float64."""
    used = summary.events[:, 2] > 0
    keys, sums = summary.keys[used][::-1], summary.sums[used][::-1]
    cum = np.cumsum(sums[:, [0, 2]], axis=0)  # (keys, 2, LIMBS), exact
    tps, fps = np.r_[0.0, to_float(cum[:, 0])], np.r_[0.0, to_float(cum[:, 1])]
    if tps[-1] == 0 or fps[-1] == 0:
        raise InputError("ROC undefined: one class has no events or zero total weight in the streamed summaries.")
    auc = float(np.sum(np.diff(fps) * (tps[1:] + tps[:-1])) / (2.0 * tps[-1] * fps[-1]))
    return SummaryCurve(np.r_[np.inf, keys.astype(float)], tps, fps, auc)
