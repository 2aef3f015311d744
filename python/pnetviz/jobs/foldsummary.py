"""The `folds/` output set written when a visualize script runs several folds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.metrics.folds import EFF_GRID, FPR_GRID, FoldCurves, aggregate, aggregate_report
from pnetviz.output.publish import write_set
from pnetviz.draw.style import StyleOptions, color

FOLDS_DIR = "folds"


def band_figures(prefix: str, per_split: dict[str, list[FoldCurves]], context: Sequence[str]) -> list[canvas.Figure]:
    """Mean ROC and mean rejection curve with +-1 sigma bands, train and test."""
    aggs = {split: aggregate(curves) for split, curves in per_split.items()}
    n = len(next(iter(aggs.values())).folds)

    def roc_bands(fig: canvas.Figure) -> None:
        for k, (split, agg) in enumerate(aggs.items()):
            lo, hi = np.clip(agg.tpr_mean - agg.tpr_std, 0, 1), np.clip(agg.tpr_mean + agg.tpr_std, 0, 1)
            canvas.add_band(fig, f"{prefix}folds/roc_band_{split}", FPR_GRID, lo, hi, None, band_color=color(split))

    def rejection_bands(fig: canvas.Figure) -> None:
        for k, (split, agg) in enumerate(aggs.items()):
            lo, hi = agg.rejection_band
            canvas.add_band(fig, f"{prefix}folds/rejection_band_{split}", EFF_GRID, lo, hi, None, band_color=color(split))

    roc = [plots.CurveSpec(f"{prefix}folds/roc_mean_{s}", FPR_GRID, a.tpr_mean,
                           f"{s.capitalize()}: AUC {a.mean['auc']:.3f} #pm {a.std['auc']:.3f}", color(s),
                           plots.split_style(s)) for k, (s, a) in enumerate(aggs.items())]  # fmt: skip
    # rejection = 1/mean(eps_b) over folds, never dropped: where every fold has eps_b = 0 it is a
    # lower limit, drawn dotted (its own legend entry) so that a plateau is not read as a measurement
    rej = []
    for k, (s, a) in enumerate(aggs.items()):
        measured = a.eps_b_mean > 0
        rej.append(plots.CurveSpec(f"{prefix}folds/rejection_mean_{s}", EFF_GRID[measured], a.rejection_mean[measured],
                                   f"{s.capitalize()}: mean #pm 1#sigma", color(s),
                                   plots.split_style(s)))  # fmt: skip
        if not measured.all():
            limit = np.flatnonzero(~measured)
            edge = np.arange(limit.min(), min(limit.max() + 2, EFF_GRID.size))  # joins the measured part
            rej.append(plots.CurveSpec(f"{prefix}folds/rejection_limit_{s}", EFF_GRID[edge], a.rejection_mean[edge],
                                       f"{s.capitalize()}: lower limit (95% CL)", color(s), 3))  # fmt: skip
    return [
        plots.roc_figure(f"{prefix}roc_curve_folds", roc, [*context, f"mean of {n} folds #pm 1#sigma"],
                         underlay=roc_bands),  # fmt: skip
        plots.rejection_figure(f"{prefix}rejection_curve_folds", rej, [*context, f"1/(mean #varepsilon_{{b}}) of {n} folds"],
                               underlay=rejection_bands),  # fmt: skip
    ]


def pair_context(context: Sequence[str], pair: str) -> list[str]:
    """The context of one pair's fold-summary plots: the signal point, then the pair (e.g. "vs
    ttX (LR)") joined to the next line (kind and channel)."""
    if len(context) < 2:
        return [*context, pair]
    return [context[0], f"{pair}, {context[1]}", *context[2:]]


def write_fold_summary(output: Path, formats: Sequence[str], style: StyleOptions, title: str, context: Sequence[str],
                       pairs: dict[str, tuple[str, dict[str, list[FoldCurves]]]], missing: Sequence[int],
                       display: dict[str, str] | None = None) -> list[Path]:  # fmt: skip
    """pairs: name -> (file prefix, split -> per-fold curves); display: name -> plot text (default
    the name). Writes figures, report, plots.root."""
    report = {"pairs": {name: {split: aggregate_report(aggregate(curves), missing) for split, curves in per_split.items()}
                        for name, (_, per_split) in pairs.items()}}  # fmt: skip
    report["missing_folds"] = list(missing)

    def figures() -> list[canvas.Figure]:
        figs = []
        for name, (prefix, per_split) in pairs.items():
            figs += band_figures(prefix, per_split, pair_context(context, (display or {}).get(name, name)) if prefix else context)
        return figs

    return write_set(output, formats, style, figures, report, title)
