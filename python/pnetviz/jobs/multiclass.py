"""visualizeMultiClass: evaluate one multi-class model for one fold.

For each background i only events with true_label in {0, i} are kept and scored with the
likelihood ratio P(signal) / (P(signal) + P(bkg_i) + 1e-10) (spec sections 4 and 7), so the
AUCs are directly comparable with the binary models'. Per-class metrics use argmax.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from pnetviz.draw import canvas, plots, rejection, training
from pnetviz.names import name as quantity
from pnetviz.metrics import hep, pairmetrics, profiled
from pnetviz.jobs import decisions, multibins, observers, subsets, systematics
from pnetviz.metrics.calibration import Reliability, pairwise_auc, prevalence_note, reliability
from pnetviz.metrics.evaluate import (
    N_BINS,
    SPLITS,
    BinarySample,
    Confusion,
    SplitResult,
    evaluate_samples,
    histogram_from_sums,
    lr_score,
    row_normalise,
    score_histogram,
    yields,
)
from pnetviz.jobs.driver import FoldJob, RunOutput
from pnetviz.errors import InputError
from pnetviz.metrics.folds import fold_curves
from pnetviz.metrics.hep import mode_weights
from pnetviz.io.yields import pair_yields
from pnetviz.io.history import TrainingHistory, load_history
from pnetviz.io.ntuple import Predictions, classes_from_branches, read_predictions
from pnetviz.metrics import trainercheck
from pnetviz.draw.plots import CurveSpec, HistSpec
from pnetviz.output import imageset
from pnetviz.output.publish import write_set
from pnetviz.output.report import dumps, plain
from pnetviz.metrics.roc import SingleClassError, binary_clf_curve
from pnetviz.rootenv import root
from pnetviz.draw.style import color, cycle_color
from pnetviz.jobs.subsets import BJET_BRANCH


@dataclass(frozen=True, kw_only=True)
class MultiClassJob(FoldJob):
    """One fold of a multi-class model; `classes` (branch names) in label order, signal first.
    None: from the trainer's JSON (background_info), else from the ntuple's score_* branches."""

    classes: tuple[str, ...] | None = None
    fit_score: str = "lr"  # --fit-score: the score binned for the fit (jobs.multibins)

    @property
    def names(self) -> tuple[str, ...]:
        """Class names, the keys of the report (as in classification_report.json and the ROOT
        file): the branch names, class 0 first; the signal point is the report's `signal` field."""
        return tuple(self.classes)

    @property
    def display(self) -> tuple[str, ...]:
        """Class labels for plots: the signal point, then --labels or the physics defaults (t#bar{t}X)."""
        first = self.label_overrides.get(self.classes[0], "Signal")
        return (first, *(self.label(c) for c in self.classes[1:]))

    def p_of(self, k: int) -> str:
        """The score of class k on a plot: P(signal) (names.QUANTITIES, unless --labels renames the
        signal), P(t#bar{t}X), ..."""
        if k == 0 and self.classes[0] not in self.label_overrides:
            return quantity("p_signal")
        return f"P({self.display[k]})"


def resolve_classes(job: MultiClassJob) -> MultiClassJob:
    """The job with its class list: --classes, else the trainer's background_info, else the ntuple's
    score_* branches in order. Where the trainer's JSON and the ntuple both say, they must agree
    (names, order, number): the order decides which true_label is which class, so a silent choice
    between two contradicting sources gives wrong AUCs."""
    if job.classes is not None:
        return job
    from_branches = classes_from_branches(job.predictions, job.tree, job.columns)
    from_json = job.info.classes()
    if from_json is not None:
        check_class_sources(job, from_json, from_branches)
    classes = from_json or from_branches
    declared = declared_class_count(job.info)
    if declared is not None and declared != len(classes):
        raise InputError(f"{job.info.performance or job.predictions}: num_classes is {declared} but the classes are "
                         f"{', '.join(classes)} ({len(classes)}). Fix: pass --classes in the ntuple's label order.")  # fmt: skip
    return replace(job, classes=classes)


