"""All test events vs a boolean subset and its complement: the trainer's b-jet comparison.

Made automatically when the ntuple has `has_bjet` (off with --no-bjet-comparison), and for any
boolean branch with the binary script's --compare-subset. One mechanism for the binary model and
every multi-class likelihood-ratio pair: the caller gives a function evaluating the test split
for an event mask; this module returns AUC +- bootstrap error per part and the two figures.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.metrics import hep
from pnetviz.errors import InputError
from pnetviz.metrics.evaluate import SplitResult
from pnetviz.metrics.folds import FPR_GRID, grid_sums, ratio_to_reference, tpr_error_on_grid, tpr_on_grid
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.draw.plots import CurveSpec, HistSpec
from pnetviz.draw.style import color, line_style, meaning_color
from pnetviz.metrics.rounding import pm
from pnetviz.rootenv import root

PARTS = ("all", "with", "without")  # style.ENCODINGS keys: each part's colour and line style

BJET_BRANCH = "has_bjet"


def tag(branch: str) -> str:
    """Name used in output files and the report: `bjet` for has_bjet, else the branch name."""
    return "bjet" if branch == BJET_BRANCH else branch


def part_labels(branch: str) -> dict[str, str]:
    if branch == BJET_BRANCH:
        return {"all": "All", "with": "b jet", "without": "No b jet"}
    return {"all": "All", "with": f"{branch}", "without": f"not {branch}"}


@dataclass(frozen=True)
class SubsetComparison:
    branch: str
    results: dict[str, SplitResult]  # part -> test split result (the parts' without their samples: None)
    report: dict  # part -> {auc, auc_error, events}; or {"skipped": reason}
    ratio_errors: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)  # part -> its ROC ratio band's error on the grid


def compare(branch: str, flag: np.ndarray, evaluate_test: Callable[[np.ndarray | None, str], SplitResult],
            opts: HepOptions, overall: SplitResult, overall_error: float) -> SubsetComparison:  # fmt: skip
    """The test split for `flag` true and `flag` false (evaluate_test(keep, what), `what` the
    part's label) beside `overall`, the test result of all events already computed (with its AUC
    error: not sorted or bootstrapped twice). A part without signal or background is not an error
    of the run: the comparison is skipped and says why."""
    results, labels = {"all": overall}, part_labels(branch)
    try:
        for part, keep in (("with", flag), ("without", ~flag)):
            results[part] = evaluate_test(keep, f"{labels[part].lower()} ({branch})")
    except InputError as err:
        return SubsetComparison(branch, {}, {"skipped": str(err)})
    report, errors = {}, {}
    for part, r in results.items():
        s = r.sample
        error = overall_error if part == "all" else math.nan
        if part != "all" and opts.bootstrap > 1:
            error = hep.bootstrap(s.scores, s.is_signal, s.used, opts.bootstrap, opts.seed, chunks=r.curve.chunks).auc_error
        report[part] = {"auc": r.curve.auc, "auc_error": error,
                        "events": {"signal": int(s.is_signal.sum()), "background": int((~s.is_signal).sum())}}  # fmt: skip
        errors[part] = tpr_error_on_grid(r.curve, grid_sums(r.curve, s.scores, s.is_signal, s.used))
    # what the figures need of the parts is computed: their samples (13 bytes a test event) are not held through them
    results = {part: r if part == "all" else dataclasses.replace(r, sample=None) for part, r in results.items()}
    return SubsetComparison(branch, results, report, errors)


def _own(hist):
    """A copy of `hist` for one figure: all events' histograms are drawn in the main score figure
    too, whose style a second drawing would change."""
    copy = hist.Clone(canvas.unique(hist.GetName()))
    copy.SetDirectory(root().nullptr)
    return copy


def auc_label(name: str, entry: dict) -> str:
    err = entry["auc_error"]
    return f"{name}: AUC {pm(entry['auc'], err, 'tlatex', '.3f')}"  # PDG rounding (metrics.rounding)


def figures(comp: SubsetComparison, roc_name: str, score_name: str, key: str, names: tuple[str, str], xtitle: str,
            context: Sequence[str], bins: int | str | None = None) -> list[canvas.Figure]:  # fmt: skip
    """ROC of all / with / without (test), and the score distributions of all events, those with the
    flag and those without it (test), signal and background: each part its own line style
    (style.ENCODINGS, never the train/test encoding), in the ROC its own colour too.
    `names`: plot labels of signal and background."""
    if not comp.results:
        return []
    labels = part_labels(comp.branch)
    ctx = [*context, "test events"]
    curves = [CurveSpec(f"{key}/roc_{part}", r.curve.fpr, r.curve.tpr, auc_label(labels[part], comp.report[part]),
                        meaning_color(part), line_style(part)) for part, r in comp.results.items()]  # fmt: skip
    hists = []
    for part in PARTS:
        r, text = comp.results[part], ("all events" if part == "all" else labels[part] if part == "with" else labels[part].lower())
        hists.append(HistSpec(f"{key}/scores_{part}_signal", _own(r.hist_signal), f"{names[0]}, {text}", color("signal"), False,
                              line_style(part)))  # fmt: skip
        hists.append(HistSpec(f"{key}/scores_{part}_background", _own(r.hist_background), f"{names[1]}, {text}",
                              color("background"), False, line_style(part)))  # fmt: skip
    score = plots.score_figure(score_name, hists, xtitle, ctx, wide_legend=True, bins=bins)
    # each part's signal efficiency over that of all events, band: the ratio-of-sums error of its signal efficiency
    reference = tpr_on_grid(comp.results["all"].curve)  # folds.roc_ratio's, read once for the three parts
    ratio = plots.RatioPanel("all events", [
        plots.RatioSpec(f"{key}/roc_ratio_{part}", ratio_to_reference(FPR_GRID, tpr_on_grid(r.curve), reference, comp.ratio_errors[part]),
                        meaning_color(part), line_style(part), part == "all") for part, r in comp.results.items()])  # fmt: skip
    return [plots.roc_figure(roc_name, curves, ctx, ratio=ratio), score]
