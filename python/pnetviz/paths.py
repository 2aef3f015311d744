"""pnetviz's first results-directory layout (the trainer's own is in layout.py, which reads both).

    <results>/<channel>/binary/<signal>_vs_<background>/fold-<k>/predictions.root
    <results>/<channel>/binary/<signal>_vs_<background>/fold-<k>/<model>_performance.json
    <results>/<channel>/multiclass/<signal>/fold-<k>/predictions.root
    <results>/<channel>/multiclass/<signal>/fold-<k>/<model>_performance.json

Plots go by default to plots/<channel>/{binary/<signal>_vs_<background>,multiclass/<signal>}/fold-<k>/.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import InputError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RESULTS = REPO / "results"
DEFAULT_PLOTS = REPO / "plots"
PREDICTIONS_FILE = "predictions.root"


def binary_dir(results: Path, channel: str, signal: str, background: str) -> Path:
    return Path(results) / channel / "binary" / f"{signal}_vs_{background}"


def multiclass_dir(results: Path, channel: str, signal: str) -> Path:
    return Path(results) / channel / "multiclass" / signal


def fold_dir(model_dir: Path, fold: int) -> Path:
    return Path(model_dir) / f"fold-{fold}"


def available_folds(model_dir: Path) -> list[int]:
    """Fold numbers with a predictions file under `model_dir`, ascending."""
    folds = []
    for d in Path(model_dir).glob("fold-*"):
        m = re.fullmatch(r"fold-(\d+)", d.name)
        if m and (d / PREDICTIONS_FILE).is_file():
            folds.append(int(m.group(1)))
    return sorted(folds)


def parse_folds(text: str, model_dir: Path | None) -> list[int]:
    """`--fold` value: one number, a comma list, or `all` (every fold found under model_dir)."""
    if text.strip().lower() == "all":
        if model_dir is None:
            raise InputError("--fold all needs --results-dir (it lists the folds found there).")
        folds = available_folds(model_dir)
        if not folds:
            raise InputError(f"{model_dir}: no fold-<k>/{PREDICTIONS_FILE} found. Fix: check --results-dir, --signal, --channel.")
        return folds
    return parse_fold_list(text)


def parse_fold_list(text: str) -> list[int]:
    """`--fold 0,2` -> [0, 2]; InputError unless non-negative integers."""
    try:
        folds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"--fold {text!r}: expected a number, a comma-separated list or 'all'.") from None
    if not folds or min(folds) < 0:
        raise InputError(f"--fold {text!r}: fold numbers are non-negative integers.")
    return folds


def split_present(folds: list[int], model_dir: Path) -> tuple[list[int], list[int]]:
    """(folds with a predictions file, folds without); InputError if none is there."""
    present = [f for f in folds if (fold_dir(model_dir, f) / PREDICTIONS_FILE).is_file()]
    missing = [f for f in folds if f not in present]
    if not present:
        names = ", ".join(f"fold-{f}" for f in missing)
        raise InputError(f"{model_dir}: no {PREDICTIONS_FILE} for {names}. Fix: check --fold, --results-dir, --signal, --channel.")
    return present, missing


def gaps(folds: list[int]) -> list[int]:
    """Fold numbers missing between 0 and the largest fold found (for --fold all)."""
    return sorted(set(range(max(folds) + 1)) - set(folds)) if folds else []
