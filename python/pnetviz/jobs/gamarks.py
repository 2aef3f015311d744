"""What a GA figure marks so that a reader sees it at 8 cm: the fitness axis fitted to the models
(a few diverged ones drawn as triangles at its top), the best model and the trainer's choice as
large distinct markers, and the KS cells below the p-value threshold outlined (issue 33 item 6)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.draw import canvas
from pnetviz.draw.style import color
from pnetviz.metrics import ga as gametrics
from pnetviz.rootenv import root, set_title

BEST_MARKER, TRAINER_MARKER = 29, 72  # star: best over all iterations; open square (line width 3): the trainer's best_chromosome
BEST_SIZE, TRAINER_SIZE = 3.2, 2.6  # about 3 mm at 8 cm width, in the legend too: seen among the models (size 1.3)
ABOVE_MARKER, ABOVE_SIZE = 22, 1.6  # a model above the fitted fitness axis: a triangle pointing up at the axis top


def best_points(fig: canvas.Figure, key: str, best: tuple[float, float], trainer: tuple[float, float] | None,
                 labels: tuple[str, str]) -> None:  # fmt: skip
    """The best model (a large star) and the trainer's choice (a large thick open square) over the
    models, drawn last so that nothing covers them."""
    star = canvas.add_points(fig, f"{key}/best", [best[0]], [best[1]], labels[0], marker_color=color("validation"), marker=BEST_MARKER)
    star.SetMarkerSize(BEST_SIZE)
    if trainer is not None:
        square = canvas.add_points(fig, f"{key}/trainer_choice", [trainer[0]], [trainer[1]], labels[1],
                                   marker_color=color("all_events"), marker=TRAINER_MARKER)  # fmt: skip
        square.SetMarkerSize(TRAINER_SIZE)


def fitted_axis(ev: dict, rows: Sequence[dict]) -> tuple[float, float]:
    """The fitness axis of `rows` (metrics.ga.fitness_axis): the best model and the trainer's
    choice always on it, a few diverged models above it."""
    tc = ev["trainer_choice"] or {}
    chosen = (tc.get("iteration"), tc.get("model"))
    keep = [r["fitness"] for r in rows if r["rank"] == 1 or (r["iteration"], r["model"]) == chosen]
    return gametrics.fitness_axis([r["fitness"] for r in rows], keep)


def above_axis(fig: canvas.Figure, key: str, x: Sequence[float], y: Sequence[float], high: float, marker_color: int) -> None:
    """The models whose fitness is above the axis top `high`: triangles pointing up at `high`,
    the count and the largest value in the legend (their values: the models' graph)."""
    above = [(a, b) for a, b in zip(x, y) if b > high]
    if not above:
        return
    label = f"{len(above)} above, up to {max(b for _, b in above):.3g}"
    graph = canvas.add_points(fig, f"{key}/above_axis", [a for a, _ in above], [high] * len(above), label,
                              marker_color=marker_color, marker=ABOVE_MARKER)  # fmt: skip
    graph.SetMarkerSize(ABOVE_SIZE)
    set_title(graph, f"Models with fitness above the axis (drawn at its top, {high:.4g}; values in the models' graph)")



FLAG_COLOR, FLAG_WIDTH = 2, 4  # kRed (a colour every reader has built in), 4 px: a failing KS cell's outline


def flag_cells(fig: canvas.Figure, p_values: np.ndarray, threshold: float) -> int:
    """Outline in red each cell of a KS matrix (add_matrix's layout: row i at the top) whose
    p-value is below `threshold`: the train and test distributions differ there. The count."""
    ROOT = root()
    n = p_values.shape[0]
    fig.pads[0].cd()
    failed = 0
    for i, j in zip(*np.nonzero(np.isfinite(p_values) & (p_values < threshold))):
        box = ROOT.TBox(j + 0.05, n - i - 0.95, j + 0.95, n - i - 0.05)
        box.SetFillStyle(0)
        box.SetLineColor(FLAG_COLOR)
        box.SetLineWidth(FLAG_WIDTH)
        box.Draw()
        fig.extras.append(box)
        failed += 1
    return failed
