"""visualizeBinary: evaluate one binary model (signal vs one background) for one fold."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from pnetviz.draw import canvas, plots, rejection, training
from pnetviz.names import name as quantity
from pnetviz.metrics import hep, pairmetrics, profiled
from pnetviz.jobs import decisions, fitbins, observers, outoffold, streamed, subsets, systematics
from pnetviz.metrics.calibration import prevalence_note, reliability_from_sums
from pnetviz.metrics.evaluate import SPLITS, THRESHOLD, SplitResult, binary_samples, evaluate_pair, evaluate_samples, gather
from pnetviz.metrics.eventsums import class_yields
from pnetviz.jobs.driver import FoldJob, RunOutput
from pnetviz.metrics.folds import fold_curves
from pnetviz.io import native
from pnetviz.io.yields import pair_yields
from pnetviz.io.history import TrainingHistory, load_history
from pnetviz.io.ntuple import Predictions, read_predictions
from pnetviz.metrics import trainercheck
from pnetviz.draw.plots import CurveSpec, HistSpec
from pnetviz.output import imageset
from pnetviz.output.publish import write_set
from pnetviz.draw.style import color
from pnetviz.jobs.subsets import BJET_BRANCH


@dataclass(frozen=True, kw_only=True)
class BinaryJob(FoldJob):
    """One fold of a binary model: signal vs `background`."""

    background: str
    compare_subset: str | None = None
    stream: bool = False  # --stream: the streamed evaluation (jobs.streamed)
    memory_budget: float = 4.0  # --memory-budget GB: streamed when the in-memory estimate is above it

    @property
    def labels(self) -> tuple[str, str]:
        """Class names, the keys of the report: `signal` (class 0, the branch score_signal) and the
        background category; the signal point is the report's `signal` field, not a class key."""
        return ("signal", self.background)

    @property
    def display(self) -> tuple[str, str]:
        """Class labels for plots (--labels, physics defaults)."""
        return (self.label_overrides.get("signal", "Signal"), self.label(self.background))

    @property
    def subset_branches(self) -> list[str]:
        """Boolean branches compared all / true / false: --compare-subset, and has_bjet unless disabled."""
        return list(dict.fromkeys(b for b in (self.compare_subset, BJET_BRANCH if self.bjet_comparison else None) if b))


def evaluate_splits(job: BinaryJob, preds: Predictions, keep: np.ndarray | None, what: str) -> dict[str, SplitResult]:
    masks = {s: preds.masks[s] for s in SPLITS}
    return evaluate_pair(preds.path, preds.scores["signal"], preds.label == 0, preds.weight, masks, keep,
                         what, job.labels, job.hep.weight_mode)  # fmt: skip


def context_lines(job: BinaryJob) -> list[str]:
    return job.context(f"vs {job.display[1]}")


def hull_overlay(key: str, result: SplitResult, metrics: dict) -> tuple:
    """(key, hull fpr, hull tpr, optimum) of the test split for roc_figure(hull=...)."""
    hull = hep.convex_hull(result.curve)
    best = metrics["optimal_operating_point"]
    return key, hull.fpr, hull.tpr, (best["eps_b"], best["eps_s"], best["prevalence"], best["accuracy"])


def pr_figure(job: BinaryJob, results: dict[str, SplitResult], metrics: dict, ctx: list[str]) -> canvas.Figure:
    """The precision-recall figure; its curves (two arrays per split as long as the ROC) are freed
    when it is drawn, not held while the other figures are made."""
    sig, pr = color("signal"), []
    for s, r in results.items():
        curve = r.pr  # derived here, once
        pr.append(CurveSpec(f"pr/{s}", curve.recall, curve.precision, f"{s.capitalize()} (AP = {r.average_precision:.4f})",
                            sig, plots.split_style(s)))  # fmt: skip
        del curve
    if job.hep.signal_scale != 1.0:  # the PR curve at the analysis prevalence (the operating points' yields), test ROC
        test, yields = results["test"].curve, (metrics["test"]["signal_yield"], metrics["test"]["background_yield"])
        pr.append(CurveSpec("pr/test_analysis_prevalence", test.tpr[1:], hep.precision_from_roc(test, yields=yields),
                            f"Test, signal #times {job.hep.signal_scale:g}", plots.cycle_color(2), 1))  # fmt: skip
    return plots.pr_figure("precision_recall_curve", pr, ctx)


