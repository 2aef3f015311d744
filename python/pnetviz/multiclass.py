"""visualizeMultiClass: evaluate one multi-class model for one fold.

For each background i only events with true_label in {0, i} are kept and scored with the
likelihood ratio P(signal) / (P(signal) + P(bkg_i) + 1e-10) (spec sections 4 and 7), so the
AUCs are directly comparable with the binary models'. Per-class metrics use argmax.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import draw, hep, hepsummary, plots
from .evaluate import (
    SPLITS,
    Confusion,
    SplitResult,
    evaluate_pair,
    lr_score,
    row_normalise,
    score_histogram,
    weighted_confusion,
    yields,
)
from .driver import RunOutput
from .folds import fold_curves
from .hep import mode_weights
from .hepsummary import HepOptions
from .history import TrainingHistory, load_history
from .ntuple import Predictions, read_predictions
from .plots import CurveSpec, HistSpec
from .publish import publish
from .style import StyleOptions, color, cycle_color


@dataclass(frozen=True)
class MultiClassJob:
    signal: str
    classes: tuple[str, ...]
    channel: str
    fold: int | None
    predictions: Path
    history: Path | None
    output: Path
    formats: tuple[str, ...] = ("png", "pdf")
    tree: str = "Events"
    subset: str | None = None
    style: StyleOptions = StyleOptions()
    hep: HepOptions = HepOptions()
    progress: bool = False  # RDataFrame progress bar on large files
    hull: bool = False

    @property
    def display(self) -> tuple[str, ...]:
        """Class names for plots: the signal point's name for class 0."""
        return (self.signal, *self.classes[1:])


def file_tag(name: str) -> str:
    """Class name as used in output file names (the spec writes signal_vs_ttz_...)."""
    return name.lower()


@dataclass(frozen=True)
class ClassMetrics:
    """Weighted (|w|) argmax metrics of one split."""

    predicted: np.ndarray  # argmax class per event
    confusion: Confusion  # N x N
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray


def class_metrics(preds: Predictions, sel: np.ndarray, labels: tuple[str, ...], mode: str = "abs") -> ClassMetrics:
    """Argmax confusion matrix and per-class precision, recall, F1 (weights after the weight mode)."""
    n = len(preds.classes)
    stacked = np.stack([preds.scores[c][sel] for c in preds.classes], axis=1)
    predicted = np.argmax(stacked, axis=1)
    true, w = preds.label[sel], mode_weights(preds.weight[sel], mode)
    weighted = weighted_confusion(true, predicted, w, n)
    tp = np.diag(weighted)
    precision = np.divide(tp, weighted.sum(axis=0), out=np.zeros(n), where=weighted.sum(axis=0) != 0)
    recall = np.divide(tp, weighted.sum(axis=1), out=np.zeros(n), where=weighted.sum(axis=1) != 0)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros(n), where=denom != 0)
    counts = weighted_confusion(true, predicted, (w != 0).astype(float), n)
    confusion = Confusion(labels, counts, weighted, row_normalise(weighted))
    return ClassMetrics(predicted, confusion, precision, recall, f1)


def one_vs_rest(metrics: ClassMetrics, preds: Predictions, sel: np.ndarray, index: int, name: str,
                mode: str = "abs") -> Confusion:  # fmt: skip
    """2x2 confusion of class `index` against all others (argmax prediction); index 0 = the class."""
    true = np.where(preds.label[sel] == index, 0, 1)
    pred = np.where(metrics.predicted == index, 0, 1)
    w = mode_weights(preds.weight[sel], mode)
    weighted = weighted_confusion(true, pred, w, 2)
    counts = weighted_confusion(true, pred, (w != 0).astype(float), 2)
    return Confusion((name, "rest"), counts, weighted, row_normalise(weighted))


@dataclass(frozen=True)
class Evaluation:
    pairs: dict[str, dict[str, SplitResult]]  # background -> split -> result
    metrics: dict[str, ClassMetrics]  # split -> argmax metrics
    selections: dict[str, np.ndarray]  # split -> event mask (split & subset)
    hep: dict[str, dict]  # background -> hepsummary.pair_metrics
    one_vs_rest: dict[str, list[Confusion]]  # split -> per class
    class_masks: list[np.ndarray]  # true_label == k, computed once


