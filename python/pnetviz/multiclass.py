"""visualizeMultiClass: evaluate one multi-class model for one fold.

For each background i only events with true_label in {0, i} are kept and scored with the
likelihood ratio P(signal) / (P(signal) + P(bkg_i) + 1e-10) (spec sections 4 and 7), so the
AUCs are directly comparable with the binary models'. Per-class metrics use argmax.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import draw, hep, hepsummary, plots
from .evaluate import (
    N_BINS,
    SPLITS,
    BinarySample,
    Confusion,
    SplitResult,
    evaluate_samples,
    histogram_from_sums,
    lr_score,
    row_normalise,
    yields,
)
from .driver import FoldJob, RunOutput
from .folds import fold_curves
from .hep import mode_weights
from .history import TrainingHistory, load_history
from .ntuple import Predictions, read_predictions
from .plots import CurveSpec, HistSpec
from .publish import publish
from .rootenv import root
from .style import color, cycle_color


@dataclass(frozen=True, kw_only=True)
class MultiClassJob(FoldJob):
    """One fold of a multi-class model; `classes` in label order, signal first."""

    classes: tuple[str, ...]

    @property
    def display(self) -> tuple[str, ...]:
        """Class names for plots: the signal point's name for class 0."""
        return (self.signal, *self.classes[1:])


def file_tag(name: str) -> str:
    """Class name as used in output file names (the spec writes signal_vs_ttz_...)."""
    return name.lower()


@dataclass(frozen=True)
class ClassTables:
    """One split's argmax confusion and class-score histograms (`macros/class_tables.h`)."""

    confusion: np.ndarray  # k x k, rows = true class, columns = argmax class: summed weights used
    counts: np.ndarray  # k x k, events with non-zero weight used
    hist: np.ndarray  # k (score of class c) x k (true class t) x N_BINS: summed weights on [0, 1]
    hist_w2: np.ndarray  # same, summed squared weights
    events: np.ndarray  # k: events of each true class in the split (histogram entries)


def score_matrix(preds: Predictions) -> np.ndarray:
    """The class scores as one C-contiguous (k, n) array: the reader's block, else a float64 copy."""
    rows = [preds.scores[c] for c in preds.classes]
    block = rows[0].base
    if (isinstance(block, np.ndarray) and block.shape == (len(rows), preds.n_events) and block.flags.c_contiguous
            and all(r.ctypes.data == b.ctypes.data for r, b in zip(rows, block))):  # fmt: skip
        return block
    return np.stack([np.asarray(r, dtype=np.float64) for r in rows])


def class_tables(scores: np.ndarray, label: np.ndarray, used: np.ndarray, sel: np.ndarray) -> ClassTables:
    """Argmax confusion and the N_BINS-bin histograms of every class score for every true class,
    over the events with `sel`, in one C++ pass. `used`: weights after the weight mode."""
    k, n = scores.shape
    kernel = root().pnetviz.class_tables_f32 if scores.dtype == np.float32 else root().pnetviz.class_tables_f64
    confusion, counts = np.empty((k, k)), np.empty((k, k))
    hist, hist_w2 = np.empty((k, k, N_BINS)), np.empty((k, k, N_BINS))
    kernel(scores, n, k, np.ascontiguousarray(label, dtype=np.int32), np.ascontiguousarray(used, dtype=np.float64),
           np.ascontiguousarray(sel).view(np.uint8), N_BINS, confusion, counts, hist, hist_w2)  # fmt: skip
    return ClassTables(confusion, counts, hist, hist_w2, np.bincount(label[sel], minlength=k))


@dataclass(frozen=True)
class ClassMetrics:
    """Weighted argmax metrics of one split (weights after the weight mode)."""

    confusion: Confusion  # N x N
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray


def class_metrics(tables: ClassTables, labels: tuple[str, ...]) -> ClassMetrics:
    """Confusion matrix and per-class precision, recall, F1 of the argmax prediction."""
    weighted, n = tables.confusion, len(labels)
    tp, predicted, true = np.diag(weighted), weighted.sum(axis=0), weighted.sum(axis=1)
    precision = np.divide(tp, predicted, out=np.zeros(n), where=predicted != 0)
    recall = np.divide(tp, true, out=np.zeros(n), where=true != 0)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros(n), where=denom != 0)
    confusion = Confusion(labels, tables.counts, weighted, row_normalise(weighted))
    return ClassMetrics(confusion, precision, recall, f1)


