"""Where pnetviz writes: the output tree's set directories (the plots tree).

A model's fold sets mirror the trainer's tree under its round (io.roundname):

    <plots-dir>/<round>/<channel>/{binary,multiclass}/<signal>/<model>/fold-<k>
    <plots-dir>/<round>/<channel>/comparison/<signal>/<multi-class model>/fold-<k>

and a model found in pnetviz's first layout (no model name) keeps that layout, under `<plots-dir>/`
(under `<plots-dir>/<round>/` with `--round`). Reading the inputs is io.layout's.
"""

from __future__ import annotations

from pathlib import Path

from pnetviz.io.layout import ModelFile, binary_dir, check_name, multiclass_dir
from pnetviz.io.roundname import check_round_name, round_name


def _check_identity(file: ModelFile) -> None:
    where = str(file.predictions)
    fix = "give --channel, --signal, --background (or --output)."
    if file.channel:  # "" with --predictions and --output: no channel known, none in the path
        check_name(file.channel, "channel", where, fix)
    check_name(file.signal, "signal point", where, fix)
    for field, value in (("model", file.model), ("background", file.background)):
        if value is not None:
            check_name(value, field, where, fix)


def plots_model_dir(file: ModelFile, results: Path, plots_root: Path, round_given: str | None = None) -> Path:
    """Where a model's fold directories go by default: the trainer's tree mirrored under
    `plots/<round>/` (io.roundname: `--round`, else the name the plots tree's registry gives the
    results tree: its directory's name unless another tree holds it), or
    pnetviz's first layout under `plots/` (under `plots/<round>/` with `--round`). Every name in
    it has been checked where it was read (check_name); checked again here, so that no caller
    can build a path from an unchecked one."""
    _check_identity(file)
    if file.model is None:
        root = _legacy_root(plots_root, round_given)
        if file.kind == "binary":
            return binary_dir(root, file.channel, file.signal, file.background or "background")
        return multiclass_dir(root, file.channel, file.signal)
    return Path(plots_root) / round_name(plots_root, results, round_given) / file.channel / file.kind / file.signal / file.model


def plots_comparison_dir(multiclass: ModelFile, results: Path, plots_root: Path, round_given: str | None = None) -> Path:
    """Where a binary-vs-multi-class comparison's fold directories go by default."""
    _check_identity(multiclass)
    if multiclass.model is None:
        return _legacy_root(plots_root, round_given) / multiclass.channel / "comparison" / multiclass.signal
    return (Path(plots_root) / round_name(plots_root, results, round_given) / multiclass.channel / "comparison" / multiclass.signal
            / multiclass.model)  # fmt: skip


def _legacy_root(plots_root: Path, round_given: str | None) -> Path:
    return Path(plots_root) / check_round_name(round_given) if round_given is not None else Path(plots_root)
