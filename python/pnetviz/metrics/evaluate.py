"""Compute side of a signal-vs-background evaluation (binary model or one multi-class LR pair).

Everything here returns plain data (numpy arrays, dataclasses) or filled ROOT histograms;
nothing draws. Conventions: signal is the positive class; weights enter as |w| (the spec's
choice) for curves, histograms and confusion matrices; yields are reported signed and |w|.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.kernels import kernels
from pnetviz.metrics import pairsweeps
from pnetviz.metrics.hep import bootstrap_chunk_size, mode_weights
from pnetviz.metrics.roc import BinaryCurve, PrecisionRecall, SingleClassError, average_precision, binary_clf_curve, precision_recall
from pnetviz.rootenv import root, set_title

N_BINS = 50
CALIBRATION_BINS = 10  # metrics.calibration's reliability bins (its default), summed with the histograms
SCORE_RANGE = (0.0, 1.0)
THRESHOLD = 0.5
SPLITS = ("train", "test")
WEIGHT_MODE = "abs"  # default; --weights abs|signed|drop
LR_EPSILON = 1e-10  # the spec's guard against 0/0
BIN_CHUNK = 1 << 18  # events per pass of equal_bins


def lr_score(p_signal: np.ndarray, p_background: np.ndarray) -> np.ndarray:
    """Likelihood-ratio score P(s) / (P(s) + P(b_i) + 1e-10) in float64 (spec section 3)."""
    p_signal = np.asarray(p_signal, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero denominator is reported by the caller
        return p_signal / (p_signal + np.asarray(p_background, dtype=np.float64) + LR_EPSILON)


@dataclass(frozen=True)
class BinarySample:
    """The events of one split of a binary problem."""

    scores: np.ndarray
    is_signal: np.ndarray  # bool
    weights: np.ndarray  # signed, as stored
    used: np.ndarray  # the weights metrics use, after the weight mode (hep.mode_weights)

    @functools.cached_property
    def class_totals(self) -> np.ndarray:
        """The signal's sum w and sum w^2, the background's, of the float64 weights used
        (pairsweeps.class_totals: np.sum of each class's, bit for bit): one pass, taken once for
        the effective events, the KS from the curves and the working points' errors."""
        return pairsweeps.class_totals(np.asarray(self.used, dtype=np.float64), self.is_signal)


def binary_samples(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, masks: dict[str, np.ndarray],
                   keep: np.ndarray | None = None, mode: str = WEIGHT_MODE) -> dict[str, BinarySample]:  # fmt: skip
    """One BinarySample per split in SPLITS, restricted to `keep` (e.g. a subset branch)."""
    splits = [s for s in SPLITS if s in masks]
    sels = [masks[split] if keep is None else masks[split] & keep for split in splits]
    out = {}
    for split, (s, y, w) in zip(splits, gather_splits(sels, scores, is_signal, weights), strict=True):
        w = w.astype(np.float64, copy=False)  # float32 weights (read_predictions' narrow) widened per split: the same values
        out[split] = BinarySample(scores=s, is_signal=y, weights=w, used=used_weights(w, mode))
    return out


_COMPRESS = {1: ("compress_u1", np.uint8), 4: ("compress_i4", np.int32), 8: ("compress_i8", np.int64)}
GATHER_MAX = 8  # selections per gather_splits call (macros/split_tables.h kGatherMax)


def gather(sel: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    """Each array at the events where the boolean `sel` is true: arrays[i][sel], the same values in the
    same order, copied by a branch-free C++ pass (macros/split_tables.h compress_*; numpy's boolean
    index, a branch an event, costs ~3x more at 1e7 events of a split's random mask)."""
    sel = np.ascontiguousarray(sel, dtype=bool)
    count, outs = int(np.count_nonzero(sel)), []
    for a in arrays:
        a = np.asarray(a)
        if a.shape != sel.shape:
            raise ValueError(f"gather: an array of shape {a.shape} for a mask of shape {sel.shape}")
        name, view = _COMPRESS.get(a.dtype.itemsize, (None, None))
        if name is None or a.ndim != 1 or a.dtype.hasobject:
            outs.append(a[sel])
            continue
        out = np.empty(count, dtype=a.dtype)
        getattr(kernels(), name)(sel.view(np.uint8), sel.size, np.ascontiguousarray(a).view(view), out.view(view), count)
        outs.append(out)
    return outs


def gather_splits(sels: list[np.ndarray], *arrays: np.ndarray) -> list[list[np.ndarray]]:
    """[gather(sel, *arrays) for sel in sels], the same values, in one C++ pass over the events
    (macros/split_tables.h gather_splits: each block of every array read once for all the
    selections, not once per selection and array)."""
    sels = [np.ascontiguousarray(sel, dtype=bool) for sel in sels]
    cols = [np.ascontiguousarray(a) for a in arrays]
    n = sels[0].size if sels else 0
    if not (0 < len(sels) <= GATHER_MAX and cols) or any(
            sel.shape != (n,) for sel in sels) or any(
            a.shape != (n,) or a.dtype.hasobject or a.dtype.itemsize not in _COMPRESS for a in cols):  # fmt: skip
        return [gather(sel, *arrays) for sel in sels]
    counts = np.array([np.count_nonzero(sel) for sel in sels], dtype=np.int64)
    outs = [[np.empty(int(count), dtype=a.dtype) for a in cols] for count in counts]

    def address(arrays: list[np.ndarray]) -> np.ndarray:
        return np.array([a.ctypes.data for a in arrays], dtype=np.uint64)

    kernels().gather_splits(address(sels), len(sels), n, counts, address(cols),
                            np.array([a.dtype.itemsize for a in cols], dtype=np.int32), len(cols),
                            address([o for out in outs for o in out]))  # fmt: skip
    return outs


def used_weights(weights: np.ndarray, mode: str) -> np.ndarray:
    """hep.mode_weights, the weights themselves (no copy) where the mode leaves them as they are:
    every weight positive (abs and drop), or signed."""
    w = np.asarray(weights)
    if mode in ("abs", "drop") and w.dtype == np.float64 and w.size and w.min() > 0:
        return w
    return mode_weights(w, mode)


def equal_bins(values: np.ndarray, nbins: int) -> np.ndarray:
    """The bin of each value among `nbins` equal bins of [0, 1], by numpy.histogram's rule: floor(x n)
    corrected against the edges k (1/n) (so a value equal to an edge, e.g. 0.58 with 50 bins, where
    0.58 * 50 = 28.999999999999996, is in the bin above it, as numpy and TH1::Fill put it); values <= 0
    in the first bin, >= 1 in the last. The same rule as `macros/class_tables.h`."""
    values = np.asarray(values)
    if values.size <= BIN_CHUNK:
        return _equal_bins(values, nbins)
    out = np.empty(values.size, dtype=np.intp)  # in chunks: ~30 bytes an event of temporaries, a chunk at a time
    flat = values.reshape(-1)
    for start in range(0, flat.size, BIN_CHUNK):
        out[start : start + BIN_CHUNK] = _equal_bins(flat[start : start + BIN_CHUNK], nbins)
    return out.reshape(values.shape)


def _equal_bins(values: np.ndarray, nbins: int) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, nbins + 1)
    k = np.clip(x * nbins, 0, nbins - 1).astype(np.intp)
    k -= (x < edges[k]) & (k > 0)
    k += (x >= edges[k + 1]) & (k < nbins - 1)
    return k


def binned_sums(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sums of w and w^2 in the N_BINS equal bins of [0, 1] (`equal_bins`). Scores <= 0 go to the first
    bin and scores >= 1 to the last, never to under/overflow, so no event leaves the normalisation; the
    same rule as the C++ multi-class tables (`macros/class_tables.h`)."""
    bins = equal_bins(scores, N_BINS)
    w = np.asarray(weights, dtype=np.float64)
    return np.bincount(bins, weights=w, minlength=N_BINS), np.bincount(bins, weights=w * w, minlength=N_BINS)


def score_histogram(name: str, scores: np.ndarray, weights: np.ndarray, title: str = "") -> object:
    """50-bin TH1D of `scores` on [0, 1] (binning of `binned_sums`), normalised to unit integral."""
    return histogram_from_sums(name, *binned_sums(scores, weights), title, entries=np.size(scores))


def histogram_from_sums(name: str, sum_w: np.ndarray, sum_w2: np.ndarray, title: str = "",
                        entries: int | None = None) -> object:  # fmt: skip
    """The one way pnetviz builds a score TH1D: N_BINS bins on [0, 1] from binned sums of w and
    w^2, normalised to unit integral; errors sqrt(sum w^2), scaled with it. Statistics (mean,
    RMS) are computed from the bins; `entries` = the number of events (default: the effective
    number, ROOT's choice)."""
    ROOT = root()
    hist = ROOT.TH1D(name, "", N_BINS, *SCORE_RANGE)
    set_title(hist, title)  # whole: the constructor would cut a name holding ';' (title;xtitle;ytitle)
    hist.Sumw2()
    contents = np.zeros(N_BINS + 2)
    contents[1:-1] = sum_w
    hist.SetContent(contents)
    contents[1:-1] = sum_w2
    hist.GetSumw2().Set(N_BINS + 2, contents)
    hist.ResetStats()
    if entries is not None:
        hist.SetEntries(entries)
    integral = hist.Integral()
    if integral > 0:
        hist.Scale(1.0 / integral)
    return hist


def hist_contents(hist) -> tuple[np.ndarray, np.ndarray]:
    """Bin contents and errors of a TH1 (in-range bins) as numpy arrays."""
    n = hist.GetNbinsX()
    values = np.frombuffer(hist.GetArray(), dtype=np.float64, count=n + 2)[1:-1].copy()
    errors = np.sqrt(np.frombuffer(hist.GetSumw2().GetArray(), dtype=np.float64, count=n + 2)[1:-1])
    return values, errors


def weighted_confusion(true: np.ndarray, pred: np.ndarray, weights: np.ndarray | None, n: int) -> np.ndarray:
    """n x n matrix, rows = true class, columns = predicted class, summing `weights` (1 if None)."""
    flat = np.asarray(true, dtype=np.int64) * n + np.asarray(pred, dtype=np.int64)
    return np.bincount(flat, weights=weights, minlength=n * n).reshape(n, n).astype(np.float64)


def row_normalise(matrix: np.ndarray) -> np.ndarray:
    totals = matrix.sum(axis=1, keepdims=True)
    return np.divide(matrix, totals, out=np.zeros_like(matrix), where=totals != 0)


@dataclass(frozen=True)
class Confusion:
    """Class order (signal, background) for binary; counts and |w|-weighted row-normalised."""

    labels: tuple[str, ...]
    counts: np.ndarray
    weighted: np.ndarray  # sum |w|
    normalised: np.ndarray  # weighted, each true-class row sums to 1


def binary_confusion(sample: BinarySample, labels: tuple[str, str], threshold: float = THRESHOLD) -> Confusion:
    """Signal predicted when score >= threshold; index 0 = signal, 1 = background. Counts are of
    the events the weight mode uses (non-zero weight)."""
    true = np.where(sample.is_signal, 0, 1)
    pred = np.where(sample.scores >= threshold, 0, 1)
    weighted = weighted_confusion(true, pred, sample.used, 2)
    counts = weighted_confusion(true, pred, (sample.used != 0).astype(float), 2)
    return Confusion(labels, counts, weighted, row_normalise(weighted))


@dataclass(frozen=True)
class SplitTables:
    """The binned tables of one split, summed in one pass (split_tables): `binned` [class][sum w, sum w^2][bin]
    in the N_BINS bins of the score histograms (class 0 signal, 1 background; binned_sums of each class),
    `confusion` (binary_confusion's weighted and counts), `reliability` the CALIBRATION_BINS sums of
    calibration.reliability_sums."""

    binned: np.ndarray  # 2 x 2 x N_BINS
    weighted: np.ndarray  # 2 x 2
    counts: np.ndarray  # 2 x 2
    reliability: np.ndarray  # 6 x CALIBRATION_BINS


def split_tables(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray, threshold: float = THRESHOLD,
                 calibration_bins: int = CALIBRATION_BINS) -> SplitTables:  # fmt: skip
    """Every binned table of a split in one C++ pass (macros/split_tables.h), each sum in event order:
    the same doubles as binned_sums of each class, binary_confusion and calibration.reliability_sums."""
    s = np.asarray(scores)
    s = np.ascontiguousarray(s if s.dtype == np.float32 else s.astype(np.float64, copy=False))
    w = np.ascontiguousarray(weights, dtype=np.float64)
    y = np.asarray(is_signal)
    y = np.ascontiguousarray(y).view(np.uint8) if y.dtype == np.bool_ else (y != 0).view(np.uint8)
    if not s.size == w.size == y.size:
        raise ValueError(f"scores ({s.size}), labels ({y.size}) and weights ({w.size}) differ in length")
    hist, weighted, counts = np.empty(4 * N_BINS), np.empty(4), np.empty(4)
    reliability = np.empty(6 * calibration_bins)
    kernel = kernels().split_tables_f32 if s.dtype == np.float32 else kernels().split_tables_f64
    kernel(s, w, y, s.size, N_BINS, float(threshold), calibration_bins, hist, weighted, counts, reliability)
    return SplitTables(hist.reshape(2, 2, N_BINS), weighted.reshape(2, 2), counts.reshape(2, 2),
                       reliability.reshape(6, calibration_bins))  # fmt: skip


@dataclass(frozen=True)
class SplitResult:
    """Everything computed for one split of one signal-vs-background pair."""

    sample: BinarySample
    curve: BinaryCurve
    average_precision: float
    hist_signal: object  # TH1D
    hist_background: object  # TH1D
    confusion: Confusion
    tables: SplitTables | None = None  # the binned sums the histograms and confusion were made from

    @property
    def pr(self) -> PrecisionRecall:
        """The precision-recall curve, derived when asked (for plotting; not kept in memory)."""
        return precision_recall(self.curve)


def evaluate_split(sample: BinarySample, tag: str, labels: tuple[str, str]) -> SplitResult:
    """Curve, PR curve, histograms and confusion matrix of one split (weights after the mode); the
    histograms, confusion matrix and calibration sums from one pass (split_tables)."""
    w = sample.used
    curve = binary_clf_curve(sample.scores, sample.is_signal, w, min_chunk=bootstrap_chunk_size(w.size))
    tables = split_tables(sample.scores, sample.is_signal, w)
    n_signal = int(np.count_nonzero(sample.is_signal))
    (sig_w, sig_w2), (bkg_w, bkg_w2) = tables.binned
    return SplitResult(
        sample=sample,
        curve=curve,
        average_precision=average_precision(curve),
        hist_signal=histogram_from_sums(f"{tag}_signal", sig_w, sig_w2, f"{labels[0]} events, {_words(tag)}", n_signal),
        hist_background=histogram_from_sums(f"{tag}_background", bkg_w, bkg_w2, f"{labels[1]} events, {_words(tag)}",
                                            sample.scores.size - n_signal),  # fmt: skip
        confusion=Confusion(labels, tables.counts, tables.weighted, row_normalise(tables.weighted)),
        tables=tables,
    )


def _words(tag: str) -> str:
    """'test_signal vs ttZ, all' -> 'test split, signal vs ttZ, all events' (histogram titles)."""
    split, _, what = tag.partition("_")
    return f"{split} split, {what}" + (" events" if what.endswith("all") else "")


def yields(weights: np.ndarray) -> dict:
    """Event count, signed and |w| weight sums, and the negative-weight fractions."""
    negative = weights < 0
    abs_sum = float(np.sum(np.abs(weights)))
    return {
        "events": int(weights.size),
        "sum_weights": float(np.sum(weights)),
        "sum_abs_weights": abs_sum,
        "negative_weight_fraction": {
            "events": float(np.mean(negative)) if weights.size else 0.0,
            "abs_weight": float(np.sum(np.abs(weights[negative])) / abs_sum) if abs_sum > 0 else 0.0,
        },
    }


def evaluate_pair(path: Path, scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
                  masks: dict[str, np.ndarray], keep: np.ndarray | None, what: str,
                  labels: tuple[str, str], mode: str = WEIGHT_MODE) -> dict[str, SplitResult]:  # fmt: skip
    """SplitResult per split; a split missing a class is an InputError naming file and selection."""
    return evaluate_samples(path, binary_samples(scores, is_signal, weights, masks, keep, mode), what, labels)


def evaluate_samples(path: Path, samples: dict[str, BinarySample], what: str,
                     labels: tuple[str, str]) -> dict[str, SplitResult]:  # fmt: skip
    """evaluate_split of each split's sample; a split missing a class is an InputError naming
    the file and the selection (`what`)."""
    results = {}
    for split, sample in samples.items():
        try:
            results[split] = evaluate_split(sample, f"{split}_{what}", labels)
        except SingleClassError as err:
            raise InputError(f"{path}: {split} split ({what}): {err}. Fix: check the masks and --subset.") from None
    return results
