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

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas, plots, training
from pnetviz.errors import InputError
from pnetviz.io.history import TrainingHistory, load_history
from pnetviz.io.readers import read_json
from pnetviz.jobs.decisions import WP_FILE, document
from pnetviz.metrics import hep
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.folds import EFF_GRID, FPR_GRID, FoldCurves, REJECTION_INTERVAL_RULE, Rejection, aggregate, aggregate_report, fold_ratios
from pnetviz.output.atomic import is_output_set
from pnetviz.output.publish import write_set
from pnetviz.output.report import dumps, plain
from pnetviz.draw.style import StyleOptions, color
from pnetviz.draw.style import BAND_STYLES, meaning_color
from pnetviz.draw.rejection import LOWER_LIMIT
from pnetviz.draw.ratiopanel import READ_FROM_EPS_S
from pnetviz.metrics.rounding import pm

FOLDS_DIR = "folds"
RESULTS_FILE = "fold_results.json"
RESULTS_FORMAT = 1
FOLD_DIR = re.compile(r"fold-(\d+)")


def band_figures(prefix: str, per_split: dict[str, list[FoldCurves]], context: Sequence[str],
                 reference: str = "test", labels: dict[str, str] | None = None,
                 colors: dict[str, int] | None = None) -> list[canvas.Figure]:  # fmt: skip
    """Mean ROC and mean rejection curve with +-1 sigma bands of each series (train and test, or
    binary and multi-class), and a ratio panel: each mean over the mean of `reference`, with the
    band of its fold spread (metrics.folds.fold_ratios). `labels`: series -> legend name;
    `colors`: series -> ROOT colour (default: the style's colour named as the series)."""
    aggs = {split: aggregate(curves) for split, curves in per_split.items()}
    color = colors.__getitem__ if colors else meaning_color  # style.ENCODINGS: train and test in one colour
    n = len(next(iter(aggs.values())).folds)
    name = {s: (labels or {}).get(s, s.capitalize()) for s in aggs}
    ref = reference if reference in aggs else next(iter(aggs))

    def roc_bands(fig: canvas.Figure) -> None:
        for k, (split, agg) in enumerate(aggs.items()):
            lo, hi = np.clip(agg.tpr_mean - agg.tpr_std, 0, 1), np.clip(agg.tpr_mean + agg.tpr_std, 0, 1)
            canvas.add_band(fig, f"{prefix}folds/roc_band_{split}", FPR_GRID, lo, hi, None, band_color=color(split),
                            **band_fill(split, ref))  # fmt: skip

    def rejection_bands(fig: canvas.Figure) -> None:
        for k, (split, agg) in enumerate(aggs.items()):
            lo, hi = agg.rejection_band
            canvas.add_band(fig, f"{prefix}folds/rejection_band_{split}", EFF_GRID, lo, hi, None, band_color=color(split),
                            **band_fill(split, ref))  # fmt: skip

    def auc(a) -> str:
        return f": AUC {pm(a.mean['auc'], a.std['auc'], 'tlatex', '.3f')}" if "auc" in a.mean else ""

    roc = [plots.CurveSpec(f"{prefix}folds/roc_mean_{s}", FPR_GRID, a.tpr_mean, f"{name[s]}{auc(a)}", color(s),
                           plots.split_style(s)) for k, (s, a) in enumerate(aggs.items())]  # fmt: skip
    # rejection = 1/mean(eps_b) over folds, never dropped: where every fold has eps_b = 0 it is a
    # lower limit, drawn dotted (its own legend entry) so that a plateau is not read as a measurement
    rej, limits = [], []
    for k, (s, a) in enumerate(aggs.items()):
        measured = a.eps_b_mean > 0
        rej.append(plots.CurveSpec(f"{prefix}folds/rejection_mean_{s}", EFF_GRID[measured], a.rejection_mean[measured],
                                   f"{name[s]}: mean #pm 1#sigma", color(s),
                                   plots.split_style(s)))  # fmt: skip
        if not measured.all():
            limit = np.flatnonzero(~measured)
            edge = np.arange(limit.min(), min(limit.max() + 2, EFF_GRID.size))  # joins the measured part
            limits.append(plots.CurveSpec(f"{prefix}folds/rejection_limit_{s}", EFF_GRID[edge], a.rejection_mean[edge],
                                          LOWER_LIMIT, color(s), 3))  # fmt: skip
    if len(limits) > 1:  # one legend entry says what dotted means: the box stays small
        limits = [replace(c, label=LOWER_LIMIT if i == 0 else "") for i, c in enumerate(limits)]
    rej += limits
    ratios = {s: fold_ratios(a, aggs[ref]) for s, a in aggs.items()}
    panels = [plots.RatioPanel(name[ref].lower(),
                               [plots.RatioSpec(f"{prefix}folds/{kind}_ratio_{s}", r[i], color(s), plots.split_style(s), s == ref)
                                for s, r in ratios.items()], window)
              for i, (kind, window) in enumerate((("roc", None), ("rejection", (READ_FROM_EPS_S, 1.0))))]  # fmt: skip
    return [
        plots.roc_figure(f"{prefix}roc_curve_folds", roc, [*context, f"mean of {n} folds #pm 1#sigma"],
                         underlay=roc_bands, ratio=panels[0]),  # fmt: skip
        plots.rejection_figure(f"{prefix}rejection_curve_folds", rej, [*context, f"1/(mean #varepsilon_{{b}}) of {n} folds"],
                               underlay=rejection_bands, ratio=panels[1]),  # fmt: skip
    ]


