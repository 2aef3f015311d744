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

    @property
    def non_finite(self) -> dict[str, list[int]]:
        """column -> the epochs whose value is NaN or infinite (a diverged epoch), for every
        column that has one: those points are not drawn, and the report names them."""
        out = {}
        for col, values in self.columns.items():
            bad = ~np.isfinite(values)
            if col != "epoch" and bad.any():
                out[col] = [int(e) for e in self.epochs[bad]]
        return out

    def finite(self, col: str) -> tuple[np.ndarray, np.ndarray]:
        """(epochs, values) of column `col` without its non-finite values."""
        keep = np.isfinite(self.columns[col])
        return self.epochs[keep], self.columns[col][keep]

    def report(self) -> dict:
        """The report's `training` section: the summary fields, and `non_finite_epochs` (column ->
        epochs not drawn) when a value is NaN or infinite."""
        return {**self.summary, "non_finite_epochs": self.non_finite} if self.non_finite else dict(self.summary)

    def notes(self) -> list[str]:
        """One report note per column with non-finite values, naming the epochs."""
        out = []
        for col, epochs in self.non_finite.items():
            what = "no finite value: the curve is left out" if len(epochs) == self.epochs.size else (
                f"not finite at epoch{'s' * (len(epochs) > 1)} {', '.join(map(str, epochs))}: those points are not drawn")
            out.append(f"training history {col}: {what}")
        return out


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
        raise InputError(f"{path}: epoch records lack {', '.join(missing)}. Fix: see the contract in docs/inputs.md.")
    present = [k for k in OPTIONAL if all(k in r for r in records)]
    try:
        columns = {k: np.array([float(r[k]) for r in records]) for k in (*REQUIRED, *present)}
    except (TypeError, ValueError):
        raise InputError(f"{path}: non-numeric values in training_history.") from None
    if not np.isfinite(columns["epoch"]).all():
        raise InputError(f"{path}: an epoch number in training_history is not finite. Fix: number the epochs 0, 1, 2, ...")
    summary = {k: v for k, v in results.items() if k != "training_history" and isinstance(v, (int, float, str, bool))}
    return TrainingHistory(path=path, columns=columns, summary=summary)
