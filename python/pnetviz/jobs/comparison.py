"""visualizeComparison: binary models vs the multi-class model's likelihood ratio, per background.

For background i, the binary model's test events (signal + bkg_i) are compared with the
multi-class test events with true_label in {0, i}, scored with P(s)/(P(s)+P(bkg_i)+1e-10).
The AUC difference gets a paired-bootstrap error when both ntuples hold the same events
(matched by `event_id`), otherwise independent bootstrap errors (and the report says so).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.metrics import hep, pairmetrics, weightedlr
from pnetviz.jobs import compareobservers, multiweighted, observers
from pnetviz.jobs.driver import RunOutput
from pnetviz.errors import PnetvizWarning
from pnetviz.metrics.evaluate import lr_score
from pnetviz.jobs.multiclass import check_lr
from pnetviz.metrics.folds import (EFF_GRID, FPR_GRID, RATIO_CONVENTION, eps_b_error_on_grid, eps_b_on_grid, grid_sums, rejection_ratio,
                                  roc_ratio, tpr_error_on_grid, tpr_on_grid)
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.io.ntuple import Predictions, read_predictions
from pnetviz.draw.plots import CurveSpec
from pnetviz.draw.ratiopanel import READ_FROM_EPS_S
from pnetviz.output import imageset
from pnetviz.output.publish import write_set
from pnetviz.metrics.roc import BinaryCurve, binary_clf_curve
from pnetviz.draw.style import StyleOptions, line_style, meaning_color
from pnetviz.names import name as quantity
from pnetviz.io.trainer import channel_label, display_label, pairing, signal_label
from pnetviz.metrics.rounding import pm

SPLIT = "test"


@dataclass(frozen=True)
class ComparisonJob:
    signal: str
    classes: tuple[str, ...]  # multi-class class (branch) names, signal first
    pairs: dict[str, str]  # binary background -> the multi-class class it is compared with
    channel: str
    fold: int | None
    binary_files: dict[str, Path]
    multiclass_file: Path
    output: Path
    binary_models: dict[str, str | None] = field(default_factory=dict)
    multiclass_model: str | None = None
    groups: dict[str, list[str]] = field(default_factory=dict)  # multi-class group -> samples (trainer's JSON)
    labels: dict[str, str] = field(default_factory=dict)  # class -> plot label
    formats: tuple[str, ...] = ("png", "pdf")
    images: str = "all"  # output.imageset: which figures get images (site: the web report's)
    tree: str = "Events"
    columns: tuple[tuple[str, str], ...] = ()  # --column/--columns: contract column -> branch or expression
    style: StyleOptions = StyleOptions()
    hep: HepOptions = HepOptions()
    subset: str | None = None  # only events where this boolean branch is true, in both ntuples
    hull: bool = False  # draw both models' convex hulls on the ROC comparison
    progress: bool = False  # progress bar while reading large files
    observe: tuple[str, ...] = ()  # --observe: observer branches, both models of every pair (jobs.compareobservers)
    score: str = "lr"  # --score weighted-lr: the binary models also against the weighted LR (weighted_pair)


@dataclass(frozen=True)
class Side:
    """One model's test events for one pair."""

    scores: np.ndarray
    is_signal: np.ndarray
    weights: np.ndarray  # signed
    used: np.ndarray  # after the weight mode
    ids: np.ndarray | None

    def curve(self) -> BinaryCurve:
        return binary_clf_curve(self.scores, self.is_signal, self.used)

    def banded(self, curve: BinaryCurve) -> Banded:
        """`curve` (this side's) with the ratio-of-sums errors of its efficiencies on the ratio
        panels' grids (kept instead of the weighted sums: two short arrays a curve)."""
        sums = grid_sums(curve, self.scores, self.is_signal, self.used)
        return Banded(curve, tpr_error_on_grid(curve, sums, FPR_GRID), eps_b_error_on_grid(curve, sums, EFF_GRID))