def band_fill(series: str, reference: str) -> dict:
    """add_band's fill of a series' band (style.BAND_STYLES): the reference's transparent with its
    outline, the others their outline alone, so that bands that overlap stay told apart."""
    return BAND_STYLES["reference" if series == reference else "compared"]


def pair_context(context: Sequence[str], pair: str) -> list[str]:
    """The context of one pair's fold-summary plots: the signal point, then the pair (e.g. "vs
    ttX (LR)") joined to the next line (kind and channel); a second line of the pair's text (the
    weighted LR's weights) after them."""
    pair, *more = pair.split("\n")
    if len(context) < 2:
        return [*context, pair, *more]
    return [context[0], f"{pair}, {context[1]}", *context[2:], *more]


def write_fold_summary(output: Path, formats: Sequence[str], style: StyleOptions, title: str, context: Sequence[str],
                       pairs: dict[str, tuple[str, dict[str, list[FoldCurves]]]], missing: Sequence[int],
                       display: dict[str, str] | None = None, histories: dict[int, Path | None] | None = None,
                       out_of_fold=None, deployed: dict | None = None, limits: dict | None = None) -> list[Path]:  # fmt: skip
    """pairs: name -> (file prefix, split -> per-fold curves); display: name -> plot text (default
    the name); histories: fold -> its training history file (the trainer's performance JSON), for
    `training_loss_folds` (every fold's losses, best epochs marked); `out_of_fold`: the pooled
    evaluation (jobs.outoffold.OutOfFold: its report entry, file and figures); deployed: the
    --deployed-fold section (jobs.deployedfold), in the report and deployed_fold.json; limits: the
    expected limits' files (jobs.limits: limits.json; its limits/ directory is already staged).
    Writes figures, report, plots.root."""
    loaded = load_histories(histories or {})
    report = {"pairs": {name: {split: aggregate_report(aggregate(curves), missing) for split, curves in per_split.items()}
                        for name, (_, per_split) in pairs.items()}}  # fmt: skip
    report["folds"] = sorted({c.fold for _, per_split in pairs.values() for curves in per_split.values() for c in curves})
    report["missing_folds"] = list(missing)
    points = {name: summary for name, (_, per_split) in pairs.items() if (summary := working_point_summary(per_split))}
    extra = {}
    if points:
        report["working_points"] = points
        extra[WP_FILE] = document("fold summary", {"title": title, "folds": report["folds"]}, points)
    if out_of_fold is not None:
        report["out_of_fold"], extra = out_of_fold.report, {**extra, **out_of_fold.files}
    if deployed:  # --deployed-fold K: fold K's model on its train vs its test split (jobs.deployedfold)
        report["deployed_fold"] = deployed
        extra["deployed_fold.json"] = dumps(deployed, allow_nan=False) + "\n"

    if limits:
        report["limits"] = {"file": next(iter(limits))}
        extra = {**extra, **limits}

    def figures() -> list[canvas.Figure]:
        figs = []
        for name, (prefix, per_split) in pairs.items():
            figs += band_figures(prefix, per_split, pair_context(context, (display or {}).get(name, name)) if prefix else context)
        if len(loaded) > 1 and (losses := training.fold_training_figure(loaded, list(context[:2]))) is not None:
            figs.append(losses)
        if out_of_fold is not None:
            figs += out_of_fold.figures(lambda name: pair_context(context, (display or {}).get(name, name)), style.score_bins)
        return figs

    return write_set(output, formats, style, figures, report, title, extra)


