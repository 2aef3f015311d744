"""Models of the trainer's layout with their JSON files but no ntuple.

The trainer writes `<model>_performance.json` and `<model>_model_info.json` beside `trees/`, and
the ntuple `trees/<model>.root`; a committed or copied fold often has the JSONs only (the
analysis' repository commits no `trees/`). Such a model cannot be evaluated: a single evaluation
says that `trees/<model>.root` is missing, a campaign names it in one line per model (plan and
summary) and evaluates the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pnetviz import escape
from pnetviz.errors import InputError
from pnetviz.io import folders, rootnames

JSON_SUFFIXES = ("_performance.json", "_model_info.json")


@dataclass(frozen=True)
class Orphan:
    """One model of one signal point with JSONs but no ntuple in `folds` (None: pilot/)."""

    kind: str
    channel: str
    signal: str
    model: str
    background: str | None
    folds: tuple[int | None, ...]
    signal_dir: Path

    def message(self) -> str:
        where = ", ".join("pilot" if f is None else f"fold-{f}" for f in self.folds)
        return (f"no ntuple: trees/{escape.printable(self.model)}.root is missing in {where} (its JSON files are "
                "there); not evaluated. Fix: copy the trainer's trees/ directory beside the JSON files.")  # fmt: skip


def json_only(fold_dir: Path) -> list[str]:
    """Model names with a `<model>_performance.json` or `_model_info.json` in `fold_dir` and no
    `trees/<model>.root`, sorted."""
    with_tree = set(folders.tree_models(fold_dir))
    names = {p.name[: -len(s)] for p in rootnames.listing(fold_dir) for s in JSON_SUFFIXES
             if p.name.endswith(s) and len(p.name) > len(s) and p.is_file()}  # fmt: skip
    return sorted(n for n in names - with_tree if escape.is_utf8(n))


def matching(names: list[str], kind: str, background: str | None, model: str | None) -> list[str]:
    """The names among `names` of `kind` (binary: against `background` if given) matching --model."""
    out = [n for n in names if (folders.model_background(n) is not None) == (kind == "binary")]
    if background is not None:
        out = [n for n in out if folders.model_background(n) == background]
    return [n for n in out if model is None or model == n or model in n]


def check_query(q: folders.Query, dirs: dict[int | None, Path], background: str | None) -> None:
    """InputError naming `trees/<model>.root` when the model `q` asks for (kind, background,
    --model) exists only as JSON files in the fold directories `dirs`."""
    for fold, fold_dir in dirs.items():
        names = matching(json_only(fold_dir), q.kind, background, q.model)
        if names:
            missing = fold_dir / "trees" / f"{names[0]}.root"
            raise InputError(f"{escape.printable(missing)} is missing: {escape.printable(fold_dir)} has the model's "
                             f"JSON files ({names[0]}_performance.json) but not its ntuple. Fix: copy the trainer's "
                             "trees/ directory there (the ntuple the trainer writes after training).")  # fmt: skip


def discover(results: Path, prefix: str, channels: set[str] | None, signals: set[str] | None, kinds: set[str],
             folds: set[int] | None, model: str | None, pilot: bool) -> list[Orphan]:  # fmt: skip
    """Every model of the trainer's layout under `results` (after the campaign's filters) that has
    JSON files and no ntuple in at least one fold."""
    found: dict[tuple, list] = {}
    for channel in folders.channels_in(Path(results)):
        if (channels is not None and channel not in channels) or not escape.is_utf8(channel):
            continue
        for kind in (k for k in folders.KINDS if k in kinds):
            for d in rootnames.listing(Path(results) / channel / kind):
                if not (prefix and d.name.startswith(prefix)) or not escape.is_utf8(d.name) or not rootnames.is_dir(d):
                    continue
                signal = d.name[len(prefix):]
                if signals is not None and signal not in signals:
                    continue
                for fold, fold_dir in folders.fold_dirs(d, pilot).items():
                    if folds is not None and fold not in folds:
                        continue
                    for name in matching(json_only(fold_dir), kind, None, model):
                        key = (kind, channel, signal, name, folders.model_background(name), d)
                        found.setdefault(key, []).append(fold)
    return [Orphan(k, c, s, n, b, tuple(f), d) for (k, c, s, n, b, d), f in sorted(found.items(), key=lambda kv: str(kv[0]))]