def make_side(scores: np.ndarray, is_signal: np.ndarray, preds: Predictions, sel: np.ndarray, mode: str) -> Side:
    w = preds.weight[sel]
    ids = preds.event_id[sel] if preds.event_id is not None else None
    return Side(scores[sel], is_signal[sel], w, hep.mode_weights(w, mode), ids)


def comparability(binary: Side, multi: Side, binary_names: tuple[str, str], multi_names: tuple[str, str]) -> dict:
    """Event counts and signed weight sums per class on both sides, each keyed by its own class
    names (binary `signal`/`ttZ`, multi-class `signal`/`ttX`); consistent if identical."""
    def summary(side: Side, names: tuple[str, str]) -> dict:
        return {names[0]: {"events": int(side.is_signal.sum()), "sum_weights": float(side.weights[side.is_signal].sum())},
                names[1]: {"events": int((~side.is_signal).sum()), "sum_weights": float(side.weights[~side.is_signal].sum())}}  # fmt: skip

    b, m = summary(binary, binary_names), summary(multi, multi_names)
    consistent = all(b[cb]["events"] == m[cm]["events"] and math.isclose(b[cb]["sum_weights"], m[cm]["sum_weights"],
                                                                        rel_tol=1e-9, abs_tol=1e-12)
                     for cb, cm in zip(binary_names, multi_names, strict=True))  # fmt: skip
    return {"binary": b, "multiclass": m, "consistent": consistent}


def align(binary: Side, multi: Side) -> tuple[np.ndarray, np.ndarray] | None:
    """Index arrays putting both sides in the same event order, if they hold the same events."""
    if binary.ids is None or multi.ids is None or binary.ids.size != multi.ids.size:
        return None
    ib, im = np.argsort(binary.ids, kind="stable"), np.argsort(multi.ids, kind="stable")
    same = np.array_equal(binary.ids[ib], multi.ids[im]) and np.unique(binary.ids).size == binary.ids.size
    return (ib, im) if same and np.array_equal(binary.is_signal[ib], multi.is_signal[im]) else None


def auc_difference(binary: Side, multi: Side, cb: BinaryCurve, cm: BinaryCurve, opts: HepOptions) -> dict:
    """AUC(multi-class) - AUC(binary), the one sign convention of pnetviz (the campaign's maps and
    tables too), with its bootstrap error: paired if the events are the same.
    Each model's own AUC error is the one of its report (the same bootstrap, pairmetrics.auc_error);
    the paired bootstrap serves the difference only."""
    diff = cm.auc - cb.auc
    pairing = align(binary, multi)
    if opts.bootstrap <= 1:
        errors = {"binary": math.nan, "multiclass": math.nan}
        error, method = math.nan, "no bootstrap (--bootstrap 0)"
    else:
        errors = {"binary": pairmetrics.auc_error(binary, opts, SPLIT), "multiclass": pairmetrics.auc_error(multi, opts, SPLIT)}
        if pairing is not None:
            ib, im = pairing
            a, b = hep.paired_bootstrap(binary.scores[ib], multi.scores[im], binary.is_signal[ib], binary.used[ib],
                                        multi.used[im], opts.bootstrap, opts.seed)  # fmt: skip
            error, method = float(np.std(a - b, ddof=1)), "paired Poisson bootstrap (same events, matched by event_id)"
        elif (shared := pairmetrics.shared_events(binary.ids, binary.is_signal, multi.ids, multi.is_signal)) > 0:
            # binary ttZ against the multi-class class ttX (ttZ and ttW): the shared events paired
            a, b = pairmetrics.shared_event_bootstrap(binary.scores, binary.is_signal, binary.used, binary.ids, multi.scores,
                                                      multi.is_signal, multi.used, multi.ids, opts.bootstrap, opts.seed)  # fmt: skip
            error = float(np.std(a - b, ddof=1))
            method = f"paired Poisson bootstrap over the {shared} events both hold (matched by event_id), the others independent"
        else:
            error = math.hypot(errors["binary"], errors["multiclass"])
            method = "independent bootstraps (the two ntuples do not hold the same events)"
    return {
        "auc": {"binary": {"value": cb.auc, "error": errors["binary"]},
                "multiclass": {"value": cm.auc, "error": errors["multiclass"]}},  # fmt: skip
        "difference": {"multiclass_minus_binary": diff, "error": error,
                       "significance": diff / error if error and error > 0 else math.nan, "method": method},  # fmt: skip
    }


