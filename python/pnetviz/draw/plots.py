"""The plots of the spec, composed from the generic helpers in `canvas.py`.

Each function takes plain data (curves, histograms, matrices, histories) and returns a
`canvas.Figure`; saving and writing to the ROOT file are done by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from pnetviz.draw import canvas
from pnetviz.metrics.evaluate import Confusion
from pnetviz.io.history import TrainingHistory
from pnetviz.metrics.roc import decimate
from pnetviz.draw.style import STYLE, color, cycle_color


@dataclass(frozen=True)
class CurveSpec:
    """One line on a curve plot: exact points (decimated here for drawing) and its style."""

    key: str  # object name in the ROOT file, e.g. "roc/test"
    x: np.ndarray
    y: np.ndarray
    label: str
    color: int
    line_style: int = 1


@dataclass(frozen=True)
class HistSpec:
    key: str
    hist: object  # TH1D
    label: str
    color: int
    points: bool  # test style (points with errors) vs train style (line)


def split_style(split: str) -> int:
    return STYLE["train_line"] if split == "train" else STYLE["test_line"]


def curve_figure(name: str, frame: canvas.Frame, curves: Sequence[CurveSpec], context: Sequence[str],
                 diagonal: bool = False, corner: str = "lower right", extra=None, underlay=None) -> canvas.Figure:  # fmt: skip
    """Lines (train solid, test dashed by the caller's CurveSpec), optional y = x, and one box in a
    corner the curves leave empty holding the context lines and the legend (never crossed by the
    diagonal); the CMS label above the frame. Curves are decimated for drawing in the plot's own
    space (log10 y on a log axis). `underlay(fig)` draws under the curves (bands), `extra(fig)` over
    them (a hull)."""
    fig = canvas.figure(name, frame, cms_pos=0)
    if underlay is not None:
        underlay(fig)
    if diagonal:
        canvas.add_line(fig, frame.x[0], frame.x[0], frame.x[1], frame.x[1], "Random classifier")
    for c in curves:
        y = np.log10(c.y) / max(np.log10(frame.y[1] / frame.y[0]), 1.0) if frame.logy else c.y
        keep = decimate(c.x, y)
        drawn = canvas.add_graph(fig, c.key, c.x[keep], c.y[keep], c.label, line_color=c.color, line_style=c.line_style)
        if keep.size < c.x.size:  # the file keeps the exact curve (up to MAX_STORED_POINTS), the canvas the drawn one
            fig.extras.append(drawn)
            fig.keep(c.key, stored_graph(c, keep, drawn, frame), c.label)
    if extra is not None:
        extra(fig)
    canvas.add_legend_box(fig, frame, corner, header=context, width=0.57, below_diagonal=diagonal)
    return fig


MAX_STORED_POINTS = 100_000  # curves up to this size are stored exactly in the ROOT file


def stored_graph(c: CurveSpec, keep: np.ndarray, drawn, frame: canvas.Frame) -> object:
    """The curve for the ROOT file: every point up to MAX_STORED_POINTS, else the drawn (decimated)
    points; the title says which."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    exact = c.x.size <= MAX_STORED_POINTS
    x, y = (c.x, c.y) if exact else (c.x[keep], c.y[keep])
    graph = root().TGraph(x.size, np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
    graph.SetLineColor(drawn.GetLineColor())
    graph.SetLineStyle(drawn.GetLineStyle())
    graph.SetLineWidth(drawn.GetLineWidth())
    graph.SetMarkerStyle(1)
    note = f"exact curve, {x.size} points" if exact else f"decimated to {x.size} of {c.x.size} points (within 1e-3)"
    graph.SetTitle(f"{c.label} ({note})")
    graph.GetXaxis().SetTitle(frame.xtitle)
    graph.GetYaxis().SetTitle(frame.ytitle)
    return graph


def roc_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str], hull=None,
               underlay=None) -> canvas.Figure:  # fmt: skip
    """ROC; `hull` = (key, fpr, tpr, (fpr, tpr) of the iso-accuracy optimum or None[, label]), or a
    list of them, draws convex hulls;
    `underlay(fig)` draws under the curves (e.g. +-1 sigma bands)."""
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.02), "Background efficiency (FPR)", "Signal efficiency (TPR)")

    overlays = [hull] if isinstance(hull, tuple) else list(hull or [])

    def draw_hull(fig: canvas.Figure) -> None:
        for i, (key, fpr, tpr, best, *label) in enumerate(overlays):
            canvas.add_graph(fig, f"{key}_hull", fpr, tpr, label[0] if label else "Convex hull (test)",
                             line_color=cycle_color(5 + i), line_style=1, width=1)  # fmt: skip
            if best is not None:
                canvas.add_points(fig, f"{key}_optimum", [best[0]], [best[1]], "Iso-accuracy optimum", marker_color=cycle_color(5))

    return curve_figure(name, frame, curves, context, diagonal=True, extra=draw_hull if hull else None, underlay=underlay)


