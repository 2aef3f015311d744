"""All-or-nothing output sets: staged, verified, published by one atomic directory swap, one
writer at a time.

An output set is one directory (a fold's `fold-<k>/`, a `folds/` summary, a comparison).
Guarantee: at every instant the directory is absent, the complete set of the previous run, or
the complete set of this run; never a mix. How:

* one writer per directory: an advisory lock (`fcntl.flock` on the sibling file
  `.<name>.pnetviz-lock`, holding the writer's pid) for the whole run; a second run stops at
  once naming that pid, or waits with --wait;
* every set is written into a sibling staging directory `.<name>.pnetviz-stage-<pid>-<tag>`,
  every file is verified (ROOT files reopened without recovery and every key read, PNG and PDF
  structure, JSON and text re-read) and listed in the marker `.pnetviz-set.json`;
* publishing swaps the staging directory with the old set in one `renameat2(RENAME_EXCHANGE)`
  (Linux; where the filesystem lacks it, two renames, with a moment where the directory is
  absent), then removes the old set. A crash leaves the old or the new set plus stale
  siblings, which the next run on that directory removes (it holds the lock, so they are stale;
  a run that skips an up-to-date set calls `tidy`, which removes them when the lock is free).

A directory is only ever replaced whole, so pnetviz refuses to publish over a non-empty
directory that is not a pnetviz output set, a symbolic link, and a set holding one of the run's
inputs. Publishing touches nothing but its own staging directories, the targets and their
stale siblings: a staged set holding a symbolic link or a special file is refused, and the lock
file is never followed through a symbolic link.

Summaries (a `folds/` set) are published with `last`: the old summary is moved away before the
fold sets are swapped and the new one put in place after them, so that a crash at any instant
leaves either no summary or one that describes the fold sets on disk, never a mix.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io import readers
from pnetviz.output import rounds
from pnetviz.output.verify import PNG_SIGNATURE, VERIFY_JSON_BYTES, verify_file  # noqa: F401 - callers use atomic.*

MARKER = ".pnetviz-set.json"
STAGE_TAG = ".pnetviz-stage-"
OLD_TAG = ".pnetviz-old-"
LOCK_SUFFIX = ".pnetviz-lock"
LEGACY_MARKERS = ("summary_report.json", "plots.root")  # sets written before the marker existed
RENAME_EXCHANGE = 2


class OutputError(InputError):
    """The output set could not be written or verified (disk full, size limit, path too long, ...)."""


def lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}{LOCK_SUFFIX}"


def _open_lock(target: Path) -> int:
    path = lock_path(target)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise OutputError(f"{path}: the lock file is a symbolic link; pnetviz does not write through it. Fix: "
                              "remove it.") from None  # fmt: skip
        raise


@contextlib.contextmanager
def writer_lock(target: Path, wait: bool) -> Iterator[None]:
    """Hold the advisory lock of `target` (exclusive); without `wait`, InputError naming the holder."""
    fd = _open_lock(target)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            if not wait:
                raise InputError(f"{target}: another pnetviz run (pid {holder}) is writing this output directory. "
                                 "Fix: wait for it to finish, or pass --wait.") from None  # fmt: skip
            print(f"pnetviz: waiting for pid {holder}, which is writing {target}", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def siblings(target: Path) -> list[Path]:
    """Staging and old-set directories left next to `target` by runs that died (names compared
    as they are: no glob pattern is made of the target's name)."""
    prefixes = (f".{target.name}{STAGE_TAG}", f".{target.name}{OLD_TAG}")
    try:
        with os.scandir(target.parent) as entries:
            return sorted(Path(e.path) for e in entries if e.name.startswith(prefixes))
    except (FileNotFoundError, NotADirectoryError):
        return []


def remove_litter(target: Path) -> int:
    """Remove what `siblings` finds (the caller holds the target's lock, so none is in use);
    a symbolic link is unlinked, never followed. Returns how many were removed."""
    removed = 0
    for stale in siblings(target):
        try:
            if stale.is_symlink() or not stale.is_dir():
                stale.unlink()
            else:
                shutil.rmtree(stale)
            removed += 1
        except OSError:
            pass  # not ours to fight over (permissions): left for its owner
    return removed


def tidy(target: Path) -> int:
    """Remove the staging leftovers of killed runs next to `target` when no run is writing it
    (its lock is free); for runs that skip an up-to-date set. Returns how many were removed."""
    target = Path(target)
    if not siblings(target):
        return 0
    try:
        fd = _open_lock(target)
    except OSError:
        return 0
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # a run is writing it: its stage is live
        return remove_litter(target)
    finally:
        os.close(fd)


def check_target(target: Path, inputs: Sequence[Path]) -> None:
    """InputError if publishing would replace something that is not a pnetviz set, or an input
    (`inputs` a Resolved where the same inputs are checked against many targets)."""
    if target.is_symlink():
        raise InputError(f"{target} is a symbolic link; pnetviz replaces an output directory whole and does not "
                         "follow links. Fix: give the directory it points to, or another --output.")  # fmt: skip
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} exists and is not a directory. Fix: remove it or choose another --output.")
    if target.is_dir() and not is_output_set(target) and any(target.iterdir()):
        raise InputError(f"{target} is a non-empty directory that pnetviz did not write; pnetviz replaces an output "
                         "directory whole. Fix: choose a new or empty directory with --output.")  # fmt: skip
    inside = str(target.resolve()).rstrip("/") + "/"  # the input itself or anything under it
    for item, real in (inputs if isinstance(inputs, Resolved) else Resolved(inputs)).items():
        if (real + "/").startswith(inside):
            raise InputError(f"{item}: this input lies inside the output directory {target}, which a run replaces "
                             "whole. Fix: choose another --output.")  # fmt: skip