def rejection_05(binary: Side, multi: Side, cb: BinaryCurve, cm: BinaryCurve) -> dict:
    """Rejection at eps_s = 0.5 of both models, never missing: 1/eps_b, or a lower limit where no
    background passes (hep.REJECTION_LIMIT_RULE)."""
    out = {"rejection_0.5": {}, "rejection_0.5_lower_limit": {}}
    for name, side, curve in (("binary", binary, cb), ("multiclass", multi, cm)):
        value, limit = hep.rejection_value(hep.background_efficiency_at(curve, 0.5),
                                           hep.effective_events(side.used[~side.is_signal]))  # fmt: skip
        out["rejection_0.5"][name], out["rejection_0.5_lower_limit"][name] = value, limit
    return out


def dominance(cb: BinaryCurve, cm: BinaryCurve) -> dict:
    """Is one ROC above the other everywhere (on FPR_GRID, endpoints excluded), or where do they cross?"""
    grid = FPR_GRID[(FPR_GRID > 0) & (FPR_GRID < 1)]
    d = tpr_on_grid(cb, grid) - tpr_on_grid(cm, grid)
    above, below = d > 1e-12, d < -1e-12
    if not above.any() and not below.any():
        verdict = "identical"
    elif not below.any():
        verdict = "binary dominates"
    elif not above.any():
        verdict = "multiclass dominates"
    else:
        verdict = "curves cross"
    sign = np.sign(np.where(np.abs(d) > 1e-12, d, 0.0))
    nz = np.flatnonzero(sign)
    flips = nz[1:][sign[nz[1:]] != sign[nz[:-1]]]
    return {"verdict": verdict, "crossings_fpr": grid[flips][:20].tolist(),
            "fraction_binary_above": float(above.mean()), "fraction_multiclass_above": float(below.mean())}  # fmt: skip


def pairing_note(job: ComparisonJob, background: str) -> str:
    """How the binary background was paired with its multi-class class, for the report."""
    target = job.pairs[background]
    if target.lower() == background.lower():
        return f"binary {background} model vs multi-class class {target} (same name)"
    how = "set by --pair"
    if pairing(background, (job.classes[0], target), job.groups) == target:
        how = f"the multi-class group holding {background}: {', '.join(job.groups.get(target, []))}"
    return f"binary {background} model vs multi-class class {target} ({how}); the multi-class class holds more events"


