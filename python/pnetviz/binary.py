"""visualizeBinary: evaluate one binary model (signal vs one background) for one fold."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import draw, hep, hepsummary, plots
from .evaluate import THRESHOLD, SplitResult, evaluate_pair, yields
from .driver import FoldJob, RunOutput
from .folds import fold_curves
from .history import TrainingHistory, load_history
from .ntuple import Predictions, read_predictions
from .plots import CurveSpec, HistSpec
from .publish import publish
from .style import color


@dataclass(frozen=True, kw_only=True)
class BinaryJob(FoldJob):
    """One fold of a binary model: signal vs `background`."""

    background: str
    compare_subset: str | None = None

    @property
    def labels(self) -> tuple[str, str]:
        return (self.signal, self.background)


def evaluate_splits(job: BinaryJob, preds: Predictions, keep: np.ndarray | None, what: str) -> dict[str, SplitResult]:
    return evaluate_pair(preds.path, preds.scores["signal"], preds.label == 0, preds.weight, preds.masks, keep,
                         what, job.labels, job.hep.weight_mode)  # fmt: skip


def context_lines(job: BinaryJob) -> list[str]:
    lines = [f"{job.signal} vs {job.background}", f"{job.channel}" + ("" if job.fold is None else f", fold {job.fold}")]
    if job.subset:
        lines.append(f"subset: {job.subset}")
    return lines


def hull_overlay(key: str, result: SplitResult, metrics: dict) -> tuple:
    """(key, hull fpr, hull tpr, optimum) of the test split for roc_figure(hull=...)."""
    hull = hep.convex_hull(result.curve)
    best = metrics["optimal_operating_point"]
    return key, hull.fpr, hull.tpr, (best["eps_b"], best["eps_s"])


def build_figures(job: BinaryJob, results: dict[str, SplitResult], history: TrainingHistory | None,
                  comparison: dict[str, SplitResult] | None, metrics: dict) -> list[draw.Figure]:  # fmt: skip
    ctx = context_lines(job)
    if job.hep.weight_mode != "abs":
        ctx.append(f"weights: {job.hep.weight_mode}")
    sig, bkg = color("signal"), color("background")
    roc = [CurveSpec(f"roc/{s}", r.curve.fpr, r.curve.tpr, f"{s.capitalize()} (AUC = {r.curve.auc:.4f})", sig,
                     plots.split_style(s)) for s, r in results.items()]  # fmt: skip
    pr = []
    for s, r in results.items():
        curve = r.pr  # derived here, once
        pr.append(CurveSpec(f"pr/{s}", curve.recall, curve.precision, f"{s.capitalize()} (AP = {r.average_precision:.4f})",
                            sig, plots.split_style(s)))  # fmt: skip
    hists = []
    for s, r in results.items():
        hists.append(HistSpec(f"scores/{s}_signal", r.hist_signal, f"{job.signal} ({s})", sig, s == "test"))
        hists.append(HistSpec(f"scores/{s}_background", r.hist_background, f"{job.background} ({s})", bkg, s == "test"))
    hull = hull_overlay("roc/test", results["test"], metrics["test"]) if job.hull else None
    figs = [
        plots.roc_figure("roc_curve", roc, ctx, hull=hull),
        plots.rejection_figure("rejection_curve", plots.rejection_specs("rejection", results), ctx),
        plots.pr_figure("precision_recall_curve", pr, ctx),
        plots.score_figure("score_distributions", hists, "P(signal)", ctx, hepsummary.ks_lines(metrics)),
        plots.confusion_figure("confusion_matrix", results["test"].confusion, ctx[:2]),
    ]
    if history is not None:
        figs += plots.training_figures(history, ctx[:2])
    if comparison is not None:
        figs += comparison_figures(job, results["test"], comparison["test"], ctx)
    return figs


def comparison_figures(job: BinaryJob, all_events: SplitResult, subset: SplitResult, ctx: list[str]) -> list[draw.Figure]:
    """All test events vs the --compare-subset events: ROC and score distributions."""
    name = job.compare_subset
    base, other = color("signal"), plots.cycle_color(2)
    curves = [
        CurveSpec("compare/roc_all", all_events.curve.fpr, all_events.curve.tpr, f"All events (AUC = {all_events.curve.auc:.4f})", base),
        CurveSpec(f"compare/roc_{name}", subset.curve.fpr, subset.curve.tpr, f"{name} (AUC = {subset.curve.auc:.4f})", other),
    ]  # fmt: skip
    hists = [
        HistSpec("compare/scores_all_signal", all_events.hist_signal, f"{job.signal}, all", color("signal"), False),
        HistSpec("compare/scores_all_background", all_events.hist_background, f"{job.background}, all", color("background"), False),
        HistSpec(f"compare/scores_{name}_signal", subset.hist_signal, f"{job.signal}, {name}", color("signal"), True),
        HistSpec(f"compare/scores_{name}_background", subset.hist_background, f"{job.background}, {name}", color("background"), True),
    ]  # fmt: skip
    return [
        plots.roc_figure(f"roc_curve_{name}_comparison", curves, [*ctx, "test events"]),
        plots.score_figure(f"score_distributions_{name}_comparison", hists, "P(signal)", [*ctx, "test events"]),
    ]


def confusion_report(result: SplitResult) -> dict:
    c = result.confusion
    return {"labels": list(c.labels), "threshold": THRESHOLD, "counts": c.counts, "weighted": c.weighted,
            "normalised": c.normalised}  # fmt: skip


def split_report(job: BinaryJob, results: dict[str, SplitResult]) -> dict:
    per_split = {}
    for split, r in results.items():
        s = r.sample
        per_split[split] = {job.signal: yields(s.weights[s.is_signal]), job.background: yields(s.weights[~s.is_signal])}
    return {
        "events": {sp: {c: v["events"] for c, v in d.items()} for sp, d in per_split.items()},
        "sum_weights": {sp: {c: v["sum_weights"] for c, v in d.items()} for sp, d in per_split.items()},
        "yields": per_split,
    }


def build_report(job: BinaryJob, preds: Predictions, results: dict[str, SplitResult], history: TrainingHistory | None,
                 comparison: dict[str, SplitResult] | None, notes: list[str], metrics: dict) -> dict:  # fmt: skip
    keep = preds.subsets[job.subset] if job.subset else np.ones(preds.n_events, bool)
    report = {
        "kind": "binary",
        "signal": job.signal,
        "background": job.background,
        "channel": job.channel,
        "fold": job.fold,
        "input": str(preds.path),
        "history": str(history.path) if history else None,
        "subset": job.subset,
        "events_used": f"all events of the ntuple{f' with {job.subset} true' if job.subset else ''}, per split mask",
        "weight_mode": job.hep.weight_mode,
        "signal_scale": job.hep.signal_scale,
        **split_report(job, results),
        "negative_weight_fraction": {
            name: yields(preds.weight[keep & (preds.label == i)])["negative_weight_fraction"]
            for i, name in enumerate(job.labels)
        },
        "auc": {s: r.curve.auc for s, r in results.items()},
        "average_precision": {s: r.average_precision for s, r in results.items()},
        "confusion_matrix": {s: confusion_report(r) for s, r in results.items()},
        "hep_metrics": metrics,
    }
    if comparison is not None:
        report["subset_comparison"] = {
            "branch": job.compare_subset,
            "auc": {s: r.curve.auc for s, r in comparison.items()},
            **split_report(job, comparison),
        }
    if history is not None:
        report["training"] = history.summary
    report["notes"] = notes
    return report


def run(job: BinaryJob) -> RunOutput:
    """Evaluate, draw and write every output of one fold; returns the files and fold curves."""
    subsets = [b for b in (job.subset, job.compare_subset) if b]
    preds = read_predictions(job.predictions, classes=job.labels, score_classes=("signal",), tree=job.tree,
                             subsets=list(dict.fromkeys(subsets)), progress=job.progress)  # fmt: skip
    keep = preds.subsets[job.subset] if job.subset else None
    results = evaluate_splits(job, preds, keep, "all" if keep is None else job.subset)
    comparison = None
    if job.compare_subset:
        both = preds.subsets[job.compare_subset] if keep is None else keep & preds.subsets[job.compare_subset]
        comparison = evaluate_splits(job, preds, both, job.compare_subset)
    notes = []
    history = load_history(job.history) if job.history else None
    if history is None:
        notes.append("no training history file found: training_curves and training_metrics skipped")
    elif "epoch_time" not in history.columns and "memory_mb" not in history.columns:
        notes.append("history has no epoch_time/memory_mb: training_metrics skipped")
    metrics = hepsummary.pair_metrics(results, job.hep)
    report = build_report(job, preds, results, history, comparison, notes, metrics)
    written = publish(job.output, job.formats, job.style,
                      lambda: build_figures(job, results, history, comparison, metrics), report,
                      f"pnetviz binary evaluation: {job.signal} vs {job.background}")  # fmt: skip
    curves = {s: fold_curves(job.fold, r, metrics[s]) for s, r in results.items()}
    return RunOutput(written, {f"{job.signal} vs {job.background}": ("", curves)})
