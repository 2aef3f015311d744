"""The `folds/` output set written when a visualize script runs several folds, and how it is
kept true to the fold sets on disk.

Every fold set holds `fold_results.json`: what its fold contributes to a summary (the curves on
the common grids and the scalars of each pair, or a comparison's per-pair numbers). A run of
one fold beside a `folds/` set recomputes the summary from its own fold and the stored results
of the summary's other folds (read while holding the summary's lock, which every run takes
before it publishes a fold there), or withdraws it when one of them cannot be read; either in
the same transaction as the fold set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.metrics.folds import EFF_GRID, FPR_GRID, FoldCurves, aggregate, aggregate_report
from pnetviz.output.atomic import is_output_set
from pnetviz.output.publish import write_set
from pnetviz.draw.style import StyleOptions, color

FOLDS_DIR = "folds"
RESULTS_FILE = "fold_results.json"
RESULTS_FORMAT = 1
FOLD_DIR = re.compile(r"fold-(\d+)")


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
    report["folds"] = sorted({c.fold for _, per_split in pairs.values() for curves in per_split.values() for c in curves})
    report["missing_folds"] = list(missing)

    def figures() -> list[canvas.Figure]:
        figs = []
        for name, (prefix, per_split) in pairs.items():
            figs += band_figures(prefix, per_split, pair_context(context, (display or {}).get(name, name)) if prefix else context)
        return figs

    return write_set(output, formats, style, figures, report, title)


# --- the per-fold results a summary is computed from ---


def jsonable(value):
    """A JSON-ready copy that keeps NaN and infinities (written as NaN/Infinity: read back exactly)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [float(v) for v in value.ravel()] if value.dtype.kind == "f" else jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    return value


def write_results(directory: Path, kind: str, fold: int, pairs: dict) -> None:
    """`fold_results.json` of one fold set: `pairs` (pair name -> what the summary needs)."""
    doc = {"format": RESULTS_FORMAT, "kind": kind, "fold": fold, "pairs": jsonable(pairs)}
    (Path(directory) / RESULTS_FILE).write_text(json.dumps(doc, allow_nan=True) + "\n")


def read_results(fold_dir: Path, kind: str, fold: int) -> dict | None:
    """The stored pairs of the fold set `fold_dir` (None if it is not a set of `kind` and `fold`
    with readable results: written by an older pnetviz, damaged, or another kind of run)."""
    if not is_output_set(fold_dir):
        return None
    try:
        doc = json.loads((Path(fold_dir) / RESULTS_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != RESULTS_FORMAT or doc.get("kind") != kind:
        return None
    if doc.get("fold") != fold or not isinstance(doc.get("pairs"), dict):
        return None
    return doc["pairs"]


def curve_results(curves: dict[str, tuple[str, dict[str, FoldCurves]]], display: dict[str, str]) -> dict:
    """One fold's curves (pair name -> (file prefix, split -> FoldCurves)) as stored results."""
    return {name: {"prefix": prefix, "display": display.get(name),
                   "splits": {split: {"tpr": c.tpr, "eps_b": c.eps_b, "background_events": c.background_events,
                                      "scalars": c.scalars} for split, c in per_split.items()}}
            for name, (prefix, per_split) in curves.items()}  # fmt: skip


def curves_of(fold: int, stored: dict) -> tuple[dict[str, tuple[str, dict[str, FoldCurves]]], dict[str, str]]:
    """Stored results of one fold back as (pair -> (prefix, split -> FoldCurves), display names)."""
    curves, display = {}, {}
    for name, pair in stored.items():
        splits = {split: FoldCurves(fold=fold, tpr=np.asarray(c["tpr"], float), eps_b=np.asarray(c["eps_b"], float),
                                    background_events=float(c["background_events"]),
                                    scalars={k: float(v) for k, v in c["scalars"].items()})
                  for split, c in pair["splits"].items()}  # fmt: skip
        curves[name] = (pair["prefix"], splits)
        if pair.get("display"):
            display[name] = pair["display"]
    return curves, display


def beside_folds(outputs: Sequence[Path], summary: Path) -> bool:
    """True if the fold sets `outputs` are `fold-<k>/` directories next to the summary `folds/`
    (not the case of `--output DIR` for one fold: DIR is the set itself)."""
    return bool(outputs) and all(Path(o).parent == Path(summary).parent and FOLD_DIR.fullmatch(Path(o).name)
                                 for o in outputs)  # fmt: skip


def touches_summary(outputs: Sequence[Path], summary: Path) -> bool:
    """True if a run publishing the fold sets `outputs` must update or withdraw `summary` (or
    remove its leftovers): they are beside it, and it is a pnetviz set, empty or absent."""
    if not beside_folds(outputs, summary):
        return False
    summary = Path(summary)
    return summary.is_symlink() is False and (not summary.exists() or is_output_set(summary)
                                              or (summary.is_dir() and not any(summary.iterdir())))  # fmt: skip


def updated_folds(summary: Path, kind: str, fresh: dict[int, dict]) -> tuple[dict[int, dict], list[int]] | None:
    """The per-fold results of the summary `summary` after this run published the folds `fresh`
    (fold -> stored results) beside it, and its missing folds; None if the summary is to be
    withdrawn: there is none, it does not say its folds (older pnetviz), one of its other folds
    has no readable results, the pairs differ, or fewer than two folds remain. Call it holding
    the summary's lock."""
    try:
        report = json.loads((Path(summary) / "summary_report.json").read_text()) if is_output_set(summary) else None
    except (OSError, ValueError):
        report = None
    folds = report.get("folds") if isinstance(report, dict) else None
    if not isinstance(folds, list) or not all(isinstance(f, int) for f in folds):
        return None
    results = dict(fresh)
    for fold in folds:
        if fold not in results:
            stored = read_results(Path(summary).parent / f"fold-{fold}", kind, fold)
            if stored is None:
                return None
            results[fold] = stored
    names = {frozenset(r) for r in results.values()}
    if len(results) < 2 or len(names) != 1:
        return None
    old_missing = report.get("missing_folds") if isinstance(report.get("missing_folds"), list) else []
    missing = sorted({f for f in old_missing if isinstance(f, int)} - set(results))
    return dict(sorted(results.items())), missing


def summary_from_results(results: dict[int, dict]) -> tuple[dict, dict[str, str]]:
    """The `pairs` argument of write_fold_summary (and display names) from per-fold stored results."""
    collected: dict[str, tuple[str, dict[str, list[FoldCurves]]]] = {}
    display: dict[str, str] = {}
    for fold, stored in sorted(results.items()):
        curves, names = curves_of(fold, stored)
        display.update(names)
        for name, (prefix, per_split) in curves.items():
            entry = collected.setdefault(name, (prefix, {}))
            for split, c in per_split.items():
                entry[1].setdefault(split, []).append(c)
    return collected, display