def rejection_specs(prefix: str, results: dict, color_index: int = 0) -> list[CurveSpec]:
    """Background rejection 1/eps_b vs eps_s per split (points with eps_b > 0)."""
    specs = []
    for split, r in results.items():
        ok = r.curve.fpr > 0
        specs.append(CurveSpec(f"{prefix}/{split}", r.curve.tpr[ok], 1.0 / r.curve.fpr[ok], split.capitalize(),
                               cycle_color(color_index), split_style(split)))  # fmt: skip
    return specs


def rejection_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str], underlay=None,
                     many: bool = False) -> canvas.Figure:  # fmt: skip
    """The jet-tagging convention: eps_s on x, background rejection 1/eps_b on a log y axis.
    `many` curves: more headroom, legend in it below the context lines."""
    top = max((float(np.max(c.y)) for c in curves if c.y.size), default=10.0)
    # fitted to the data (the legend box sits under the curves at low eps_s); `many`: a decade above
    # them for the box in the upper right (at most a decade: the figure linter's rule)
    high = max(top, 2.0) * (10.0 if many else 2.5)
    frame = canvas.Frame((0.0, 1.0), (1.0, high), "Signal efficiency", "Background rejection (1/#varepsilon_{b})",
                       logy=True)  # fmt: skip
    return curve_figure(name, frame, curves, context, corner="upper right" if many else "lower left", underlay=underlay)


def pr_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str]) -> canvas.Figure:
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.02), "Recall (signal efficiency)", "Precision (weighted purity)")
    return curve_figure(name, frame, curves, context, corner="lower left")


def score_figure(name: str, hists: Sequence[HistSpec], xtitle: str, context: Sequence[str],
                 extra_lines: Sequence[str] = (), wide_legend: bool = False) -> canvas.Figure:  # fmt: skip
    """Score distributions as the fraction of events per bin (each histogram sums to 1) on a log y
    axis fitted to the data and ending at 1.1 at most; train as lines, test as points. The context
    and the legend sit in a header between the CMS label and the frame, so no headroom is needed
    inside it. More than 4 histograms: each class's train line and test points, in two columns."""
    contents = np.concatenate([draw_contents(h.hist) for h in hists])
    lines = [*context, *extra_lines]
    header = canvas.header_height(lines, len(hists))
    frame = canvas.Frame((0.0, 1.0), log_range(contents), xtitle, "Fraction of events", logy=True)
    fig = canvas.header_figure(name, frame, header)
    for h in sorted(hists, key=lambda spec: spec.points):  # lines first, points on top
        canvas.add_hist(fig, h.key, h.hist, None, hist_color=h.color, points=h.points)
    for h in hists:
        fig.legend.append((h.hist, h.label, "pe" if h.points else "l"))
    canvas.add_header_box(fig, lines, header)
    return fig


def log_range(contents: np.ndarray) -> tuple[float, float]:
    """Log-axis range of fractions, fitted to the positive contents: a factor 2 below the smallest,
    a factor 3 above the largest, at most 1.1 (a fraction's physical end)."""
    positive = contents[contents > 0]
    if not positive.size:
        return 1e-4, 1.1
    return max(float(positive.min()) * 0.5, 1e-7), min(float(positive.max()) * 3.0, 1.1)


def draw_contents(hist) -> np.ndarray:
    n = hist.GetNbinsX()
    return np.array([hist.GetBinContent(i) for i in range(1, n + 1)])


def confusion_figures(name: str, confusion: Confusion, context: Sequence[str], split: str = "test",
                      key_prefix: str = "confusion", labels: Sequence[str] | None = None) -> list[canvas.Figure]:  # fmt: skip
    """One figure per file: `<name>` the |w|-weighted row-normalised fractions (each true class sums
    to 1), `<name>_counts` the event counts. `labels`: plot labels of the classes."""
    labels = tuple(labels or confusion.labels)
    what = "one vs rest" if len(labels) == 2 and labels[1] == "rest" else ""
    base = f"Confusion matrix{' ' + what if what else ''}, {split} events"
    figs = []
    for suffix, matrix, fmt, ztitle, title, note in (
        ("", confusion.normalised, ".3f", "Fraction of true class", f"{base}: |w|-weighted, each true-class row sums to 1",
         "|w|-weighted, rows sum to 1"),
        ("_counts", confusion.counts, ".0f", "Events", f"{base}: event counts", "event counts"),
    ):  # fmt: skip
        fig = canvas.matrix_figure(f"{name}{suffix}", 1, labels)
        kind = "normalised" if not suffix else "counts"
        canvas.add_matrix(fig, f"{key_prefix}/{split}_{kind}", matrix, labels, fmt, 0, ztitle, title)
        canvas.add_text(fig, [", ".join(context), f"{split} events, {note}"], 0.02, 0.075, pad=0, align=11,
                        size=canvas.CONTEXT_SIZE["matrix"])  # fmt: skip
        figs.append(fig)
    return figs


