"""The numeric C++ kernels (`macros/*.h`) compiled for this host once per user, else by cling.

`kernels()` gives an object whose functions have the names and arguments of the cling-declared
ones (`root().pnetviz.roc_curve_f32(scores, w, labels, n, tps, fps, thr, auc)`, numpy arrays for
pointers): the shared library `<cache>/kernels-<key>.so` built from `macros/kernels.cxx` by the
system compiler at -O3 for the host's ISA (-march=native; without it if the compiler refuses),
with -ffp-contract=off so that results are the same, bit for bit, as cling's (no fused
multiply-add: tests/io/test_kernels.py runs both ways). Cling compiles for plain x86-64 at its
first call in every process (~0.4 s for the kernels of an evaluation); the weighted ROC kernel
ran 2-7x slower than this build at 1e7 events (benchmarks/README.md).

The key is a hash of every header in macros/ and kernels.cxx, ROOT's version, the compiler's
command line and binary, and the CPU's flags (a cache shared by machines of another CPU builds
its own). The cache, the lock and the atomic rename are the reader's (`native.built`).

`PNETVIZ_KERNELS=jit` uses cling's build (as on a machine without a compiler, where the build
fails once and is recorded as failed); any other value, or none, the compiled library.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from pnetviz.io.native import _private_dir, built, cache_dir, source_key
from pnetviz.rootenv import MACRO_DIR, compiled

SOURCE = "kernels.cxx"
HEADERS = ("weighted_roc.h", "class_tables.h", "optimal_binning.h", "poisson_bins.h", "simplify.h", "occupancy.h",
           "sorted_runs.h", "pair_sums.h", "split_tables.h", "class_reliability.h", "event_sums.h")

# argument codes: an array of that dtype (a pointer), or a scalar of that C type
_ARRAYS = {"f4*": np.float32, "f8*": np.float64, "u1*": np.uint8, "u4*": np.uint32, "i4*": np.int32, "i8*": np.int64,
           "u8*": np.uint64}
_SCALARS = {"z": ctypes.c_size_t, "i": ctypes.c_int, "q": ctypes.c_int64, "u": ctypes.c_uint64, "d": ctypes.c_double,
            "p": ctypes.c_size_t}  # fmt: skip
_RESULTS = {"v": None, "z": ctypes.c_size_t, "i": ctypes.c_int, "q": ctypes.c_int64}

# name: (result, arguments), as macros/kernels.cxx declares them (without the pnetviz_ prefix)
_ROC = "f8* f8* f8* f8*"
SIGNATURES: dict[str, tuple[str, str]] = {
    "roc_curve_f32": ("z", f"f4* f8* u1* z {_ROC}"),
    "roc_curve_f64": ("z", f"f8* f8* u1* z {_ROC}"),
    "roc_curve_chunks_f32": ("z", f"f4* f8* u1* z {_ROC} z f8* u8*"),
    "roc_curve_chunks_f64": ("z", f"f8* f8* u1* z {_ROC} z f8* u8*"),
    "bootstrap_chunks": ("v", "f8* f8* f8* f8* z z u d f8* f8*"),
    "roc_bootstrap_f32": ("v", "f4* f8* u1* z z u d z f8* f8*"),
    "roc_bootstrap_f64": ("v", "f8* f8* u1* z z u d z f8* f8*"),
    "upper_hull": ("z", "f8* f8* z i8*"),
    "auc_weight_modes_f32": ("v", "f4* f8* u1* z f8*"),
    "auc_weight_modes_f64": ("v", "f8* f8* u1* z f8*"),
    "class_reliability_f32": ("v", "f4* q i i4* f8* u1* i f8*"),
    "class_reliability_f64": ("v", "f8* q i i4* f8* u1* i f8*"),
    "class_tables_f32": ("v", "f4* q i i4* f8* u1* i f8* f8* f8* f8*"),
    "class_tables_f64": ("v", "f8* q i i4* f8* u1* i f8* f8* f8* f8*"),
    "split_tables_f32": ("v", "f4* f8* u1* q i d i f8* f8* f8* f8*"),
    "split_tables_f64": ("v", "f8* f8* u1* q i d i f8* f8* f8* f8*"),
    "compress_u1": ("v", "u1* q u1* u1* q"),
    "compress_i4": ("v", "u1* q i4* i4* q"),
    "compress_i8": ("v", "u1* q i8* i8* q"),
    "gather_splits": ("v", "u8* i q i8* u8* i4* i u8*"),
    "optimal_binning": ("i", "f8* f8* f8* f8* f8* i i i i d d d f8* i4*"),
    "transfo_d_cuts": ("v", "f8* i i i4* i4*"),
    "poisson_binned_sums": ("v", "i8* f8* z z z p p d f8*"),
    "poisson_binned_sums_drawn": ("z", "i8* f8* z z z f8* z z u8* d f8*"),
    "decimate_mask": ("v", "f8* f8* q d u1*"),
    "simplify_drawn": ("v", "f8* f8* q d u1*"),
    "occupancy_fill": ("v", "f8* f8* f8* f8* q d f8* f8* q d d d d q q u8*"),
    "first_empty": ("q", "u8* q q f8* q d"),
    "class_runs_f32_w32": ("v", "f4* f4* u1* z f4* f4* u4* f4* f4* u4* i"),
    "class_runs_f32_w64": ("v", "f4* f8* u1* z f4* f8* u4* f4* f8* u4* i"),
    "class_runs_f64_w32": ("v", "f8* f4* u1* z f8* f4* u4* f8* f4* u4* i"),
    "class_runs_f64_w64": ("v", "f8* f8* u1* z f8* f8* u4* f8* f8* u4* i"),
    "run_sums_w32": ("v", "f4* z d i8* z f8* f8*"),
    "run_sums_w64": ("v", "f8* z d i8* z f8* f8*"),
    "run_quantiles_w32": ("z", "f4* z z i8*"),
    "run_quantiles_w64": ("z", "f8* z z i8*"),
    "class_bin_sums_f32": ("v", "f4* f8* u1* z i f8*"),
    "class_bin_sums_f64": ("v", "f8* f8* u1* z i f8*"),
    "cut_w2_sums_f32": ("v", "f4* f8* u1* z f8* z f8*"),
    "cut_w2_sums_f64": ("v", "f8* f8* u1* z f8* z f8*"),
    "class_totals": ("v", "f8* u1* z f8*"),
    "curve_bin_sums_f32": ("v", "f4* f8* u1* z f8* z z f8* f8*"),
    "curve_bin_sums_f64": ("v", "f8* f8* u1* z f8* z z f8* f8*"),
    "ks_distance": ("v", "f8* f8* z f8* f8* z f8*"),
    "last_at_least": ("v", "f8* z f8* z i8*"),
    "vertices_mask": ("v", "f8* f8* z u1*"),
    "precision": ("v", "f8* f8* z f8*"),
    "class_yields_w64": ("v", "f8* u1* u1* z i i f8*"),
    "class_yields_w32": ("v", "f4* u1* u1* z i i f8*"),
    "edge_bin_sums_f32": ("v", "f4* f8* u1* z f8* z d f8*"),
    "edge_bin_sums_f64": ("v", "f8* f8* u1* z f8* z d f8*"),
    "rates": ("v", "f8* z d i f8*"),
    "precision_recall": ("v", "f8* f8* z d f8* f8*"),
}


def _cpu_flags() -> str:
    """What -march=native compiles for: the CPU's model and feature flags (Linux), else the platform."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith(("flags", "Features", "isa")):
                return line
    return f"{platform.machine()} {platform.processor()}"


