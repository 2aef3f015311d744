"""The drawing and plots.root kernels (`macros/draw_kernels.cxx`) compiled once per user.

Why: cling parsed and JIT-compiled these kernels (the colours a canvas uses, the colour table,
the writer of plots.root's histograms and graphs, the occupancy grid of the layout) in every
process at their first call, ~1 s of an evaluation's CPU (canvas_colors.h alone: 0.27 s to
declare, 0.47 s at its first call; benchmarks/README.md, issue 55). Here the system's compiler
builds them under ROOT's own flags (as the reader, `io.native`), the library is loaded into
ROOT and cling is given only their declarations (`macros/draw_kernels.h`): a call goes straight
into the compiled code (objects are passed as to the cling-compiled kernels).

`kernels()` is the namespace `pnetviz_draw`, None where the library cannot be had (no compiler,
no private cache directory, a failed build: recorded and not retried) or PNETVIZ_KERNELS=jit:
callers then declare the headers to cling as before. The cache, key, lock and atomic rename are
the reader's (`io.native.built`); the key hashes the sources (every macros/*.h), ROOT's version,
the command and the compiler.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shutil
from pathlib import Path

import numpy as np

from pnetviz.io.native import _private_dir, built, cache_dir, source_key
from pnetviz.rootenv import MACRO_DIR, root

SOURCE, HEADER = "draw_kernels.cxx", "draw_kernels.h"
LIBRARIES = ("Core", "RIO", "Hist", "Graf", "Gpad", "HistPainter", "ASImage", "Postscript")


def _command(target: Path) -> list[str]:
    """The compiler's command line: ROOT's optimisation and C++ standard (no -march, no
    contraction: the floating-point results of the occupancy kernel are cling's), its headers and
    libraries (the run path set, so the library finds the ROOT it was built against)."""
    ROOT = root()
    standard = re.search(r"-std=\S+", str(ROOT.gSystem.GetMakeSharedLib()))
    include, lib = str(ROOT.gROOT.GetIncludeDir()), str(ROOT.gROOT.GetLibDir())
    compiler = shutil.which(os.environ.get("CXX") or "c++") or "c++"
    return [compiler, *str(ROOT.gSystem.GetFlagsOpt()).split(), "-ffp-contract=off", "-fPIC", "-shared", "-pthread",
            standard.group(0) if standard else "-std=c++17", f"-I{include}", f"-I{MACRO_DIR}", str(MACRO_DIR / SOURCE),
            f"-L{lib}", *(f"-l{name}" for name in LIBRARIES), f"-Wl,-rpath,{lib}", "-o", str(target)]  # fmt: skip


def _key(directory: Path) -> str:
    return source_key(sorted(MACRO_DIR.glob("*.h")) + [MACRO_DIR / SOURCE], _command(directory / "draw.so"), directory)


def library(directory: Path | None = None) -> Path | None:
    """The drawing kernels' shared library (built first if needed), None if it cannot be had."""
    directory = cache_dir() if directory is None else directory
    if not _private_dir(directory):
        return None
    return built(directory, "draw", _key(directory), [_command])


@functools.cache
def _loaded() -> object | None:
    try:
        path = library()
    except Exception:  # noqa: BLE001 - whatever stops the library (no home directory, an older ROOT): cling
        return None
    if path is None:
        return None
    try:
        return _CKernels(ctypes.CDLL(str(path)), path)
    except (OSError, AttributeError):  # a library that does not load, or one without the C interface: cling
        return None


def kernels() -> object | None:
    """The kernels of the compiled library (the namespace `pnetviz_draw`'s functions, called
    through its C interface: _CKernels), None (callers use cling's) when it cannot be had or
    PNETVIZ_KERNELS=jit."""
    if os.environ.get("PNETVIZ_KERNELS", "").lower() == "jit":
        return None
    return _loaded()


_P, _I64, _SIZE, _D, _F = ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t, ctypes.c_double, ctypes.c_float
_SIGNATURES = {  # name: (result, arguments) of pnetviz_c_<name> (macros/draw_kernels.cxx)
    "used_colors": (_SIZE, (_P, _P, _SIZE)),
    "palette_numbers": (None, (_P, _SIZE)),
    "palette_exec_number": (ctypes.c_int, (_P,)),
    "draws_palette": (ctypes.c_bool, (_P,)),
    "no_stats": (None, (_P,)),
    "color_table": (_SIZE, (_P, _P, _P, _SIZE)),
    "add_colors": (None, (_P, _P, _SIZE, ctypes.c_bool)),
    "store_writer": (_P, (_F, _F, _F, _F, _F, ctypes.c_short, _D, _D, _D)),
    "store": (ctypes.c_int, (_P, _P, ctypes.c_char_p, _P, ctypes.c_char_p, ctypes.c_char_p, _P, _SIZE, ctypes.c_bool, _D, _D)),
    "occupancy_items": (None, (_P, _P, _P, _I64, _P, _P, _I64, _P, _P, _I64, _I64, _P, _P, _P, _I64, _P, _I64, _I64, _P)),
    "occupancy_error_inners": (None, (_P, _P, _I64, _P, _I64, _D, ctypes.c_bool, _P)),
    "unreadable": (_SIZE, (_P, ctypes.c_longlong, _P, _SIZE)),
    "cms_canvas_start": (_P, (ctypes.c_char_p, ctypes.c_int, _D, _D, _D, _D, _D, _D, _D, _D, ctypes.c_char_p, ctypes.c_char_p, _D)),
    "cms_canvas_finish": (None, (_P,)),
    "painted_frame": (None, (_P, _D, _D, _D, _D)),
    "canvas_shape": (None, (_P, ctypes.c_int, ctypes.c_bool, ctypes.c_bool)),
    "frame_histogram": (_P, (_D, _D, _D, _D, ctypes.c_char_p, _P)),
    "load_style": (_P, (ctypes.c_char_p, ctypes.c_bool)),
    "place_palette": (None, (_P, _P, _D, _D, _D, _D, _D, _D, _D, _D)),
    "reframe_top": (None, (_P, _D, _D)),
    "png_paint": (_P, (_P, _P, _P)),
    "png_rows": (None, (_P, _P)),
    "pdf_save": (None, (_P, ctypes.c_char_p)),
}


def _argument(value: object) -> object:
    """A kernel argument as ctypes takes it: an array's data address, a ROOT object's address (its
    TObject: the first base of every class passed), a str as UTF-8 bytes (as cppyy passes it)."""
    if isinstance(value, np.ndarray):
        return value.ctypes.data
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bool, int, float, bytes)) or value is None:
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return root().addressof(value)


