"""The tree inside a prediction ntuple, before any event is read: the file's structural check
(`check_structure`, cached per file version), its branches and their C++ types (`branch_types`),
and each branch's basket table (`_basket_tables`) for the basket check before the event loop.
A verified file is described by the reader's library in one C call (`pnetviz.io.native`), else
through PyROOT, in a guarded child where the check could not verify the file. Every problem is one
InputError naming the file and the fix.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import guard, native, structure
from pnetviz.io.layout import root_path
from pnetviz.rootenv import quiet_root, root


REMADE = "Fix: re-create it (or copy it again if it was transferred)."


def check_structure(path: Path, tree: str) -> structure.FileCheck:
    """The structural check of the ntuple `path` up to the record of `tree`
    (`pnetviz.io.structure.check_file`), every problem one InputError: no such file, not a
    regular file, no permission to read it, damaged. Cached per file version (inode, size,
    modification time)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{path}: no such file. Fix: check the path (or --results-dir / --predictions).") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied on a directory of its path. Fix: make the directories "
                         "readable and searchable (chmod u+rx) or use a copy.") from None  # fmt: skip
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror}). Fix: check the file and its disk.") from None
    if not stat.S_ISREG(info.st_mode):
        what = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise InputError(f"{path}: {what}, not a ROOT file. Fix: give the ntuple's path.")
    return _checked(str(path), tree, _version(info))


def _version(info: os.stat_result) -> tuple[int, ...]:
    """What identifies one version of a file for the caches: device, inode, size, mtime."""
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


@functools.lru_cache(maxsize=64)
def _checked(path: str, tree: str, version: tuple[int, ...]) -> structure.FileCheck:  # noqa: ARG001 - cache key
    try:
        return structure.check_file(path, tree)
    except PermissionError:
        raise InputError(f"{path}: permission denied: pnetviz may not read this file. Fix: make it readable "
                         "(chmod u+r) or use a readable copy.") from None  # fmt: skip
    except structure.NotROOT as err:
        raise InputError(f"{path}: not a readable ROOT file ({err}). Fix: give the prediction ntuple.") from None
    except structure.Damaged as err:
        raise InputError(f"{path}: not a readable ROOT file (damaged: {err}). {REMADE}") from None
    except OSError as err:
        raise InputError(f"{path}: cannot be read ({err.strerror}). Fix: check the file and its disk.") from None


def _implicit_threads() -> int:
    """ROOT's implicit-MT pool size if it is on, else 1 (handed to a guarded child)."""
    ROOT = root()
    return int(ROOT.GetThreadPoolSize()) if ROOT.IsImplicitMTEnabled() else 1


def branch_types(path: Path, tree: str) -> dict[str, str]:
    """Branch name -> C++ type of the TTree `tree` in `path`; InputError if either is unusable.
    The entry count is returned under the key "" (not a branch name). Checked first
    (`check_structure`); a file the check cannot verify is opened in a guarded child."""
    path = Path(path)
    check = check_structure(path, tree)
    if check.tree is None or check.tree.class_name in structure.DIRECTORY_CLASSES:
        raise _no_tree(path, tree, check.keys)
    if check.verified:  # the library's one call only on a verified file (a damaged one goes to the guarded child)
        info = _described(path, tree)
        return _branch_types(path, tree) if info is None else _types_of(path, info)
    return dict(_guarded_types(str(path), tree, _version(path.stat())))


def _no_tree(path: Path, tree: str, keys: Sequence[tuple[str, str]]) -> InputError:
    listed = ", ".join(sorted(f"{_shown(name)} ({_shown(cls)})" for name, cls in keys))
    return InputError(f"{path}: no TTree named '{tree}'; the file holds: {listed or 'nothing'}. "
                      "Fix: pass the right name with --tree.")  # fmt: skip


def _shown(name: str) -> str:
    """A name from the file as one line of text (control characters escaped)."""
    return name if name.isprintable() else repr(name)[1:-1]


@functools.lru_cache(maxsize=64)
def _guarded_types(path: str, tree: str, version: tuple[int, ...]) -> dict[str, str]:  # noqa: ARG001 - cache key
    return guard.run(_branch_types, Path(path), tree, subject=Path(path))


def _open(path: Path) -> object:
    """The TFile `path` opened for reading (ROOT takes the name literally); InputError if ROOT
    cannot open it or had to recover it."""
    ROOT = root()
    try:
        with root_path(path) as literal, quiet_root():
            tfile = ROOT.TFile.Open(literal, "READ")
    except PermissionError:
        raise InputError(f"{path}: permission denied: pnetviz may not read this file. Fix: make it readable "
                         "(chmod u+r) or use a readable copy.") from None  # fmt: skip
    except Exception:  # noqa: BLE001 - PyROOT raises where C++ returns nullptr or throws (bad_alloc, ...)
        tfile = None
    if not tfile or tfile.IsZombie() or tfile.TestBit(ROOT.TFile.kRecovered):
        if tfile:
            tfile.Close()
        raise InputError(f"{path}: not a readable ROOT file (corrupt or truncated). {REMADE}")
    return tfile


