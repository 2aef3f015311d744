"""The compiled reader of flat branches (macros/column_reader.h): branch name -> numpy array in one
pass over the tree, every leaf type's numpy dtype (DTYPES), the baskets checked before the event
loop and a file the structural check cannot verify read in a guarded child. io.columns reads a
mapping's plain branches with it; io.ntuple reads and validates the contract's columns on top."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import guard, native, structure
from pnetviz.io.rootnames import root_path
from pnetviz.io.treefile import REMADE, _basket_tables, _implicit_threads, branch_types, check_structure  # noqa: F401 - callers use branches.*
from pnetviz.rootenv import quiet_root, root, root_errors


INT_TYPES = {
    "Int_t", "int", "UInt_t", "unsigned int", "Long64_t", "Long_t", "long", "long long",
    "ULong64_t", "ULong_t", "unsigned long", "unsigned long long", "Short_t", "short",
    "UShort_t", "unsigned short", "Char_t", "char", "UChar_t", "unsigned char",
    "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
}  # fmt: skip
FLOAT_TYPES = {"Float_t", "float", "Double_t", "double"}
BOOL_TYPES = {"Bool_t", "bool"} | INT_TYPES
DTYPES = {
    **dict.fromkeys(("Bool_t", "bool"), np.bool_),
    **dict.fromkeys(("Char_t", "char", "int8_t"), np.int8),
    **dict.fromkeys(("UChar_t", "unsigned char", "uint8_t"), np.uint8),
    **dict.fromkeys(("Short_t", "short", "int16_t"), np.int16),
    **dict.fromkeys(("UShort_t", "unsigned short", "uint16_t"), np.uint16),
    **dict.fromkeys(("Int_t", "int", "int32_t"), np.int32),
    **dict.fromkeys(("UInt_t", "unsigned int", "uint32_t"), np.uint32),
    **dict.fromkeys(("Long64_t", "Long_t", "long", "long long", "int64_t"), np.int64),
    **dict.fromkeys(("ULong64_t", "ULong_t", "unsigned long", "unsigned long long", "uint64_t"), np.uint64),
    **dict.fromkeys(("Float_t", "float"), np.float32),
    **dict.fromkeys(("Double_t", "double"), np.float64),
}  # numpy dtype of each leaf type: values are copied byte for byte
PROGRESS_MIN_ENTRIES = 1_000_000
def read_columns(path: Path, tree: str, columns: dict[str, str], entries: int, progress: bool = False,
                 block: Sequence[str] = (), threads: int | None = None) -> dict[str, np.ndarray]:  # fmt: skip
    """Branch name -> numpy array (dtype of the branch's leaf type) in one pass over the tree.

    columns: branch name -> leaf type name (from `branch_types`). Branches listed in `block`
    that share one dtype are rows of one C-contiguous (len(block), entries) array, so kernels
    can take them as a matrix without copying. threads: default ROOT's implicit-MT pool size
    if that is on, else 1; the values do not depend on it. The baskets of these branches are
    checked against the tree before the event loop; a file `check_structure` cannot verify is
    read in a guarded child process.
    """
    path = Path(path)
    if check_structure(path, tree).verified:
        return _read_columns(path, tree, columns, entries, progress, block, threads)
    out = guard.run(_read_columns, path, tree, columns, entries, progress, block, threads, subject=path,
                    threads=_implicit_threads())  # fmt: skip
    return _reblock(out, block)


def _reblock(out: dict[str, np.ndarray], block: Sequence[str]) -> dict[str, np.ndarray]:
    """`out` with the `block` rows made rows of one matrix again (a pickled block arrives as rows)."""
    rows = [b for b in block if b in out]
    if rows and len({out[b].dtype for b in rows}) == 1:
        out.update(zip(rows, np.stack([out[b] for b in rows])))
    return out


def _read_columns(path: Path, tree: str, columns: dict[str, str], entries: int, progress: bool = False,
                  block: Sequence[str] = (), threads: int | None = None) -> dict[str, np.ndarray]:  # fmt: skip
    ROOT = root()
    out = {name: None for name in columns}
    dtypes = {name: _dtype(path, name, t) for name, t in columns.items()}
    block = [b for b in block if b in columns]
    if block and len({dtypes[b] for b in block}) == 1:
        matrix = np.empty((len(block), entries), dtype=dtypes[block[0]])
        out.update(zip(block, matrix))
    for name, array in out.items():
        if array is None:
            out[name] = np.empty(entries, dtype=dtypes[name])
    if entries == 0:
        return out
    try:
        structure.check_baskets(path, _basket_tables(path, tree, {n: dtypes[n].itemsize for n in out}, entries))
    except structure.Damaged as err:
        raise InputError(f"{path}: not a readable ROOT file (damaged: {err}). {REMADE}") from None
    pointers = np.array([a.ctypes.data for a in out.values()], dtype=np.uint64)
    sizes = np.array([a.itemsize for a in out.values()], dtype=np.int32)
    if threads is None:
        threads = int(ROOT.GetThreadPoolSize()) if ROOT.IsImplicitMTEnabled() else 1
    label = f"Reading {path.parent.name}/{path.name}" if progress and entries >= PROGRESS_MIN_ENTRIES else ""
    try:
        with root_path(path) as literal, quiet_root(ROOT.kError), root_errors() as errors:
            error = native.read_columns(literal, tree, list(out), pointers, sizes, entries, threads, label,
                                        sys.stderr.isatty())  # fmt: skip
    except Exception as err:  # noqa: BLE001 - a C++ exception from ROOT (bad_alloc, length_error, ...)
        raise InputError(f"{path}: ROOT failed reading it ({_cpp_error(err)}). {REMADE}") from None
    if error or errors.count:
        what = "; ".join(t for t in (error, errors.summary()) if t)
        if error.startswith("read error"):  # the baskets passed the checks: their compressed data are damaged
            raise InputError(f"{path}: not a readable ROOT file (damaged: {what}). {REMADE}")
        raise InputError(f"{path}: {what}. Fix: the ntuple contract (docs/inputs.md) asks for flat scalar branches, "
                         "one number per event; re-create the file if it is damaged.")  # fmt: skip
    return out


def _cpp_error(err: Exception) -> str:
    """The last line of a PyROOT exception (the C++ exception's type and text)."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return (lines[-1] if lines else type(err).__name__)[:200]


def _dtype(path: Path, branch: str, type_name: str) -> np.dtype:
    if type_name not in DTYPES:
        raise InputError(f"{path}: branch '{branch}' has type {type_name!r}, which pnetviz cannot read. "
                         "Fix: write it as bool, an integer, float or double.")  # fmt: skip
    return np.dtype(DTYPES[type_name])