def compare_pair(job: ComparisonJob, background: str, mc: Predictions,
                 weights: weightedlr.Weights | None = None) -> tuple[dict, Banded, Banded]:  # fmt: skip
    target = job.pairs[background]
    index = job.classes.index(target)
    binary = read_predictions(job.binary_files[background], classes=(job.classes[0], background),
                              score_classes=(job.classes[0],), tree=job.tree, columns=job.columns, progress=job.progress,
                              with_event_id=True, subsets=[job.subset] if job.subset else [], observe=job.observe)  # fmt: skip
    mode = job.hep.weight_mode
    keep_b = binary.masks[SPLIT] & (binary.subsets[job.subset] if job.subset else True)
    side_b = make_side(binary.scores[job.classes[0]], binary.label == 0, binary, keep_b, mode)
    lr = lr_score(mc.scores[job.classes[0]], mc.scores[target])
    sel = mc.masks[SPLIT] & np.isin(mc.label, (0, index)) & (mc.subsets[job.subset] if job.subset else True)
    check_lr(mc, lr[sel], np.flatnonzero(sel), target)
    side_m = make_side(lr, mc.label == 0, mc, sel, mode)
    cb, cm = side_b.curve(), side_m.curve()
    check = comparability(side_b, side_m, ("signal", background), (job.classes[0], target))
    if not check["consistent"]:
        warnings.warn(f"{background}: binary and multi-class test events differ: binary {check['binary']}, "
                      f"multi-class {check['multiclass']}", PnetvizWarning, stacklevel=2)  # fmt: skip
    n_eff = {name: {"signal": hep.effective_events(side.used[side.is_signal]),
                    "background": hep.effective_events(side.used[~side.is_signal])}
             for name, side in (("binary", side_b), ("multiclass", side_m))}  # fmt: skip
    result = {
        "multiclass_class": target,
        "pairing": pairing_note(job, background),
        "effective_events": n_eff,
        "binary_input": str(binary.path),
        "binary_model": job.binary_models.get(background),
        **auc_difference(side_b, side_m, cb, cm, job.hep),
        **rejection_05(side_b, side_m, cb, cm),
        "dominance": dominance(cb, cm),
        "comparability": check,
        # for the fold summary's mean curves (fold_results.json only, not the fold's report)
        FOLD_CURVES: {name: {"tpr": tpr_on_grid(c, FPR_GRID), "eps_b": np.maximum(eps_b_on_grid(c, EFF_GRID), 0.0),
                             "background_events": n_eff[name]["background"], "auc": c.auc}
                      for name, c in (("binary", cb), ("multiclass", cm))},  # fmt: skip
        **compareobservers.pair_observers(job, binary, keep_b, mc, lr, sel),
        **(weighted_pair(job, mc, sel, side_b, cb, weights) if weights else {}),
    }
    return result, side_b.banded(cb), side_m.banded(cm)


@dataclass(frozen=True)
class Banded:
    """A model's curve of one pair with the ratio-of-sums errors of its signal efficiency on
    FPR_GRID and its background efficiency on EFF_GRID (the bands of the ratio panels)."""

    curve: BinaryCurve
    tpr_error: np.ndarray
    eps_b_error: np.ndarray


WEIGHTED, WEIGHTED_CURVE = weightedlr.NAME, "weighted_lr_curve"  # the latter popped by run (a curve, not JSON)


def weighted_pair(job: ComparisonJob, mc: Predictions, sel: np.ndarray, side_b: Side, cb: BinaryCurve,
                  weights: weightedlr.Weights) -> dict:  # fmt: skip
    """--score weighted-lr: the binary model against the multi-class weighted LR on the same
    multi-class events as the pairwise LR (AUC difference, rejection, dominance), with the weights."""
    score = weightedlr.score(mc.scores[job.classes[0]], [mc.scores[c] for c in weights.weights], weights.vector)
    multiweighted.check_scores(mc.path, score[sel], np.flatnonzero(sel))
    side_w = make_side(score, mc.label == 0, mc, sel, job.hep.weight_mode)
    cw = side_w.curve()
    n_eff = {name: {"signal": hep.effective_events(side.used[side.is_signal]),
                    "background": hep.effective_events(side.used[~side.is_signal])}
             for name, side in (("binary", side_b), ("multiclass", side_w))}  # fmt: skip
    section = {**weights.report(job.hep.weight_mode), "effective_events": n_eff, **auc_difference(side_b, side_w, cb, cw, job.hep),
               **rejection_05(side_b, side_w, cb, cw), "dominance": dominance(cb, cw)}  # fmt: skip
    return {WEIGHTED: section, WEIGHTED_CURVE: side_w.banded(cw)}


FOLD_CURVES = "fold_curves"


DOMINANCE_TEXT = {  # the dominance verdict as a line for a plot
    "identical": "ROC curves identical",
    "binary dominates": "binary ROC above everywhere",
    "multiclass dominates": "multi-class ROC above everywhere",
    "curves cross": "ROC curves cross (neither dominates)",
}


