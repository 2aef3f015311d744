"""The folders of a results tree and the names in them: what identifies a model (Query) and one
model's ntuple per fold (ModelFile), channels, signal points, fold directories and the models with
an ntuple in them, binary backgrounds from model names, the signal masses and hyperparameter tag
of a name, and pnetviz's first layout (predictions.root per fold). io.layout resolves a query and
discovers every model on top of these."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io.rootnames import is_dir, listing


DEFAULT_PREFIX = "TTToHcToWAToMuMu-"
PILOT = "pilot"
BINARY_TAG = "-binary-"
KINDS = ("binary", "multiclass")


@dataclass(frozen=True)
class ModelFile:
    """One model's prediction ntuple for one fold (fold None: the trainer's pilot run)."""

    kind: str
    channel: str
    signal: str
    fold: int | None
    predictions: Path
    model: str | None = None  # the trainer's model name; None in pnetviz's first layout
    background: str | None = None  # binary: the background trained against

    @property
    def fold_name(self) -> str:
        return PILOT if self.fold is None else f"fold-{self.fold}"


@dataclass(frozen=True)
class Query:
    """What identifies a model in a results directory."""

    results: Path
    channel: str
    signal: str
    kind: str
    background: str | None = None  # binary only; None: the only one there is
    model: str | None = None  # --model: full name or a unique part
    prefix: str = DEFAULT_PREFIX
    pilot: bool = False
def nearest(name: str, options: list[str]) -> str:
    """' (nearest: X)' for the closest of `options`, or ''."""
    close = difflib.get_close_matches(name, options, n=1, cutoff=0.4)
    close = close or [o for o in options if o.lower() == name.lower()]
    return f" (nearest: {close[0]})" if close else ""


def model_background(name: str) -> str | None:
    """`...-binary-ttZ` -> `ttZ`; None for a multi-class model."""
    index = name.rfind(BINARY_TAG)
    return name[index + len(BINARY_TAG):] if index >= 0 else None


def tree_models(fold_dir: Path) -> list[str]:
    """Model names with an ntuple in `<fold_dir>/trees/` (file name without .root), sorted;
    InputError if `trees/` cannot be read."""
    trees = Path(fold_dir) / "trees"
    return sorted(p.name[: -len(".root")] for p in listing(trees) if p.name.endswith(".root") and len(p.name) > 5 and p.is_file())


def fold_dirs(signal_dir: Path, pilot: bool) -> dict[int | None, Path]:
    """Fold number -> directory (`fold-<k>`), or {None: pilot/} with `pilot`."""
    if pilot:
        d = Path(signal_dir) / PILOT
        return {None: d} if is_dir(d) else {}
    out = {}
    for d in listing(signal_dir):
        m = re.fullmatch(r"fold-(\d+)", d.name)
        if m and is_dir(d):
            out[int(m.group(1))] = d
    return dict(sorted(out.items()))


def trainer_signal_dir(q: Query) -> Path:
    return Path(q.results) / q.channel / q.kind / f"{q.prefix}{q.signal}"


def legacy_dir(q: Query) -> Path | None:
    if q.kind == "multiclass":
        return multiclass_dir(q.results, q.channel, q.signal)
    return binary_dir(q.results, q.channel, q.signal, q.background) if q.background else None


def signals_in(kind_dir: Path, prefix: str) -> list[str]:
    """Signal points found under `<results>/<channel>/<kind>/`, in either layout."""
    found = set()
    for d in listing(kind_dir):
        if not is_dir(d):
            continue
        if prefix and d.name.startswith(prefix):
            found.add(d.name[len(prefix):])
        elif kind_dir.name == "binary" and "_vs_" in d.name:
            found.add(d.name.split("_vs_")[0])
        elif kind_dir.name == "multiclass" and any(d.glob(f"fold-*/{PREDICTIONS_FILE}")):
            found.add(d.name)
    return sorted(found)


def channels_in(results: Path) -> list[str]:
    """Channels under `results` (directories holding binary/ or multiclass/); InputError if
    `results` is not a directory."""
    if not is_dir(results):
        raise InputError(f"{results}: no such directory. Fix: point --results-dir at the trainer's results/ "
                         "(or results_bjets/) directory.")  # fmt: skip
    return sorted(d.name for d in listing(results) if any(is_dir(d / k) for k in KINDS))


def the_only(found: list[str], option: str, what: str, where: Path) -> str:
    """The one name in `found`; with none or several, InputError asking for `option` and listing them."""
    if len(found) == 1:
        return found[0]
    listing = f"{what} found: {', '.join(found)}" if found else f"no {what} found"
    raise InputError(f"{where}: give {option}; {listing}.")


SIGNAL_MASSES = re.compile(r"MHc(\d+)_MA(\d+)")


def signal_masses(signal: str) -> tuple[int, int] | None:
    """(m(H+), m(A)) in GeV of a signal point named like MHc130_MA90; None for another name."""
    m = SIGNAL_MASSES.fullmatch(signal)
    return (int(m.group(1)), int(m.group(2))) if m else None


def hyper_tag(model: str | None) -> str:
    """The hyperparameter part of a trainer model name, which the binary and multi-class models of
    one training share: the name without `-binary-<bkg>`, `-<n>grp-...` or `-<n>bg`."""
    if not model:
        return ""
    return re.sub(r"-(binary-.+|\d+grp-.+|\d+bg)$", "", model)


# --- pnetviz's first layout ---

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
    for d in listing(model_dir):
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