def entries(path: Path, tree: str) -> int | None:
    """The entries of `tree` in the ntuple `path` after the structural check (`check_structure`'s
    InputError on a missing or damaged file: the reader's own messages); None where the reader's
    library cannot describe the tree (the reader then words what is wrong)."""
    check_structure(path, tree)
    info = _described(path, tree)
    return None if info is None else int(info.entries)


def _described(path: Path, tree: str) -> native.TreeInfo | None:
    """The tree's branches and basket tables from the reader's library in one C call, cached per
    file version; None (no library, or anything unexpected) sends the caller to PyROOT."""
    try:
        return _described_version(str(path), tree, _version(os.stat(path)))
    except OSError:
        return None


@functools.lru_cache(maxsize=8)
def _described_version(path: str, tree: str, version: tuple[int, ...]) -> native.TreeInfo | None:  # noqa: ARG001 - cache key
    with root_path(Path(path)) as literal, quiet_root():
        return native.describe(literal, tree)


def _branch_types(path: Path, tree: str) -> dict[str, str]:
    tfile = _open(path)
    try:
        obj = tfile.Get(tree)
        if not obj or not obj.InheritsFrom("TTree"):
            keys = _key_names(tfile)
            if any(name == tree.rpartition("/")[2] for name, _ in keys) and not obj:
                raise InputError(f"{path}: not a readable ROOT file (damaged: ROOT cannot read the object '{tree}'). "
                                 f"{REMADE}")  # fmt: skip
            raise _no_tree(path, tree, keys)
        types = {b.GetName(): b.GetLeaf(b.GetName()).GetTypeName() if b.GetLeaf(b.GetName()) else ""
                 for b in obj.GetListOfBranches()}  # fmt: skip
        entries = int(obj.GetEntries())
        short = [f"'{b.GetName()}' ({int(b.GetEntries())})" for b in obj.GetListOfBranches() if int(b.GetEntries()) != entries]
        if short:
            raise InputError(f"{path}: branches {', '.join(short[:5])} were not filled once per entry of the tree "
                             f"({entries} entries); their values would be stale. Fix: re-create the ntuple.")  # fmt: skip
        types[""] = str(entries)
        return types
    finally:
        tfile.Close()


def _types_of(path: Path, info: native.TreeInfo) -> dict[str, str]:
    """`_branch_types` from the library's description (same checks, same messages)."""
    types = {name: b.type_name for name, b in info.branches.items()}
    short = [f"'{name}' ({b.entries})" for name, b in info.branches.items() if b.entries != info.entries]
    if short:
        raise InputError(f"{path}: branches {', '.join(short[:5])} were not filled once per entry of the tree "
                         f"({info.entries} entries); their values would be stale. Fix: re-create the ntuple.")  # fmt: skip
    types[""] = str(info.entries)
    return types


def _key_names(tfile: object) -> list[tuple[str, str]]:
    """(name, class) of the keys of an open TFile; "?" for a name Python cannot decode."""
    names = []
    for key in tfile.GetListOfKeys():
        try:
            names.append((str(key.GetName()), str(key.GetClassName())))
        except (TypeError, UnicodeDecodeError):
            names.append(("?", "?"))
    return names


def _basket_tables(path: Path, tree: str, sizes: dict[str, int], entries: int) -> list[structure.BranchBaskets]:
    """The basket table of each branch in `sizes` (name -> bytes per entry), from the tree's
    metadata, for `structure.check_baskets`. Branches the tree lacks or that are not flat
    scalars of that size are left out (the reader reports them)."""
    info = _described(path, tree) if check_structure(path, tree).verified else None  # as in branch_types
    if info is not None and all(name in info.branches for name in sizes):
        tables = []
        for name, size in sizes.items():
            b = info.branches[name]
            if not b.flat or b.size != size:
                continue  # not a flat scalar of that size: the reader says so
            if not 0 <= b.nbaskets <= entries:
                raise InputError(f"{path}: not a readable ROOT file (damaged: branch '{name}' of '{tree}' claims "
                                 f"{b.nbaskets} baskets for {entries} entries). {REMADE}")  # fmt: skip
            tables.append(structure.BranchBaskets(name, size, b.seeks, b.nbytes, b.first, entries))
        return tables
    tfile = _open(path)
    try:
        obj = tfile.Get(tree)
        tables = []
        for name, size in sizes.items():
            branch = obj.GetBranch(name) if obj else None
            leaf = branch.GetLeaf(name) if branch else None
            if not leaf or branch.GetListOfLeaves().GetEntries() != 1 or leaf.GetLenStatic() != 1 or \
                    leaf.GetLeafCount() or leaf.GetLenType() != size:  # fmt: skip
                continue  # not a flat scalar of that size: the reader says so
            n = int(branch.GetWriteBasket())
            if not 0 <= n <= entries:
                raise InputError(f"{path}: not a readable ROOT file (damaged: branch '{name}' of '{tree}' claims "
                                 f"{n} baskets for {entries} entries). {REMADE}")  # fmt: skip
            first = np.frombuffer(branch.GetBasketEntry(), dtype=np.int64, count=n + 1).tolist()
            nbytes = np.frombuffer(branch.GetBasketBytes(), dtype=np.int32, count=n).tolist() if n else []
            seeks = [int(branch.GetBasketSeek(i)) for i in range(n)]
            tables.append(structure.BranchBaskets(name, size, seeks, nbytes, first, entries))
        return tables
    finally:
        tfile.Close()
