"""A training round's name: where its output sets sit in the plots tree (`<plots-dir>/<round>/`).

A round is one results tree. Its default name is the tree's parent directory and name
(`/x/ana/results` -> `ana-results`), so that two `results/` directories of two trainings get
different places; `--round NAME` gives another.
"""

from __future__ import annotations

import re
from pathlib import Path

from pnetviz.io import layout
from pnetviz.io.layout import check_name, name_problem


def derive_name(results: Path) -> str:
    """The default round name of the results tree `results`: `<parent>-<name>` of its resolved
    path; the name alone when the parent cannot be part of a path component (the file-system
    root, or a joined name that is not one)."""
    real = Path(results).resolve()
    name = real.name or "results"
    parent = real.parent.name
    joined = f"{parent}-{name}" if parent else name
    return joined if name_problem(joined) is None else name


def check_round_name(name: str) -> str:
    """`--round NAME`, checked to be a single path component (InputError naming the fix)."""
    return check_name(name, "round", "--round", "give a plain name, e.g. --round week48.")


def round_name(results: Path, given: str | None) -> str:
    """`--round` if given (checked), else the name derived from the results tree."""
    return check_round_name(given) if given is not None else derive_name(results)


def trainer_identity(predictions: Path, prefix: str) -> tuple[Path, layout.ModelFile] | None:
    """(results tree, ModelFile) of a prediction ntuple that sits in a results tree
    (`<results>/<channel>/<kind>/<prefix><signal>/{fold-<k>,pilot}/trees/<model>.root`, or the
    first layout's `.../fold-<k>/predictions.root`), so that `--predictions` publishes where
    `--results-dir` does; None for a file elsewhere."""
    real = Path(predictions).resolve()
    parts = real.parts
    if real.name == layout.PREDICTIONS_FILE and len(parts) >= 6:
        channel, kind, model_dir, fold_name = parts[-5:-1]
        m = re.fullmatch(r"fold-(\d+)", fold_name)
        signal, _, background = model_dir.partition("_vs_")
        if m and kind in layout.KINDS and (kind == "multiclass") == (not background):
            return real.parents[4], layout.ModelFile(kind, channel, signal, int(m.group(1)), predictions, None, background or None)
        return None
    if real.suffix != ".root" or len(parts) < 7 or parts[-2] != "trees":
        return None
    channel, kind, signal_dir, fold_name = parts[-6:-2]
    m = re.fullmatch(r"fold-(\d+)", fold_name)
    model = real.name[: -len(".root")]
    if kind not in layout.KINDS or not (m or fold_name == layout.PILOT) or not (prefix and signal_dir.startswith(prefix)):
        return None
    background = layout.model_background(model)
    if (kind == "binary") != (background is not None):
        return None
    fold = int(m.group(1)) if m else None
    return real.parents[5], layout.ModelFile(kind, channel, signal_dir[len(prefix):], fold, predictions, model, background)
