"""Working points and the cut scan of one signal-vs-background pair, from the exact weighted ROC.

A working point is a cut `score >= threshold` frozen on one split (`--wp-from`, train by
default) and applied to every split, as an analysis freezes it on its training sample:

* threshold: the highest score value present in the wp-from split's sample whose selection
  `s >= threshold` reaches the target weighted signal efficiency (weights after the job's weight
  mode, `hep.mode_weights`; signal = the positive class). Ties select together, so eps_s may
  exceed the target. With signed weights eps_s need not grow monotonically: the first
  threshold (from the top) that reaches it is taken, as `hep.background_efficiency_at`.
* per split: eps_s and eps_b of that cut, the rejection 1/eps_b (a lower limit
  1/hep.eps_b_limit(N_eff) where no background passes, `hep.rejection_value`), and expected
  yields S eps_s and B eps_b when `--expected-yields` gives S and B.
* errors: the ratio of weighted sums of the class in the split (`hep.ratio_error`, as the
  calibration fractions), sigma(eps) = sqrt((1 - eps)^2 sum_pass w^2 + eps^2 sum_fail w^2) / sum w:
  the binomial sqrt(eps (1 - eps) / N_eff) with the class's N_eff undercovers when the weights
  correlate with passing (a heavy-weight process that mostly passes); the existing bootstrap only
  resamples eps_b at eps_s = 0.5, not at a frozen cut. The rejection's error is propagated,
  sigma(eps_b) / eps_b^2, and None where it is a lower limit. The threshold itself is a fixed
  cut and carries no error here; its spread over folds is in the fold summary.

The cut scan is eps_s, eps_b, the purity S eps_s / (S eps_s + B eps_b) and the significances
S/sqrt(S+B) and Asimov (`hep.asimov`) of every cut of the test split, with the maxima.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.errors import InputError
from pnetviz.metrics import hep, pairsweeps
from pnetviz.metrics.evaluate import BinarySample, gather
from pnetviz.metrics.roc import BinaryCurve
from pnetviz.io.kernels import kernels

DEFAULT_TARGETS = (0.5, 0.7, 0.9)
WP_SOURCES = ("train", "test")
TOLERANCE = 1e-12  # a cumulative weight sum that is the target up to rounding reaches it
ERROR_RULE = ("ratio of weighted sums of the class in the split: sigma(eps) = sqrt((1 - eps)^2 sum_pass w^2 + eps^2 "
              "sum_fail w^2) / sum w; rejection error sigma(eps_b) / eps_b^2, none for a lower limit")  # fmt: skip
SELECTION = "score >= threshold"


def parse_targets(text: str) -> tuple[float, ...]:
    """The signal efficiencies of --working-points ('0.5,0.7,0.9'): numbers in (0, 1], sorted, unique."""
    values = []
    for part in (p.strip() for p in str(text).split(",") if p.strip()):
        try:
            value = float(part)
        except ValueError:
            raise InputError(f"--working-points {text!r}: {part!r} is not a number; give signal efficiencies, "
                             "e.g. 0.5,0.7,0.9.") from None  # fmt: skip
        if not (0.0 < value <= 1.0):
            raise InputError(f"--working-points {text!r}: {part} is not a signal efficiency in (0, 1]; give e.g. 0.5,0.7,0.9.")
        values.append(value)
    if not values:
        raise InputError("--working-points '': give signal efficiencies, e.g. 0.5,0.7,0.9.")
    return tuple(sorted(set(values)))


def threshold_for(curve: BinaryCurve, target: float) -> float:
    """The highest threshold of `curve` (a score value of its sample) whose cut s >= threshold
    reaches signal efficiency `target` (the first such point along the sweep)."""
    reached = curve.tpr[1:] >= target - TOLERANCE  # point 0 (threshold +inf) selects nothing
    k = int(np.argmax(reached)) + 1 if reached.any() else curve.tpr.size - 1
    return float(curve.thresholds[k])


def class_parts(sample: BinarySample) -> tuple:
    """What efficiency_errors needs of `sample` at every cut, taken once (not at each working point):
    its scores, its float64 weights after the weight mode, its labels, and each class's sum of
    weights (np.sum of the class's weights, as numpy sums them: pairsweeps.class_totals)."""
    w = np.asarray(sample.used, dtype=np.float64)
    totals = sample.class_totals  # pairsweeps.class_totals, taken once per sample
    return sample.scores, w, sample.is_signal, (float(totals[0]), float(totals[2]))


def cut_errors(parts: tuple, thresholds: Sequence[float], eps: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """efficiency_errors at each of `thresholds` (efficiencies `eps`) of the sample of `parts`
    (class_parts): the passing and failing sums of w^2 of all cuts in one pass over the events
    (pairsweeps.cut_w2_sums: np.sum(w2[passing]) and np.sum(w2[~passing]) per class, bit for bit)."""
    scores, w, is_signal, totals = parts
    sums = pairsweeps.cut_w2_sums(scores, w, is_signal, np.asarray(thresholds, dtype=np.float64))
    return [(hep.ratio_error(e_s, float(p_s), float(f_s), totals[0]), hep.ratio_error(e_b, float(p_b), float(f_b), totals[1]))
            for (p_s, f_s, p_b, f_b), (e_s, e_b) in zip(sums, eps, strict=True)]  # fmt: skip


def efficiency_errors(sample: BinarySample, threshold: float, eps: tuple[float, float],
                      parts: tuple | None = None) -> tuple[float, float]:  # fmt: skip
    """The ratio-of-sums errors (hep.ratio_error) of the signal and background efficiencies `eps`
    of the cut s >= threshold on `sample` (its weights after the weight mode). `parts`: the
    sample's class_parts, when several cuts are made on it (the same sums, in the same order)."""
    return cut_errors(parts or class_parts(sample), [threshold], [eps])[0]


def _at_cut(curve: BinaryCurve, threshold: float, n_eff: tuple[float, float],
            expected: tuple[float, float] | None, errors: tuple[float, float]) -> dict:  # fmt: skip
    """The one core: eps_s, eps_b, rejection and their errors `errors` (and expected yields) of s >= threshold."""
    eps_s, eps_b = hep.at_threshold(curve, threshold)
    rejection, limit = hep.rejection_value(eps_b, n_eff[1])
    err_s, err_b = errors
    out = {
        "eps_s": eps_s, "eps_s_error": err_s,
        "eps_b": eps_b, "eps_b_error": err_b,
        "rejection": rejection, "rejection_error": None if limit else err_b / eps_b**2, "rejection_lower_limit": limit,
        "effective_events": {"signal": n_eff[0], "background": n_eff[1]},
    }  # fmt: skip
    if expected is not None:
        out["expected_signal"], out["expected_background"] = expected[0] * eps_s, expected[1] * eps_b
    return out


def working_points(curves: dict[str, BinaryCurve], n_eff: dict[str, tuple[float, float]],
                   samples: dict[str, BinarySample], targets: Sequence[float] = DEFAULT_TARGETS,
                   wp_from: str = "train", expected: tuple[float, float] | None = None) -> list[dict]:  # fmt: skip
    """One entry per target: the threshold from the `wp_from` split's curve, and per split
    (`curves`: split -> curve; `n_eff`: split -> (signal, background) effective events; `samples`:
    split -> its events, for the errors) the numbers of `_at_cut`. `expected`: (S, B) expected
    events of the pair, or None."""
    if wp_from not in curves:
        raise InputError(f"--wp-from {wp_from}: this evaluation has the splits {', '.join(curves)}.")
    thresholds = [threshold_for(curves[wp_from], target) for target in targets]
    errors = {split: cut_errors(class_parts(samples[split]), thresholds, [hep.at_threshold(c, t) for t in thresholds])
              for split, c in curves.items()}  # fmt: skip
    points = [{"target_eps_s": float(target), "threshold": threshold,
               **{split: _at_cut(c, threshold, n_eff[split], expected, errors[split][i]) for split, c in curves.items()}}
              for i, (target, threshold) in enumerate(zip(targets, thresholds, strict=True))]  # fmt: skip
    raise_limits(points, list(curves))
    return points


def raise_limits(points: Sequence[dict], splits: Sequence[str]) -> None:
    """In each split, a rejection that is a lower limit raised to the measured rejections at larger
    targets (hep.monotone_limits: a looser cut, chosen for a larger eps_s, never rejects more)."""
    for split in splits:
        at = {str(p["target_eps_s"]): p[split] for p in points}
        raised = hep.monotone_limits({t: v["rejection"] for t, v in at.items()}, {t: bool(v["rejection_lower_limit"]) for t, v in at.items()})
        for target, values in at.items():
            values["rejection"] = raised[target]


def describe(wp_from: str, weight_mode: str, score: str, expected: bool) -> dict:
    """What the numbers of a working_points entry mean (written beside them)."""
    return {"selection": SELECTION, "score": score, "wp_from": wp_from,
            "threshold_rule": f"the highest score value in the {wp_from} split whose cut reaches the target weighted signal "
                              "efficiency (ties select together)",
            "weights": f"{weight_mode} (--weights)", "errors": ERROR_RULE,
            "rejection_rule": hep.REJECTION_LIMIT_RULE.split("; across folds")[0],
            "yields": "expected (--expected-yields): expected_signal = S eps_s, expected_background = B eps_b" if expected
            else "none: give --expected-yields for expected event counts"}  # fmt: skip


def fold_scalars(points: Sequence[dict], split: str) -> dict[str, float]:
    """A split's working points as flat scalars for the fold summary (`wp_<target>_<quantity>`)."""
    out = {}
    for p in points:
        row = p[split]
        key = f"wp_{p['target_eps_s']:g}"
        out |= {f"{key}_threshold": p["threshold"], f"{key}_eps_s": row["eps_s"], f"{key}_eps_b": row["eps_b"]}
    return out


def targets_in(scalars: dict) -> list[str]:
    """The targets ('0.5', ...) whose thresholds `fold_scalars` stored."""
    return sorted({k[3:-len("_threshold")] for k in scalars if k.startswith("wp_") and k.endswith("_threshold")}, key=float)


def _significances(signal_yield: float, background_yield: float, eps_s: np.ndarray, eps_b: np.ndarray) -> dict:
    """Purity, S/sqrt(S+B) and Asimov of cuts with efficiencies (eps_s, eps_b), S and B the yields
    times the efficiencies; NaN where a cut selects nothing (Asimov: no background)."""
    s, b = signal_yield * np.asarray(eps_s, float), background_yield * np.asarray(eps_b, float)
    # the same operations as np.where(s + b > 0, s / (s + b), nan) and s / sqrt(s + b), with s + b made once
    total = s + b
    empty = ~(total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        purity = np.divide(s, total)
        purity[empty] = np.nan
        root = np.sqrt(total, out=total)
        significance = np.divide(s, root, out=root)
        significance[empty] = np.nan
        return {"purity": purity, "s_over_sqrt_s_plus_b": significance, "asimov": hep.asimov(s, b)}


CUT_SCAN_MIN_EVENTS = 10.0  # --cut-scan-min-events: optima only where the passing background has N_eff >= this


def passing_background_events(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
                              thresholds: np.ndarray, curve: BinaryCurve | None = None) -> np.ndarray:  # fmt: skip
    """N_eff = (sum w)^2 / sum w^2 of the background events with score >= t, for each t. `curve`: the
    events' ROC (roc.binary_clf_curve of the same scores, flags and weights) when `thresholds` are its
    thresholds[1:]: its fps are the passing background's sum w (the same cumulative sums, added in
    the same order), and only the sums of w^2 are made (one sort of the background instead of two)."""
    bkg = ~np.asarray(is_signal, bool)
    scores, w = gather(bkg, scores, np.asarray(weights, float))  # arrays[bkg] (C++ compress)
    queries = np.asarray(thresholds, float)
    reuse = curve is not None and curve.fps.size == queries.size + 1
    if scores.size:  # the cumulative sums by decreasing score: the ROC kernel's sort and sweep of the background alone
        ranked, sw2 = background_sums(scores, w * w)
        sw = None if reuse else background_sums(scores, w)[1]
        k = (pairsweeps.last_at_least(ranked, queries) if np.all(queries[1:] <= queries[:-1]) and queries[:1] <= ranked[:1]
             else np.searchsorted(-ranked, -queries, side="right") - 1)  # fmt: skip
    else:
        sw, sw2, k = np.zeros(1), np.zeros(1), np.zeros(queries.size, dtype=np.int64)
    del scores, w
    passing = curve.fps[1:] if reuse and sw is None else sw[k]
    sw2 = sw2[k]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sw2 > 0, passing**2 / np.where(sw2 > 0, sw2, 1.0), 0.0)


def background_sums(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct scores, decreasing (+inf first), and the cumulative weight of the events at or above
    each, added event by event in the order of a stable sort by decreasing score (zero weights left
    out, which add nothing): np.cumsum over np.argsort(-scores, kind="stable"), at each distinct score."""
    s = np.ascontiguousarray(scores if np.asarray(scores).dtype == np.float32 else np.asarray(scores, dtype=np.float64))
    w, n = np.ascontiguousarray(weights, dtype=np.float64), s.size
    tps, fps, thr, auc = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(1)
    core = kernels()
    kernel = core.roc_curve_f32 if s.dtype == np.float32 else core.roc_curve_f64
    m = int(kernel(s, w, np.zeros(n, dtype=np.uint8), n, tps, fps, thr, auc))  # every event background: fps = cumsum
    return thr[:m], fps[:m]


def cut_scan(curve: BinaryCurve, signal_yield: float, background_yield: float, background_events: np.ndarray | None = None,
             min_events: float = CUT_SCAN_MIN_EVENTS) -> dict:  # fmt: skip
    """eps_s, eps_b, purity and the significances S/sqrt(S+B) and Asimov of every cut s >= t of
    `curve` (point 0, which selects nothing, dropped), with S, B = the yields times the
    efficiencies; the maximum of each significance (NaN-free cuts only) over the cuts whose
    passing background has N_eff >= `min_events` (`background_events`: passing_background_events
    at curve.thresholds[1:]; None: no constraint), and the unconstrained maximum beside it."""
    t, eps_s, eps_b = curve.thresholds[1:], curve.tpr[1:], curve.fpr[1:]
    figures = _significances(signal_yield, background_yield, eps_s, eps_b)
    scan = {"threshold": t, "eps_s": eps_s, "eps_b": eps_b, **figures}
    allowed = np.ones(t.size, bool) if background_events is None else np.asarray(background_events) >= min_events
    best, free = {}, {}
    for name in ("s_over_sqrt_s_plus_b", "asimov"):
        free[name] = hep.best_cut(figures[name], t, eps_s, eps_b, purity=figures["purity"])
        best[name] = hep.best_cut(np.where(allowed, figures[name], np.nan), t, eps_s, eps_b, purity=figures["purity"])
    out = {"scan": scan, "optimum": best, "signal_yield": signal_yield, "background_yield": background_yield}
    if background_events is not None:
        scan["background_n_eff"] = np.asarray(background_events, float)
        out |= {"optimum_unconstrained": free, "constraint": {
            "min_background_n_eff": float(min_events), "cuts_allowed": int(allowed.sum()),
            "rule": "optima only over cuts whose passing background has N_eff = (sum w)^2/sum w^2 >= the minimum "
                    "(--cut-scan-min-events); tighter cuts are statistically empty"}}  # fmt: skip
    return out


SCAN_GRID = np.round(np.linspace(0.0, 1.0, 101), 10)  # the cuts tabulated in the report


def scan_report(scan: dict, curve: BinaryCurve, yields_kind: str) -> dict:
    """The report's `cut_scan`: the scan at the cuts SCAN_GRID (0, 0.01, ..., 1; efficiencies of
    s >= cut), the optima over every cut of the sample, and what the yields are."""
    k = np.searchsorted(-curve.thresholds, -SCAN_GRID, side="right") - 1  # hep.at_threshold at every cut, one pass
    rows = {"cut": SCAN_GRID, "eps_s": [float(v) for v in curve.tpr[k]], "eps_b": [float(v) for v in curve.fpr[k]]}
    rows |= _significances(scan["signal_yield"], scan["background_yield"], rows["eps_s"], rows["eps_b"])
    return {"split": "test", "selection": SELECTION, "yields": yields_kind, "signal_yield": scan["signal_yield"],
            "background_yield": scan["background_yield"], "optimum": scan["optimum"], "grid": rows,
            **{k: scan[k] for k in ("constraint", "optimum_unconstrained") if k in scan}}  # fmt: skip
