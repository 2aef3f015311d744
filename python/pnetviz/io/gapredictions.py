"""The GA's prediction files (`GA-iter<N>/overfitting_diagnostics/model<i>_predictions.npz`,
visualizeGAIteration.py's): y_true, y_scores and weights of the train and test splits, checked
before use (shapes from the archive's headers, class indices, finite numbers, both signal and
background events with a non-zero weight sum), each problem one InputError naming the file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import readers

PREDICTION_KEYS = ("y_true", "y_scores", "weights")
SPLITS = ("train", "test")


@dataclass(frozen=True)
class SplitPredictions:
    label: np.ndarray  # true class index
    scores: np.ndarray  # (N, C) softmax outputs
    weights: np.ndarray


def _check_shapes(path: Path, shapes: dict[str, tuple[int, ...]], n_classes: int, fix: str) -> None:
    """InputError unless the arrays of both splits are there with shapes (N,), (N, n_classes), (N,)."""
    for split in SPLITS:
        keys = [f"{k}_{split}" for k in PREDICTION_KEYS]
        missing = [k for k in keys if k not in shapes]
        if missing:
            raise InputError(f"{path}: no {', '.join(missing)} (arrays found: {', '.join(sorted(shapes)) or 'none'}). Fix: {fix}")
        label, scores, weights = (shapes[k] for k in keys)
        n = label[0] if len(label) == 1 else -1
        if n < 0 or scores != (n, n_classes) or weights != (n,):
            raise InputError(f"{path}: {split} arrays have shapes {label}, {scores}, {weights}; expected "
                             f"(N,), (N, {n_classes}) for the run's {n_classes} classes, (N,). Fix: {fix}")  # fmt: skip


def _check_classes(path: Path, split: str, label: np.ndarray, weights: np.ndarray, fix: str) -> None:
    """InputError naming the file unless `split` holds signal (class 0) and background events,
    each with a non-zero weight sum: a ROC, an AUC and the overtraining tests need both."""
    for name, mask in (("signal (class 0)", label == 0), ("background (classes 1+)", label != 0)):
        if not mask.any():
            raise InputError(f"{path}: y_true_{split} holds no {name} events, so no ROC can be made. Fix: {fix}")
        if float(np.sum(weights[mask])) == 0.0:
            raise InputError(f"{path}: the {name} events of {split} have a weight sum of 0, so no ROC can be made. "
                             f"Fix: {fix}")  # fmt: skip


def read_predictions(path: Path, n_classes: int) -> dict[str, SplitPredictions]:
    """model<i>_predictions.npz: y_true/y_scores/weights for train and test (no pickled objects)."""
    fix = "re-run visualizeGAIteration.py for this iteration, or remove the file."
    data = readers.read_npz(path, "GA predictions file", fix, lambda shapes: _check_shapes(path, shapes, n_classes, fix))
    out = {}
    for split in SPLITS:
        label, scores, weights = (data[f"{k}_{split}"] for k in PREDICTION_KEYS)
        if not np.issubdtype(label.dtype, np.integer) and not (np.isfinite(label).all() and np.all(label == np.round(label))):
            raise InputError(f"{path}: y_true_{split} holds values that are not class indices. Fix: {fix}")
        label = label.astype(np.int64)
        if label.size and (label.min() < 0 or label.max() >= n_classes):
            raise InputError(f"{path}: y_true_{split} holds class {int(label.max())}, beyond the run's {n_classes} classes. Fix: {fix}")
        scores, weights = scores.astype(np.float64), weights.astype(np.float64)
        if not (np.isfinite(scores).all() and np.isfinite(weights).all()):
            raise InputError(f"{path}: y_scores_{split} or weights_{split} hold NaN or inf. Fix: {fix}")
        _check_classes(path, split, label, weights, fix)
        out[split] = SplitPredictions(label, scores, weights)
    return out