def best_epoch(history: TrainingHistory) -> int:
    """The epoch kept by the trainer: its `best_epoch` if recorded, else the lowest validation loss."""
    recorded = history.summary.get("best_epoch")
    if isinstance(recorded, (int, float)) and recorded in set(history.epochs.tolist()):
        return int(recorded)
    return int(history.epochs[int(np.argmin(history.columns["valid_loss"]))])


def _history_figure(name: str, history: TrainingHistory, ytitle: str, series, context: Sequence[str],
                    physics: bool = True, mark_best: bool = False) -> canvas.Figure:  # fmt: skip
    """One per-epoch quantity: series = [(column, label, colour, style)]; the best epoch as a dashed
    vertical line; `physics` False: a computing-resource plot, without the CMS physics label."""
    epochs = history.epochs
    values = np.concatenate([history.columns[col] for col, *_ in series])
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo or abs(hi) or 1.0
    top = hi + 0.9 * span  # room above the data for the CMS label, legend and context (upper third)
    if ytitle == "Accuracy":  # a bounded quantity: the axis ends at 1.1 at most
        top = min(top, 1.1)
    frame = canvas.Frame((epochs.min() - 0.5, epochs.max() + 0.5), (max(lo - 0.08 * span, 0.0) if lo >= 0 else lo - 0.08 * span, top),
                         "Epoch", ytitle)  # fmt: skip
    fig = canvas.figure(name, frame) if physics else canvas.plain_figure(name, frame)
    for col, label, col_color, style in series:
        canvas.add_graph(fig, f"training/{col}", epochs, history.columns[col], label, line_color=col_color, line_style=style)
    if mark_best:
        best = best_epoch(history)
        canvas.add_line(fig, best, frame.y[0], best, lo + 1.02 * span, f"Best epoch ({best})", line_color=cycle_color(4),
                        line_style=7)  # fmt: skip
    canvas.add_legend(fig, 0.55, 0.62, 0.93, 0.62 + 0.055 * (len(series) + mark_best))
    canvas.add_text(fig, context, 0.93, 0.88, align=31)
    return fig


def training_figures(history: TrainingHistory, context: Sequence[str]) -> list[canvas.Figure]:
    """`training_loss` and `training_accuracy` (training and validation, best epoch marked) and,
    when recorded, `training_epoch_time` and `training_memory` (no CMS physics label)."""
    train, valid = color("training"), color("validation")
    figs = [
        _history_figure("training_loss", history, "Loss", [("train_loss", "Training", train, 1),
                                                           ("valid_loss", "Validation", valid, 2)], context, mark_best=True),
        _history_figure("training_accuracy", history, "Accuracy", [("train_acc", "Training", train, 1),
                                                                   ("valid_acc", "Validation", valid, 2)], context, mark_best=True),
    ]  # fmt: skip
    if "memory_mb" in history.columns:  # GB: 4-digit MB tick labels ran into the axis title
        history = replace(history, columns={**history.columns, "memory_gb": history.columns["memory_mb"] / 1024.0})
    for stem, col, title in (("training_epoch_time", "epoch_time", "Epoch time [s]"), ("training_memory", "memory_gb", "Memory [GB]")):
        if col in history.columns:
            figs.append(_history_figure(stem, history, title, [(col, title.split(" [")[0], cycle_color(2), 1)], context,
                                        physics=False))  # fmt: skip
    return figs


def bar_figure(name: str, labels: Sequence[str], values: dict[str, np.ndarray], ytitle: str,
               context: Sequence[str]) -> canvas.Figure:  # fmt: skip
    """Per-class bars, one colour per split (train, test), side by side."""
    n = len(labels)
    fig = canvas.figure(name, canvas.Frame((0.0, float(n)), (0.0, 1.1), "", ytitle), cms_pos=0)
    canvas.label_frame_bins(fig, labels)
    width = 0.8 / len(values)
    for k, (split, vals) in enumerate(values.items()):
        canvas.add_bars(fig, f"{name.replace('-', '_')}/{split}", vals, labels, f"{split.capitalize()}",
                      bar_color=color(split if split in ("train", "test") else "reference"), offset=0.1 + k * width, width=width)  # fmt: skip
    canvas.add_legend(fig, 0.62, 0.70, 0.93, 0.80)
    canvas.add_text(fig, context, 0.93, 0.88, align=31)
    return fig
