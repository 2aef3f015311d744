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
  siblings, which the next run on that directory removes (it holds the lock, so they are stale).

A directory is only ever replaced whole, so pnetviz refuses to publish over a non-empty
directory that is not a pnetviz output set, and over a set holding one of the run's inputs.
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
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from pnetviz.errors import InputError

MARKER = ".pnetviz-set.json"
STAGE_TAG = ".pnetviz-stage-"
OLD_TAG = ".pnetviz-old-"
LOCK_SUFFIX = ".pnetviz-lock"
LEGACY_MARKERS = ("summary_report.json", "plots.root")  # sets written before the marker existed
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RENAME_EXCHANGE = 2


class OutputError(InputError):
    """The output set could not be written or verified (disk full, size limit, path too long, ...)."""


def lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}{LOCK_SUFFIX}"


@contextlib.contextmanager
def writer_lock(target: Path, wait: bool) -> Iterator[None]:
    """Hold the advisory lock of `target` (exclusive); without `wait`, InputError naming the holder."""
    path = lock_path(target)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
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
    """Staging and old-set directories left next to `target` by runs that died."""
    prefix = f".{target.name}"
    return [p for p in target.parent.glob(f"{prefix}.pnetviz-*") if p.name.startswith((prefix + STAGE_TAG, prefix + OLD_TAG))]


def check_target(target: Path, inputs: Sequence[Path]) -> None:
    """InputError if publishing would replace something that is not a pnetviz set, or an input."""
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} exists and is not a directory. Fix: remove it or choose another --output.")
    if target.is_dir() and not is_output_set(target) and any(target.iterdir()):
        raise InputError(f"{target} is a non-empty directory that pnetviz did not write; pnetviz replaces an output "
                         "directory whole. Fix: choose a new or empty directory with --output.")  # fmt: skip
    resolved = target.resolve()
    for item in inputs:
        if item is not None and (resolved == Path(item).resolve() or resolved in Path(item).resolve().parents):
            raise InputError(f"{item}: this input lies inside the output directory {target}, which a run replaces "
                             "whole. Fix: choose another --output.")  # fmt: skip


def is_output_set(directory: Path) -> bool:
    return (directory / MARKER).is_file() or all((directory / m).exists() for m in LEGACY_MARKERS)


@contextlib.contextmanager
def transaction(targets: Sequence[Path], inputs: Sequence[Path] = (), wait: bool = False,
                meta: dict | None = None) -> Iterator[dict[Path, Path]]:  # fmt: skip
    """Lock every target, yield target -> empty staging directory; when the block succeeds,
    verify every staged set and publish them; on any error the targets keep what they had and
    the staging directories are removed. `meta` is recorded in each set's marker."""
    targets = list(dict.fromkeys(Path(t) for t in targets))
    for target in targets:
        check_target(target, inputs)
    with contextlib.ExitStack() as stack:
        for target in sorted(targets, key=lambda t: str(t.absolute())):
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise OutputError(f"{target.parent}: cannot create the output directory ({err.strerror}). "
                                  "Fix: choose another --output.") from None  # fmt: skip
            stack.enter_context(writer_lock(target, wait))
        for target in targets:
            for stale in siblings(target):
                shutil.rmtree(stale, ignore_errors=True)
        stages = {t: t.parent / f".{t.name}{STAGE_TAG}{os.getpid()}-{secrets.token_hex(3)}" for t in targets}
        try:
            for stage in stages.values():
                stage.mkdir()
            yield stages
            for target, stage in stages.items():
                seal(stage, meta or {})
            for target, stage in stages.items():
                swap_in(stage, target)
        finally:
            for stage in stages.values():
                shutil.rmtree(stage, ignore_errors=True)


def seal(stage: Path, meta: dict) -> None:
    """Verify every file of the staged set and write the marker listing them."""
    files = sorted(p.name for p in stage.iterdir() if p.is_file())
    for name in files:
        problem = verify_file(stage / name)
        if problem:
            raise OutputError(f"{name}: {problem}; nothing was published. Fix: check free disk space, quotas, the "
                              "file-size limit (ulimit -f) and the length of the output path.")  # fmt: skip
    marker = {"files": files, "pid": os.getpid(), "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **meta}
    (stage / MARKER).write_text(json.dumps(marker, indent=1) + "\n")
    if json.loads((stage / MARKER).read_text()) != marker:
        raise OutputError(f"{stage / MARKER}: written and read back differ")


def swap_in(stage: Path, target: Path) -> None:
    """Make `stage` the directory `target` atomically; the old set (if any) is removed after."""
    if not target.exists():
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


def verify_file(path: Path) -> str | None:
    """What is wrong with a written file (None: fine), from its content by extension."""
    size = path.stat().st_size
    if size == 0:
        return "empty file"
    suffix = path.suffix.lower()
    if suffix == ".png":
        return _verify_png(path)
    if suffix == ".pdf":
        with open(path, "rb") as f:
            head = f.read(5)
            f.seek(max(0, size - 1024))
            tail = f.read()
        return None if head == b"%PDF-" and b"%%EOF" in tail else "not a complete PDF (no header or %%EOF trailer)"
    if suffix == ".root":
        return _verify_root(path)
    if suffix == ".json":
        try:
            json.loads(path.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            return f"does not read back as JSON ({err})"
    if suffix == ".txt":
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return "does not read back as UTF-8 text"
    return None


def _verify_png(path: Path) -> str | None:
    data = path.read_bytes()
    if not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return "not a PNG image"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if width == 0 or height == 0:
        return "PNG image of size zero"
    if data[-8:-4] != b"IEND":
        return "truncated PNG image (no IEND chunk)"
    return None


def _verify_root(path: Path) -> str | None:
    """Reopen without recovery; the file must end where ROOT says, and every key (directories
    walked) must be listed with its record inside the file. Objects are not rebuilt: that costs
    ~0.6 s a file (the canvases), more than the rest of a small job, and a truncated or unclosed
    file is caught by the checks above."""
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    try:
        with quiet_root():
            tfile = ROOT.TFile.Open(str(path), "READ")
    except OSError:  # PyROOT raises where C++ returns nullptr
        tfile = None
    if not tfile or tfile.IsZombie():
        return "ROOT cannot open it (truncated or corrupt)"
    try:
        if tfile.TestBit(ROOT.TFile.kRecovered):
            return "ROOT had to recover it (not closed properly, probably truncated)"
        size = path.stat().st_size
        if tfile.GetEND() != size:
            return f"ends at byte {size}, ROOT expected {tfile.GetEND()} (truncated)"
        with quiet_root():
            bad = _unreadable_keys(tfile, size)
        return f"{len(bad)} objects do not read back ({', '.join(bad[:3])})" if bad else None
    finally:
        tfile.Close()


def _unreadable_keys(directory, size: int, prefix: str = "") -> list[str]:
    bad = []
    for key in directory.GetListOfKeys():
        name = f"{prefix}{key.GetName()}"
        if key.GetSeekKey() + key.GetNbytes() > size:
            bad.append(name)
        elif key.GetClassName() in ("TDirectoryFile", "TDirectory"):
            sub = key.ReadObj()
            bad += _unreadable_keys(sub, size, name + "/") if sub else [name]
    return bad