def _command(target: Path, native: bool) -> list[str]:
    compiler = shutil.which(os.environ.get("CXX") or "c++") or "c++"
    tuned = ["-march=native"] if native else []
    return [compiler, "-O3", *tuned, "-ffp-contract=off", "-std=c++17", "-fPIC", "-shared", f"-I{MACRO_DIR}",
            str(MACRO_DIR / SOURCE), "-o", str(target)]  # fmt: skip


def _key(directory: Path) -> str:
    return source_key(sorted(MACRO_DIR.glob("*.h")) + [MACRO_DIR / SOURCE], _command(directory / "kernels.so", True), directory,
                      _cpu_flags())  # fmt: skip


def library(directory: Path | None = None) -> Path | None:
    """The kernels' shared library for this host (built first if needed), None if it cannot be had."""
    directory = cache_dir() if directory is None else directory
    if not _private_dir(directory):
        return None
    return built(directory, "kernels", _key(directory),
                 [lambda target: _command(target, True), lambda target: _command(target, False)])  # fmt: skip


def _wrap(function, name: str, result: str, arguments: str) -> Callable:
    codes = arguments.split()
    function.restype = _RESULTS[result]
    function.argtypes = [ctypes.c_void_p if code in _ARRAYS else _SCALARS[code] for code in codes]

    def call(*args):
        if len(args) != len(codes):
            raise TypeError(f"{name} takes {len(codes)} arguments ({len(args)} given)")
        converted = []
        for i, (code, arg) in enumerate(zip(codes, args)):
            if code in _ARRAYS and isinstance(arg, ctypes._SimpleCData):  # a ctypes scalar given for its address
                converted.append(ctypes.addressof(arg))
            elif code in _ARRAYS:
                if not (isinstance(arg, np.ndarray) and arg.dtype == _ARRAYS[code] and arg.flags.c_contiguous):
                    raise TypeError(f"{name}: argument {i + 1} must be a contiguous {np.dtype(_ARRAYS[code])} array")
                converted.append(arg.ctypes.data)
            else:
                converted.append(arg)
        return function(*converted)

    call.__name__ = name
    return call


def load(path: Path) -> SimpleNamespace:
    """The library's kernels as Python callables (names and arguments as the cling-declared ones)."""
    lib = ctypes.CDLL(str(path))
    return SimpleNamespace(**{name: _wrap(getattr(lib, f"pnetviz_{name}"), name, *signature)
                              for name, signature in SIGNATURES.items()})  # fmt: skip


@functools.cache
def native() -> SimpleNamespace | None:
    """The compiled kernels, None if the library cannot be built or loaded."""
    try:
        path = library()
        return None if path is None else load(path)
    except Exception:  # noqa: BLE001 - whatever stops the library (no home directory, a bad .so): cling
        return None


@functools.cache
def jit() -> SimpleNamespace:
    """The same kernels compiled by cling (declared on first use)."""
    code = "\n".join(f'#include "{header}"' for header in HEADERS)
    namespace = compiled(code, ", ".join(HEADERS)).pnetviz
    return SimpleNamespace(**{name: getattr(namespace, name) for name in SIGNATURES})


def kernels() -> SimpleNamespace:
    """The compiled kernels, or cling's when PNETVIZ_KERNELS=jit or the library cannot be had."""
    if os.environ.get("PNETVIZ_KERNELS", "").lower() != "jit":
        found = native()
        if found is not None:
            return found
    return jit()