def build_figures(job: BinaryJob, results: dict[str, SplitResult], history: TrainingHistory | None,
                  comparisons: list[subsets.SubsetComparison], metrics: dict,
                  decided: decisions.PairDecisions | None = None, calibration: dict | None = None) -> list[canvas.Figure]:  # fmt: skip
    ctx = context_lines(job)
    if job.hep.weight_mode != "abs":
        ctx.append(f"weights: {job.hep.weight_mode}")
    sig, bkg = color("signal"), color("background")
    roc = [CurveSpec(f"roc/{s}", r.curve.fpr, r.curve.tpr, subsets.auc_label(s.capitalize(), {"auc": r.curve.auc,
                     "auc_error": metrics[s]["auc_error"]}), sig, plots.split_style(s)) for s, r in results.items()]  # fmt: skip
    hists = []
    for s, r in results.items():
        hists.append(HistSpec(f"scores/{s}_signal", r.hist_signal, f"{job.display[0]} ({s})", sig, s == "test"))
        hists.append(HistSpec(f"scores/{s}_background", r.hist_background, f"{job.display[1]} ({s})", bkg, s == "test"))
    hull = hull_overlay("roc/test", results["test"], metrics["test"]) if job.hull else None
    figs = [plots.roc_figure("roc_curve", roc, ctx, hull=hull), plots.roc_logx_figure("roc_curve_logx", roc, ctx)]
    del roc, hull  # the rates of both splits (16 bytes a point): not held while the other figures are drawn
    figs += [
        rejection.figure("rejection_curve", "rejection", results, metrics, ctx),
        pr_figure(job, results, metrics, ctx),
        plots.score_figure("score_distributions", hists, quantity("p_signal"), ctx, pairmetrics.ks_lines(metrics), bins=job.style.score_bins,
                           **decisions.score_cuts(decided)),
        *plots.confusion_figures("confusion_matrix", results["test"].confusion, ctx[:2], labels=("Signal", job.display[1])),
    ]
    if decided is not None:
        figs.append(decisions.scan_figure("cut_scan", "cut_scan", decided, f"Cut on {quantity('p_signal')}", ctx, metrics))
    if calibration is not None:
        shift = ["split class fractions differ (prevalence)"] if prevalence_note(calibration) else []
        figs.append(decisions.calibration_figure("calibration", "calibration", calibration, job.label_overrides.get("signal", "signal"), ctx + shift))
    if history is not None:
        figs += training.training_figures(history, ctx[:2])
    for comp in comparisons:
        t = subsets.tag(comp.branch)
        figs += subsets.figures(comp, f"roc_curve_{t}_comparison", f"score_distributions_{t}_comparison", f"compare_{t}",
                                job.display, quantity("p_signal"), ctx, job.style.score_bins)  # fmt: skip
    return figs


def confusion_report(result: SplitResult) -> dict:
    c = result.confusion
    return {"labels": list(c.labels), "threshold": THRESHOLD, "counts": c.counts, "weighted": c.weighted,
            "normalised": c.normalised}  # fmt: skip


def split_report(job: BinaryJob, results: dict[str, SplitResult]) -> dict:
    per_split = {}
    for split, r in results.items():  # evaluate.yields of each class's weights, from one pass (eventsums)
        signal, background = class_yields(r.sample.weights, r.sample.is_signal)[0]
        per_split[split] = {job.labels[0]: signal, job.background: background}
    return {
        "events": {sp: {c: v["events"] for c, v in d.items()} for sp, d in per_split.items()},
        "sum_weights": {sp: {c: v["sum_weights"] for c, v in d.items()} for sp, d in per_split.items()},
        "yields": per_split,
    }


def build_report(job: BinaryJob, preds: Predictions, results: dict[str, SplitResult], history: TrainingHistory | None,
                 comparisons: list[subsets.SubsetComparison], notes: list[str], metrics: dict,
                 every: tuple[dict, dict]) -> dict:  # fmt: skip
    """`every`: the yields of the signal and background events of every split (class_yields)."""
    report = {
        "kind": "binary",
        "signal": job.signal,
        "background": job.background,
        "channel": job.channel,
        **job.report_identity(),
        "input": str(preds.path),
        "history": str(history.path) if history else None,
        "subset": job.subset,
        "events_used": f"all events of the ntuple{f' with {job.subset} true' if job.subset else ''}, per split mask",
        "weight_mode": job.hep.weight_mode,
        "signal_scale": job.hep.signal_scale,
        **split_report(job, results),
        "negative_weight_fraction": {name: every[i]["negative_weight_fraction"] for i, name in enumerate(job.labels)},
        "auc": {s: r.curve.auc for s, r in results.items()},
        "average_precision": {s: r.average_precision for s, r in results.items()},
        "confusion_matrix": {s: confusion_report(r) for s, r in results.items()},
        "hep_metrics": metrics,
    }
    for comp in comparisons:
        report[f"{subsets.tag(comp.branch)}_performance"] = {"branch": comp.branch, "split": "test", **comp.report}
    if history is not None:
        report["training"] = history.report()
    report["notes"] = notes
    return report


