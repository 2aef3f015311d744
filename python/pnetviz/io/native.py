"""The ntuple reader (`macros/column_reader.h`) as a shared library built once per user.

Why: in a fresh process cling compiled the reader at its first call, at -O3, and the header's
declaration (TTree.h, TFile.h, std::thread, ...) was part of every start-up; measured at 1e7
entries and 9 columns on the 2-core VM (benchmarks/README.md, issue 36) that was most of the gap
to uproot in a fresh process, while the read itself was as fast. Here `macros/column_reader.cxx`
(the read, and `describe`: branch types and basket tables in one call) is compiled by the system's C++ compiler under ROOT's own flags, once, into
`<cache>/reader-<key>.so`, and called through ctypes: no cling for the read at all. The same
library counts the events and sums |w| per class for the reader's validation (`class_sums`).

Cache: $PNETVIZ_CACHE, else $XDG_CACHE_HOME/pnetviz, else ~/.cache/pnetviz; a directory owned by
the user and writable by nobody else (a library loaded from it runs as the user). The key is a
hash of the two sources, ROOT's version, include and library directories and the compiler, so a
new pnetviz, ROOT or compiler builds anew. A build goes to a temporary file renamed into place,
under a lock (concurrent processes wait for one build). Whatever fails (no compiler, a read-only
or foreign cache directory, a compile or load error) gives None, and the reader is compiled by
cling as before; a failed build is recorded next to the library (`.failed`, with the
compiler's messages) and not retried for that key.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from pnetviz.rootenv import MACRO_DIR, compiled, release_module_pages, root

SOURCES = ("column_reader.h", "column_reader.cxx")
BUILD_SECONDS = 300  # a compile that takes longer is given up (then cling)
ERROR_BYTES = 1024
Reader = Callable[[str, str, Sequence[str], np.ndarray, np.ndarray, int, int, str, bool], str]


def cache_dir() -> Path:
    """Where the built library is kept (see the module's docstring)."""
    if os.environ.get("PNETVIZ_CACHE"):
        return Path(os.environ["PNETVIZ_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pnetviz"


def _private_dir(path: Path) -> bool:
    """Create `path` (mode 0700) if needed; whether it is a directory of this user that nobody
    else may write and that this process can write."""
    with contextlib.suppress(OSError):
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022
            and os.access(path, os.W_OK | os.X_OK))  # fmt: skip


def _build_command(source: Path, target: Path) -> list[str]:
    """The compiler's command line: ROOT's optimisation and C++ standard, its headers and
    libraries (the run path set, so the library finds the ROOT it was built against)."""
    ROOT = root()
    standard = re.search(r"-std=\S+", str(ROOT.gSystem.GetMakeSharedLib()))
    include, lib = str(ROOT.gROOT.GetIncludeDir()), str(ROOT.gROOT.GetLibDir())
    compiler = shutil.which(os.environ.get("CXX") or "c++") or "c++"
    return [compiler, *str(ROOT.gSystem.GetFlagsOpt()).split(), "-fPIC", "-shared", "-pthread",
            standard.group(0) if standard else "-std=c++17", f"-I{include}", f"-I{MACRO_DIR}", str(source),
            f"-L{lib}", "-lCore", "-lRIO", "-lTree", f"-Wl,-rpath,{lib}", "-o", str(target)]  # fmt: skip


def _key(command: list[str]) -> str:
    """Hash of the sources, ROOT's version, the compiler command (paths of the package and the
    cache left out) and the compiler itself (its size and time)."""
    ROOT = root()
    digest = hashlib.sha256()
    for name in SOURCES:
        digest.update((MACRO_DIR / name).read_bytes())
    digest.update(str(ROOT.gROOT.GetVersion()).encode() + str(ROOT.gROOT.GetGitCommit()).encode())
    digest.update(repr(command).encode())
    with contextlib.suppress(OSError):
        info = os.stat(command[0])
        digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:20]


def source_key(sources: Sequence[Path], command: list[str], directory: Path, extra: str = "") -> str:
    """The cache key of a library that `command` builds from `sources` into `directory`: each
    source's name and bytes, ROOT's version and commit, the command with the package's and the
    cache's paths as placeholders, the compiler itself (its size and time), then `extra` (e.g. the
    CPU's flags); 20 hex digits. Used by the drawing kernels (draw.native) and the numeric
    kernels (io.kernels)."""
    ROOT = root()
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(str(ROOT.gROOT.GetVersion()).encode() + str(ROOT.gROOT.GetGitCommit()).encode())
    digest.update(repr([arg.replace(str(MACRO_DIR), "<macros>").replace(str(directory), "<cache>") for arg in command]).encode())
    with contextlib.suppress(OSError):
        info = os.stat(command[0])
        digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
    digest.update(extra.encode())
    return digest.hexdigest()[:20]


def library(directory: Path | None = None) -> Path | None:
    """The built reader library (building it first if needed), None if it cannot be had."""
    directory = cache_dir() if directory is None else directory
    if not _private_dir(directory):
        return None
    probe = _build_command(MACRO_DIR / SOURCES[1], directory / "reader.so")
    # the key holds what is compiled, not where pnetviz is installed (each test's unpacked wheel) or cached
    key = _key([arg.replace(str(MACRO_DIR), "<macros>").replace(str(directory), "<cache>") for arg in probe])
    return built(directory, "reader", key, [lambda target: _build_command(MACRO_DIR / SOURCES[1], target)])


def built(directory: Path, stem: str, key: str, commands: Sequence[Callable[[Path], list[str]]]) -> Path | None:
    """`<directory>/<stem>-<key>.so`, built if missing by the first of `commands` (each gives the
    compiler's command line for a target path) that succeeds; None if none does (then recorded in
    `.failed` beside it, with the compiler's messages, and not tried again for that key). Built
    into a temporary file renamed into place, under a lock: two processes build it once."""
    target, failed = directory / f"{stem}-{key}.so", directory / f"{stem}-{key}.failed"
    if target.is_file():
        return target
    if failed.exists():
        return None
    with open(directory / f"{stem}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it: wait for that build
        if target.is_file():
            return target
        fd, scratch = tempfile.mkstemp(prefix=f".{stem}-{key}-", suffix=".so", dir=directory)
        os.close(fd)
        messages = []
        try:
            for command in commands:
                line = command(Path(scratch))
                try:
                    done = subprocess.run(line, capture_output=True, text=True, timeout=BUILD_SECONDS, check=False,
                                          stdin=subprocess.DEVNULL)  # fmt: skip
                except (OSError, subprocess.SubprocessError) as err:
                    messages.append(f"{' '.join(line)}\n{err}")
                    continue
                if done.returncode == 0:
                    os.replace(scratch, target)
                    return target
                messages.append(f"{' '.join(line)}\nexit {done.returncode}\n{done.stderr[-20000:]}")
            with contextlib.suppress(OSError):
                failed.write_text("\n".join(messages))
            return None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(scratch)


class Native(NamedTuple):
    """The library's entry points (ctypes functions)."""

    read: Callable  # pnetviz_read_columns
    describe: Callable  # pnetviz_describe
    class_sums: Callable  # pnetviz_class_sums


@functools.cache
def _native() -> Native | None:
    """The library's entry points through ctypes, None if it cannot be built or loaded."""
    try:
        path = library()
        if path is None:
            return None
        lib = ctypes.CDLL(str(path))
        func, describe, sums = lib.pnetviz_read_columns, lib.pnetviz_describe, lib.pnetviz_class_sums
    except Exception:  # noqa: BLE001 - whatever stops the library (no home directory, an older ROOT's API, a bad .so): cling
        return None
    func.restype = ctypes.c_int
    func.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p,
                     ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_int]  # fmt: skip
    describe.restype = ctypes.c_int
    describe.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p,
                         ctypes.c_longlong, ctypes.c_void_p]  # fmt: skip
    sums.restype = ctypes.c_longlong
    sums.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int,
                     ctypes.c_void_p, ctypes.c_void_p]  # fmt: skip
    return Native(func, describe, sums)


