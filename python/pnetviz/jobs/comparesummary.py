"""The fold summary of a comparison (binary models vs the multi-class model's likelihood ratio):
the folds' AUC differences with their paired statistics over folds, the mean curves and the
summary's figures, staged, updated or withdrawn with the folds' stored results (cli.compare
publishes it after the folds of jobs.comparison)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas
from pnetviz.metrics.folds import FoldCurves, aggregate, aggregate_report, paired_difference
from pnetviz.output.publish import write_set
from pnetviz.draw.style import color
from pnetviz.names import name as quantity
from pnetviz.io.trainer import channel_label, display_label, signal_label
from pnetviz.metrics.foldtests import corrected_paired_test
from pnetviz.metrics.rounding import pm
from pnetviz.jobs.comparison import FOLD_CURVES, ComparisonJob

RESULTS_KIND = "comparison"  # fold_results.json of a comparison's fold set: its `pairs`


def publish_summary(stages, todo: list[ComparisonJob], summary: Path, per_fold: dict, missing: list[int]) -> str:
    """Stage the comparison's fold summary (several folds), or update or withdraw an existing one
    from the stored results of its other folds (one fold), in the transaction `stages`; returns
    what was done ('' if there was nothing to do)."""
    from pnetviz.jobs import foldsummary  # noqa: PLC0415
    from pnetviz.output.atomic import is_output_set  # noqa: PLC0415

    stage = stages.add(summary)  # locked now: no other run publishes a fold here meanwhile
    first = todo[0]
    if len(todo) == 1:
        existed = is_output_set(summary)
        fresh = {first.fold: foldsummary.jsonable(per_fold[first.fold])} if first.fold is not None else {}
        update = foldsummary.updated_folds(summary, RESULTS_KIND, fresh) if fresh else None
        if update is None:
            stages.withdraw(summary)
            return f"withdrew the fold summary {summary}: it no longer describes the folds on disk" if existed else ""
        per_fold, missing = update
    report = summary_report(per_fold, missing)
    means = mean_curves(per_fold)
    for b, per_side in means.items():
        report["pairs"][b]["mean_curves"] = {side: {k: v for k, v in aggregate_report(aggregate(curves), missing).items()
                                                    if k in ("folds", "roc_band", "rejection_band")}
                                             for side, curves in per_side.items()}  # fmt: skip
    written = write_set(stage, first.formats, first.style,
                        lambda: summary_figures(report, first.signal, first.channel, means), report,
                        f"pnetviz comparison across folds: {first.signal}")  # fmt: skip
    return f"summary of {len(per_fold)} folds: {len(written)} files for {summary}"


def _mean_std(values: list[float]) -> dict[str, float]:
    v = np.array([x for x in values if x == x], dtype=float)
    return {"mean": float(v.mean()) if v.size else math.nan,
            "std": float(np.std(v, ddof=1)) if v.size > 1 else 0.0 if v.size else math.nan}  # fmt: skip


def summary_report(per_fold: dict[int, dict], missing: list[int]) -> dict:
    """Across folds, per background: AUCs and their difference, fold by fold and mean +- std."""
    folds = sorted(per_fold)
    backgrounds = list(next(iter(per_fold.values())))
    out = {"folds": folds, "missing_folds": missing, "std_convention": "sample standard deviation (ddof=1)", "pairs": {}}
    for b in backgrounds:
        rows = {f: per_fold[f][b] for f in folds}
        table = {
            "auc_binary": {str(f): r["auc"]["binary"]["value"] for f, r in rows.items()},
            "auc_multiclass": {str(f): r["auc"]["multiclass"]["value"] for f, r in rows.items()},
            "auc_binary_error": {str(f): r["auc"]["binary"]["error"] for f, r in rows.items()},
            "auc_multiclass_error": {str(f): r["auc"]["multiclass"]["error"] for f, r in rows.items()},
            "difference": {str(f): r["difference"]["multiclass_minus_binary"] for f, r in rows.items()},
            "difference_error": {str(f): r["difference"]["error"] for f, r in rows.items()},
            "dominance": {str(f): r["dominance"]["verdict"] for f, r in rows.items()},
        }
        out["pairs"][b] = {"per_fold": table, **{k: _mean_std(list(table[k].values()))
                                                 for k in ("auc_binary", "auc_multiclass", "difference")},
                           "difference_statistics": difference_statistics(table)}  # fmt: skip
    return out


def difference_statistics(table: dict) -> dict:
    """The fold summary's multi-class minus binary AUC difference, two questions answered apart:
    training variability (the corrected resampled t over folds, metrics.foldtests: its
    `standard_error` and `p_value`; the naive paired t as `t_naive`/`p_naive_t`) and test-set noise
    alone (`pooled_bootstrap_error`: the folds' event-paired bootstrap errors of the difference
    pooled for the mean, sqrt(sum e_f^2)/k, the test splits being disjoint); the inverse-variance
    combination (`combined`) with the per-fold errors as before."""
    auc_m, auc_b = list(table["auc_multiclass"].values()), list(table["auc_binary"].values())
    errors = np.array(list(table["difference_error"].values()), dtype=float)
    out = {"convention": "multi-class minus binary, per fold; corrected resampled t over folds (Nadeau-Bengio, "
                         "n_test/n_train = 1/(k-1); two-sided p-value) for training variability; the event-paired "
                         "bootstrap errors pooled over folds for test-set noise; inverse-variance combination with "
                         "the per-fold difference errors"}
    out |= paired_difference(auc_m, auc_b, list(errors))
    out |= {k: v for k, v in corrected_paired_test(auc_m, auc_b, None).items() if k != "folds"}
    k = errors.size
    out["pooled_bootstrap_error"] = (float(math.sqrt(np.sum(errors**2)) / k)
                                     if k and np.all(np.isfinite(errors)) else None)  # fmt: skip
    return out


def mean_curves(per_fold: dict[int, dict]) -> dict[str, dict[str, list[FoldCurves]]]:
    """background -> {binary, multiclass} -> each fold's curves on the common grids, for the
    backgrounds every fold stored them for (fold sets of an older pnetviz have none)."""
    out = {}
    for b in next(iter(per_fold.values())):
        stored = {f: per_fold[f][b].get(FOLD_CURVES) for f in sorted(per_fold)}
        if all(isinstance(c, dict) for c in stored.values()):
            out[b] = {side: [FoldCurves(fold=f, tpr=np.asarray(c[side]["tpr"], float), eps_b=np.asarray(c[side]["eps_b"], float),
                                        background_events=float(c[side]["background_events"]), scalars={"auc": float(c[side]["auc"])})
                             for f, c in stored.items()] for side in ("binary", "multiclass")}  # fmt: skip
    return out


def summary_figures(report: dict, signal: str, channel: str, means: dict | None = None) -> list[canvas.Figure]:
    """AUC per fold with bootstrap errors, binary vs multi-class, one plot per background; with the
    folds' curves (`means`, mean_curves), the fold-averaged ROC and rejection of both with bands
    and their ratio to the binary model (`signal_vs_<bkg>_roc_curve_folds`, `..._rejection_curve_folds`)."""
    from pnetviz.jobs.foldsummary import band_figures  # noqa: PLC0415

    folds = [int(f) for f in report["folds"]]
    context = [signal_label(signal), "", "mean #pm std over folds"]
    figs = []
    for b, pair in report["pairs"].items():
        context[1] = f"vs {display_label(b, {})}, {channel_label(channel)}"
        figs.append(_auc_by_fold_figure(f"signal_vs_{b}", pair, folds, [*context, *paired_line(pair)]))
        if b in (means or {}):
            figs += band_figures(f"signal_vs_{b}_", means[b], [signal_label(signal), f"vs {display_label(b, {})}, "
                                 f"{channel_label(channel)}, test"], reference="binary",
                                 labels={k: quantity(k) for k in ("binary", "multiclass")})  # fmt: skip
    return figs


def paired_line(pair: dict) -> list[str]:
    """The paired difference over folds for a figure: mean of the per-fold differences (multi-class
    minus binary) +- its corrected standard error std sqrt(1/k + 1/(k-1)) (difference_statistics),
    not the two models' errors in quadrature."""
    st = pair.get("difference_statistics") or {}
    mean, se = st.get("mean"), st.get("standard_error")
    if not isinstance(mean, float) or not isinstance(se, float):
        return []
    return [f"#DeltaAUC (MC #minus B): {pm(mean, se, 'tlatex', sign=True)} (corr. s.e.)"]


