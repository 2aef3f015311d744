"""One signal-vs-background pair's HEP metrics for the report: per split, and train vs test.

Used by both visualize scripts (binary model, and each multi-class likelihood-ratio pair).
"""

from __future__ import annotations

import ctypes
import functools
import math
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics import evaluate, hep, pairsweeps
from pnetviz.metrics.evaluate import N_BINS, SPLITS, SplitResult, equal_bins, hist_contents
from pnetviz.io.kernels import kernels


@dataclass(frozen=True)
class HepOptions:
    weight_mode: str = "abs"
    signal_scale: float = 1.0
    bootstrap: int = 200
    seed: int = 20251001
    expected_yields: dict[str, float] | None = None  # class -> expected events (--expected-yields); None: relative
    working_points: tuple[float, ...] = (0.5, 0.7, 0.9)  # --working-points: target signal efficiencies
    wp_from: str = "train"  # --wp-from: the split the thresholds are found on
    cut_scan_min_events: float = 10.0  # --cut-scan-min-events: the passing background's minimum N_eff at an optimum


def auc_all_modes(result: SplitResult) -> dict[str, float | None]:
    """AUC of the same events under abs, signed and drop weights (None where undefined), one sort;
    without negative weights the three modes are the same weights: the curve's AUC, no sort."""
    sample = result.sample
    if not np.any(sample.weights < 0):
        return dict.fromkeys(hep.WEIGHT_MODES, result.curve.auc)
    return hep.auc_weight_modes(sample.scores, sample.is_signal, sample.weights)


def binned_fip(result: SplitResult, signal_scale: float, scale: tuple[float, float] = (1.0, 1.0)) -> float:
    """Valassi eq. 4 on the 50-bin score histograms actually drawn, as weighted yields."""
    s = hist_contents(result.hist_signal)[0] * signal_scale * result.curve.total_signal * scale[0]
    b = hist_contents(result.hist_background)[0] * result.curve.total_background * scale[1]
    return hep.binned_fip(s, b)


FIP_NORMAL_FROM = 50_000  # events: above, binned_fip_error's replicas are per-bin normal draws (why: its docstring)


def binned_fip_error(sample, factors: tuple[float, float], replicas: int, seed: int, binned: np.ndarray | None = None) -> float:
    """Poisson-bootstrap error of binned_fip (the same N_BINS bins, evaluate.equal_bins): per replica
    every event's weight times a Poisson(1) count (above FIP_NORMAL_FROM events, per-bin normal
    draws with the same mean sum w and variance sum w^2), the yields scaled by `factors`
    (signal, background) as the nominal; replicas without signal are dropped. NaN without replicas.
    All replicas at once: the per-event counts in C++ (poisson_binned_sums) from the same numpy
    generator, in the same order, so every draw and sum is that of one numpy pass per replica.
    `binned`: the sample's per-class sums (evaluate.SplitTables.binned, the same doubles), not binned again.
    The normal replicas give the Poisson ones' spread: the binned FIP sees a replica only through its
    2 x N_BINS bin yields, independent in both laws with the same means and variances, so the spread
    is the same to first order (delta method); the rest (the yields' skewness, ~1/sqrt(events a bin))
    is within the 200 replicas' own noise (~5%) from tens of thousands of events on (1e6 multi-class
    pairs, ~1e5 events, 12 seeds each: ratios 0.976, 1.001, 0.986, each within 1.5 standard errors;
    2e4 events of one: 1.015); they cost O(bins), not O(events), a replica (benchmarks/README.md)."""
    w = np.asarray(sample.used, dtype=np.float64)
    if replicas < 2 or w.size == 0:  # at most one replica, or none with signal: no spread
        return math.nan
    rng = np.random.default_rng(seed)
    if w.size > FIP_NORMAL_FROM:
        sums = binned if binned is not None else evaluate.split_tables(sample.scores, sample.is_signal, w).binned
        yields = np.maximum(rng.normal(sums[:, 0], np.sqrt(sums[:, 1]), (replicas, 2, N_BINS)), 0.0)
    else:
        bins, sig = equal_bins(sample.scores, N_BINS), np.asarray(sample.is_signal, bool)
        yields = poisson_binned_sums(bins + N_BINS * ~sig, w, 2 * N_BINS, replicas, rng).reshape(replicas, 2, N_BINS)
    s, b = np.ascontiguousarray(yields[:, 0]), np.ascontiguousarray(yields[:, 1])
    keep = s.sum(axis=1) > 0
    values = binned_fips(s[keep] * factors[0], b[keep] * factors[1])
    return float(np.std(values, ddof=1)) if values.size > 1 else math.nan