def _spread(values: dict[str, float]) -> dict:
    """Per-fold values with their mean, sample std (ddof=1; 0 for one fold), min and max."""
    v = np.array(list(values.values()), dtype=float)
    std = float(np.std(v, ddof=1)) if v.size > 1 and np.ptp(v) > 0 else 0.0
    return {"per_fold": values, "mean": float(np.mean(v)), "std": std, "min": float(v.min()), "max": float(v.max())}


def working_point_summary(per_split: dict[str, list[FoldCurves]]) -> dict | None:
    """The working points of one pair across folds (from the folds' `wp_*` scalars): per target,
    each fold's threshold and its spread, and per split eps_s and eps_b per fold with mean and
    std and the rejection 1/mean(eps_b) (a lower limit where that is 0, as every fold-averaged
    rejection), for the targets every fold has; None when there are none (a fold of an older pnetviz)."""
    every = [c for curves in per_split.values() for c in curves]
    common = set.intersection(*(set(wp.targets_in(c.scalars)) for c in every)) if every else set()
    targets = sorted(common, key=float)  # the targets every fold has (folds run with other --working-points differ)
    if not targets:
        return None
    first = next(iter(per_split.values()))
    out = {"std_convention": "sample standard deviation over folds (ddof=1)",
           "rejection_convention": REJECTION_INTERVAL_RULE}  # fmt: skip
    for target in targets:
        key = f"wp_{target}"
        entry = {"target_eps_s": float(target), "threshold": _spread({str(c.fold): c.scalars[f"{key}_threshold"] for c in first})}
        for split, curves in per_split.items():
            eps_b = np.array([c.scalars[f"{key}_eps_b"] for c in curves])
            rej = Rejection.over_folds(eps_b, sum(c.background_events for c in curves))
            entry[split] = {"eps_s": _spread({str(c.fold): c.scalars[f"{key}_eps_s"] for c in curves}),
                            "eps_b": _spread({str(c.fold): c.scalars[f"{key}_eps_b"] for c in curves}),
                            "rejection": {"value": rej.value, "lower": rej.lower, "upper": rej.upper,
                                          "lower_limit": rej.lower_limit}}  # fmt: skip
        out[target] = entry
    for split in per_split:  # a limit raised to a measured rejection at a larger target, as the campaign's table
        at = {t: out[t][split]["rejection"] for t in targets}
        raised = hep.monotone_limits({t: r["value"] for t, r in at.items()}, {t: bool(r["lower_limit"]) for t, r in at.items()})
        for t, r in at.items():
            r["value"] = raised[t]
    return out


def load_histories(histories: dict[int, Path | None]) -> dict[int, TrainingHistory]:
    """The readable training histories of the folds (a fold without one, or with an unreadable one,
    is left out of the overlay: its own set says why)."""
    out = {}
    for fold, path in sorted(histories.items(), key=lambda kv: kv[0]):
        if path is not None and fold is not None:
            try:
                out[fold] = load_history(path)
            except InputError:
                continue
    return out


def histories_beside(summary: Path, folds, fresh: dict[int, Path | None]) -> dict[int, Path | None]:
    """fold -> training history file: `fresh` (this run's folds) first, else what the fold set
    `fold-<k>/` beside the summary recorded in its report (`history`)."""
    out = dict(fresh)
    for fold in folds:
        if fold in out:
            continue
        try:
            recorded = read_json(Path(summary).parent / f"fold-{fold}" / "summary_report.json", "fold report", finite=False).get("history")
        except InputError:
            recorded = None
        out[fold] = Path(recorded) if isinstance(recorded, str) else None
    return out


# --- the per-fold results a summary is computed from ---


def jsonable(value):
    """A JSON-ready copy that keeps NaN and infinities (written as NaN/Infinity: read back exactly)."""
    return plain(value, keep_nonfinite=True)


def write_results(directory: Path, kind: str, fold: int, pairs: dict) -> None:
    """`fold_results.json` of one fold set: `pairs` (pair name -> what the summary needs)."""
    doc = {"format": RESULTS_FORMAT, "kind": kind, "fold": fold, "pairs": jsonable(pairs)}
    (Path(directory) / RESULTS_FILE).write_text(dumps(doc) + "\n")


def read_results(fold_dir: Path, kind: str, fold: int) -> dict | None:
    """The stored pairs of the fold set `fold_dir` (None if it is not a set of `kind` and `fold`
    with readable results: written by an older pnetviz, damaged, or another kind of run)."""
    if not is_output_set(fold_dir):
        return None
    try:
        doc = read_json(Path(fold_dir) / RESULTS_FILE, "fold results", finite=False)
    except InputError:
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
        report = read_json(Path(summary) / "summary_report.json", "fold summary report", finite=False) if is_output_set(summary) else None
    except InputError:
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
