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

import contextlib
import difflib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from pnetviz import escape
from pnetviz.errors import InputError
from pnetviz.io import readers

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


# --- names that become path components ---


def name_problem(name: object) -> str | None:
    """Why `name` cannot be one component of an output path (None: it can): empty, `.`, `..`,
    containing `/` or NUL, or starting with `-` (it would read as an option in a job's argv)."""
    if not isinstance(name, str) or not name:
        return "it is empty" if isinstance(name, str) or name is None else "it is not a string"
    if "/" in name:
        return "it contains '/'"
    if "\0" in name:
        return "it contains a NUL character"
    if name in (".", ".."):
        return f"'{name}' is not a name"
    if name.startswith("-"):
        return "it starts with '-', which reads as an option"
    if not escape.is_utf8(name):
        return "it is not valid UTF-8: the bytes shown as \\xNN are not text"
    return None


def check_name(name: object, field: str, source: str, fix: str) -> str:
    """`name` if it can be one path component, else InputError naming the field, where the name
    comes from (`source`: a file, a directory or the command line) and the fix."""
    problem = name_problem(name)
    if problem:
        shown = repr(name) if escape.is_utf8(name) else f"'{escape.printable(name)}'"
        raise InputError(f"{escape.printable(source)}: {field} {shown} is not a single path component ({problem}); "
                         f"pnetviz builds output paths from it. Fix: {fix}")  # fmt: skip
    return name  # type: ignore[return-value]


def listing(directory: Path) -> list[Path]:
    """The entries of `directory` ([] if it does not exist or is not a directory); InputError if
    it cannot be read (permissions), so that a chmod-000 directory is not reported as empty."""
    try:
        with os.scandir(directory) as entries:
            return sorted(Path(e.path) for e in entries)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except PermissionError:
        raise InputError(f"{directory}: permission denied (cannot list this directory). Fix: check its permissions "
                         "(chmod u+rx) or run as its owner.") from None  # fmt: skip


def is_dir(path: Path) -> bool:
    """Path.is_dir, but a permission error is an InputError naming the path (never "absent")."""
    try:
        return Path(path).is_dir()
    except PermissionError:
        raise InputError(f"{path}: permission denied (cannot look inside its directory). Fix: check the permissions "
                         "of the directories above it (chmod u+x).") from None  # fmt: skip


def check_readable(path: Path, what: str) -> None:
    """InputError if the file `path` exists but is not a regular file (a FIFO would block ROOT's
    open forever) or cannot be opened for reading (permissions)."""
    readers.check_regular(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except PermissionError:
        raise InputError(f"{path}: permission denied (cannot read the {what}). Fix: check its permissions "
                         "(chmod u+r) or run as its owner.") from None  # fmt: skip
    except OSError:
        return  # absent or otherwise unreadable: the reader names the problem
    os.close(fd)


# --- paths handed to ROOT ---

# ROOT gives meaning to characters in a file name: `#` (anchor: a member of an archive), `?` (URL
# options), `$` and `~` (expanded), `:` (protocol), `|`, spaces, `(` `)` (multi-page PDF), and
# non-ASCII names go through its URL parsing. A path made only of ASCII letters, digits, `_`, `.`,
# `/` and `-` is taken literally.
ROOT_LITERAL = re.compile(r"[A-Za-z0-9_./-]+")
PROC_FD = Path("/proc/self/fd")


def root_literal(text: str) -> bool:
    """True if ROOT takes the path `text` as it is."""
    return bool(ROOT_LITERAL.fullmatch(text))


@contextlib.contextmanager
def root_path(path: Path, directory: bool = False) -> Iterator[str]:
    """A name of the existing file (or `directory`) `path` that ROOT takes literally, valid
    inside the block: the path itself when it has no character ROOT interprets, else
    `/proc/self/fd/<n>` of a descriptor opened here (Linux), else a symbolic link in a private
    temporary directory. ROOT then reads or writes exactly `path` (for a directory: files
    inside it), whatever its name. OSError (e.g. PermissionError) if it cannot be opened."""
    text = os.fspath(path)
    if root_literal(text):
        yield text
        return
    flags = os.O_RDONLY | os.O_CLOEXEC | (os.O_DIRECTORY if directory else 0)
    fd = os.open(text, flags)
    try:
        alias = PROC_FD / str(fd)
        if _same_file(alias, fd):
            yield str(alias)
            return
        with _private_link(text) as link:
            yield link
    finally:
        os.close(fd)


def _same_file(alias: Path, fd: int) -> bool:
    try:
        return os.path.samestat(os.stat(alias), os.fstat(fd))
    except OSError:
        return False


@contextlib.contextmanager
def _private_link(target: str) -> Iterator[str]:
    """A symbolic link to `target` in a new private (0700) temporary directory whose path ROOT
    takes literally; removed after the block."""
    for base in (None, "/tmp", "/var/tmp"):
        with contextlib.suppress(OSError):
            tmp = tempfile.mkdtemp(prefix="pnetviz-", dir=base)
            if root_literal(tmp):
                break
            os.rmdir(tmp)
    else:
        raise OSError(f"no temporary directory with a plain name to reach {target!r} from ROOT")
    link = os.path.join(tmp, "f")
    try:
        os.symlink(os.path.abspath(target), link)
        yield link
    finally:
        with contextlib.suppress(OSError):
            os.unlink(link)
        with contextlib.suppress(OSError):
            os.rmdir(tmp)


# --- key names inside a ROOT file ---

# TFile::Get("dir/name;cycle"), TDirectory::GetDirectory, uproot's file["dir/name"] and JSROOT's
# readObject give meaning to characters of a key path: `/` separates directories, what follows
# the last `;` is a cycle number, `:` in a directory path names a file ("file.root:/dir"; uproot
# reads it as a TTree's branch), and the components `.` and `..` are a directory and its mother.
# A line break or another non-printable character cannot be typed into a path. `root_key`
# writes each of these characters of a name as `%XX`, the percent-encoding of its UTF-8 bytes
# (as in a URL: `t;tX` -> `t%3BtX`, `non\nprompt` -> `non%0Aprompt`), and `%` itself as `%25`.
# The mapping is one-to-one, so two different names never share a key (nothing to detect or
# overwrite), and `real_name` (urllib.parse.unquote) gives the name back. A name without these
# characters (letters, digits, `_ - . +`, spaces, ...) is its own key.
KEY_SPECIAL = frozenset(";:/%")


def root_key(name: str) -> str:
    """The key name under which an object named `name` is written into a ROOT file (one path
    component): readable with TFile::Get, uproot and JSROOT by path; the title keeps `name`."""
    if name in (".", ".."):
        return name.replace(".", "%2E")
    if name.isprintable() and KEY_SPECIAL.isdisjoint(name):  # the common case, at C speed
        return name
    return "".join(ch if ch not in KEY_SPECIAL and ch.isprintable() else
                   "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass")) for ch in name)  # fmt: skip


def root_key_path(path: str) -> str:
    """`dir/sub/name` (components separated by `/`) with each component as `root_key` makes it."""
    return "/".join(root_key(part) for part in path.split("/"))


def real_name(key: str) -> str:
    """The name a key of `root_key` stands for (a key of another writer: itself, mostly)."""
    return unquote(key, errors="surrogatepass") if "%" in key else key


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
        from pnetviz.io import orphans  # noqa: PLC0415 - it builds on this module

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
        from pnetviz.io import orphans  # noqa: PLC0415 - it builds on this module

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
        from pnetviz.io import orphans  # noqa: PLC0415

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