def binned_fips(s: np.ndarray, b: np.ndarray) -> np.ndarray:
    """hep.binned_fip of each row of the yields s, b (replicas x bins), to the last bit: the terms
    s^2/n of the bins with n = s + b > 0, gathered row by row into a contiguous array per number
    of such bins and summed along rows (numpy sums a row as it sums that row alone)."""
    n = s + b
    used = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = s**2 / n
    counts, num = used.sum(axis=1), np.zeros(len(s))
    for m in np.unique(counts[counts > 0]):
        rows = counts == m
        num[rows] = terms[rows][used[rows]].reshape(-1, m).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return num / np.sum(s, axis=1)


DRAWN_CHUNK = 1 << 15  # uniforms drawn ahead at a time: 256 kB, reused (a fresh large array costs its page faults)


def poisson_binned_sums(key: np.ndarray, w: np.ndarray, nkeys: int, replicas: int, rng: np.random.Generator) -> np.ndarray:
    """replicas x nkeys sums: per replica np.bincount(key, rng.poisson(1.0, w.size) * w, nkeys),
    drawn and summed in C++ (macros/poisson_bins.h) from `rng`'s own bit generator, whose state
    advances as numpy's would: the same numbers as the numpy loop, without its per-event arrays.
    With numpy's PCG64 (default_rng) the uniforms are drawn ahead in chunks by rng.random (the
    same next_double stream, ~3x faster than a call a draw) and the generator is then put where
    the draws taken leave it (PCG64.advance: one step a double); another bit generator is called
    a draw at a time."""
    out = np.empty(replicas * nkeys)
    key, w = np.ascontiguousarray(key, dtype=np.int64), np.ascontiguousarray(w, dtype=np.float64)
    if type(rng.bit_generator) is np.random.PCG64:
        _drawn_ahead(key, w, nkeys, replicas, rng, out)
        return out.reshape(replicas, nkeys)
    gen = rng.bit_generator.ctypes
    _poisson_kernels().poisson_binned_sums(key, w, w.size, nkeys, replicas, gen.state_address,
                                           ctypes.cast(gen.next_double, ctypes.c_void_p).value, math.exp(-1.0), out)  # fmt: skip
    return out.reshape(replicas, nkeys)


def _drawn_ahead(key: np.ndarray, w: np.ndarray, nkeys: int, replicas: int, rng: np.random.Generator, out: np.ndarray) -> None:
    """poisson_binned_sums from uniforms drawn ahead (a PCG64 `rng`): the kernel takes X + 1 of them
    an event and stops where a chunk runs out inside an event, resumed with the rest and a new
    chunk; then `rng` is set back and advanced by the uniforms taken (its cached 32-bit value kept)."""
    bits = rng.bit_generator
    start = bits.state
    kernel, enlam = _poisson_kernels().poisson_binned_sums_drawn, math.exp(-1.0)
    total, step, taken, left = w.size * replicas, 0, 0, 0
    buf, used = np.empty(DRAWN_CHUNK), ctypes.c_size_t(0)
    while step < total:
        if left == buf.size:  # an event longer than the buffer (never seen): a larger buffer
            buf = np.concatenate([buf, np.empty(buf.size)])
        todo = total - step  # ~2 uniforms an event (X + 1, X ~ Poisson(1)), spread sqrt(todo)
        size = left + min(buf.size - left, 2 * todo + 8 * math.isqrt(todo) + 64)
        rng.random(out=buf[left:size])
        step = kernel(key, w, w.size, nkeys, replicas, buf, size, step, used, enlam, out)
        taken += used.value
        left = size - used.value
        buf[:left] = buf[used.value : size].copy()  # the draws not taken yet, to the front
    bits.state = start
    bits.advance(taken)
    bits.state = {**bits.state, "has_uint32": start["has_uint32"], "uinteger": start["uinteger"]}


@functools.cache
def _poisson_kernels():
    return kernels()


