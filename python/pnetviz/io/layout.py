"""Where a model's ntuples are: discovery in `--results-dir`, shared by every script.

The trainer's layout (`--results-dir` is its `results/` or `results_bjets/` directory):

    <results>/<channel>/{binary,multiclass}/<prefix><signal>/{fold-<k>,pilot}/trees/<model>.root
    <results>/<channel>/{binary,multiclass}/<prefix><signal>/{fold-<k>,pilot}/<model>_performance.json

Binary model names end in `-binary-<background>`; several models (hyperparameter variants) may
share one `trees/`, and `--model` (full name or a part only one has) chooses: never silently.
pnetviz's first layout is still read:

    <results>/<channel>/binary/<signal>_vs_<background>/fold-<k>/predictions.root
    <results>/<channel>/multiclass/<signal>/fold-<k>/predictions.root

Every "not found" names what exists and the nearest match.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pnetviz import escape
from pnetviz.errors import InputError
from pnetviz.io import orphans
from pnetviz.io.folders import (BINARY_TAG, DEFAULT_PREFIX, KINDS, PILOT, PREDICTIONS_FILE, SIGNAL_MASSES,  # noqa: F401 - callers use layout.*
                                ModelFile, Query, available_folds, binary_dir, channels_in, fold_dir, fold_dirs, gaps,
                                hyper_tag, legacy_dir, model_background, multiclass_dir, nearest, parse_fold_list,
                                parse_folds, signal_masses, signals_in, split_present, the_only, trainer_signal_dir,
                                tree_models)
from pnetviz.io.rootnames import (KEY_SPECIAL, PROC_FD, ROOT_LITERAL, check_name, check_readable, is_dir,  # noqa: F401 - callers use layout.*
                                  listing, name_problem, real_name, root_key, root_key_path, root_literal, root_path)


def explain_missing(q: Query) -> InputError:
    """Why nothing was found for `q`: the first level (directory, channel, signal) that does not
    exist, with what does and the nearest match."""
    results = Path(q.results)
    if not is_dir(results):
        return InputError(f"{results}: no such directory. Fix: point --results-dir at the trainer's results/ "
                          "(or results_bjets/) directory.")  # fmt: skip
    channels = channels_in(results)
    if q.channel not in channels:
        return InputError(f"{results}: no channel '{q.channel}'; channels found: {', '.join(channels) or 'none'}"
                          f"{nearest(q.channel, channels)}. Fix: --channel (or --results-dir).")  # fmt: skip
    kind_dir = results / q.channel / q.kind
    signals = signals_in(kind_dir, q.prefix)
    if q.signal not in signals:
        return InputError(f"{kind_dir}: no signal point '{q.signal}'; signals found: {', '.join(signals) or 'none'}"
                          f"{nearest(q.signal, signals)}. Fix: --signal (directories are named "
                          f"{q.prefix}<signal>: --signal-prefix sets the prefix).")  # fmt: skip
    backgrounds = sorted(d.name.split("_vs_", 1)[1] for d in listing(kind_dir)
                         if d.name.startswith(f"{q.signal}_vs_") and is_dir(d))  # fmt: skip
    if q.background is None:
        return InputError(f"{kind_dir}: give --background; backgrounds found for {q.signal}: {', '.join(backgrounds)}.")
    return InputError(f"{kind_dir}: no binary model of {q.signal} vs '{q.background}'; backgrounds found: "
                      f"{', '.join(backgrounds) or 'none'}{nearest(q.background, backgrounds)}. Fix: --background.")  # fmt: skip


def resolve(q: Query, fold_text: str | None) -> tuple[list[ModelFile], list[int]]:
    """The ntuples of the model `q` for the folds asked (`0`, `0,2`, `all`; pilot with q.pilot),
    and the folds asked for but absent; InputError if none is there."""
    check_query(q)
    if is_dir(trainer_signal_dir(q)):
        return trainer_files(q, fold_text)
    legacy = legacy_dir(q)
    if legacy is not None and is_dir(legacy) and not q.pilot:
        return legacy_files(q, legacy, fold_text)
    raise explain_missing(q)


def check_query(q: Query) -> None:
    """InputError unless the channel, signal point and background of `q` (from the command line
    or the only one found) are single path components."""
    check_name(q.channel, "channel", "--channel", "give a channel name (a directory of --results-dir).")
    check_name(q.signal, "signal point", "--signal", "give a signal point name, e.g. MHc130_MA90.")
    if q.background is not None:
        check_name(q.background, "background", "--background", "give a background name, e.g. nonprompt.")


def legacy_files(q: Query, model_dir: Path, fold_text: str | None) -> tuple[list[ModelFile], list[int]]:
    text = fold_text or "0"
    folds = parse_folds(text, model_dir)
    if text.strip().lower() == "all":
        present, missing = folds, gaps(folds)
    else:
        present, missing = split_present(folds, model_dir)
    files = [ModelFile(q.kind, q.channel, q.signal, f, fold_dir(model_dir, f) / PREDICTIONS_FILE,
                       background=q.background) for f in present]  # fmt: skip
    return files, missing


def _candidates(q: Query, names: list[str], background: str | None) -> list[str]:
    if q.kind == "binary":
        names = [n for n in names if model_background(n) is not None and model_background(n) == background]
    else:
        names = [n for n in names if model_background(n) is None]
    if q.model:
        exact = [n for n in names if n == q.model]
        names = exact or [n for n in names if q.model in n]
    return names


def binary_background(q: Query, dirs: dict[int | None, Path]) -> str:
    """--background, checked against the binary models present; the only one if not given."""
    found = sorted({b for d in dirs.values() for n in tree_models(d) if (b := model_background(n))})
    where = trainer_signal_dir(q)
    if q.background not in found and (q.background is not None or not found):
        orphans.check_query(q, dirs, q.background)  # the model's JSONs without trees/<model>.root: say so
    if q.background is None:
        if len(found) == 1:
            return found[0]
        raise InputError(f"{where}: give --background; binary models found for: {', '.join(found) or 'none'}.")
    if q.background not in found:
        raise InputError(f"{where}: no binary model for background '{q.background}'; backgrounds found: "
                         f"{', '.join(found) or 'none'}{nearest(q.background, found)}. Fix: --background.")  # fmt: skip
    return q.background


def trainer_files(q: Query, fold_text: str | None) -> tuple[list[ModelFile], list[int]]:
    sdir = trainer_signal_dir(q)
    dirs = fold_dirs(sdir, q.pilot)
    if not dirs:
        raise InputError(f"{sdir}: no {'pilot/' if q.pilot else 'fold-<k>/'} directory. "
                         + ("Fix: drop --pilot." if q.pilot else "Fix: check --results-dir (or add --pilot)."))  # fmt: skip
    background = binary_background(q, dirs) if q.kind == "binary" else None
    found = {f: c for f, d in dirs.items() if (c := _candidates(q, tree_models(d), background))}
    what = f"binary model vs {background}" if background else "multi-class model"
    if not found:
        orphans.check_query(q, dirs, background)  # the model's JSONs without trees/<model>.root: say so
        models = sorted({n for d in dirs.values() for n in tree_models(d)})
        raise InputError(f"{sdir}: no {what}" + (f" matching --model {q.model!r}" if q.model else "")
                         + f"; models found: {', '.join(models) or 'none'}. Fix: --model or --background.")  # fmt: skip
    if q.pilot:
        wanted, missing = [None], []
    elif (fold_text or "0").strip().lower() == "all":
        wanted = sorted(found)
        missing = gaps(wanted)
    else:
        wanted = parse_fold_list(fold_text or "0")
        missing = [f for f in wanted if f not in found]
    present = [f for f in wanted if f in found]
    if not present:
        orphans.check_query(q, {f: dirs[f] for f in wanted if f in dirs}, background)
        have = ", ".join(f"fold-{f}" for f in found)
        raise InputError(f"{sdir}: no {what} for fold {', '.join(map(str, wanted))}; folds with one: {have}. "
                         "Fix: --fold.")  # fmt: skip
    if background is not None:
        check_name(background, "background", f"{sdir} (a model name)", "rename the model's files.")
    files = []
    for f in present:
        name = choose(found[f], dirs[f] / "trees", q.model)
        check_name(name, "model", f"{dirs[f] / 'trees'} (an ntuple's name)", "rename the ntuple and its JSON files.")
        files.append(ModelFile(q.kind, q.channel, q.signal, f, dirs[f] / "trees" / f"{name}.root", name, background))
    return files, missing


def choose(names: list[str], where: Path, pattern: str | None) -> str:
    """The one model among `names`; several: InputError listing them (never pick silently)."""
    if len(names) == 1:
        return names[0]
    listed = "; ".join(names)
    hint = f"--model {pattern!r} matches {len(names)}" if pattern else f"{len(names)} models"
    raise InputError(f"{where}: {hint}: {listed}. Fix: choose one with --model (its full name or a part only it has).")


@dataclass(frozen=True)
class ModelGroup:
    """Every fold of one model found in a results directory (a campaign job's input)."""

    kind: str  # binary or multiclass
    channel: str
    signal: str
    model: str | None  # None in pnetviz's first layout
    background: str | None  # binary only
    folds: tuple[int | None, ...]  # (None,) for a pilot run
    files: tuple[Path, ...]  # the ntuple of each fold

    def first(self) -> ModelFile:
        return ModelFile(self.kind, self.channel, self.signal, self.folds[0], self.files[0], self.model, self.background)


def _matches(name: str | None, pattern: str | None) -> bool:
    return pattern is None or (name is not None and (name == pattern or pattern in name))


def discover(results: Path, prefix: str = DEFAULT_PREFIX, channels: set[str] | None = None,
             signals: set[str] | None = None, kinds: set[str] | None = None, folds: set[int] | None = None,
             model: str | None = None, pilot: bool = False, skipped: dict[Path, str] | None = None) -> list[ModelGroup]:  # fmt: skip
    """Every (channel, signal point, kind, model) with its folds in `results`, both layouts, after
    the filters (None: all; `model`: full name or a part of it). With `skipped`, a directory or
    ntuple whose name is not valid UTF-8 is left out and recorded there (path -> one line: why and
    the fix) instead of stopping discovery with an InputError."""
    results = Path(results)
    if not is_dir(results):
        raise explain_missing(Query(results, "", "", "binary"))
    found: dict[tuple, dict[int | None, Path]] = {}
    for channel in channels_in(results):
        if channels is not None and channel not in channels:
            continue
        for kind in KINDS:
            kind_dir = results / channel / kind
            if (kinds is not None and kind not in kinds) or not is_dir(kind_dir):
                continue
            for d in (p for p in listing(kind_dir) if is_dir(p)):
                for key, fold, path in _models_in(d, kind, prefix, pilot):
                    if (signals is None or key[0] in signals) and (folds is None or fold in folds) and _matches(key[1], model):
                        bad = not_utf8(path, results)
                        if bad is not None and skipped is not None:
                            skipped.setdefault(bad, not_utf8_message(bad))
                            continue
                        check_found(channel, key, results / channel, d)
                        found.setdefault((kind, channel, *key), {})[fold] = path
    groups = []
    for (kind, channel, signal, name, background), per_fold in sorted(found.items(), key=lambda kv: str(kv[0])):
        order = sorted(per_fold, key=lambda f: -1 if f is None else f)
        groups.append(ModelGroup(kind, channel, signal, name, background, tuple(order), tuple(per_fold[f] for f in order)))
    return groups


def not_utf8(path: Path, top: Path) -> Path | None:
    """The first directory or file from `top` down to `path` whose name is not valid UTF-8, or None."""
    parts = Path(path).relative_to(top).parts
    bad = next((i for i, part in enumerate(parts) if not escape.is_utf8(part)), None)
    return None if bad is None else Path(top).joinpath(*parts[: bad + 1])


def not_utf8_message(path: Path) -> str:
    """Why a directory or file is left out of a campaign when its name is not UTF-8, and the fix
    (one line, to follow its path)."""
    return (f"left out: the name '{escape.printable(Path(path).name)}' is not valid UTF-8 (the bytes shown as \\xNN "
            "are not text; pnetviz builds output paths, job names and plot labels from it). Fix: rename it to a UTF-8 "
            "name, or leave it out (--channels, --signals, --model).")


def check_found(channel: str, key: tuple, channel_dir: Path, signal_dir: Path) -> None:
    """InputError unless the channel, signal point, model and background names found in a results
    directory can be path components; the message names the directory they come from."""
    fix = "rename it, or leave it out (--channels, --signals, --model)."
    check_name(channel, "channel", f"{channel_dir} (directory name)", fix)
    signal, model, background = key
    check_name(signal, "signal point", f"{signal_dir} (directory name)", fix)
    if model is not None:
        check_name(model, "model", f"{signal_dir} (an ntuple's name)", fix)
    if background is not None:
        check_name(background, "background", f"{signal_dir} ({'model name' if model else 'directory name'})", fix)


def _models_in(d: Path, kind: str, prefix: str, pilot: bool):
    """((signal, model, background), fold, ntuple) of one signal directory, in either layout."""
    if prefix and d.name.startswith(prefix):
        signal = d.name[len(prefix):]
        for fold, fdir in fold_dirs(d, pilot).items():
            for name in tree_models(fdir):
                background = model_background(name)
                if (kind == "binary") == (background is not None):
                    yield (signal, name, background), fold, fdir / "trees" / f"{name}.root"
        return
    if pilot:
        return
    signal, background = (d.name.split("_vs_", 1) + [None])[:2] if kind == "binary" else (d.name, None)
    if kind == "binary" and background is None:
        return
    for fold in available_folds(d):
        yield (signal, None, background), fold, fold_dir(d, fold) / PREDICTIONS_FILE