def pair_figures(job: ComparisonJob, background: str, result: dict, binary_side: Banded, multi_side: Banded,
                 weights_line: str | None = None) -> list[canvas.Figure]:  # fmt: skip
    """The rejection and ROC comparisons of one pair; with `weights_line` those of the weighted LR
    (weighted_lr_signal_vs_<bkg>_*, the line among the context). Ratio bands: each curve's
    ratio-of-sums error (RATIO_CONVENTION)."""
    cb, cm = binary_side.curve, multi_side.curve
    tag = f"{WEIGHTED}_signal_vs_{background}" if weights_line else f"signal_vs_{background}"
    auc = result["auc"]
    ctx = [*pair_context(job, background), *([weights_line] if weights_line else [])]

    def label(name: str, key: str) -> str:
        err = auc[key]["error"]
        return f"{name}: AUC {pm(auc[key]['value'], err, 'tlatex', '.3f')}"  # PDG rounding (metrics.rounding)

    # binary and multi-class by colour and line style (style.ENCODINGS), never by colour alone
    (bc, bl), (mc, ml) = ((meaning_color(k), line_style(k)) for k in ("binary", "multiclass"))
    multi = quantity("multiclass") + (", weighted LR" if weights_line else "")
    roc = [CurveSpec(f"{tag}/roc_binary", cb.fpr, cb.tpr, label(quantity("binary"), "binary"), bc, bl),
           CurveSpec(f"{tag}/roc_multiclass", cm.fpr, cm.tpr, label(multi, "multiclass"), mc, ml)]  # fmt: skip
    ok_b, ok_m = cb.fpr > 0, cm.fpr > 0
    rej = [CurveSpec(f"{tag}/rejection_binary", cb.tpr[ok_b], 1 / cb.fpr[ok_b], quantity("binary"), bc, bl),
           CurveSpec(f"{tag}/rejection_multiclass", cm.tpr[ok_m], 1 / cm.fpr[ok_m], multi, mc, ml)]  # fmt: skip
    d = result["difference"]
    paired = "paired" if d["method"].startswith("paired") else "unpaired"  # the error's bootstrap (auc_difference)
    diff_line = (f"#DeltaAUC (multi-class #minus binary): {d['multiclass_minus_binary']:+.3f}"
                 + (f" #pm {d['error']:.3f} ({paired})" if d["error"] == d["error"] else ""))  # fmt: skip
    roc_panel = plots.RatioPanel("binary", [
        plots.RatioSpec(f"{tag}/roc_ratio_binary", roc_ratio(cb, cb, binary_side.tpr_error), bc, bl, True),
        plots.RatioSpec(f"{tag}/roc_ratio_multiclass", roc_ratio(cm, cb, multi_side.tpr_error), mc, ml)])
    rejection_panel = plots.RatioPanel("binary", [
        plots.RatioSpec(f"{tag}/rejection_ratio_binary", rejection_ratio(cb, cb, binary_side.eps_b_error), bc, bl, True),
        plots.RatioSpec(f"{tag}/rejection_ratio_multiclass", rejection_ratio(cm, cb, multi_side.eps_b_error), mc, ml)],
        (READ_FROM_EPS_S, 1.0))  # fmt: skip
    return [  # the HEP view (rejection vs efficiency, log y) first: the default comparison; the linear ROC kept
        plots.rejection_figure(f"{tag}_rejection_comparison", rej, ctx, ratio=rejection_panel),
        plots.roc_figure(f"{tag}_roc_comparison", roc, [*ctx, diff_line, DOMINANCE_TEXT[result["dominance"]["verdict"]]],
                         hull=hulls(tag, cb, cm) if job.hull else None, ratio=roc_panel),
    ]