YIELD_NORMALISATION = ("yields (Punzi, Asimov, FIP, iso-accuracy) are the full sample's: the split's weight sums "
                       "divided by the split's fraction of the total weight, signal and background separately")  # fmt: skip
RELATIVE_YIELDS = ("relative: the training weights' sums (normalised for training, not to a luminosity), so Punzi, "
                   "Asimov, FIP1 and the operating points' precision are relative figures; --expected-yields makes "
                   "them physical")  # fmt: skip
EXPECTED_YIELDS = ("expected event counts (--expected-yields): each class scaled to its expected yield before Punzi, "
                   "Asimov, FIP1, FIP2 and the operating points; efficiencies come from the split")  # fmt: skip


def split_metrics(result: SplitResult, opts: HepOptions, seed: int, full: tuple[float, float] | None = None,
                  expected: tuple[float, float] | None = None) -> tuple[dict, hep.Bootstrap]:  # fmt: skip
    """Every metric of one split; `full`: the whole sample's signal and background weight sums (all
    splits), to which the prevalence-aware metrics' yields are normalised (None: the split's own);
    `expected`: the expected signal and background event counts, which replace them (physical
    Punzi, Asimov, FIP and operating points)."""
    curve, sample = result.curve, result.sample
    if expected is not None:
        scale = (expected[0] / (opts.signal_scale * curve.total_signal), expected[1] / curve.total_background)
    else:
        scale = (1.0, 1.0) if full is None else (full[0] / curve.total_signal, full[1] / curve.total_background)
    boot = hep.bootstrap(sample.scores, sample.is_signal, sample.used, opts.bootstrap, seed, chunks=curve.chunks)
    n_eff = class_effective_events(sample)
    hull = hep.convex_hull(curve)
    metrics = {
        "auc": curve.auc,
        "auc_error": boot.auc_error,
        "auc_all_weight_modes": auc_all_modes(result),
        **rejections(curve, n_eff[1], opts.weight_mode != "signed"),
        "rejection_0.5_interval": boot.rejection_50_interval,
        "partial_auc": {f"{f:g}": hep.partial_auc(curve, f) for f in hep.PARTIAL_AUC_FPR},
        "average_precision": result.average_precision,
        **hep.prevalence_metrics(curve, opts.signal_scale, scale, hull),
        "binned_fip_50": binned_fip(result, opts.signal_scale, scale),
        "binned_fip_50_error": binned_fip_error(sample, (opts.signal_scale * scale[0], scale[1]), opts.bootstrap, seed,
                                                result.tables.binned if result.tables else None),  # fmt: skip
        "yield_scale": {"signal": scale[0], "background": scale[1]},
        "hull_excess": hep.hull_excess(curve, boot.auc_error, hull),
        "effective_events": {"signal": n_eff[0], "background": n_eff[1]},
        "bootstrap_replicas": opts.bootstrap,
        "bootstrap_dropped": boot.dropped,  # replicas without signal or background (no AUC): left out
        "auc_error_method": boot.auc_error_method,  # "delong" where too few replicas are defined
        "curve_flags": hep.curve_flags(curve),
    }
    metrics["operating_points"] = operating_points(curve, metrics)
    # above the hull's FIP2: the ROC is not concave where the binning looks (or finite-sample noise: compare the error)
    metrics["binned_fip_50_above_hull"] = bool(metrics["binned_fip_50"] > metrics["fip2_hull"])
    return metrics, boot


def class_effective_events(sample) -> tuple[float, float]:
    """hep.effective_events of the signal's and of the background's weights after the mode (float64
    weights: one pass in C++, the same sums; other dtypes as numpy sums them)."""
    used, sig = np.asarray(sample.used), np.asarray(sample.is_signal, bool)
    if used.dtype == np.float64:
        sw, sw2, bw, bw2 = (float(v) for v in sample.class_totals)  # pairsweeps.effective_events' sums, taken once
        return (sw**2 / sw2 if sw2 > 0 else 0.0), (bw**2 / bw2 if bw2 > 0 else 0.0)
    return hep.effective_events(used[sig]), hep.effective_events(used[~sig])


