"""A multi-class fold set's figures: per background pair the likelihood-ratio curves and scores
(as a binary model's), the direct class scores, the class-score matrix, confusion and reliability
(jobs.multiclass draws them after the evaluation)."""

from __future__ import annotations

from pnetviz.draw import canvas, plots, rejection, training
from pnetviz.names import name as quantity
from pnetviz.metrics import hep, pairmetrics
from pnetviz.jobs import decisions, subsets
from pnetviz.metrics.evaluate import SPLITS, histogram_from_sums
from pnetviz.io.history import TrainingHistory
from pnetviz.draw.plots import CurveSpec, HistSpec
from pnetviz.draw.style import color, cycle_color
from pnetviz.jobs.multijob import Decisions, Evaluation, MultiClassJob, context_lines, file_tag


def lr_pair(label: str) -> str:
    """A pair's context on its plots: "vs t#bar{t}X, LR score" (the model is "Multi-class", its
    score of a pair the LR score: names.QUANTITIES)."""
    return f"vs {label}, {quantity('lr_score')}"


def lr_text(job: MultiClassJob, background: str) -> str:
    return f"P({job.classes[0]}) / (P({job.classes[0]}) + P({background}) + 1e-10)"


def pair_figures(job: MultiClassJob, ev: Evaluation, index: int, ctx: list[str],
                 decided: decisions.PairDecisions | None = None) -> list[canvas.Figure]:  # fmt: skip
    """Signal vs class `index`: LR ROC, rejection and score distribution, the direct P(signal) and
    P(bkg) distributions of the pair's events, and the b-jet comparison when made."""
    background, label = job.classes[index], job.display[index]
    tag = f"signal_vs_{file_tag(background)}"
    ctx = [*context_lines(job, lr_pair(label)), *ctx[len(context_lines(job)):]]
    xtitle = f"{job.p_of(0)} / ({job.p_of(0)} + {job.p_of(index)})"
    figs = score_pair_figures(job, tag, ev.pairs[background], ev.hep[background], label, xtitle, ctx, decided)
    direct_ctx = [*context_lines(job, ""), f"{job.display[0]} and {label} events", *ctx[len(context_lines(job)):]]
    for k, stem in ((0, "psignal"), (index, f"p{file_tag(background)}")):
        figs.append(direct_score_figure(job, ev, index, k, f"{tag}_{stem}_distribution", direct_ctx))
    comp = ev.subset_comparisons.get(background)
    if comp is not None:
        figs += subsets.figures(comp, f"{tag}_roc_bjet_comparison", f"{tag}_lr_score_bjet_comparison",
                                f"{tag}/compare_bjet", (job.display[0], label), xtitle, ctx, job.style.score_bins)  # fmt: skip
    return figs


def score_pair_figures(job: MultiClassJob, tag: str, results: dict, metrics: dict, label: str, xtitle: str,
                       ctx: list[str], decided: decisions.PairDecisions | None = None,
                       score_stem: str = "lr_score") -> list[canvas.Figure]:  # fmt: skip
    """One score's pair (a class's LR, or the weighted LR): ROC, rejection, score distribution
    (<tag>_<score_stem>_distribution) and the cut scan; `label` the background's plot label,
    `tag` the file stem and key prefix."""
    sig, bkg = color("signal"), color("background")
    roc = [CurveSpec(f"{tag}/roc_{s}", r.curve.fpr, r.curve.tpr, subsets.auc_label(s.capitalize(), {
        "auc": r.curve.auc, "auc_error": metrics[s]["auc_error"]}), sig, plots.split_style(s)) for s, r in results.items()]  # fmt: skip
    hists = []
    for s, r in results.items():
        hists.append(HistSpec(f"{tag}/scores_{s}_signal", r.hist_signal, f"{job.display[0]} ({s})", sig, s == "test"))
        hists.append(HistSpec(f"{tag}/scores_{s}_background", r.hist_background, f"{label} ({s})", bkg, s == "test"))
    hull = None
    if job.hull:
        h, best = hep.convex_hull(results["test"].curve), metrics["test"]["optimal_operating_point"]
        hull = (f"{tag}/roc_test", h.fpr, h.tpr, (best["eps_b"], best["eps_s"], best["prevalence"], best["accuracy"]))
    figs = [
        plots.roc_figure(f"{tag}_roc_curve", roc, ctx, hull=hull),
        plots.roc_logx_figure(f"{tag}_roc_curve_logx", roc, ctx),
        rejection.figure(f"{tag}_rejection_curve", f"{tag}/rejection", results, metrics, ctx),
        plots.score_figure(f"{tag}_{score_stem}_distribution", hists, xtitle, ctx, pairmetrics.ks_lines(metrics), bins=job.style.score_bins,
                           **decisions.score_cuts(decided)),
    ]
    if decided is not None:
        figs.append(decisions.scan_figure(f"{tag}_cut_scan", f"{tag}/cut_scan", decided, f"Cut on {xtitle}", ctx, metrics))
    return figs


def direct_score_figure(job: MultiClassJob, ev: Evaluation, index: int, k: int, name: str,
                        ctx: list[str]) -> canvas.Figure:  # fmt: skip
    """P(class k) of the events of the pair signal vs class `index` (true signal and true
    class `index`), train lines, test points: the trainer's psignal / p<bkg> distributions. The
    histograms are the split's class tables (ev.tables: P(k) of each true class, the bins and
    sums of evaluate.score_histogram, summed in event order as it sums them)."""
    hists, tag = [], f"signal_vs_{file_tag(job.classes[index])}"
    for split in ev.selections:
        tables = ev.tables[split]
        for true, col in ((0, color("signal")), (index, color("background"))):
            h = histogram_from_sums(f"{name}_{split}_{true}", tables.hist[k, true], tables.hist_w2[k, true],
                                    f"{job.p_of(k)} of true {job.names[true]} events, {split}",
                                    entries=int(tables.events[true]))  # fmt: skip
            hists.append(HistSpec(f"{tag}/p{file_tag(job.classes[k])}_{split}_true_{file_tag(job.classes[true])}", h,
                                  f"{job.display[true]} ({split})", col, split == "test"))  # fmt: skip
    return plots.score_figure(name, hists, job.p_of(k), ctx, bins=job.style.score_bins)


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
    return plots.score_figure(f"{file_tag(name)}_score_distribution", hists, job.p_of(index), ctx, bins=job.style.score_bins)


def build_figures(job: MultiClassJob, ev: Evaluation, history: TrainingHistory | None,
                  decided: Decisions | None = None) -> list[canvas.Figure]:  # fmt: skip
    ctx = context_lines(job)
    if job.hep.weight_mode != "abs":
        ctx.append(f"weights: {job.hep.weight_mode}")
    figs = []
    for background in ev.pairs:
        figs += pair_figures(job, ev, job.classes.index(background), ctx, decided.pairs[background] if decided else None)
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