def check_class_sources(job: MultiClassJob, from_json: tuple[str, ...], from_branches: tuple[str, ...]) -> None:
    """InputError naming both sources unless the trainer's JSON and the ntuple's score branches
    list the same classes in the same order."""
    if from_json == from_branches:
        return
    what = "in another order" if sorted(from_json) == sorted(from_branches) else "other classes"
    raise InputError(f"{job.info.performance or 'the trainer JSON'}: background_info gives the classes as "
                     f"{', '.join(from_json)}, but {job.predictions} has score branches for {what}: "
                     f"{', '.join(from_branches)}. Fix: pass --classes with the class names in true_label order "
                     "(0 = signal).")  # fmt: skip


def declared_class_count(info) -> int | None:
    """num_classes from the trainer's training_config or model_info JSON, if it says."""
    config = info.meta.get("training_config") if isinstance(info.meta, dict) else None
    for source in (config if isinstance(config, dict) else {}, info.info if isinstance(info.info, dict) else {}):
        n = source.get("num_classes")
        if isinstance(n, int) and not isinstance(n, bool):
            return n
    return None


def file_tag(name: str) -> str:
    """Class name as used in output file names: as written (signal_vs_ttX_roc_curve)."""
    return name


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


def check_lr(preds: Predictions, lr: np.ndarray, events: np.ndarray, background: str) -> None:
    """InputError naming the events whose likelihood-ratio denominator P(s) + P(b) + 1e-10 is 0."""
    bad = ~np.isfinite(lr)
    if np.any(bad):
        entries = ", ".join(str(e) for e in events[bad][:5])
        raise InputError(f"{preds.path}: {int(bad.sum())} events have P(signal) + P({background}) + 1e-10 = 0, so their "
                         f"likelihood ratio is undefined (entries {entries}). Fix: scores must be probabilities "
                         "(non-negative).")  # fmt: skip


def pair_samples(preds: Predictions, used: np.ndarray, selections: dict[str, np.ndarray],
                 class_masks: list[np.ndarray], index: int) -> dict[str, BinarySample]:  # fmt: skip
    """Signal vs class `index` per split: LR scores of the events with true_label in {0, index}."""
    in_pair = class_masks[0] | class_masks[index]
    p_signal, p_background = preds.scores[preds.classes[0]], preds.scores[preds.classes[index]]
    out = {}
    for split, sel in selections.items():
        events = np.flatnonzero(sel & in_pair)
        lr = lr_score(p_signal[events], p_background[events])
        check_lr(preds, lr, events, preds.classes[index])
        out[split] = BinarySample(scores=lr,
                                  is_signal=class_masks[0][events], weights=preds.weight[events], used=used[events])  # fmt: skip
    return out


def one_vs_rest_auc(scores: np.ndarray, is_class: np.ndarray, used: np.ndarray) -> float | None:
    """The AUC of one class against the rest; None where the split lacks the class (or the rest)."""
    try:
        return binary_clf_curve(scores, is_class, used).auc
    except SingleClassError:
        return None


@dataclass(frozen=True)
class Evaluation:
    pairs: dict[str, dict[str, SplitResult]]  # background -> split -> result
    tables: dict[str, ClassTables]  # split -> argmax confusion and class-score histograms
    metrics: dict[str, ClassMetrics]  # split -> argmax metrics
    selections: dict[str, np.ndarray]  # split -> event mask (split & subset)
    hep: dict[str, dict]  # background -> pairmetrics.pair_metrics
    one_vs_rest: dict[str, list[Confusion]]  # split -> per class
    class_masks: list[np.ndarray]  # true_label == k, computed once
    used: np.ndarray  # weights after the weight mode, all events
    subset_comparisons: dict[str, subsets.SubsetComparison]  # background -> has_bjet comparison (if made)
    skipped: dict[str, str] = field(default_factory=dict)  # background -> why its pair was not evaluated (a class absent)


