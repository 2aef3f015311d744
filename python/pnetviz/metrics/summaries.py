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

Coarser keys (`drop_bits` > 0): each float32 score's lowest `drop_bits` mantissa bits are cleared
before it becomes a key (toward zero: a monotone map, so events in different keys keep their
order), which bounds the number of keys (16 mantissa bits: ~65536 keys per power of two) for
ntuples whose network scores take as many float32 values as there are events. The summaries
stay exact sums and merge bit-identically; only pairs of events inside one key lose their order,
so the AUC moves by at most `auc_bound` (certified: half the products of the two classes' |w| per
key over S B), which the streamed evaluation reports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pnetviz.errors import InputError
from pnetviz.metrics.binning import FINE_BINS, FineBins, bin_index
from pnetviz.metrics.evaluate import N_BINS, equal_bins
from pnetviz.metrics.roc import BinaryCurve

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
    drop_bits: int = 0  # mantissa bits cleared in the keys (0: exact float32 scores)

    @staticmethod
    def empty(drop_bits: int = 0) -> ScoreSummary:
        return ScoreSummary(np.empty(0, np.float32), np.zeros((0, 4, LIMBS), np.int64), np.zeros((0, 3), np.int64), drop_bits)

    def add(self, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, what: str = "weight") -> ScoreSummary:
        """This summary merged with one chunk of events (scores cast to float32, -0.0 as +0.0)."""
        return merge(self, of_events(scores, is_signal, weights, what, self.drop_bits))

    def column(self, name: str) -> np.ndarray:
        """A column's per-score sums as float64."""
        return to_float(self.sums[:, COLUMNS.index(name)])

    def equals(self, other: ScoreSummary) -> bool:
        """Bit-identical summaries (same keys, same integer sums and counts)."""
        return (np.array_equal(self.keys.view(np.uint32), other.keys.view(np.uint32))
                and np.array_equal(self.sums, other.sums) and np.array_equal(self.events, other.events))  # fmt: skip


def key_scores(scores: np.ndarray, drop_bits: int = 0) -> np.ndarray:
    """float32 keys of scores: the lowest `drop_bits` mantissa bits cleared, -0.0 as +0.0."""
    s = np.asarray(scores, np.float32) + np.float32(0.0)  # -0.0 -> +0.0: one key per value (a copy)
    if drop_bits:
        s.view(np.uint32)[...] &= np.uint32((0xFFFFFFFF << drop_bits) & 0xFFFFFFFF)
        s += np.float32(0.0)
    return s


def of_events(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, what: str = "weight",
              drop_bits: int = 0) -> ScoreSummary:  # fmt: skip
    """The summary of one chunk of events (keys: `key_scores`)."""
    s = key_scores(scores, drop_bits)
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
    return ScoreSummary(keys, sums, np.stack(counts, axis=1).astype(np.int64), drop_bits)


def merge(*summaries: ScoreSummary) -> ScoreSummary:
    """One summary of the union of the summaries' events: exact (integer sums), in any order. Each
    summary's keys are unique, so its rows are added at their places in the union without sorting
    them (memory: the union's rows and one summary's places)."""
    bits = {s.drop_bits for s in summaries}
    if len(bits) != 1:
        raise ValueError(f"summaries of different key resolutions (drop_bits {sorted(bits)}) do not merge")
    merged = summaries[0].keys
    for s in summaries[1:]:
        merged = np.union1d(merged, s.keys)
    sums, events = np.zeros((merged.size, 4, LIMBS), np.int64), np.zeros((merged.size, 3), np.int64)
    for s in summaries:
        at = np.searchsorted(merged, s.keys)
        sums[at] += s.sums
        events[at] += s.events
    return ScoreSummary(merged.astype(np.float32, copy=False), sums, events, bits.pop())