def _auc_by_fold_figure(tag: str, pair: dict, folds: list[int], context: list[str]) -> canvas.Figure:
    """Test AUC per fold (one labelled bin each), binary and multi-class side by side."""
    rows = pair["per_fold"]
    series = [(kind, np.array(list(rows[f"auc_{kind}"].values()), dtype=float),
               np.nan_to_num(np.array(list(rows[f"auc_{kind}_error"].values()), dtype=float))) for kind in ("binary", "multiclass")]  # fmt: skip
    lo = min(float((y - e).min()) for _, y, e in series)
    hi = max(float((y + e).max()) for _, y, e in series)
    pad = max(hi - lo, 0.005)
    centres = np.arange(len(folds)) + 0.5

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        canvas.label_frame_bins(fig, [str(f) for f in folds], size=0.07, ticks=False)  # drawn at 2/3: as the y labels
        for (kind, y, e), shift, label, marker in zip(series, (-0.08, 0.08), (quantity("binary"), quantity("multiclass")), (20, 21)):
            stats = pair[f"auc_{kind}"]
            canvas.add_error_points(fig, f"{tag}/auc_{kind}", centres + shift, y, e,
                                    f"{label}: {pm(stats['mean'], stats['std'], 'tlatex')}", marker_color=color(kind), marker=marker)  # fmt: skip

    # fitted to the points, then with the lower part free for the box; an AUC ends at 1.1 at most
    frames = [canvas.Frame((0.0, float(len(folds))), (lo - room * pad, min(hi + 0.15 * pad, 1.1)), "Fold", "Test AUC")
              for room in (0.15, 1.6)]  # fmt: skip
    name = f"{tag}_auc_by_fold"
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, y_title_offset=1.45, cms_pos=0),
                               frames, draw, context)  # fmt: skip