def evaluate(job: MultiClassJob, preds: Predictions) -> Evaluation:
    keep = preds.subsets[job.subset] if job.subset else np.ones(preds.n_events, dtype=bool)
    pairs = {}
    for i, background in enumerate(job.classes[1:], start=1):
        in_pair = keep & np.isin(preds.label, (0, i))
        score = lr_score(preds.scores[job.classes[0]], preds.scores[background])
        what = f"signal vs {background}" + (f", {job.subset}" if job.subset else "")
        pairs[background] = evaluate_pair(preds.path, score, preds.label == 0, preds.weight, preds.masks, in_pair,
                                          what, (job.signal, background), job.hep.weight_mode)  # fmt: skip
    selections = {s: preds.masks[s] & keep for s in SPLITS}
    metrics = {s: class_metrics(preds, sel, job.display, job.hep.weight_mode) for s, sel in selections.items()}
    hep_metrics = {b: hepsummary.pair_metrics(results, job.hep) for b, results in pairs.items()}
    ovr = {s: [one_vs_rest(m, preds, selections[s], k, job.display[k], job.hep.weight_mode)
               for k in range(len(job.classes))] for s, m in metrics.items()}  # fmt: skip
    class_masks = [preds.label == k for k in range(len(job.classes))]
    return Evaluation(pairs=pairs, metrics=metrics, selections=selections, hep=hep_metrics, one_vs_rest=ovr,
                      class_masks=class_masks)  # fmt: skip


def context_lines(job: MultiClassJob) -> list[str]:
    lines = [f"{job.signal}, multi-class", f"{job.channel}" + ("" if job.fold is None else f", fold {job.fold}")]
    if job.subset:
        lines.append(f"subset: {job.subset}")
    return lines


def pair_figures(job: MultiClassJob, background: str, results: dict[str, SplitResult], ctx: list[str],
                 metrics: dict) -> list[draw.Figure]:  # fmt: skip
    tag = f"signal_vs_{file_tag(background)}"
    ctx = [f"{job.signal} vs {background} (LR)", *ctx[1:]]
    sig, bkg = color("signal"), color("background")
    roc = [CurveSpec(f"{tag}/roc_{s}", r.curve.fpr, r.curve.tpr, f"{s.capitalize()} (AUC = {r.curve.auc:.4f})", sig,
                     plots.split_style(s)) for s, r in results.items()]  # fmt: skip
    hists = []
    for s, r in results.items():
        hists.append(HistSpec(f"{tag}/scores_{s}_signal", r.hist_signal, f"{job.signal} ({s})", sig, s == "test"))
        hists.append(HistSpec(f"{tag}/scores_{s}_background", r.hist_background, f"{background} ({s})", bkg, s == "test"))
    xtitle = f"P(sig) / (P(sig) + P({background}))"
    hull = None
    if job.hull:
        h, best = hep.convex_hull(results["test"].curve), metrics["test"]["optimal_operating_point"]
        hull = (f"{tag}/roc_test", h.fpr, h.tpr, (best["eps_b"], best["eps_s"]))
    return [
        plots.roc_figure(f"{tag}_roc_curve", roc, ctx, hull=hull),
        plots.rejection_figure(f"{tag}_rejection_curve", plots.rejection_specs(f"{tag}/rejection", results), ctx),
        plots.score_figure(f"{tag}_lr_score_distribution", hists, xtitle, ctx, hepsummary.ks_lines(metrics)),
    ]


def class_score_figure(job: MultiClassJob, preds: Predictions, ev: Evaluation, index: int, ctx: list[str]) -> draw.Figure:
    """P(class) for all events, one histogram per true class; train lines, test points."""
    name = job.classes[index]
    hists = []
    for split in SPLITS:
        sel = ev.selections[split]
        for k, true_name in enumerate(job.display):
            in_class = sel & ev.class_masks[k]
            w = mode_weights(preds.weight[in_class], job.hep.weight_mode)
            h = score_histogram(f"p_{name}_{split}_{k}", preds.scores[name][in_class], w)
            label = f"{true_name} ({split})"
            hists.append(HistSpec(f"class_scores/{file_tag(name)}_{split}_true_{file_tag(job.classes[k])}", h, label,
                                  cycle_color(k), split == "test"))  # fmt: skip
    return plots.score_figure(f"{file_tag(name)}_score_distribution", hists, f"P({job.display[index]})", ctx)