@functools.cache
def _cling() -> Callable:
    """pnetviz::read_columns compiled by cling (declared on first use only)."""
    return compiled('#include "column_reader.h"', str(MACRO_DIR / "column_reader.h")).pnetviz.read_columns


class ReaderFailure(RuntimeError):
    """A C++ exception inside the reader (its text)."""


def read_columns(path: str, tree: str, names: Sequence[str], pointers: np.ndarray, sizes: np.ndarray, entries: int,
                 threads: int, label: str, terminal: bool) -> str:  # fmt: skip
    """pnetviz::read_columns (macros/column_reader.h) from the cached library, else through
    cling: the reader's error text, empty on success; ReaderFailure on a C++ exception."""
    native = _native()
    if native is None:
        return str(_cling()(path, tree, list(names), pointers, sizes, entries, threads, label, terminal))
    pointers = np.ascontiguousarray(pointers, dtype=np.uint64)
    sizes = np.ascontiguousarray(sizes, dtype=np.int32)
    # names as the file has them: a name that is not UTF-8 arrives as surrogate escapes (os.fsencode restores it)
    encoded = (ctypes.c_char_p * max(len(names), 1))(*(os.fsencode(n) for n in names))
    error = ctypes.create_string_buffer(ERROR_BYTES)
    code = native.read(os.fsencode(path), os.fsencode(tree), len(names), encoded, pointers.ctypes.data, sizes.ctypes.data,
                entries, threads, os.fsencode(label), int(terminal), error, ERROR_BYTES)  # fmt: skip
    text = error.value.decode(errors="replace")
    if code == 2:
        raise ReaderFailure(text)
    return text