def rejections(curve, n_eff_background: float, monotone: bool = True) -> dict:
    """eps_b at each REJECTION_EFFICIENCIES point (zero allowed) and the rejection 1/eps_b, a
    lower limit (flagged) where no background passes: never missing; `monotone` (non-negative
    weights): a lower limit is at least the measured rejection at any larger eps_s."""
    eps_b = {f"{e:g}": hep.background_efficiency_at(curve, e) for e in hep.REJECTION_EFFICIENCIES}
    values = {k: hep.rejection_value(v, n_eff_background) for k, v in eps_b.items()}
    rejection = {k: v for k, (v, _) in values.items()}
    if monotone:
        rejection = hep.monotone_limits(rejection, {k: limit for k, (_, limit) in values.items()})
    return {
        "background_efficiency": eps_b,
        "rejection": rejection,
        "rejection_lower_limit": {k: limit for k, (_, limit) in values.items()},
        "rejection_limit": {"cl": hep.REJECTION_CL, "effective_background_events": n_eff_background,
                            "rule": hep.REJECTION_LIMIT_RULE},  # fmt: skip
    }


def operating_points(curve, metrics: dict) -> dict:
    """Precision, recall and F1 at the cut 0.5, at the FIP1 optimum and at the iso-accuracy optimum,
    all with one prevalence: the yields S, B the optima were found with (metrics' signal_yield,
    background_yield: the full sample's, times --signal-scale)."""
    points = {"threshold_0.5": hep.at_threshold(curve, 0.5),
              "fip1": (metrics["fip1"]["eps_s"], metrics["fip1"]["eps_b"]),
              "iso_accuracy": (metrics["optimal_operating_point"]["eps_s"], metrics["optimal_operating_point"]["eps_b"])}  # fmt: skip
    S, B = metrics["signal_yield"], metrics["background_yield"]
    return {name: hep.operating_point(s, b, S, B) for name, (s, b) in points.items()}


def overtraining(results: dict[str, SplitResult], errors: dict[str, float], mode: str = "abs") -> dict:
    """Weighted KS train vs test for signal and for background (|weights used|), AUC gap +- error.
    Without negative weights used, the KS of each class is read off the two splits' curves (their
    rates are that class's weighted survival functions: no new sort, no copy of the events)."""
    train, test = results["train"].sample, results["test"].sample
    out = {}
    if all(not np.any(s.used < 0) for s in (train, test)):
        ks = ks_from_curves(results["train"].curve, results["test"].curve, *(class_totals64(s) for s in (train, test)))
        out |= {f"ks_{name}": value for name, value in zip(("signal", "background"), ks, strict=True)}
    for name, sel_train, sel_test in (("signal", train.is_signal, test.is_signal),
                                      ("background", ~train.is_signal, ~test.is_signal)):  # fmt: skip
        if f"ks_{name}" in out:
            continue
        out[f"ks_{name}"] = hep.weighted_ks(train.scores[sel_train], np.abs(train.used[sel_train]),
                                            test.scores[sel_test], np.abs(test.used[sel_test]))  # fmt: skip
    gap = results["train"].curve.auc - results["test"].curve.auc
    error = math.hypot(errors["train"], errors["test"])
    out["auc_gap"] = {"value": gap, "error": error, "significance": gap / error if error > 0 else math.nan}
    out["ks_weights"] = "|w|: the KS test needs non-negative weights" if mode == "signed" else f"weights after --weights {mode}"
    return out


def class_totals64(sample) -> np.ndarray:
    """Per class sum w and sum w^2 of the float64 weights used: pairsweeps.class_totals (the sample's, taken once)."""
    return sample.class_totals


def ks_from_curves(train, test, train_totals: np.ndarray, test_totals: np.ndarray) -> tuple[dict, dict]:
    """hep.weighted_ks of the signal and of the background, train vs test, from the two splits'
    curves (non-negative weights: a curve's tpr and fpr are the classes' weighted survival
    functions, bit for bit those of the curve hep.weighted_ks builds) and the classes' sums of w
    and w^2 (class_totals64: the effective event counts)."""
    out = []
    for rate, k in (("tpr", 0), ("fpr", 2)):
        d = pairsweeps.ks_distance(train.thresholds, getattr(train, rate), test.thresholds, getattr(test, rate))
        n = [float(t[k]) ** 2 / float(t[k + 1]) if t[k + 1] > 0 else 0.0 for t in (train_totals, test_totals)]
        out.append(hep.ks_result(d, n[0], n[1]))
    return out[0], out[1]