def build_figures(job: MultiClassJob, preds: Predictions, ev: Evaluation, history: TrainingHistory | None) -> list[draw.Figure]:
    ctx = context_lines(job)
    if job.hep.weight_mode != "abs":
        ctx.append(f"weights: {job.hep.weight_mode}")
    figs = []
    for background, results in ev.pairs.items():
        figs += pair_figures(job, background, results, ctx, ev.hep[background])
    test = ev.metrics["test"]
    for index, name in enumerate(job.classes):
        figs.append(class_score_figure(job, preds, ev, index, ctx))
        ovr = ev.one_vs_rest["test"][index]
        figs.append(plots.confusion_figure(f"{file_tag(name)}_confusion_matrix", ovr, ctx[:2],
                                           key_prefix=f"confusion/{file_tag(name)}_vs_rest"))  # fmt: skip
    figs.append(plots.confusion_figure("overall_confusion_matrix", test.confusion, ctx[:2], key_prefix="confusion/overall"))
    for metric in ("precision", "recall", "f1"):
        values = {s: getattr(m, metric) for s, m in ev.metrics.items()}
        stem = "f1-score" if metric == "f1" else metric
        figs.append(plots.bar_figure(f"{stem}_by_class", job.display, values, "F1 score" if metric == "f1" else metric.capitalize(), ctx))
    if history is not None:
        figs += plots.training_figures(history, ctx[:2])
    return figs


def confusion_report(c: Confusion) -> dict:
    return {"labels": list(c.labels), "counts": c.counts, "weighted": c.weighted, "normalised": c.normalised}


def build_report(job: MultiClassJob, preds: Predictions, ev: Evaluation, history: TrainingHistory | None,
                 notes: list[str]) -> dict:  # fmt: skip
    per_split = {
        s: {job.display[k]: yields(preds.weight[sel & (preds.label == k)]) for k in range(len(job.classes))}
        for s, sel in ev.selections.items()
    }
    keep = preds.subsets[job.subset] if job.subset else np.ones(preds.n_events, dtype=bool)
    auc = {}
    for i, (background, results) in enumerate(ev.pairs.items(), start=1):
        auc[background] = {
            **{s: r.curve.auc for s, r in results.items()},
            "events_used": {
                s: {job.signal: int(r.sample.is_signal.sum()), background: int((~r.sample.is_signal).sum())}
                for s, r in results.items()
            },
            "selection": f"true_label in {{0, {i}}}" + (f" and {job.subset}" if job.subset else "") + ", per split mask",
            "score": f"P({job.classes[0]}) / (P({job.classes[0]}) + P({background}) + 1e-10)",
        }
    report = {
        "kind": "multiclass",
        "classes": list(job.classes),
        "signal": job.signal,
        "channel": job.channel,
        "fold": job.fold,
        "input": str(preds.path),
        "history": str(history.path) if history else None,
        "subset": job.subset,
        "weight_mode": job.hep.weight_mode,
        "signal_scale": job.hep.signal_scale,
        "events": {s: {c: v["events"] for c, v in d.items()} for s, d in per_split.items()},
        "sum_weights": {s: {c: v["sum_weights"] for c, v in d.items()} for s, d in per_split.items()},
        "yields": per_split,
        "negative_weight_fraction": {
            job.display[k]: yields(preds.weight[keep & (preds.label == k)])["negative_weight_fraction"]
            for k in range(len(job.classes))
        },
        "auc": auc,
        "average_precision": {b: {s: r.pr.average_precision for s, r in res.items()} for b, res in ev.pairs.items()},
        "per_class": {
            s: {job.display[k]: {"precision": m.precision[k], "recall": m.recall[k], "f1": m.f1[k]}
                for k in range(len(job.classes))}
            for s, m in ev.metrics.items()
        },  # fmt: skip
        "confusion_matrix": {
            "prediction": "argmax of the class scores; weights after the weight mode",
            "overall": {s: confusion_report(m.confusion) for s, m in ev.metrics.items()},
            "one_vs_rest": {
                job.display[k]: {s: confusion_report(ev.one_vs_rest[s][k]) for s in ev.metrics}
                for k in range(len(job.classes))
            },  # fmt: skip
        },
    }
    report["hep_metrics"] = ev.hep
    if history is not None:
        report["training"] = history.summary
    report["notes"] = notes
    return report


def run(job: MultiClassJob) -> RunOutput:
    """Evaluate, draw and write every output of one fold; returns the files and fold curves."""
    preds = read_predictions(job.predictions, classes=job.classes, tree=job.tree,
                             subsets=[job.subset] if job.subset else [], progress=job.progress)  # fmt: skip
    ev = evaluate(job, preds)
    history = load_history(job.history) if job.history else None
    notes = [] if history else ["no training history file found: training_curves skipped"]
    report = build_report(job, preds, ev, history, notes)
    written = publish(job.output, job.formats, job.style, lambda: build_figures(job, preds, ev, history), report,
                      f"pnetviz multi-class evaluation: {job.signal}")  # fmt: skip
    curves = {
        f"{job.signal} vs {bkg} (LR)": (f"signal_vs_{file_tag(bkg)}_",
                                        {s: fold_curves(job.fold, r, ev.hep[bkg][s]) for s, r in results.items()})
        for bkg, results in ev.pairs.items()
    }  # fmt: skip
    return RunOutput(written, curves)