def evaluate(job: MultiClassJob, preds: Predictions) -> Evaluation:
    keep = preds.subsets[job.subset] if job.subset else None
    selections = {s: preds.masks[s] if keep is None else preds.masks[s] & keep for s in SPLITS}
    used = mode_weights(preds.weight, job.hep.weight_mode)
    class_masks = [preds.label == k for k in range(len(job.classes))]
    pairs, hep_metrics, skipped = {}, {}, {}
    for i, background in enumerate(job.classes[1:], start=1):
        samples = pair_samples(preds, used, selections, class_masks, i)
        what = f"signal vs {background}" + (f", {job.subset}" if job.subset else "")
        try:
            pairs[background] = evaluate_samples(preds.path, samples, what, (job.names[0], background))
        except InputError as err:  # a class absent from a split: the other pairs are still evaluated
            skipped[background] = str(err)
            continue
        everywhere = keep if keep is not None else slice(None)
        full = (float(used[everywhere][class_masks[0][everywhere]].sum()), float(used[everywhere][class_masks[i][everywhere]].sum()))
        hep_metrics[background] = pairmetrics.pair_metrics(pairs[background], job.hep, full,
                                                           pair_yields(job.hep.expected_yields, job.classes[0], background))  # fmt: skip
    if not pairs:
        raise InputError(next(iter(skipped.values())))
    for background, why in skipped.items():
        warnings.warn(f"pair signal vs {background} skipped: {why}", stacklevel=2)
    scores = score_matrix(preds)
    tables = {s: class_tables(scores, preds.label, used, sel) for s, sel in selections.items()}
    metrics = {s: class_metrics(t, job.names) for s, t in tables.items()}
    ovr = {s: [one_vs_rest(m.confusion, k) for k in range(len(job.classes))] for s, m in metrics.items()}
    comparisons = {}
    if job.bjet_comparison and BJET_BRANCH in preds.subsets and job.subset != BJET_BRANCH:
        flag = preds.subsets[BJET_BRANCH]
        for i, background in ((i, b) for i, b in enumerate(job.classes[1:], start=1) if b in pairs):

            def evaluate_test(part: np.ndarray | None, what: str, i: int = i, background: str = background) -> SplitResult:
                sel = {"test": selections["test"] if part is None else selections["test"] & part}
                return evaluate_samples(preds.path, pair_samples(preds, used, sel, class_masks, i),
                                        f"signal vs {background}, {what}", (job.names[0], background))["test"]  # fmt: skip

            comparisons[background] = subsets.compare(BJET_BRANCH, flag, evaluate_test, job.hep, pairs[background]["test"],
                                                      hep_metrics[background]["test"]["auc_error"])  # fmt: skip
    return Evaluation(pairs=pairs, tables=tables, metrics=metrics, selections=selections, hep=hep_metrics,
                      one_vs_rest=ovr, class_masks=class_masks, used=used, subset_comparisons=comparisons,
                      skipped=skipped)  # fmt: skip


def context_lines(job: MultiClassJob, what: str = "multi-class") -> list[str]:
    return job.context(what)


@dataclass(frozen=True)
class Decisions:
    """Working points and cut scans per background pair, calibration per class, the pairwise AUC matrix."""

    pairs: dict[str, decisions.PairDecisions]  # background -> working points and test cut scan
    calibration: dict[str, dict[str, Reliability]]  # class -> split -> reliability of P(class)
    pairwise: np.ndarray  # k x k test AUC of class i (positive) vs class j


def decide(job: MultiClassJob, preds: Predictions, ev: Evaluation) -> Decisions:
    """Working points (thresholds on the LR score of each pair), calibration of every class score
    and the pairwise AUC matrix on the test split (weights after the weight mode)."""
    pairs = {}
    for background, results in ev.pairs.items():
        expected = pair_yields(job.hep.expected_yields, job.classes[0], background)
        pairs[background] = decisions.pair_decisions(results, ev.hep[background], job.hep, lr_text(job, background), expected)
    calibration = {c: {s: reliability(preds.scores[c][sel], ev.class_masks[k][sel], ev.used[sel]) for s, sel in ev.selections.items()}
                   for k, c in enumerate(job.classes)}  # fmt: skip
    test = ev.selections["test"]
    known = {(0, k): ev.pairs[c]["test"].curve.auc for k, c in enumerate(job.classes) if c in ev.pairs}  # signal row
    matrix = pairwise_auc([preds.scores[c][test] for c in job.classes], preds.label[test], ev.used[test], known)
    return Decisions(pairs, calibration, matrix)


