"""The trainer's own test numbers beside pnetviz's, from the same ntuple.

The analysis' trainer records in `<model>_performance.json` (training_results) `test_loss`, the
unweighted mean cross-entropy of the test events, and `test_accuracy`, the unweighted fraction
of test events whose highest score is their true class. pnetviz recomputes both from the
ntuple's scores and labels (all test events, whatever --subset), so a report shows whether the
ntuple is the output of the model the JSON describes.
"""

from __future__ import annotations

import math

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


def cross_check(label: np.ndarray, probs: np.ndarray, test: np.ndarray, summary: dict) -> tuple[dict, list[str]]:
    """The report's `trainer_check` section ({} without the trainer's numbers) and a note per
    number that differs beyond its tolerance."""
    trainer = {k: summary.get(k) for k in ("test_loss", "test_accuracy")}
    trainer = {k: float(v) for k, v in trainer.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if not trainer:
        return {}, []
    mine = dict(zip(("test_loss", "test_accuracy"), recompute(label, probs, test)))
    out, notes = {"definition": "unweighted, every test event: mean -ln P(true class); fraction with argmax = true class"}, []
    for key, theirs in trainer.items():
        diff = mine[key] - theirs
        out[key] = {"trainer": theirs, "pnetviz": mine[key], "difference": diff}
        limit = LOSS_TOLERANCE * max(1.0, abs(theirs)) if key == "test_loss" else ACCURACY_TOLERANCE
        if not abs(diff) <= limit:
            notes.append(f"the trainer's {key} {theirs:.4g} differs from this ntuple's {mine[key]:.4g}: the ntuple may "
                         "not be the output of the model its JSON describes (or its test split differs)")  # fmt: skip
    return out, notes
