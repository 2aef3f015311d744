"""Training history: the trainer's `<model>_performance.json`.

`training_results.training_history` is a list of per-epoch records {epoch (0-based),
train_loss, train_acc, valid_loss, valid_acc, epoch_time, memory_mb, cpu_percent}; the last
three are optional. Other `training_results` fields are summary values for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.trainer import read_json

REQUIRED = ("epoch", "train_loss", "train_acc", "valid_loss", "valid_acc")
OPTIONAL = ("epoch_time", "memory_mb", "cpu_percent")


@dataclass(frozen=True)
class TrainingHistory:
    path: Path
    columns: dict[str, np.ndarray]  # per-epoch values; optional columns only when every epoch has them
    summary: dict = field(default_factory=dict)  # other training_results fields (scalars)

    @property
    def epochs(self) -> np.ndarray:
        return self.columns["epoch"]


def load_history(path: Path | str) -> TrainingHistory:
    """Parse and check a performance JSON; InputError naming the file and the problem."""
    path = Path(path)
    doc = read_json(path, "training history")
    results = doc.get("training_results")
    records = results.get("training_history") if isinstance(results, dict) else None
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) for r in records):
        raise InputError(f"{path}: no 'training_results.training_history' list of per-epoch records.")
    missing = [k for k in REQUIRED if any(k not in r for r in records)]
    if missing:
        raise InputError(f"{path}: epoch records lack {', '.join(missing)}. Fix: see the contract in README.md.")
    present = [k for k in OPTIONAL if all(k in r for r in records)]
    try:
        columns = {k: np.array([float(r[k]) for r in records]) for k in (*REQUIRED, *present)}
    except (TypeError, ValueError):
        raise InputError(f"{path}: non-numeric values in training_history.") from None
    summary = {k: v for k, v in results.items() if k != "training_history" and isinstance(v, (int, float, str, bool))}
    return TrainingHistory(path=path, columns=columns, summary=summary)