def lr_pair(label: str) -> str:
    """A pair's context on its plots: "vs t#bar{t}X, LR score" (the model is "Multi-class", its
    score of a pair the LR score: names.QUANTITIES)."""
    return f"vs {label}, {quantity('lr_score')}"


def lr_text(job: MultiClassJob, background: str) -> str:
    return f"P({job.classes[0]}) / (P({job.classes[0]}) + P({background}) + 1e-10)"


def pair_figures(job: MultiClassJob, preds: Predictions, ev: Evaluation, index: int, ctx: list[str],
                 decided: decisions.PairDecisions | None = None) -> list[canvas.Figure]:  # fmt: skip
    """Signal vs class `index`: LR ROC, rejection and score distribution, the direct P(signal) and
    P(bkg) distributions of the pair's events, and the b-jet comparison when made."""
    background, label = job.classes[index], job.display[index]
    results, metrics = ev.pairs[background], ev.hep[background]
    tag = f"signal_vs_{file_tag(background)}"
    ctx = [*context_lines(job, lr_pair(label)), *ctx[len(context_lines(job)):]]
    sig, bkg = color("signal"), color("background")
    roc = [CurveSpec(f"{tag}/roc_{s}", r.curve.fpr, r.curve.tpr, subsets.auc_label(s.capitalize(), {
        "auc": r.curve.auc, "auc_error": metrics[s]["auc_error"]}), sig, plots.split_style(s)) for s, r in results.items()]  # fmt: skip
    hists = []
    for s, r in results.items():
        hists.append(HistSpec(f"{tag}/scores_{s}_signal", r.hist_signal, f"{job.display[0]} ({s})", sig, s == "test"))
        hists.append(HistSpec(f"{tag}/scores_{s}_background", r.hist_background, f"{label} ({s})", bkg, s == "test"))
    xtitle = f"{job.p_of(0)} / ({job.p_of(0)} + {job.p_of(index)})"
    hull = None
    if job.hull:
        h, best = hep.convex_hull(results["test"].curve), metrics["test"]["optimal_operating_point"]
        hull = (f"{tag}/roc_test", h.fpr, h.tpr, (best["eps_b"], best["eps_s"]))
    figs = [
        plots.roc_figure(f"{tag}_roc_curve", roc, ctx, hull=hull),
        rejection.figure(f"{tag}_rejection_curve", f"{tag}/rejection", results, metrics, ctx),
        plots.score_figure(f"{tag}_lr_score_distribution", hists, xtitle, ctx, pairmetrics.ks_lines(metrics),
                           **decisions.score_cuts(decided)),
    ]
    if decided is not None:
        figs.append(decisions.scan_figure(f"{tag}_cut_scan", f"{tag}/cut_scan", decided, f"Cut on {xtitle}", ctx, metrics))
    direct_ctx = [*context_lines(job, ""), f"{job.display[0]} and {label} events", *ctx[len(context_lines(job)):]]
    for k, stem in ((0, "psignal"), (index, f"p{file_tag(background)}")):
        figs.append(direct_score_figure(job, preds, ev, index, k, f"{tag}_{stem}_distribution", direct_ctx))
    comp = ev.subset_comparisons.get(background)
    if comp is not None:
        figs += subsets.figures(comp, f"{tag}_roc_bjet_comparison", f"{tag}_lr_score_bjet_comparison",
                                f"{tag}/compare_bjet", (job.display[0], label), xtitle, ctx)  # fmt: skip
    return figs


