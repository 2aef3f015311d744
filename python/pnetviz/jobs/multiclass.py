"""visualizeMultiClass: evaluate one multi-class model for one fold.

For each background i only events with true_label in {0, i} are kept and scored with the
likelihood ratio P(signal) / (P(signal) + P(bkg_i) + 1e-10) (spec sections 4 and 7), so the
AUCs are directly comparable with the binary models'. Per-class metrics use argmax.
"""

from __future__ import annotations

import warnings

import numpy as np

from pnetviz.draw import canvas
from pnetviz.metrics import pairmetrics, profiled
from pnetviz.jobs import decisions, multibins, multiweighted, observers, outoffold, subsets, systematics
from pnetviz.metrics.calibration import pairwise_auc, reliability_from_sums
from pnetviz.metrics.evaluate import SPLITS, BinarySample, SplitResult, evaluate_samples, gather, lr_score
from pnetviz.jobs.driver import RunOutput
from pnetviz.errors import InputError
from pnetviz.metrics.folds import fold_curves
from pnetviz.metrics.hep import mode_weights
from pnetviz.io.yields import pair_yields
from pnetviz.io.history import load_history
from pnetviz.io.ntuple import Predictions, read_predictions
from pnetviz.metrics import trainercheck
from pnetviz.output import imageset
from pnetviz.output.publish import write_set
from pnetviz.output.report import dumps, plain
from pnetviz.jobs.subsets import BJET_BRANCH
from pnetviz.jobs.multijob import (ClassMetrics, ClassTables, Decisions, Evaluation, MultiClassJob,  # noqa: F401 - callers use multiclass.*
                                 check_class_sources, check_lr, class_metrics, class_reliability, class_tables,
                                 context_lines, declared_class_count, file_tag, one_vs_rest, one_vs_rest_auc, pair_samples,
                                 resolve_classes, score_matrix)
from pnetviz.jobs.multifigures import (build_figures, class_score_figure, direct_score_figure, lr_pair, lr_text,  # noqa: F401 - callers use multiclass.*
                                      pair_figures)
from pnetviz.jobs.multireport import (REPORT_COLUMNS, build_report, classification_report, classification_text,  # noqa: F401 - callers use multiclass.*
                                     confusion_report, decision_report)


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
            whole = pairs[background]["test"].sample
            events = np.flatnonzero(selections["test"] & (class_masks[0] | class_masks[i]))  # pair_samples' test events

            def evaluate_test(part: np.ndarray | None, what: str, whole: BinarySample = whole, events: np.ndarray = events,
                              background: str = background) -> SplitResult:  # fmt: skip
                """The pair's test events in `part`: the test sample's (the same LR scores), not made again."""
                sample = whole if part is None else BinarySample(*gather(part[events], whole.scores, whole.is_signal,
                                                                          whole.weights, whole.used))  # fmt: skip
                return evaluate_samples(preds.path, {"test": sample}, f"signal vs {background}, {what}",
                                        (job.names[0], background))["test"]  # fmt: skip

            comparisons[background] = subsets.compare(BJET_BRANCH, flag, evaluate_test, job.hep, pairs[background]["test"],
                                                      hep_metrics[background]["test"]["auc_error"])  # fmt: skip
    return Evaluation(pairs=pairs, tables=tables, metrics=metrics, selections=selections, hep=hep_metrics,
                      one_vs_rest=ovr, class_masks=class_masks, used=used, subset_comparisons=comparisons,
                      skipped=skipped, weighted=multiweighted.evaluate(job, preds, used, selections, class_masks, keep))  # fmt: skip