def split_seed(opts: HepOptions, split: str) -> int:
    """The bootstrap seed of a split: one bootstrap per (model, fold, split), so every output that
    shows an AUC (the model's report, a comparison) gives it the same error."""
    return opts.seed + SPLITS.index(split)


def auc_error(sample, opts: HepOptions, split: str) -> float:
    """The AUC's bootstrap error of a split's sample, exactly as in that model's report."""
    return hep.bootstrap(sample.scores, sample.is_signal, sample.used, opts.bootstrap, split_seed(opts, split)).auc_error


def pair_metrics(results: dict[str, SplitResult], opts: HepOptions, full: tuple[float, float] | None = None,
                 expected: tuple[float, float] | None = None) -> dict:  # fmt: skip
    """`hep_metrics` of one pair: {train: ..., test: ..., overtraining: ...}; `full`, `expected` as in split_metrics."""
    out, errors = {}, {}
    for split, result in results.items():
        out[split], boot = split_metrics(result, opts, split_seed(opts, split), full, expected)
        errors[split] = boot.auc_error
    out["overtraining"] = overtraining(results, errors, opts.weight_mode)
    if full is not None and expected is None:
        out["yield_normalisation"] = YIELD_NORMALISATION
    out["yields"] = {"kind": "expected" if expected else "relative", "meaning": EXPECTED_YIELDS if expected else RELATIVE_YIELDS,
                     **({"signal": expected[0], "background": expected[1]} if expected else {})}  # fmt: skip
    return out


def ks_lines(metrics: dict) -> list[str]:
    """The KS p-values as shown on score-distribution plots (TMVA style)."""
    ot = metrics["overtraining"]
    return [f"KS p (train vs test): sig {ot['ks_signal']['p_value']:.3f}, bkg {ot['ks_background']['p_value']:.3f}"]


def shared_event_bootstrap(scores_a: np.ndarray, is_signal_a: np.ndarray, weights_a: np.ndarray, ids_a: np.ndarray,
                           scores_b: np.ndarray, is_signal_b: np.ndarray, weights_b: np.ndarray, ids_b: np.ndarray,
                           replicas: int, seed: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """AUC replicas of two classifiers whose test sets share events (integer event ids, unique on
    each side): each replica draws one Poisson(1) count per distinct event id, in id order, and
    multiplies that event's weight by it on both sides, so the events both models see move
    together (their correlation enters the spread of the difference) and the others
    independently. With the same events on both sides these are hep.paired_bootstrap's replicas."""
    ids = np.unique(np.r_[ids_a, ids_b])
    ka, kb = np.searchsorted(ids, ids_a), np.searchsorted(ids, ids_b)
    (oa, sa, ea), (ob, sb, eb) = hep._sorted_auc_parts(scores_a, is_signal_a), hep._sorted_auc_parts(scores_b, is_signal_b)
    wa, wb = np.asarray(weights_a, float), np.asarray(weights_b, float)
    rng = np.random.default_rng(seed)
    auc_a, auc_b = np.empty(replicas), np.empty(replicas)
    for r in range(replicas):  # replicas, not events: each is a vectorised pass
        counts = rng.poisson(1.0, ids.size)
        auc_a[r] = hep._auc_from_sorted((wa * counts[ka])[oa], sa, ea)
        auc_b[r] = hep._auc_from_sorted((wb * counts[kb])[ob], sb, eb)
    return auc_a, auc_b


def shared_events(ids_a: np.ndarray | None, is_signal_a: np.ndarray, ids_b: np.ndarray | None, is_signal_b: np.ndarray) -> int:
    """How many events (by event id) two test sets share, with the same class on both; 0 without
    ids, with an id repeated on a side, or with a shared event labelled differently."""
    if ids_a is None or ids_b is None or np.unique(ids_a).size != ids_a.size or np.unique(ids_b).size != ids_b.size:
        return 0
    common, ia, ib = np.intersect1d(ids_a, ids_b, assume_unique=True, return_indices=True)
    return int(common.size) if np.array_equal(np.asarray(is_signal_a)[ia], np.asarray(is_signal_b)[ib]) else 0