def direct_score_figure(job: MultiClassJob, preds: Predictions, ev: Evaluation, index: int, k: int, name: str,
                        ctx: list[str]) -> canvas.Figure:  # fmt: skip
    """P(class k) of the events of the pair signal vs class `index` (true signal and true
    class `index`), train lines, test points: the trainer's psignal / p<bkg> distributions."""
    hists, tag = [], f"signal_vs_{file_tag(job.classes[index])}"
    score = preds.scores[job.classes[k]]
    for split, sel in ev.selections.items():
        for true, col in ((0, color("signal")), (index, color("background"))):
            events = sel & ev.class_masks[true]
            h = score_histogram(f"{name}_{split}_{true}", score[events], ev.used[events],
                                f"{job.p_of(k)} of true {job.names[true]} events, {split}")  # fmt: skip
            hists.append(HistSpec(f"{tag}/p{file_tag(job.classes[k])}_{split}_true_{file_tag(job.classes[true])}", h,
                                  f"{job.display[true]} ({split})", col, split == "test"))  # fmt: skip
    return plots.score_figure(name, hists, job.p_of(k), ctx)


def class_score_figure(job: MultiClassJob, ev: Evaluation, index: int, ctx: list[str]) -> canvas.Figure:
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
    return plots.score_figure(f"{file_tag(name)}_score_distribution", hists, job.p_of(index), ctx)


def build_figures(job: MultiClassJob, preds: Predictions, ev: Evaluation, history: TrainingHistory | None,
                  decided: Decisions | None = None) -> list[canvas.Figure]:  # fmt: skip
    ctx = context_lines(job)
    if job.hep.weight_mode != "abs":
        ctx.append(f"weights: {job.hep.weight_mode}")
    figs = []
    for background in ev.pairs:
        figs += pair_figures(job, preds, ev, job.classes.index(background), ctx, decided.pairs[background] if decided else None)
    test = ev.metrics["test"]
    for index, name in enumerate(job.classes):
        figs.append(class_score_figure(job, ev, index, ctx))
        if decided is not None:
            figs.append(decisions.calibration_figure(f"{file_tag(name)}_calibration", f"calibration/{file_tag(name)}",
                                                     decided.calibration[name], "signal" if job.p_of(index) == quantity("p_signal")
                                                     else job.display[index], ctx, cycle_color(index)))  # fmt: skip
        ovr = ev.one_vs_rest["test"][index]
        figs += plots.confusion_figures(f"{file_tag(name)}_confusion_matrix", ovr, ctx[:2],
                                        key_prefix=f"confusion/{file_tag(name)}_vs_rest",
                                        labels=("Signal" if index == 0 else job.display[index], "Others"))  # fmt: skip
    figs += plots.confusion_figures("overall_confusion_matrix", test.confusion, ctx[:2], key_prefix="confusion/overall",
                                    labels=("Signal", *job.display[1:]))  # fmt: skip
    if decided is not None:
        weights = "|w|" if job.hep.weight_mode == "abs" else job.hep.weight_mode
        figs.append(plots.pairwise_auc_figure("pairwise_auc", "pairwise_auc/test", decided.pairwise, ("Signal", *job.display[1:]),
                                              ctx[:2], weights=weights))  # fmt: skip
    for metric in ("precision", "recall", "f1"):
        values = {s: getattr(m, metric) for s, m in ev.metrics.items()}
        stem = "f1_score" if metric == "f1" else metric
        figs.append(plots.bar_figure(f"{stem}_by_class", job.display, values, "F1 score" if metric == "f1" else metric.capitalize(), ctx))
    if history is not None:
        figs += training.training_figures(history, ctx[:2])
    return figs


def confusion_report(c: Confusion) -> dict:
    return {"labels": list(c.labels), "counts": c.counts, "weighted": c.weighted, "normalised": c.normalised}