def profiled_roc(job: BinaryJob, preds: Predictions, keep: np.ndarray | None, test_result: SplitResult,
                 templates: dict) -> tuple[dict, profiled.Profiled]:  # fmt: skip
    """The profiled ROC of the test events under the job's nuisances, and its report section.
    `test_result`: the nominal test evaluation (its sample and curve are reused)."""
    test = preds.masks["test"] if keep is None else preds.masks["test"] & keep
    events = np.flatnonzero(test)  # the order of test_result.sample
    nominal = test_result.sample
    is_signal, scores, weights = nominal.is_signal, nominal.scores, nominal.weights

    def variant(bases: dict[str, str], side: str) -> tuple[np.ndarray, np.ndarray]:
        s = preds.extra[bases["score_signal"] + side][events] if "score_signal" in bases else scores
        w = preds.extra[bases["weight"] + side][events] if "weight" in bases else weights
        return s, w

    def shift_mask(cls: str) -> np.ndarray | None:
        return {"signal": is_signal, job.signal: is_signal, "background": ~is_signal, job.background: ~is_signal}.get(cls)

    nuisances = systematics.nuisances(nominal, templates, variant, job.syst.shifts, shift_mask, job.syst.kappa,
                                      job.hep.weight_mode)  # fmt: skip
    prof = profiled.profile(nominal, nuisances, job.syst.kappa, job.hep.weight_mode, test_result.curve)
    return systematics.report(prof, nuisances, templates, job.syst), prof


def compare_subsets(job: BinaryJob, preds: Predictions, keep: np.ndarray | None, results: dict[str, SplitResult],
                    metrics: dict) -> list[subsets.SubsetComparison]:  # fmt: skip
    """The test split of each subset branch's true and false parts beside all test events."""
    comparisons = []
    test_events = preds.masks["test"] if keep is None else preds.masks["test"] & keep  # the nominal test sample's
    for branch in job.subset_branches:
        if branch not in preds.subsets:
            continue

        def evaluate_test(part: np.ndarray | None, what: str) -> SplitResult:
            """The test events of `part` (None: all), taken from the nominal test sample (the same
            events in the same order as from the ntuple's columns, without a pass over all events)."""
            nominal = results["test"].sample
            within = np.ones(nominal.scores.size, bool) if part is None else gather(test_events, part)[0]
            samples = binary_samples(nominal.scores, nominal.is_signal, nominal.weights, {"test": within}, None,
                                     job.hep.weight_mode)  # fmt: skip
            return evaluate_samples(preds.path, samples, what, job.labels)["test"]

        comparisons.append(subsets.compare(branch, preds.subsets[branch], evaluate_test, job.hep, results["test"],
                                           metrics["test"]["auc_error"]))  # fmt: skip
    return comparisons