class Resolved(dict):
    """input -> its resolved path as text, resolved once for the many checks of one transaction."""

    def __init__(self, inputs: Sequence[Path]) -> None:
        super().__init__((item, str(Path(item).resolve())) for item in inputs if item is not None)


def is_output_set(directory: Path) -> bool:
    return (directory / MARKER).is_file() or all((directory / m).exists() for m in LEGACY_MARKERS)


class Transaction(dict):
    """target -> its staging directory, for the block of `transaction`. `add` locks and stages
    one more target during the block (a summary, once the folds are done); `withdraw` makes
    the publication remove a target instead of replacing it."""

    def __init__(self, stack: contextlib.ExitStack, inputs: Sequence[Path], wait: bool, meta: dict | None = None) -> None:
        super().__init__()
        self.stack, self.inputs, self.wait, self.meta = stack, Resolved(inputs), wait, meta or {}
        self.last: list[Path] = []  # published after the others, their old sets moved away before
        self.marks: dict[Path, dict] = {}  # target -> its own marker fields on top of `meta` (its images)
        self.withdrawn: set[Path] = set()

    def lock(self, targets: Sequence[Path], wait: bool | None = None) -> None:
        """Lock `targets` (in path order: no two runs wait for each other), remove their litter."""
        for target in sorted(targets, key=lambda t: str(t.absolute())):
            check_target(target, self.inputs)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise OutputError(f"{target.parent}: cannot create the output directory ({err.strerror}). "
                                  "Fix: choose another --output.") from None  # fmt: skip
            self.stack.enter_context(writer_lock(target, self.wait if wait is None else wait))
            check_target(target, self.inputs)  # again: it may have changed while we waited
            rounds.check_same(target, self.meta)  # a set of another training round is never replaced
            remove_litter(target)

    def stage(self, target: Path) -> Path:
        stage = target.parent / f".{target.name}{STAGE_TAG}{os.getpid()}-{secrets.token_hex(3)}"
        stage.mkdir()
        self[target] = stage
        return stage

    def add(self, target: Path, last: bool = True, wait: bool = True) -> Path:
        """Lock one more target now (waiting for another writer by default: summaries are held
        only briefly) and return its empty staging directory."""
        target = Path(target)
        if target in self:
            return self[target]
        self.lock([target], wait)
        if last:
            self.last.append(target)
        return self.stage(target)

    def withdraw(self, target: Path) -> None:
        """Publish `target` as absent: an existing set there is removed with this publication."""
        if target not in self:
            raise KeyError(target)
        self.withdrawn.add(target)
        if target not in self.last:
            self.last.append(target)

    def publish(self, meta: dict) -> None:
        """Verify every staged set, then: move the `last` targets' old sets away, swap the others
        in, put the new `last` sets in place; finally remove the old sets."""
        for target, stage in self.items():
            if target not in self.withdrawn:
                seal(stage, {**meta, **self.marks.get(target, {})})
        moved: dict[Path, Path] = {}
        swapped = False
        try:
            for target in self.last:
                if (old := move_away(target)) is not None:
                    moved[target] = old
            for target, stage in self.items():
                if target not in self.last:
                    swap_in(stage, target)
                    swapped = True
        except BaseException:
            if not swapped:  # nothing new is visible: the summaries go back
                for target, old in moved.items():
                    with contextlib.suppress(OSError):
                        os.rename(old, target)
            raise
        for target in self.last:
            if target not in self.withdrawn:
                swap_in(self[target], target)
        for old in moved.values():
            shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def transaction(targets: Sequence[Path], inputs: Sequence[Path] = (), wait: bool = False,
                meta: dict | None = None, last: Sequence[Path] = ()) -> Iterator[Transaction]:  # fmt: skip
    """Lock every target, yield target -> empty staging directory (a Transaction); when the block
    succeeds, verify every staged set and publish them (`last`: summaries, see the module
    docstring); on any error the targets keep what they had and the staging directories are
    removed. `meta` is recorded in each set's marker."""
    targets = list(dict.fromkeys(Path(t) for t in [*targets, *last]))
    inputs = Resolved(inputs)
    for target in targets:
        check_target(target, inputs)
        rounds.check_same(target, meta)
    with contextlib.ExitStack() as stack:
        tx = Transaction(stack, inputs, wait, meta)
        tx.lock(targets)
        tx.last = [Path(t) for t in dict.fromkeys(last)]
        try:
            for target in targets:
                tx.stage(target)
            yield tx
            tx.publish(meta or {})
        finally:
            for stage in tx.values():
                shutil.rmtree(stage, ignore_errors=True)