def build_report(job: MultiClassJob, preds: Predictions, ev: Evaluation, history: TrainingHistory | None,
                 notes: list[str]) -> dict:  # fmt: skip
    per_split = {
        s: {job.names[k]: yields(preds.weight[sel & ev.class_masks[k]]) for k in range(len(job.classes))}
        for s, sel in ev.selections.items()
    }
    keep = preds.subsets[job.subset] if job.subset else np.ones(preds.n_events, dtype=bool)
    auc = {}
    for i, (background, results) in enumerate(ev.pairs.items(), start=1):
        auc[background] = {
            **{s: r.curve.auc for s, r in results.items()},
            "events_used": {
                s: {job.names[0]: int(r.sample.is_signal.sum()), background: int((~r.sample.is_signal).sum())}
                for s, r in results.items()
            },
            "selection": f"true_label in {{0, {i}}}" + (f" and {job.subset}" if job.subset else "") + ", per split mask",
            "score": f"P({job.classes[0]}) / (P({job.classes[0]}) + P({background}) + 1e-10)",
        }
    report = {
        "kind": "multiclass",
        "classes": list(job.classes),
        "labels": dict(zip(job.names, job.display)),
        "signal": job.signal,
        "channel": job.channel,
        **job.report_identity(),
        "input": str(preds.path),
        "history": str(history.path) if history else None,
        "subset": job.subset,
        "weight_mode": job.hep.weight_mode,
        "signal_scale": job.hep.signal_scale,
        "events": {s: {c: v["events"] for c, v in d.items()} for s, d in per_split.items()},
        "sum_weights": {s: {c: v["sum_weights"] for c, v in d.items()} for s, d in per_split.items()},
        "yields": per_split,
        "negative_weight_fraction": {
            job.names[k]: yields(preds.weight[keep & ev.class_masks[k]])["negative_weight_fraction"]
            for k in range(len(job.classes))
        },
        "auc": auc,
        "average_precision": {b: {s: r.average_precision for s, r in res.items()} for b, res in ev.pairs.items()},
        "per_class": {
            s: {job.names[k]: {"precision": m.precision[k], "recall": m.recall[k], "f1": m.f1[k]}
                for k in range(len(job.classes))}
            for s, m in ev.metrics.items()
        },  # fmt: skip
        "confusion_matrix": {
            "prediction": "argmax of the class scores; weights after the weight mode",
            "overall": {s: confusion_report(m.confusion) for s, m in ev.metrics.items()},
            "one_vs_rest": {
                job.names[k]: {s: confusion_report(ev.one_vs_rest[s][k]) for s in ev.metrics}
                for k in range(len(job.classes))
            },  # fmt: skip
        },
    }
    report["hep_metrics"] = ev.hep
    report["one_vs_rest_auc"] = {
        job.names[k]: {s: one_vs_rest_auc(preds.scores[c][sel], preds.label[sel] == k, ev.used[sel])
                       for s, sel in ev.selections.items()}
        for k, c in enumerate(job.classes)
    }  # fmt: skip
    if ev.subset_comparisons:
        report["bjet_performance"] = {b: {"branch": c.branch, "split": "test", **c.report}
                                      for b, c in ev.subset_comparisons.items()}  # fmt: skip
    if history is not None:
        report["training"] = history.report()
    report["notes"] = notes
    return report


def decision_report(job: MultiClassJob, ev: Evaluation, decided: Decisions) -> dict:
    """The report sections working_points and cut_scan (per background pair, LR score),
    calibration (per class score) and pairwise_auc (test matrix and class order)."""
    return {
        "working_points": {b: {**d.meta, "points": d.points} for b, d in decided.pairs.items()},
        "cut_scan": {b: decisions.scan_section(d, ev.pairs[b]["test"], ev.hep[b]) for b, d in decided.pairs.items()},
        "calibration": {c: {"score": f"score_{c}", "bins": "equal bins of [0, 1]", **{s: r.report() for s, r in per.items()},
                            **({"prevalence_note": prevalence_note(per)} if prevalence_note(per) else {})}
                        for c, per in decided.calibration.items()},
        "pairwise_auc": {"classes": list(job.classes), "matrix": decided.pairwise, "split": "test",
                         "entry": "matrix[i][j] = AUC of class i (positive) vs class j on the events of classes i and j; "
                                  "diagonal undefined (null)",
                         "score": "P_i / (P_i + P_j + 1e-10)", "weights": f"{job.hep.weight_mode} (--weights)"},
    }  # fmt: skip


REPORT_COLUMNS = ("precision", "recall", "f1-score", "support")