class _CKernels:
    """The compiled drawing kernels through their C interface (ctypes): the signatures of
    `pnetviz_draw`'s (draw_kernels.h), arrays as contiguous numpy arrays of the kernel's types
    (as the callers pass them to cling's), a TPad list as standalone.pad_vector makes it here (an
    array of addresses), unreadable's names as a list of str. A call through cling would first
    JIT-compile a wrapper for each function (~0.1 s a process for these, measured), and make
    std::vector<TPad*> and std::vector<std::string> for the arguments and results; these make
    none. frame_of (an object returned to Python) stays cling's, declared at its first use."""

    def __init__(self, lib: ctypes.CDLL, path: Path) -> None:
        self._path = path
        for name, (result, arguments) in _SIGNATURES.items():
            function = getattr(lib, f"pnetviz_c_{name}")
            function.restype, function.argtypes = result, list(arguments)
            setattr(self, f"_{name}", function)

    def __getattr__(self, name: str):
        function = self.__dict__.get(f"_{name}")
        if function is None:
            raise AttributeError(name)
        if name == "store":
            return self._store_call
        if name == "unreadable":
            return self._unreadable_call
        return lambda *args: function(*map(_argument, args))

    def _store_call(self, writer, file, directory, obj, name, title, pads, describe, y_label_size, y_title_offset) -> int:
        pads = np.ascontiguousarray(pads, dtype=np.uint64)
        return self._store(writer, _argument(file), directory.encode(), _argument(obj), name.encode(), title.encode(),
                           pads.ctypes.data, pads.size, describe, y_label_size, y_title_offset)  # fmt: skip

    def _unreadable_call(self, directory, size: int) -> list[str]:
        address, out = _argument(directory), ctypes.create_string_buffer(4096)
        need = self._unreadable(address, size, out, len(out))
        if need > len(out):
            out = ctypes.create_string_buffer(need)
            need = self._unreadable(address, size, out, len(out))
        return [name.decode() for name in out.raw[:need].split(b"\0")[:-1]]

    @functools.cached_property
    def frame_of(self):
        """frame_of through cling (its result is a ROOT object for Python): the library loaded
        into ROOT and its declarations given to cling, at the first use."""
        ROOT = root()
        if ROOT.gSystem.Load(str(self._path)) < 0 or not ROOT.gInterpreter.Declare(f'#include "{HEADER}"'):
            raise RuntimeError(f"{self._path}: ROOT cannot load the drawing kernels")
        return ROOT.pnetviz_draw.frame_of