def roc(summary: ScoreSummary) -> BinaryCurve:
    """The exact weighted ROC (cut score >= threshold) and its trapezoidal AUC from a summary, as
    metrics.roc.BinaryCurve: the cumulative sums are exact integers (int64 limbs) converted once
    to float64."""
    used = summary.events[:, 2] > 0
    keys = summary.keys[used][::-1]
    cum = np.cumsum(summary.sums[used][::-1][:, [0, 2]], axis=0)  # (keys, 2, LIMBS), exact
    tps, fps = np.r_[0.0, to_float(cum[:, 0])], np.r_[0.0, to_float(cum[:, 1])]
    del cum
    if tps[-1] == 0 or fps[-1] == 0:
        raise InputError("ROC undefined: one class has no events or zero total weight in the streamed summaries.")
    auc = float(np.sum(np.diff(fps) * (tps[1:] + tps[:-1])) / (2.0 * tps[-1] * fps[-1]))
    return BinaryCurve(np.r_[np.inf, keys.astype(float)], tps, fps, auc)


def auc_bound(summary: ScoreSummary, nonnegative: bool = True) -> float:
    """A certified bound on |AUC(summary) - AUC(events)|: 0 for exact keys; else the pairs of one
    signal and one background event inside one key, whose order the key forgets, counted 1/2 and
    off by at most 1/2 each: sum_k |S_k| |B_k| / (2 |S B|), |S_k| = the |w| sum (`nonnegative`
    weights: the sum of w; otherwise bounded by sqrt(n_k sum w^2))."""
    if summary.drop_bits == 0:
        return 0.0
    cols = [summary.column(c) for c in COLUMNS]
    if nonnegative:
        a, c = np.abs(cols[0]), np.abs(cols[2])
    else:
        a, c = np.sqrt(summary.events[:, 0] * cols[1]), np.sqrt(summary.events[:, 1] * cols[3])
    return float(np.sum(a * c) / (2.0 * abs(cols[0].sum() * cols[2].sum())))


def binned(summary: ScoreSummary, nbins: int = N_BINS) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Sums of w and w^2 per class ('signal', 'background') in `nbins` equal bins of [0, 1], by the
    in-memory histograms' rule (evaluate.equal_bins of each key: a key is inside one bin exactly
    when its events are, for the keys of float32 scores)."""
    bins = equal_bins(summary.keys, nbins)
    return {name: tuple(np.bincount(bins, weights=summary.column(f"{name}_{q}"), minlength=nbins) for q in ("w", "w2"))
            for name in ("signal", "background")}  # fmt: skip


def fine_edges(summary: ScoreSummary, m: int = FINE_BINS) -> np.ndarray:
    """binning.fine_edges from a summary: m/2 weighted (|w| per key) quantiles of each class's keys."""
    half, inner = max(m // 2, 1), []
    for name in ("signal", "background"):
        cum = np.cumsum(np.abs(summary.column(f"{name}_w")))
        if cum.size and cum[-1] > 0:
            at = np.minimum(np.searchsorted(cum, cum[-1] * np.arange(1, half) / half, side="left"), cum.size - 1)
            inner.append(summary.keys[at].astype(float))
    inner = np.unique(np.concatenate(inner or [np.empty(0)]))
    return np.r_[0.0, inner[(inner > 0.0) & (inner < 1.0)], 1.0]


def fine_bins(summary: ScoreSummary, edges: np.ndarray) -> FineBins:
    """binning.fill from a summary: signal and background yields, background MC events and sum w^2
    per bin of `edges` (the keys' bins, binning.bin_index)."""
    idx, m = bin_index(edges, summary.keys), edges.size - 1
    s, b = (np.bincount(idx, weights=summary.column(c), minlength=m) for c in ("signal_w", "background_w"))
    nb = np.bincount(idx, weights=summary.events[:, 1].astype(float), minlength=m)
    w2 = np.bincount(idx, weights=summary.column("background_w2"), minlength=m)
    return FineBins(edges=np.asarray(edges, float), s=s, b=b, nb=nb, w2=w2)
