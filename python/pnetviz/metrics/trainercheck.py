"""The trainer's own test numbers beside pnetviz's, from the same ntuple.

The analysis' trainer records in `<model>_performance.json` (training_results) `test_loss`, the
unweighted mean cross-entropy of the test events, and `test_accuracy`, the unweighted fraction
of test events whose highest score is their true class. pnetviz recomputes both from the
ntuple's scores and labels (all test events, whatever --subset), so a report shows whether the
ntuple is the output of the model the JSON describes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

LOSS_TOLERANCE = 1e-3  # relative: the stored float32 probabilities against the trainer's float32 logits
ACCURACY_TOLERANCE = 1e-3  # absolute: a fraction of events
TINY = 1e-12  # log of a probability stored as 0


def recompute(label: np.ndarray, probs: np.ndarray, test: np.ndarray) -> tuple[float, float]:
    """(mean cross-entropy, argmax accuracy) of the `test` events, unweighted; `probs` is
    (events, classes) in class order, `label` the class index."""
    y, p = label[test].astype(np.int64), probs[test].astype(np.float64)
    if y.size == 0:
        return math.nan, math.nan
    p_true = p[np.arange(y.size), y]
    return float(-np.mean(np.log(np.maximum(p_true, TINY)))), float(np.mean(np.argmax(p, axis=1) == y))


def recompute_binary(label: np.ndarray, signal: np.ndarray) -> tuple[float, float]:
    """recompute(label, np.column_stack([signal, 1 - signal]), every event), the same two numbers,
    without the (events, 2) copies: P(true class) is signal for label 0, 1 - signal (in the
    scores' dtype, as the stacked column) for label 1, widened to float64; the argmax is class 0
    where signal >= 1 - signal or signal is NaN (numpy's argmax: the first of equal maxima, NaN
    the maximum)."""
    y, s = np.asarray(label), np.asarray(signal)
    if y.size == 0:
        return math.nan, math.nan
    other = 1 - s
    is_zero = y == 0
    p_true = np.where(is_zero, s, other).astype(np.float64, copy=False)
    loss = float(-np.mean(np.log(np.maximum(p_true, TINY))))
    del p_true
    predicted_zero = (s >= other) | np.isnan(s)
    return loss, float(np.count_nonzero(predicted_zero == is_zero) / y.size)


def cross_check(label: np.ndarray, probs: np.ndarray, test: np.ndarray, summary: dict) -> tuple[dict, list[str]]:
    """The report's `trainer_check` section ({} without the trainer's numbers) and a note per
    number that differs beyond its tolerance."""
    return check_numbers(summary, lambda: recompute(label, probs, test))


def check_numbers(summary: dict, numbers: Callable[[], tuple[float, float]]) -> tuple[dict, list[str]]:
    """cross_check with pnetviz's (loss, accuracy) from `numbers()`, called only when the trainer has either."""
    trainer = {k: summary.get(k) for k in ("test_loss", "test_accuracy")}
    trainer = {k: float(v) for k, v in trainer.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if not trainer:
        return {}, []
    mine = dict(zip(("test_loss", "test_accuracy"), numbers()))
    out, notes = {"definition": "unweighted, every test event: mean -ln P(true class); fraction with argmax = true class"}, []
    for key, theirs in trainer.items():
        diff = mine[key] - theirs
        out[key] = {"trainer": theirs, "pnetviz": mine[key], "difference": diff}
        limit = LOSS_TOLERANCE * max(1.0, abs(theirs)) if key == "test_loss" else ACCURACY_TOLERANCE
        if not abs(diff) <= limit:
            notes.append(f"the trainer's {key} {theirs:.4g} differs from this ntuple's {mine[key]:.4g}: the ntuple may "
                         "not be the output of the model its JSON describes (or its test split differs)")  # fmt: skip
    return out, notes