def seal(stage: Path, meta: dict) -> None:
    """Verify every file of the staged set and write the marker listing them; OutputError if the
    set holds anything but regular files and directories (a link could lead out of it)."""
    check_contents(stage)
    known = {rounds.REPORT: rounds.stamp_report(stage, meta)}  # read back as JSON there: compared here
    files = sorted(p.name for p in stage.iterdir() if p.is_file())
    for name in files:
        problem = verify_file(stage / name, known.get(name))
        if problem:
            raise OutputError(f"{name}: {problem}; nothing was published. Fix: check free disk space, quotas, the "
                              "file-size limit (ulimit -f) and the length of the output path.")  # fmt: skip
    nested = nested_files(stage)
    for name in nested:
        problem = verify_file(stage / name)
        if problem:
            raise OutputError(f"{name}: {problem}; nothing was published. Fix: check free disk space, quotas, the "
                              "file-size limit (ulimit -f) and the length of the output path.")  # fmt: skip
    marker = {"files": files, "pid": os.getpid(), "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **meta}
    if nested:
        marker["nested_files"] = nested
    (stage / MARKER).write_text(json.dumps(marker, indent=1) + "\n")
    try:
        same = readers.read_json(stage / MARKER, "output set marker", finite=False) == marker
    except InputError as err:
        raise OutputError(f"{err} (written just now)") from None
    if not same:
        raise OutputError(f"{stage / MARKER}: written and read back differ")


NESTED = ("limits",)  # the set's subdirectories whose files are verified and listed (`nested_files`): the datacards


def nested_files(stage: Path) -> list[str]:
    """The files of the set's NESTED subdirectories, as 'limits/<name>' (sorted)."""
    return sorted(f"{sub}/{p.name}" for sub in NESTED if (stage / sub).is_dir() for p in (stage / sub).iterdir() if p.is_file())


def check_contents(stage: Path) -> None:
    """OutputError for a symbolic link or special file anywhere in the staged set."""
    for root, dirs, files in os.walk(stage):
        for name in dirs + files:
            mode = os.lstat(os.path.join(root, name)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                rel = os.path.relpath(os.path.join(root, name), stage)
                raise OutputError(f"{rel}: not a regular file (a link or special file) in the staged set; nothing "
                                  "was published.")  # fmt: skip


def _check_stage(stage: Path, target: Path) -> None:
    """Publishing moves only a staging directory made for `target`, beside it."""
    ok = (stage.parent == target.parent and stage.name.startswith(f".{target.name}{STAGE_TAG}")
          and not stage.is_symlink() and stage.is_dir())  # fmt: skip
    if not ok:
        raise OutputError(f"{stage}: not a staging directory of {target}; nothing was published.")


def move_away(target: Path) -> Path | None:
    """Rename the set at `target` to an old-set sibling (None if there is none)."""
    if not os.path.lexists(target):
        return None
    old = target.parent / f".{target.name}{OLD_TAG}{os.getpid()}-{secrets.token_hex(3)}"
    os.rename(target, old)
    return old


def swap_in(stage: Path, target: Path) -> None:
    """Make `stage` the directory `target` atomically; the old set (if any) is removed after."""
    _check_stage(stage, target)
    if not os.path.lexists(target):
        os.rename(stage, target)
        return
    old = target.parent / f".{target.name}{OLD_TAG}{os.getpid()}-{secrets.token_hex(3)}"
    if _exchange(stage, target):
        os.rename(stage, old)  # stage now holds the previous set
    else:
        os.rename(target, old)
        os.rename(stage, target)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """renameat2(a, b, RENAME_EXCHANGE); False where the system or filesystem does not offer it."""
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    at_fdcwd = -100
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))