def run(job: BinaryJob) -> RunOutput:
    """Evaluate, draw and write every output of one fold; returns the files and fold curves (or,
    with --stream or above --memory-budget, the streamed evaluation's outputs: jobs.streamed)."""
    stream, line = streamed.plan(job)
    if stream:
        return streamed.run(job, line)
    templates, extra = systematics.templates_for(job.predictions, job.tree, job.syst, {"score_signal", "weight"})
    wanted = [b for b in (job.subset, *job.subset_branches) if b]
    optional = [BJET_BRANCH] if BJET_BRANCH in wanted and job.compare_subset != BJET_BRANCH and job.subset != BJET_BRANCH else []
    preds = read_predictions(job.predictions, classes=job.labels, score_classes=("signal",), tree=job.tree, columns=job.columns,
                             subsets=list(dict.fromkeys(wanted)), progress=job.progress, optional_subsets=optional,
                             binary=True, extra=extra, observe=job.observe, mass=job.mass_column, narrow=True)  # fmt: skip
    keep = preds.subsets[job.subset] if job.subset else None
    # what reads every event's columns first, while no split sample or curve is held: the peak of
    # their temporaries (~30 bytes an event) is not added to the evaluation's
    history = load_history(job.history) if job.history else None
    # every split's events by class (labels 0 and 1, read_predictions checked): the report's negative-weight
    # fractions and the mode's weight sums (the yields' denominators), in one pass without copies
    every, full = class_yields(preds.weight, preds.label == 0, keep, job.hep.weight_mode)
    test = preds.masks["test"]  # the test events' labels and signal scores only, when the trainer has numbers to compare
    check, check_notes = trainercheck.check_numbers(history.summary if history else {}, lambda: trainercheck.recompute_binary(
        *gather(test, preds.label, preds.scores["signal"])))  # fmt: skip
    results = evaluate_splits(job, preds, keep, "all" if keep is None else job.subset)
    # the evaluation's temporaries (sort buffers, copies) freed in the heap: its pages not resident through the
    # metrics (-50 MB at 1e7; each trim costs system time as the pages are faulted in again: one, here)
    native.trim_heap()
    expected = pair_yields(job.hep.expected_yields, "signal", job.background)
    metrics = pairmetrics.pair_metrics(results, job.hep, full, expected)
    results["train"].curve.release_rates()  # 16 bytes a train point: the decisions and comparisons are of the test split
    decided = decisions.pair_decisions(results, metrics, job.hep, "score_signal", expected)
    calibration = {s: reliability_from_sums(r.tables.reliability) for s, r in results.items()}  # summed with the histograms
    comparisons = compare_subsets(job, preds, keep, results, metrics)
    for r in [*results.values(), *(r for comp in comparisons for r in comp.results.values())]:
        r.curve.release_rates()  # 16 bytes a point: computed at each later use (report, binning, figures), not held
    notes = [f"{c.branch} comparison skipped: {c.report['skipped']}" for c in comparisons if "skipped" in c.report]
    if history is None:
        notes.append("no training history file found: training_loss, training_accuracy, training_epoch_time and training_memory skipped")
    elif "epoch_time" not in history.columns and "memory_mb" not in history.columns:
        notes.append("history has no epoch_time/memory_mb: training_epoch_time and training_memory skipped")
    notes += history.notes() if history else []
    report = build_report(job, preds, results, history, comparisons, notes, metrics, every)
    if check:  # the trainer's test_loss / test_accuracy beside pnetviz's from the same ntuple
        report["trainer_check"], report["notes"] = check, [*report["notes"], *check_notes]
    report["working_points"] = {**decided.meta, "points": decided.points}
    report["cut_scan"] = decisions.scan_section(decided, results["test"], metrics)
    report["calibration"] = {"score": "score_signal", "class": "signal", "bins": "equal bins of [0, 1]",
                             **{s: c.report() for s, c in calibration.items()}}  # fmt: skip
    if prevalence_note(calibration):
        report["calibration"]["prevalence_note"] = prevalence_note(calibration)
    report["binning"] = None  # its place among the sections: filled once the read columns are freed
    prof = None
    if job.syst.active:
        report["systematics"], prof = profiled_roc(job, preds, keep, results["test"], templates)

    def figures() -> list[canvas.Figure]:
        figs = build_figures(job, results, history, comparisons, metrics, decided, calibration)
        figs += fitbins.figures(binning, results, metrics, job.labels, job.display, context_lines(job))
        if prof is not None:
            figs += systematics.figures(prof, "profiled", context_lines(job), "roc_curve_profiled", "rejection_curve_profiled",
                                        metrics["test"]["auc_error"])  # fmt: skip
        return figs

    if preds.extra:  # observers, the mass and weight variations (limit_columns divides by the nominal weights): float64
        preds.weight = preds.weight.astype(np.float64, copy=False)
    figures = observers.attach(report, figures, job, preds, preds.scores["signal"], keep, context_lines(job))  # fmt: skip
    # the fold's test (and binning-choice) events for the out-of-fold evaluation, then the read columns
    # (~20 bytes an event) freed before the figures: nothing after this line reads them
    pairs = outoffold.binary_pairs(job, preds, results, metrics, keep) if job.fold is not None else None
    del preds, keep, templates
    binning = fitbins.pair_section(results, metrics) if job.fit_binning else None
    report["binning"] = fitbins.summary(binning)
    # the train events (13 bytes each): no figure reads them (the binning's figures are of the test events)
    results["train"] = dataclasses.replace(results["train"], sample=None)
    wp_file = decisions.document("binary", decisions.identity(job), {f"signal vs {job.background}": report["working_points"]})
    extra = {decisions.WP_FILE: wp_file}
    if job.fit_binning:
        extra[fitbins.FILE] = fitbins.document("binary", decisions.identity(job), {f"signal vs {job.background}": binning})
    written = write_set(job.output, job.formats, job.style, figures, report,
                      job.describe(f"pnetviz binary evaluation: {job.signal} vs {job.background}"), extra,
                      only=imageset.selection(job.images))  # fmt: skip
    for r in results.values():
        r.curve.keep_rates()  # the figures are freed: the fold curves' reads share one computation again
    if pairs is not None:
        outoffold.store(job.output, pairs)
    curves = {s: decisions.with_wp_scalars(fold_curves(job.fold, r, metrics[s]), decided.points, s) for s, r in results.items()}
    return RunOutput(written, {f"{job.signal} vs {job.background}": ("", curves)})