def classification_report(job: MultiClassJob, ev: Evaluation, split: str = "test") -> dict:
    """scikit-learn's classification_report(output_dict=True) of the argmax prediction, weighted
    (weights after the weight mode; support = summed weights of the true class), per class plus
    accuracy, macro and support-weighted averages; event counts alongside."""
    m, tables = ev.metrics[split], ev.tables[split]
    support = tables.confusion.sum(axis=1)
    out = {"split": split, "weights": f"{job.hep.weight_mode} (weights after the weight mode)"}
    for k, name in enumerate(job.classes):
        out[name] = {"precision": m.precision[k], "recall": m.recall[k], "f1-score": m.f1[k], "support": support[k],
                     "events": int(tables.counts[k].sum())}  # fmt: skip
    total = support.sum()
    out["accuracy"] = float(np.trace(tables.confusion) / total) if total else math.nan
    rows = np.stack([m.precision, m.recall, m.f1])
    out["macro avg"] = {**dict(zip(REPORT_COLUMNS, rows.mean(axis=1))), "support": total}
    weighted = rows @ support / total if total else np.full(3, math.nan)
    out["weighted avg"] = {**dict(zip(REPORT_COLUMNS, weighted)), "support": total}
    return out


def classification_text(report: dict, title: str) -> str:
    """The report laid out as scikit-learn prints it."""
    rows = [k for k, v in report.items() if isinstance(v, dict)]
    width = max(len(r) for r in [*rows, "weighted avg"])
    lines = [title, "", " " * width + "".join(f"{c:>12}" for c in REPORT_COLUMNS), ""]
    for name in rows:
        if name in ("macro avg", "weighted avg"):
            continue
        r = report[name]
        lines.append(f"{name:>{width}}" + "".join(f"{r[c]:>12.4f}" for c in REPORT_COLUMNS[:3]) + f"{r['support']:>12.4g}")
    lines.append("")
    lines.append(f"{'accuracy':>{width}}" + " " * 24 + f"{report['accuracy']:>12.4f}" + f"{report['macro avg']['support']:>12.4g}")
    for name in ("macro avg", "weighted avg"):
        r = report[name]
        lines.append(f"{name:>{width}}" + "".join(f"{r[c]:>12.4f}" for c in REPORT_COLUMNS[:3]) + f"{r['support']:>12.4g}")
    lines.append(f"\n{report['split']} events; weights: {report['weights']}; support = summed weights of the true class.")
    return "\n".join(lines) + "\n"


def profiled_pairs(job: MultiClassJob, preds: Predictions, ev: Evaluation,
                   templates: dict) -> dict[str, tuple[dict, profiled.Profiled]]:  # fmt: skip
    """Per background: the profiled ROC of the test events of the pair (likelihood-ratio score)."""
    out = {}
    signal_class = job.classes[0]
    for i, background in ((i, b) for i, b in enumerate(job.classes[1:], start=1) if b in ev.pairs):
        events = np.flatnonzero(ev.selections["test"] & (ev.class_masks[0] | ev.class_masks[i]))  # as pair_samples
        test = ev.pairs[background]["test"]  # the nominal LR sample and curve, reused
        nominal, is_signal, weights = test.sample, test.sample.is_signal, test.sample.weights
        p_s, p_b = preds.scores[signal_class][events], preds.scores[background][events]

        def variant(bases: dict[str, str], side: str, events=events, p_s=p_s, p_b=p_b, weights=weights,
                    background=background) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
            def column(base: str, nominal_values: np.ndarray) -> np.ndarray:
                return preds.extra[bases[base] + side][events] if base in bases else nominal_values

            scores = lr_score(column(f"score_{signal_class}", p_s), column(f"score_{background}", p_b))
            return scores, column("weight", weights)

        def shift_mask(cls: str, is_signal=is_signal, background=background) -> np.ndarray | None:
            return {"signal": is_signal, signal_class: is_signal, job.signal: is_signal, "background": ~is_signal,
                    background: ~is_signal}.get(cls)  # fmt: skip

        nuisances = systematics.nuisances(nominal, templates, variant, job.syst.shifts, shift_mask, job.syst.kappa,
                                          job.hep.weight_mode)  # fmt: skip
        prof = profiled.profile(nominal, nuisances, job.syst.kappa, job.hep.weight_mode, test.curve)
        out[background] = (systematics.report(prof, nuisances, templates, job.syst), prof)
    return out


