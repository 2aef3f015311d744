"""Per-class figures: confusion matrices (fractions on [0, 1], counts), per-class bars and the
pairwise AUC matrix (moved from plots.py, which re-exports them)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pnetviz.draw import canvas
from pnetviz.draw.style import color
from pnetviz.metrics.evaluate import Confusion


def confusion_figures(name: str, confusion: Confusion, context: Sequence[str], split: str = "test",
                      key_prefix: str = "confusion", labels: Sequence[str] | None = None) -> list[canvas.Figure]:  # fmt: skip
    """One figure per file: `<name>` the |w|-weighted row-normalised fractions (each true class sums
    to 1), `<name>_counts` the event counts. `labels`: plot labels of the classes."""
    labels = tuple(labels or confusion.labels)
    what = "one vs rest" if len(labels) == 2 and labels[1] in ("rest", "Others") else ""
    base = f"Confusion matrix{' ' + what if what else ''}, {split} events"
    figs = []
    for suffix, matrix, fmt, ztitle, title, note in (
        ("", confusion.normalised, ".3f", "Fraction of true class", f"{base}: |w|-weighted, each true-class row sums to 1",
         "|w|-weighted, rows sum to 1"),
        ("_counts", confusion.counts, ".0f", "Events", f"{base}: event counts", "event counts"),
    ):  # fmt: skip
        fig = canvas.matrix_figure(f"{name}{suffix}", 1, labels)
        kind = "normalised" if not suffix else "counts"
        canvas.add_matrix(fig, f"{key_prefix}/{split}_{kind}", matrix, labels, fmt, 0, ztitle, title,
                          zmax=None if suffix else 1.0)  # fractions on [0, 1]: one colour, one fraction
        canvas.context_line(fig, [", ".join(context), f"{split} events, {note}"])
        figs.append(fig)
    return figs


def bar_figure(name: str, labels: Sequence[str], values: dict[str, np.ndarray], ytitle: str,
               context: Sequence[str]) -> canvas.Figure:  # fmt: skip
    """Per-class bars, one colour per split (train, test), side by side; the box where the bars
    leave room (else above the frame)."""
    n = len(labels)
    width = 0.8 / len(values)

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        canvas.label_frame_bins(fig, labels)
        for k, (split, vals) in enumerate(values.items()):
            canvas.add_bars(fig, f"{name.replace('-', '_')}/{split}", vals, labels, f"{split.capitalize()}",
                          bar_color=color(split if split in ("train", "test") else "reference"), offset=0.1 + k * width, width=width)  # fmt: skip

    frame = canvas.Frame((0.0, float(n)), (0.0, 1.1), "", ytitle)
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, cms_pos=0), [frame], draw, context)


def pairwise_auc_figure(name: str, key: str, matrix: np.ndarray, labels: Sequence[str], context: Sequence[str],
                        split: str = "test", weights: str = "|w|") -> canvas.Figure:  # fmt: skip
    """The one-vs-one AUC matrix (metrics.calibration.pairwise_auc) as its upper triangle: row i =
    the positive class (the first k-1 classes, the signal on top), column j > i the negative class
    (the last k-1), numbers on the cells. AUC(i, j) = AUC(j, i) with this score, so the lower
    triangle and the undefined diagonal would repeat or say nothing; cells below the diagonal
    left blank."""
    labels = tuple(labels)
    matrix = upper_triangle(matrix)
    fig = canvas.matrix_figure(name, 1, labels[:-1])
    hist = canvas.add_matrix(fig, key, matrix, labels[:-1], ".3f", 0, "AUC (row vs column)",
                             f"Pairwise AUC, {split} events: row class (positive) vs column class, score "
                             "P_{i}/(P_{i}+P_{j})", columns=labels[1:])  # fmt: skip
    hist.GetXaxis().SetTitle("Negative class j")
    hist.GetYaxis().SetTitle("Positive class i")
    defined = matrix[np.isfinite(matrix)]
    # contrast where the AUCs lie, labelled every 0.1 (one decimal: two-decimal labels run into the z title)
    low = min(math.floor(round(float(defined.min()) * 10, 9)) / 10, 0.9) if defined.size else 0.5
    hist.SetMinimum(low)
    hist.SetMaximum(1.0)
    hist.GetZaxis().SetNdivisions(max(int(round((1.0 - low) * 10)), 1), False)
    canvas.context_line(fig, [", ".join(context), f"{split} events, score P_{{i}} / (P_{{i}} + P_{{j}}), weights {weights}"])
    return fig


def upper_triangle(matrix: np.ndarray) -> np.ndarray:
    """The (k-1) x (k-1) upper triangle of a symmetric k x k pairwise matrix: cell (i, j) holds
    (i, j + 1) for j >= i (rows 0..k-2, columns 1..k-1), NaN below the diagonal."""
    full = np.asarray(matrix, dtype=float)
    k = full.shape[0]
    out = full[: k - 1, 1:].copy()
    out[np.tril_indices(k - 1, -1)] = np.nan
    return out