def pair_context(job: ComparisonJob, background: str) -> list[str]:
    """The context lines of a pair's figures: signal, the pair, channel, fold, split (and subset)."""
    b_label = job.labels.get(background) or display_label(background, {})
    m_label = job.labels.get(job.pairs[background]) or display_label(job.pairs[background], {})
    vs = b_label if b_label == m_label else f"{b_label} / {m_label}"  # binary background / multi-class class
    where = ", ".join(t for t in (f"vs {vs}", channel_label(job.channel), "" if job.fold is None else f"fold {job.fold}", "test") if t)
    return [signal_label(job.signal), where, *([f"subset: {job.subset}"] if job.subset else [])]


def hulls(tag: str, cb: BinaryCurve, cm: BinaryCurve) -> list[tuple]:
    """roc_figure hull overlays: each model's test convex hull (no single optimum for two models)."""
    out = []
    for key, curve, name in ((f"{tag}/roc_binary", cb, quantity("binary")), (f"{tag}/roc_multiclass", cm, quantity("multiclass"))):
        h = hep.convex_hull(curve)
        out.append((key, h.fpr, h.tpr, None, f"{name} convex hull"))
    return out


def run(job: ComparisonJob) -> RunOutput:
    mc = read_predictions(job.multiclass_file, classes=job.classes, tree=job.tree, columns=job.columns, progress=job.progress,
                          with_event_id=True, subsets=[job.subset] if job.subset else [], observe=job.observe)  # fmt: skip
    weights = None
    if job.score == "weighted-lr":  # the weights from the multi-class ntuple's class totals, or --expected-yields
        used = hep.mode_weights(mc.weight, job.hep.weight_mode)
        totals = weightedlr.class_totals(job.classes, mc.label, used, mc.subsets[job.subset] if job.subset else None)
        weights = weightedlr.resolve(job.classes[1:], job.hep.expected_yields, totals, str(mc.path))
    pairs, curves = {}, {}
    for background in job.pairs:
        pairs[background], cb, cm = compare_pair(job, background, mc, weights)
        curves[background] = (cb, cm)
    weighted = {b: p.pop(WEIGHTED_CURVE) for b, p in pairs.items() if WEIGHTED_CURVE in p}
    line = weights.line({c: job.labels.get(c) or display_label(c, {}) for c in job.classes[1:]}) if weights else None
    observed = compareobservers.take(pairs)
    report = {
        "kind": "comparison",
        "signal": job.signal,
        "channel": job.channel,
        "fold": job.fold,
        "split": SPLIT,
        "multiclass_input": str(job.multiclass_file),
        "multiclass_model": job.multiclass_model,
        "classes": list(job.classes),
        "pairs_compared": {b: c for b, c in job.pairs.items()},
        "weight_mode": job.hep.weight_mode,
        "signal_scale": job.hep.signal_scale,
        "subset": job.subset,
        "bootstrap_replicas": job.hep.bootstrap,
        "selection": "binary: all test events of its ntuple; multi-class: test events with true_label in {0, i}, "
                     "score P(s)/(P(s)+P(bkg_i)+1e-10)",
        "ratio_panels": RATIO_CONVENTION + "; here the ratio-of-sums error of each side's own test events",
        "pairs": {b: {k: v for k, v in p.items() if k != FOLD_CURVES} for b, p in pairs.items()},
    }
    for b, (section, _) in observed.items():
        report["pairs"][b]["observers"] = {"doc": observers.DOC, **section}

    def figures() -> list[canvas.Figure]:
        return [*(fig for b, (sb, sm) in curves.items() for fig in pair_figures(job, b, pairs[b], sb, sm)),
                *(fig for b, cw in weighted.items() for fig in pair_figures(job, b, pairs[b][WEIGHTED], curves[b][0], cw, line)),
                *compareobservers.figures(observed, {b: pair_context(job, b) for b in observed}, job.labels)]

    written = write_set(job.output, job.formats, job.style, figures, report,
                      ", ".join(t for t in (f"pnetviz binary vs multi-class comparison: {job.signal}", job.channel,
                                            "" if job.fold is None else f"fold {job.fold}", job.multiclass_model or "") if t),
                        only=imageset.selection(job.images))  # fmt: skip
    return RunOutput(written, {}, extra={"pairs": pairs})