def run(job: MultiClassJob) -> RunOutput:
    """Evaluate, draw and write every output of one fold; returns the files and fold curves."""
    job = resolve_classes(job)
    templates, extra = systematics.templates_for(job.predictions, job.tree, job.syst,
                                                 {"weight", *(f"score_{c}" for c in job.classes)})  # fmt: skip
    optional = [BJET_BRANCH] if job.bjet_comparison and job.subset != BJET_BRANCH else []
    preds = read_predictions(job.predictions, classes=job.classes, tree=job.tree, columns=job.columns, progress=job.progress,
                             subsets=[b for b in (job.subset, *optional) if b], optional_subsets=optional,
                             extra=extra, observe=job.observe)  # fmt: skip
    ev = evaluate(job, preds)
    history = load_history(job.history) if job.history else None
    notes = history.notes() if history else ["no training history file found: training_loss and training_accuracy skipped"]
    notes += [f"{b}: b-jet comparison skipped: {c.report['skipped']}" for b, c in ev.subset_comparisons.items()
              if "skipped" in c.report]  # fmt: skip
    notes += [f"pair signal vs {b} skipped: {why}" for b, why in ev.skipped.items()]
    report = build_report(job, preds, ev, history, notes)
    check, check_notes = trainercheck.cross_check(preds.label, np.column_stack([preds.scores[c] for c in job.classes]),
                                                  preds.masks["test"], history.summary if history else {})  # fmt: skip
    if check:  # the trainer's test_loss / test_accuracy beside pnetviz's from the same ntuple
        report["trainer_check"], report["notes"] = check, [*report["notes"], *check_notes]
    report["skipped_pairs"] = dict(ev.skipped)
    decided = decide(job, preds, ev)
    report |= decision_report(job, ev, decided)
    profiles = profiled_pairs(job, preds, ev, templates) if job.syst.active else {}
    if profiles:
        report["systematics"] = {b: r for b, (r, _) in profiles.items()}
    binning = multibins.compute(job, preds, ev, job.fit_score) if job.fit_binning else None
    report["binning"] = multibins.report(binning) if binning else None

    def figures() -> list[canvas.Figure]:
        figs = build_figures(job, preds, ev, history, decided)
        for b, (_, prof) in profiles.items():
            tag = f"signal_vs_{file_tag(b)}"
            figs += systematics.figures(prof, f"{tag}/profiled", context_lines(job, lr_pair(job.label(b))),
                                        f"{tag}_roc_curve_profiled", f"{tag}_rejection_curve_profiled",
                                        ev.hep[b]["test"]["auc_error"])  # fmt: skip
        figs += multibins.figures(job, binning, context_lines) if binning else []
        return figs

    figures = observers.attach(report, figures, job, preds, preds.scores[job.classes[0]],
                               preds.subsets[job.subset] if job.subset else None, context_lines(job, "vs all backgrounds"))  # fmt: skip

    classes = classification_report(job, ev)
    extra = {"classification_report.json": dumps(plain(classes)) + "\n",
             "classification_report.txt": classification_text(classes, f"Classification report: {job.signal}, "
                                                              f"{job.channel}, {job.fold_text or 'multi-class'}"),
             decisions.WP_FILE: decisions.document("multiclass", decisions.identity(job),
                                                   {f"signal vs {b}": v for b, v in report["working_points"].items()})}  # fmt: skip
    extra |= multibins.files(decisions.identity(job), binning) if binning else {}
    written = write_set(job.output, job.formats, job.style, figures, report,
                      job.describe(f"pnetviz multi-class evaluation: {job.signal}"), extra, only=imageset.selection(job.images))  # fmt: skip
    curves = {
        f"{job.signal} vs {bkg} (LR)": (f"signal_vs_{file_tag(bkg)}_",
                                        {s: decisions.with_wp_scalars(fold_curves(job.fold, r, ev.hep[bkg][s]),
                                                                      decided.pairs[bkg].points, s) for s, r in results.items()})
        for bkg, results in ev.pairs.items()
    }  # fmt: skip
    display = {f"{job.signal} vs {bkg} (LR)": lr_pair(job.label(bkg)) for bkg in ev.pairs}
    return RunOutput(written, curves, extra={"display": display})
