"""`pnetviz binary --stream`: one fold's binary evaluation from the streamed summaries (issue 55, item 4).

The ntuple is read in chunks into per-split score summaries (jobs.stream, metrics.summaries), so
memory is bounded by a chunk and the summaries, not by the number of events. From the summaries
come the outputs that need only per-score sums: the ROC (linear and log x), its AUC (exact for
float32 keys; with coarse keys, above stream.EXACT_ENTRIES entries, with a certified bound), the
precision-recall curve, the rejection curve and rejections, FIP1, FIP2, Punzi, Asimov, the binned
FIP of the 50-bin score histograms, the score distributions, the fine bins of the binning for the
fit (fine_bins.json) and the training curves. What needs each event (the bootstrap errors, the KS
tests, calibration, working points, cut scan, confusion matrix, subset and observer comparisons,
systematics, the optimal binning's partitions and templates, the out-of-fold events) is left out,
and the report and one printed line say so.

When: `--stream`, or automatically when the in-memory evaluation's estimated peak
(IN_MEMORY_FLOOR_GB + IN_MEMORY_BYTES_PER_EVENT per entry) is above `--memory-budget` (`plan`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from pnetviz.draw import canvas, plots, rejection, training
from pnetviz.draw.plots import CurveSpec, HistSpec
from pnetviz.draw.style import color
from pnetviz.errors import InputError
from pnetviz.io import treefile
from pnetviz.io.history import load_history
from pnetviz.jobs import stream
from pnetviz.jobs.driver import RunOutput
from pnetviz.metrics import hep, pairmetrics
from pnetviz.metrics.delong import delong_error_from_sums
from pnetviz.metrics import summaries as sm
from pnetviz.metrics.evaluate import histogram_from_sums
from pnetviz.metrics.roc import average_precision, precision_recall
from pnetviz.names import name as quantity
from pnetviz.output import imageset
from pnetviz.output.publish import write_set

IN_MEMORY_FLOOR_GB = 0.55  # ROOT, the kernels and the figures of a default in-memory evaluation
IN_MEMORY_BYTES_PER_EVENT = 100  # its peak per entry of the ntuple (benchmarks/README.md, issue 55)
FINE_FILE = "fine_bins.json"
LEFT_OUT = ("bootstrap errors, KS tests, calibration, working points, cut scan, confusion matrix, subset and observer "
            "comparisons, systematics, the optimal binning's partitions and templates, out-of-fold events")  # fmt: skip
WHY = "they need each event; the streamed summaries keep sums per score value"


def estimate_gb(entries: int) -> float:
    """The in-memory evaluation's estimated peak RSS in GB for an ntuple of `entries` entries."""
    return IN_MEMORY_FLOOR_GB + IN_MEMORY_BYTES_PER_EVENT * entries / 1e9


def plan(job) -> tuple[bool, str]:
    """(stream?, the line that says why) for one job: --stream, or the estimate above --memory-budget."""
    if job.stream:
        return True, "streaming (--stream)"
    n = treefile.entries(job.predictions, job.tree)  # checked and cached: the reader's own look at the file
    if n is None:
        return False, ""  # not described: the in-memory reader says what is wrong with the file
    need = estimate_gb(n)
    if need <= job.memory_budget:
        return False, ""
    return True, (f"{n:.3g} entries: the in-memory evaluation would peak near {need:.1f} GB, above --memory-budget "
                  f"{job.memory_budget:g} GB; streaming it in chunks instead (as --stream)")  # fmt: skip


def check(job) -> None:
    """Options the streamed evaluation cannot honour: one clear line each."""
    given = {"--subset": job.subset, "--column/--columns": job.columns, "--observe": job.observe,
             "--syst/--score-shift": job.syst.active, "--compare-subset": getattr(job, "compare_subset", None)}  # fmt: skip
    used = [k for k, v in given.items() if v]
    if used:
        raise InputError(f"{job.predictions}: {', '.join(used)} need the events in memory, which the streamed evaluation "
                         "does not keep; drop them, or evaluate in memory (no --stream, a larger --memory-budget).")  # fmt: skip


@dataclass(frozen=True)
class Split:
    """What the figures read of a split (rejection.figure takes `.curve`)."""

    curve: object  # metrics.roc.BinaryCurve
    summary: sm.ScoreSummary


def split_metrics(split: Split, opts, full: tuple[float, float], nonnegative: bool) -> dict:
    """The per-split metrics derivable from a summary (pairmetrics.split_metrics' names)."""
    curve, summary = split.curve, split.summary
    scale = (full[0] / curve.total_signal, full[1] / curve.total_background)
    w, w2 = summary.column("background_w").sum(), summary.column("background_w2").sum()
    ws, ws2 = summary.column("signal_w").sum(), summary.column("signal_w2").sum()
    n_eff_b = float(w * w / w2) if w2 > 0 else 0.0
    hull = hep.convex_hull(curve)
    sums = sm.binned(summary)
    s = sums["signal"][0] / max(ws, 1e-300) * opts.signal_scale * curve.total_signal * scale[0]
    b = sums["background"][0] / max(w, 1e-300) * curve.total_background * scale[1]
    return {
        "auc": curve.auc,
        "auc_error": delong_error_from_sums(*(summary.column(c) for c in sm.COLUMNS)),
        "auc_error_method": "delong",  # from the per-score sums (no bootstrap: it needs each event)
        "auc_bound": sm.auc_bound(summary, nonnegative),
        **pairmetrics.rejections(curve, n_eff_b, nonnegative),
        "partial_auc": {f"{f:g}": hep.partial_auc(curve, f) for f in hep.PARTIAL_AUC_FPR},
        "average_precision": average_precision(curve),
        **hep.prevalence_metrics(curve, opts.signal_scale, scale, hull),
        "binned_fip_50": hep.binned_fip(s, b),
        "yield_scale": {"signal": scale[0], "background": scale[1]},
        "effective_events": {"signal": float(ws * ws / ws2) if ws2 > 0 else 0.0, "background": n_eff_b},
        "curve_flags": hep.curve_flags(curve),
    }