def one_vs_rest(confusion: Confusion, index: int) -> Confusion:
    """2x2 confusion of class `index` against all others (argmax prediction), from the k x k one;
    row/column 0 = the class."""

    def collapse(matrix: np.ndarray) -> np.ndarray:
        tp, true, predicted = matrix[index, index], matrix[index].sum(), matrix[:, index].sum()
        return np.array([[tp, true - tp], [predicted - tp, matrix.sum() - true - predicted + tp]])

    weighted = collapse(confusion.weighted)
    return Confusion((confusion.labels[index], "rest"), collapse(confusion.counts), weighted, row_normalise(weighted))


def pair_samples(preds: Predictions, used: np.ndarray, selections: dict[str, np.ndarray],
                 class_masks: list[np.ndarray], index: int) -> dict[str, BinarySample]:  # fmt: skip
    """Signal vs class `index` per split: LR scores of the events with true_label in {0, index}."""
    in_pair = class_masks[0] | class_masks[index]
    p_signal, p_background = preds.scores[preds.classes[0]], preds.scores[preds.classes[index]]
    out = {}
    for split, sel in selections.items():
        events = np.flatnonzero(sel & in_pair)
        out[split] = BinarySample(scores=lr_score(p_signal[events], p_background[events]),
                                  is_signal=class_masks[0][events], weights=preds.weight[events], used=used[events])  # fmt: skip
    return out


@dataclass(frozen=True)
class Evaluation:
    pairs: dict[str, dict[str, SplitResult]]  # background -> split -> result
    tables: dict[str, ClassTables]  # split -> argmax confusion and class-score histograms
    metrics: dict[str, ClassMetrics]  # split -> argmax metrics
    selections: dict[str, np.ndarray]  # split -> event mask (split & subset)
    hep: dict[str, dict]  # background -> hepsummary.pair_metrics
    one_vs_rest: dict[str, list[Confusion]]  # split -> per class
    class_masks: list[np.ndarray]  # true_label == k, computed once


def evaluate(job: MultiClassJob, preds: Predictions) -> Evaluation:
    keep = preds.subsets[job.subset] if job.subset else None
    selections = {s: preds.masks[s] if keep is None else preds.masks[s] & keep for s in SPLITS}
    used = mode_weights(preds.weight, job.hep.weight_mode)
    class_masks = [preds.label == k for k in range(len(job.classes))]
    pairs, hep_metrics = {}, {}
    for i, background in enumerate(job.classes[1:], start=1):
        samples = pair_samples(preds, used, selections, class_masks, i)
        what = f"signal vs {background}" + (f", {job.subset}" if job.subset else "")
        pairs[background] = evaluate_samples(preds.path, samples, what, (job.signal, background))
        hep_metrics[background] = hepsummary.pair_metrics(pairs[background], job.hep)
    scores = score_matrix(preds)
    tables = {s: class_tables(scores, preds.label, used, sel) for s, sel in selections.items()}
    metrics = {s: class_metrics(t, job.display) for s, t in tables.items()}
    ovr = {s: [one_vs_rest(m.confusion, k) for k in range(len(job.classes))] for s, m in metrics.items()}
    return Evaluation(pairs=pairs, tables=tables, metrics=metrics, selections=selections, hep=hep_metrics,
                      one_vs_rest=ovr, class_masks=class_masks)  # fmt: skip


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


def class_score_figure(job: MultiClassJob, ev: Evaluation, index: int, ctx: list[str]) -> draw.Figure:
    """P(class) for all events, one histogram per true class; train lines, test points."""
    name = job.classes[index]
    hists = []
    for split in SPLITS:
        tables = ev.tables[split]
        for k, true_name in enumerate(job.display):
            h = histogram_from_sums(f"p_{name}_{split}_{k}", tables.hist[index, k], tables.hist_w2[index, k],
                                    entries=int(tables.events[k]))  # fmt: skip
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
        figs.append(class_score_figure(job, ev, index, ctx))
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
        s: {job.display[k]: yields(preds.weight[sel & ev.class_masks[k]]) for k in range(len(job.classes))}
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
            job.display[k]: yields(preds.weight[keep & ev.class_masks[k]])["negative_weight_fraction"]
            for k in range(len(job.classes))
        },
        "auc": auc,
        "average_precision": {b: {s: r.average_precision for s, r in res.items()} for b, res in ev.pairs.items()},
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