def decide(job: MultiClassJob, preds: Predictions, ev: Evaluation) -> Decisions:
    """Working points (thresholds on the LR score of each pair), calibration of every class score
    and the pairwise AUC matrix on the test split (weights after the weight mode)."""
    pairs = {}
    for background, results in ev.pairs.items():
        expected = pair_yields(job.hep.expected_yields, job.classes[0], background)
        pairs[background] = decisions.pair_decisions(results, ev.hep[background], job.hep, lr_text(job, background), expected)
    calibration = {c: {} for c in job.classes}
    scores, label = score_matrix(preds), np.ascontiguousarray(preds.label, dtype=np.int32)
    for s, sel in ev.selections.items():  # every class's reliability sums in one pass over the split
        sums = class_reliability(scores, label, ev.used, sel)
        for k, c in enumerate(job.classes):
            calibration[c][s] = reliability_from_sums(sums[k])
    test = ev.selections["test"]
    known = {(0, k): ev.pairs[c]["test"].curve.auc for k, c in enumerate(job.classes) if c in ev.pairs}  # signal row
    label, used, *scores = gather(test, preds.label, ev.used, *(preds.scores[c] for c in job.classes))
    matrix = pairwise_auc(scores, label, used, known)
    return Decisions(pairs, calibration, matrix)


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
                             extra=extra, observe=job.observe, mass=job.mass_column)  # fmt: skip
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
    weighted = multiweighted.decide(job, ev.weighted) if ev.weighted else {}  # --score weighted-lr
    if ev.weighted:
        report["weighted_lr"] = multiweighted.report(job, ev.weighted, weighted)
    profiles = profiled_pairs(job, preds, ev, templates) if job.syst.active else {}
    if profiles:
        report["systematics"] = {b: r for b, (r, _) in profiles.items()}
    binning = multibins.compute(job, preds, ev, job.fit_score) if job.fit_binning else None
    report["binning"] = multibins.report(binning) if binning else None

    def figures() -> list[canvas.Figure]:
        figs = build_figures(job, ev, history, decided)
        for b, (_, prof) in profiles.items():
            tag = f"signal_vs_{file_tag(b)}"
            figs += systematics.figures(prof, f"{tag}/profiled", context_lines(job, lr_pair(job.label(b))),
                                        f"{tag}_roc_curve_profiled", f"{tag}_rejection_curve_profiled",
                                        ev.hep[b]["test"]["auc_error"])  # fmt: skip
        figs += multibins.figures(job, binning, context_lines) if binning else []
        if ev.weighted:
            figs += multiweighted.figures(job, ev.weighted, weighted, [f"weights: {job.hep.weight_mode}"] * (job.hep.weight_mode != "abs"))
        return figs

    figures = observers.attach(report, figures, job, preds, preds.scores[job.classes[0]],
                               preds.subsets[job.subset] if job.subset else None, context_lines(job, "vs all backgrounds"))  # fmt: skip

    classes = classification_report(job, ev)
    extra = {"classification_report.json": dumps(plain(classes)) + "\n",
             "classification_report.txt": classification_text(classes, f"Classification report: {job.signal}, "
                                                              f"{job.channel}, {job.fold_text or 'multi-class'}"),
             decisions.WP_FILE: decisions.document("multiclass", decisions.identity(job),
                                                   {**{f"signal vs {b}": v for b, v in report["working_points"].items()},
                                                    **{f"signal vs weighted_lr_{b}": v for b, v in
                                                       (report.get("weighted_lr") or {}).get("working_points", {}).items()}})}  # fmt: skip
    extra |= multibins.files(decisions.identity(job), binning) if binning else {}
    written = write_set(job.output, job.formats, job.style, figures, report,
                      job.describe(f"pnetviz multi-class evaluation: {job.signal}"), extra, only=imageset.selection(job.images))  # fmt: skip
    if job.fold is not None:  # each pair's test (and binning-choice) events for the out-of-fold evaluation
        outoffold.store(job.output, {**outoffold.multiclass_pairs(job, preds, ev, lambda bkg: f"signal_vs_{file_tag(bkg)}_"),
                                     **multiweighted.out_of_fold_pairs(job, preds, ev.weighted)})  # fmt: skip
    curves = {
        f"{job.signal} vs {bkg} (LR)": (f"signal_vs_{file_tag(bkg)}_",
                                        {s: decisions.with_wp_scalars(fold_curves(job.fold, r, ev.hep[bkg][s]),
                                                                      decided.pairs[bkg].points, s) for s, r in results.items()})
        for bkg, results in ev.pairs.items()
    }  # fmt: skip
    display = {f"{job.signal} vs {bkg} (LR)": lr_pair(job.label(bkg)) for bkg in ev.pairs}
    if ev.weighted:  # the weighted LR's pairs, after the pairwise ones
        more, shown = multiweighted.curves(job, ev.weighted, weighted)
        curves, display = {**curves, **more}, {**display, **shown}
    return RunOutput(written, curves, extra={"display": display})