def fine_document(job, splits: dict[str, Split]) -> str:
    """fine_bins.json: the fine bins of the binning for the fit (edges from the train split, as in memory)."""
    edges = sm.fine_edges(splits["train"].summary)
    doc = {"kind": "binary", "signal": job.signal, "background": job.background, "fold": job.fold,
           "edges": edges.tolist(), "splits": {}}  # fmt: skip
    for name, split in splits.items():
        f = sm.fine_bins(split.summary, edges)
        doc["splits"][name] = {"signal": f.s.tolist(), "background": f.b.tolist(), "background_events": f.nb.tolist(),
                               "background_w2": f.w2.tolist()}  # fmt: skip
    return json.dumps(doc, indent=1) + "\n"


def figures(job, splits: dict[str, Split], metrics: dict, history) -> list[canvas.Figure]:
    ctx = job.context(f"vs {job.display[1]}")
    sig, bkg = color("signal"), color("background")
    roc = [CurveSpec(f"roc/{s}", r.curve.fpr, r.curve.tpr, f"{s.capitalize()}: AUC {r.curve.auc:.4f}", sig, plots.split_style(s))
           for s, r in splits.items()]  # fmt: skip
    pr = [CurveSpec(f"pr/{s}", c.recall, c.precision, f"{s.capitalize()} (AP = {metrics[s]['average_precision']:.4f})", sig,
                    plots.split_style(s)) for s, r in splits.items() for c in [precision_recall(r.curve)]]  # fmt: skip
    hists = []
    for s, r in splits.items():
        for cls, col, label in (("signal", sig, job.display[0]), ("background", bkg, job.display[1])):
            w, w2 = sm.binned(r.summary)[cls]
            n = int(r.summary.events[:, 0 if cls == "signal" else 1].sum())
            hists.append(HistSpec(f"scores/{s}_{cls}", histogram_from_sums(f"{s}_{cls}", w, w2, f"{label}, {s} split", n),
                                  f"{label} ({s})", col, s == "test"))  # fmt: skip
    figs = [plots.roc_figure("roc_curve", roc, ctx), plots.roc_logx_figure("roc_curve_logx", roc, ctx),
            rejection.figure("rejection_curve", "rejection", splits, metrics, ctx),
            plots.pr_figure("precision_recall_curve", pr, ctx),
            plots.score_figure("score_distributions", hists, quantity("p_signal"), ctx, bins=job.style.score_bins)]  # fmt: skip
    return figs + (training.training_figures(history, ctx[:2]) if history is not None else [])


def run(job, line: str = "") -> RunOutput:
    """Evaluate one fold of a binary model from its streamed summaries; write its output set."""
    check(job)
    if job.progress:
        print(f"[pnetviz binary] {line}; left out: {LEFT_OUT} ({WHY})", flush=True)
    read = stream.read_binary(job.predictions, job.tree, weight_mode=job.hep.weight_mode)
    splits = {s: Split(sm.roc(read.summaries[s]), read.summaries[s]) for s in stream.SPLITS}
    nonnegative = job.hep.weight_mode != "signed"
    metrics = {s: split_metrics(r, job.hep, read.totals, nonnegative) for s, r in splits.items()}
    history = load_history(job.history) if job.history else None
    report = {
        "kind": "binary", "signal": job.signal, "background": job.background, "channel": job.channel, **job.report_identity(),
        "input": str(job.predictions), "history": str(history.path) if history else None, "subset": None,
        "evaluation": {"path": "streamed", "entries": read.entries, "chunk": stream.CHUNK,
                       "keys": "float32 scores (exact)" if read.drop_bits == 0 else
                               f"float32 scores to {23 - read.drop_bits} mantissa bits (AUC within auc_bound)",
                       "distinct_keys": {s: int(r.summary.keys.size) for s, r in splits.items()},
                       "left_out": LEFT_OUT, "why": WHY},
        "weight_mode": job.hep.weight_mode, "signal_scale": job.hep.signal_scale,
        "events": {s: {"signal": int(r.summary.events[:, 0].sum()), job.background: int(r.summary.events[:, 1].sum())}
                   for s, r in splits.items()},
        "sum_weights": {s: {"signal": r.curve.total_signal, job.background: r.curve.total_background} for s, r in splits.items()},
        "auc": {s: r.curve.auc for s, r in splits.items()},
        "average_precision": {s: metrics[s]["average_precision"] for s in splits},
        "hep_metrics": {**metrics, "yield_normalisation": pairmetrics.YIELD_NORMALISATION},
        "notes": [f"streamed evaluation: left out {LEFT_OUT} ({WHY})"],
    }  # fmt: skip
    if history is not None:
        report["training"] = history.report()
    extra = {FINE_FILE: fine_document(job, splits)} if job.fit_binning else {}
    written = write_set(job.output, job.formats, job.style, lambda: figures(job, splits, metrics, history), report,
                        job.describe(f"pnetviz binary evaluation (streamed): {job.signal} vs {job.background}"), extra,
                        only=imageset.selection(job.images))  # fmt: skip
    return RunOutput(written, {})

