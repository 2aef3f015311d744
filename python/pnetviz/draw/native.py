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

import functools
import os
import re
import shutil
from pathlib import Path

from pnetviz.io.native import _private_dir, built, cache_dir, source_key
from pnetviz.rootenv import MACRO_DIR, root

SOURCE, HEADER = "draw_kernels.cxx", "draw_kernels.h"
LIBRARIES = ("Core", "RIO", "Hist", "Graf", "Gpad", "HistPainter")


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
    ROOT = root()
    if path is None or ROOT.gSystem.Load(str(path)) < 0 or not ROOT.gInterpreter.Declare(f'#include "{HEADER}"'):
        return None
    return ROOT.pnetviz_draw


def kernels() -> object | None:
    """The namespace `pnetviz_draw` of the compiled library, None (callers use cling's) when it
    cannot be had or PNETVIZ_KERNELS=jit."""
    if os.environ.get("PNETVIZ_KERNELS", "").lower() == "jit":
        return None
    return _loaded()
