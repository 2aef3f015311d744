"""The training-history figures: loss and accuracy per epoch (training and validation, the best
epoch marked), epoch time and memory, each alone and, as the specification names them, combined
(training_curves: loss over accuracy; training_metrics: epoch time over memory), and every
fold's losses on one figure. A non-finite value
(a diverged epoch) is not drawn and said so on the figure; a series without a finite value is
left out, a figure without one not made (never a blank figure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from pnetviz.draw import canvas
from pnetviz.rootenv import root
from pnetviz.draw.style import color, cycle_color
from pnetviz.io.history import TrainingHistory


def best_epoch(history: TrainingHistory) -> int | None:
    """The epoch kept by the trainer: its `best_epoch` if recorded, else the lowest finite
    validation loss (None: no finite validation loss)."""
    recorded = history.summary.get("best_epoch")
    if isinstance(recorded, (int, float)) and recorded in set(history.epochs.tolist()):
        return int(recorded)
    epochs, valid = history.finite("valid_loss")
    return int(epochs[int(np.argmin(valid))]) if valid.size else None


def not_drawn(history: TrainingHistory, col: str, what: str) -> str | None:
    """The figure's short line for a column with non-finite values, short enough for a legend
    inside the frame ("Validation: epoch 12 not finite", "Validation: epochs 3, 5 not finite",
    "Validation: 6 epochs not finite"; the report's notes name every epoch), None when every
    value is finite."""
    bad = history.non_finite.get(col)
    if not bad:
        return None
    if len(bad) == history.epochs.size:
        return f"{what}: no finite value, not drawn"
    named = f"{len(bad)} epochs" if len(bad) > 2 else f"epoch{'s' * (len(bad) > 1)} {', '.join(map(str, bad))}"
    return f"{what}: {named} not finite"


def _history_figure(name: str, history: TrainingHistory, ytitle: str, series, context: Sequence[str],
                    physics: bool = True, mark_best: bool = False) -> canvas.Figure | None:  # fmt: skip
    """One per-epoch quantity: series = [(column, label, colour, style)]; the best epoch as a dashed
    vertical line; `physics` False: a computing-resource plot, without the CMS physics label. The
    y axis fitted to the data, with headroom for the box only when the curves leave no corner."""
    epochs = history.epochs
    notes = [n for col, label, *_ in series if (n := not_drawn(history, col, label))]  # the y title names the quantity
    series = [s for s in series if history.finite(s[0])[1].size]  # a series without a finite value is left out
    if not series:
        return None
    values = np.concatenate([history.finite(col)[1] for col, *_ in series])
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo or abs(hi) or 1.0
    bottom = max(lo - 0.08 * span, 0.0) if lo >= 0 else lo - 0.08 * span
    tops = [hi + 0.08 * span, hi + 0.9 * span]
    if ytitle == "Accuracy":  # a bounded quantity: the axis ends at 1.1 at most
        tops = sorted({min(t, 1.1) for t in tops})
    frames = [canvas.Frame((epochs.min() - 0.5, epochs.max() + 0.5), (bottom, top), "Epoch", ytitle) for top in tops]
    best = best_epoch(history) if mark_best else None

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        for col, label, col_color, style in series:
            canvas.add_graph(fig, f"training/{col}", *history.finite(col), label, line_color=col_color, line_style=style)
        if best is not None:  # up to the top of the data: the headroom above stays free for the legend
            canvas.add_line(fig, best, frame.y[0], best, min(frame.y[1], tops[0]), f"Best epoch ({best})",
                            line_color=cycle_color(4), line_style=7)  # fmt: skip
        for note in notes:  # what is not drawn belongs with the legend: never left to the caption
            fig.legend.append((root().nullptr, note, ""))

    make = (lambda fr: canvas.figure(name, fr, cms_pos=0, y_title_offset=1.4)) if physics else (lambda fr: canvas.plain_figure(name, fr))
    return canvas.boxed_figure(make, frames, draw, list(context), physics=physics,
                               reframe=canvas.reframe)  # the drawing is the same in both frames: moved where the axis allows


def training_figures(history: TrainingHistory, context: Sequence[str]) -> list[canvas.Figure]:
    """`training_loss` and `training_accuracy` (training and validation, best epoch marked) and,
    when recorded, `training_epoch_time` and `training_memory` (no CMS physics label). Non-finite
    values are not drawn and said so on the figure; a figure with no finite value is not made."""
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
    # the specification's combined figures beside the split ones: training_curves.png (loss over
    # accuracy) and training_metrics.png (epoch time over memory), one epoch axis shared
    figs.append(_combined_figure("training_curves", history, ("Loss", [("train_loss", "Training", train, 1), ("valid_loss", "Validation", valid, 2)]),
                                 ("Accuracy", [("train_acc", "Training", train, 1), ("valid_acc", "Validation", valid, 2)]),
                                 context, physics=True))  # fmt: skip
    if "epoch_time" in history.columns and "memory_gb" in history.columns:
        figs.append(_combined_figure("training_metrics", history, ("Epoch time [s]", [("epoch_time", "Epoch time", cycle_color(2), 1)]),
                                     ("Memory [GB]", [("memory_gb", "Memory", cycle_color(3), 2)]), context, physics=False))  # fmt: skip
    return [f for f in figs if f is not None]


def _range(history: TrainingHistory, series, bounded: bool) -> tuple[float, float] | None:
    """A y range for the finite values of `series` with 8% of their span either side (0 at the
    least for positive values; 1.05 at the most for a bounded quantity), None without a value."""
    parts = [history.finite(col)[1] for col, *_ in series]
    values = np.concatenate(parts) if parts else np.array([])
    if not values.size:
        return None
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo or abs(hi) or 1.0
    bottom = max(lo - 0.08 * span, 0.0) if lo >= 0 else lo - 0.08 * span
    top = hi + 0.08 * span
    return (bottom, min(top, 1.05) if bounded else top)


def _combined_figure(name: str, history: TrainingHistory, upper, lower, context: Sequence[str],
                     physics: bool) -> canvas.Figure | None:  # fmt: skip
    """Two per-epoch quantities on one epoch axis: `upper` = (y title, series) in the main pad,
    `lower` below it in a panel (the layout of a ratio figure, no line at 1); the legend and the
    context in the main frame (boxed_figure), the best epoch marked in both (physics figures).
    None unless both have a finite value."""
    (utitle, useries), (ltitle, lseries) = upper, lower
    useries = [s for s in useries if history.finite(s[0])[1].size]
    lseries = [s for s in lseries if history.finite(s[0])[1].size]
    urange, lrange = _range(history, useries, False), _range(history, lseries, ltitle == "Accuracy")
    if urange is None or lrange is None:
        return None
    epochs = history.epochs
    x = (float(epochs.min()) - 0.5, float(epochs.max()) + 0.5)
    span = urange[1] - urange[0] or 1.0
    frames = [canvas.Frame(x, (urange[0], urange[1] + room * span), "Epoch", utitle) for room in (0.0, 0.9)]
    panel = canvas.Frame(x, lrange, "Epoch", ltitle)
    best = best_epoch(history) if physics else None
    notes = [n for col, label, *_ in (*useries, *lseries) if (n := not_drawn(history, col, label))]

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        for col, label, col_color, style in useries:
            canvas.add_graph(fig, f"training_combined/{col}", *history.finite(col), label, line_color=col_color, line_style=style)
        for col, label, col_color, style in lseries:  # named by the upper pad's entries (the same colours and styles)
            named = None if any(label == u[1] for u in useries) else label
            canvas.add_graph(fig, f"training_combined/{col}", *history.finite(col), named, line_color=col_color,
                             line_style=style, pad=1)  # fmt: skip
        if best is not None:
            canvas.add_line(fig, best, frame.y[0], best, urange[1], f"Best epoch ({best})", line_color=cycle_color(4), line_style=7)
            canvas.add_line(fig, best, lrange[0], best, lrange[1], None, pad=1, line_color=cycle_color(4), line_style=7)
        for note in notes:
            fig.legend.append((root().nullptr, note, ""))
        fig.pads[0].cd()

    def make(fr: canvas.Frame) -> canvas.Figure:
        return canvas.ratio_figure(name, fr, panel, reference_line=False, cms_label=physics)

    return canvas.boxed_figure(make, frames, draw, list(context), physics=physics)


def fold_training_figure(histories: dict[int, TrainingHistory], context: Sequence[str],
                         name: str = "training_loss_folds") -> canvas.Figure | None:  # fmt: skip
    """Every fold's training (solid) and validation (dashed) loss against the epoch, one colour per
    fold, each fold's best epoch (best_epoch) marked on its validation curve; non-finite values not
    drawn and said so (None: no finite loss at all)."""
    folds = sorted(histories)
    values = np.concatenate([h.finite(c)[1] for h in histories.values() for c in ("train_loss", "valid_loss")])
    if not values.size:
        return None
    epochs = np.concatenate([h.epochs for h in histories.values()])
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo or abs(hi) or 1.0
    bottom = max(lo - 0.08 * span, 0.0) if lo >= 0 else lo - 0.08 * span
    frames = [canvas.Frame((epochs.min() - 0.5, epochs.max() + 0.5), (bottom, hi + room * span), "Epoch", "Loss")
              for room in (0.08, 0.9)]  # fmt: skip

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        best_x, best_y = [], []
        for i, fold in enumerate(folds):
            h, col = histories[fold], cycle_color(2 + i)
            for loss, style, label in (("train_loss", 1, f"Fold {fold}"), ("valid_loss", 2, None)):
                if h.finite(loss)[1].size:
                    canvas.add_graph(fig, f"training_folds/{loss}_fold{fold}", *h.finite(loss), label, line_color=col,
                                     line_style=style)  # fmt: skip
            best = best_epoch(h)
            at = h.columns["valid_loss"][h.epochs == best]
            if best is not None and at.size and np.isfinite(at[0]):
                best_x.append(best)
                best_y.append(float(at[0]))
        if best_x:
            canvas.add_points(fig, "training_folds/best_epochs", best_x, best_y, "Best epoch (validation)",
                              marker_color=color("all_events"), marker=24)  # fmt: skip

    ctx = [*context, "solid: training, dashed: validation"]
    ctx += [f"Fold {f}, {n[0].lower()}{n[1:]}" for f in folds for c, what in (("train_loss", "Training loss"), ("valid_loss", "Validation loss"))
            if (n := not_drawn(histories[f], c, what))]  # fmt: skip
    make = lambda fr: canvas.figure(name, fr, cms_pos=0, y_title_offset=1.4)  # noqa: E731
    return canvas.boxed_figure(make, frames, draw, ctx)
