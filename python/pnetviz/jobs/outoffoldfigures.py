"""The figures of the out-of-fold evaluation in the `folds/` set (jobs.outoffold): per pair the
pooled ROC, the pooled rejection curve, the pooled score distributions per class with the working
points, the binning's objective against K and the pooled templates in its edges, every object
under `out_of_fold/` of plots.root (a multi-class pair under `out_of_fold/signal_vs_<bkg>/`, its
templates under `out_of_fold/fit_binning_signal_vs_<bkg>/`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.draw import binningplots, canvas, plots
from pnetviz.draw.plots import CurveSpec, HistSpec
from pnetviz.draw.style import color
from pnetviz.jobs import fitbins
from pnetviz.metrics import binning as bn
from pnetviz.metrics.evaluate import score_histogram
from pnetviz.metrics.rounding import pm
from pnetviz.names import name as quantity

DIRECTORY = "out_of_fold"


def directory(prefix: str) -> str:
    """Where a pair's curves go in plots.root: out_of_fold/ (binary) or out_of_fold/signal_vs_<bkg>/."""
    return f"{DIRECTORY}/{prefix.rstrip('_') + '/' if prefix else ''}"


def templates_key(prefix: str) -> str:
    """out_of_fold/fit_binning (binary) or out_of_fold/fit_binning_signal_vs_<bkg>: a shapes line's path."""
    return f"{DIRECTORY}/fit_binning" + (f"_{prefix.rstrip('_')}" if prefix else "")


def templates(doc: dict, pooled, processes: tuple[str, str], labels: tuple[str, str], prefix: str) -> list:
    """The pooled test events' yields in the pair's one binning, one TH1D per process (contents sum
    w, errors sqrt(sum w^2), times the stated yield scale); [] without a chosen binning."""
    binning = doc.get("binning") or {}
    if not binning.get("edges"):
        return []
    edges = np.asarray(binning["edges"], float)
    test, scale = pooled.test, pooled.scale
    idx = bn.bin_index(edges, test.scores)
    out = []
    for process, label, col, sel, factor in ((processes[0], labels[0], color("signal"), test.is_signal, scale[0]),
                                             (processes[1], labels[1], color("background"), ~test.is_signal, scale[1])):  # fmt: skip
        w = test.weights[sel] * factor
        sw = np.bincount(idx[sel], weights=w, minlength=edges.size - 1)
        sw2 = np.bincount(idx[sel], weights=w * w, minlength=edges.size - 1)
        hist = binningplots.fit_histogram(f"{templates_key(prefix).replace('/', '_')}_{process}", edges, sw, sw2,
                                          f"{label}: yield per bin (out of fold)")  # fmt: skip
        out.append((process, hist, label, col))
    return out


def pair_figures(doc: dict, curve, pooled, processes: tuple[str, str], labels: tuple[str, str],
                 context: Sequence[str], bins: int | str = "auto") -> list[canvas.Figure]:  # fmt: skip
    """Every out-of-fold figure of one pair (`doc`: its out_of_fold.json entry; `bins`: the score
    distribution's, --score-bins)."""
    prefix, where = doc["prefix"], directory(doc["prefix"])
    n = len(doc["folds"])
    ctx = [*context, f"out of fold: {n} folds' test splits pooled ({doc['events']} events)"]
    auc = pm(doc["auc"], doc["auc_error"], "tlatex", ".4f")
    sig = color("signal")
    roc = [CurveSpec(f"{where}roc", curve.fpr, curve.tpr, f"Pooled test: AUC {auc}", sig, plots.split_style("test"))]
    measured = curve.fpr > 0
    rej = [CurveSpec(f"{where}rejection", curve.tpr[measured], 1.0 / curve.fpr[measured], "Pooled test", sig,
                     plots.split_style("test"))]  # fmt: skip
    test = pooled.test
    hists = [HistSpec(f"{where}scores_{p}", score_histogram(f"oof_{prefix}scores_{p}", test.scores[sel], test.weights[sel]),
                      label, col, True)  # the context line says "test splits pooled"
             for p, label, col, sel in (("signal", labels[0], color("signal"), test.is_signal),
                                        ("background", labels[1], color("background"), ~test.is_signal))]  # fmt: skip
    points = doc["rejection"]
    cuts = [p["threshold"] for p in points.values()]
    figs = [plots.roc_figure(f"{prefix}out_of_fold_roc_curve", roc, ctx),
            plots.rejection_figure(f"{prefix}out_of_fold_rejection_curve", rej, ctx),
            plots.score_figure(f"{prefix}out_of_fold_score_distributions", hists, axis_title(prefix), ctx, cuts=cuts, cut_label="Working points",
                               cut_texts=[f"{p['eps_s'] * 100:g}%" for p in points.values()], bins=bins)]  # fmt: skip
    binning = doc.get("binning") or {}
    hists_fit = templates(doc, pooled, processes, labels, prefix)
    if hists_fit:
        figs += binning_figures(binning, hists_fit, ctx, prefix)
    return figs


def binning_figures(binning: dict, hists: list, context: Sequence[str], prefix: str) -> list[canvas.Figure]:
    """The objective against K (chosen on `chosen_on`, judged on the pooled test events) and the
    templates with data_obs (the background sum: blind) stored beside them."""
    key = templates_key(prefix)
    expected = binning.get("yields") == "expected"
    ytitle = "Expected events per bin" if expected else "Yield per bin (relative)"
    on = binning["chosen_on"]
    ctx = [*context, f"edges and K chosen on {on}, pooled test events"]
    figure = binningplots.histograms_figure(f"{prefix}out_of_fold_binning_histograms", key, hists, ytitle,
                                            [*context, f"K = {binning['chosen_k']} (chosen on {on}), pooled test events"])  # fmt: skip
    observed = fitbins.background_sum(hists, f"{key.replace('/', '_')}_{fitbins.OBSERVED}")
    observed.GetXaxis().SetTitle("Score (chosen binning)")
    observed.GetYaxis().SetTitle(ytitle)
    figure.keep(f"{key}/{fitbins.OBSERVED}", observed, fitbins.OBSERVED_TITLE)
    # the objective figure labels the choice split's values "train" (metrics.fitbinning's field)
    return [binningplots.objective_figure(f"{prefix}out_of_fold_binning_objective", f"{directory(prefix)}binning", binning, ctx),
            figure]


def axis_title(prefix: str) -> str:
    """The pooled score's axis, as the fold sets title it: P(signal), the pairwise LR score, or the
    weighted LR's formula (prefix weighted_lr_...)."""
    from pnetviz.metrics.weightedlr import AXIS  # noqa: PLC0415

    return quantity("p_signal") if not prefix else AXIS if prefix.startswith("weighted_lr_") else quantity("lr_score")