def class_sums(labels: np.ndarray, weights: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(events per class, sum of |weight| per class, labels outside [0, n_classes)) in one pass
    over integer `labels` and float64 `weights` (the counts and sums as np.bincount gives them);
    None without the library or for arrays it does not take (then numpy)."""
    native = _native()
    if (native is None or labels.dtype.kind not in "iu" or labels.ndim != 1 or not labels.flags.c_contiguous
            or weights.dtype != np.float64 or not weights.flags.c_contiguous or weights.shape != labels.shape):  # fmt: skip
        return None
    counts, sums = np.zeros(n_classes, np.int64), np.zeros(n_classes, np.float64)
    outside = native.class_sums(labels.ctypes.data, labels.itemsize, int(labels.dtype.kind == "i"), weights.ctypes.data,
                                labels.size, n_classes, counts.ctypes.data, sums.ctypes.data)  # fmt: skip
    return None if outside < 0 else (counts, sums, int(outside))


class BranchInfo(NamedTuple):
    """One top-level branch as `describe` found it; the basket table (first entry per basket and
    one past the last, compressed sizes, seeks) only for a flat scalar with 0 <= nbaskets <= entries."""

    type_name: str  # its leaf's type name, "" without a leaf of the branch's name
    entries: int
    flat: bool  # one leaf of its name, static length 1, no count leaf
    size: int  # that leaf's size in bytes
    nbaskets: int  # TBranch::GetWriteBasket()
    first: list[int]
    nbytes: list[int]
    seeks: list[int]


class TreeInfo(NamedTuple):
    """What the reader needs of a tree before reading it: its entries and top-level branches."""

    entries: int
    branches: dict[str, BranchInfo]


def describe(path: str, tree: str) -> TreeInfo | None:
    """The tree's entries, branch types and basket tables in one call to the library (no PyROOT
    look-up per branch); None without the library or when the file or tree is not as expected
    (the caller then asks through PyROOT, whose path words every error)."""
    native = _native()
    if native is None:
        return None
    text, numbers, needed = np.empty(1 << 14, np.uint8), np.empty(1 << 14, np.int64), np.zeros(2, np.int64)
    for _ in range(2):  # a second try with buffers of the sizes the first one asked for
        code = native.describe(os.fsencode(path), os.fsencode(tree), text.ctypes.data, text.size,
                               numbers.ctypes.data, numbers.size, needed.ctypes.data)  # fmt: skip
        if code != 1:
            break
        text, numbers = np.empty(int(needed[0]), np.uint8), np.empty(int(needed[1]), np.int64)
    if code != 0:
        return None
    return _parse(text[: needed[0]].tobytes().split(b"\0")[:-1], numbers[: needed[1]].tolist())


def _parse(words: list[bytes], values: list[int]) -> TreeInfo:
    """TreeInfo from `pnetviz_describe`'s buffers (macros/column_reader.cxx: its layout)."""
    entries, count, at, branches = values[0], values[1], 2, {}
    for b in range(count):
        branch_entries, flat, size, n = values[at : at + 4]
        at += 4
        first = nbytes = seeks = []
        if flat and 0 <= n <= entries:
            first, nbytes, seeks = values[at : at + n + 1], values[at + n + 1 : at + 2 * n + 1], values[at + 2 * n + 1 : at + 3 * n + 1]
            at += 3 * n + 1
        name = os.fsdecode(words[2 * b])
        branches[name] = BranchInfo(words[2 * b + 1].decode(), branch_entries, bool(flat), size, n, first, nbytes, seeks)
    return TreeInfo(entries, branches)


@functools.cache
def _libc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, None where the C library has none (macOS, musl)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def trim_heap() -> bool:
    """Give the heap's free pages back to the system (glibc `malloc_trim(0)`; a no-op elsewhere):
    arrays below glibc's mmap threshold (which grows to 32 MB as large arrays are freed) live in
    the heap, whose freed pages otherwise stay resident. For a job's phase boundaries, where
    arrays of the phase before are freed: the next phase's peak then starts from what is live.
    True if trimmed (pages were released)."""
    if root.cache_info().currsize:  # ROOT started: its module files' pages read again since dropped too
        release_module_pages()
    trim = _libc_trim()
    return bool(trim(0)) if trim is not None else False
