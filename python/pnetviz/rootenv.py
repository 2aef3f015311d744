"""The one place that imports ROOT and declares the C++ core.

`root()` returns the configured ROOT module: batch mode, no automatic histogram ownership
by files, the alpha-stage wheel warning silenced, cling at optimisation level 3 (or 0 for the
whole process: `start_unoptimized`), and the headers in `macros/` declared once. It also
records the colours ROOT starts with (`start_colors`), before anything defines or changes one.
"""

from __future__ import annotations

import array
import contextlib
import functools
import importlib.util
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator, Mapping
from types import MappingProxyType, ModuleType

from pnetviz.errors import MissingROOT



def _macro_dir() -> Path:
    """The C++ kernels: the repository's macros/ shipped as the package data `pnetviz.macros`
    (inside site-packages for an installed wheel, the checkout's macros/ for an editable one)."""
    spec = importlib.util.find_spec("pnetviz.macros")
    for where in (spec.submodule_search_locations or []) if spec else []:
        if (Path(where) / "weighted_roc.h").is_file():
            return Path(where)
    raise RuntimeError("pnetviz's C++ headers (pnetviz/macros) are not installed; reinstall pnetviz with pip")


MACRO_DIR = _macro_dir()
HEADERS = ("error_guard.h", "start_colors.h")  # the numeric kernels: pnetviz.io.kernels (compiled for the host, else cling on first use); column_reader.h: pnetviz.io.native

CLING_ARGS = "EXTRA_CLING_ARGS"  # ROOT's variable: extra arguments for cling, read as ROOT starts
ColorValues = tuple[float, float, float, float]  # red, green, blue, alpha of a TColor
_START_COLORS: dict[int, ColorValues] = {}  # filled by root(): the colours ROOT starts with


@functools.cache
def root() -> ModuleType:
    """Import and configure ROOT once per process; raise if a header does not compile."""
    try:
        with warnings.catch_warnings():  # the wheel's "alpha stage" UserWarning, during this import only:
            warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")  # the user's filters stay as they were
            import ROOT  # noqa: PLC0415 - deliberately lazy: the import costs start-up time
    except ImportError as err:
        raise MissingROOT(f"PyROOT cannot be imported by {sys.executable} ({err}). Fix: set up a ROOT with Python "
                          "bindings first (source thisroot.sh, an LCG view, CMSSW's cmsenv, or conda install -c "
                          "conda-forge root), or install the PyPI wheel with: pip install 'pnetviz[root]'.") from None

    ROOT.gROOT.SetBatch(True)
    ROOT.TH1.AddDirectory(False)
    ROOT.gInterpreter.AddIncludePath(str(MACRO_DIR))
    # cling emits machine code lazily, at a function's first call, with the optimisation level
    # in force then (default 1); `#pragma cling optimize` in a header had no effect (measured).
    # Level 3 stays on for the whole process: each kernel is compiled optimised when first used,
    # and only the kernels a run needs are compiled. Measured against warming every kernel up at
    # -O3 and going back to level 1: 1e5-event multi-class run 5.1 s instead of 6.4 s, 1e7 and
    # the demo generator (RDataFrame Snapshot JIT) unchanged within noise. A process that cling
    # started at level 0 stays there: level 0 and a level above it must never meet in one process
    # (`start_unoptimized`).
    if start_level() != 0:
        ROOT.gInterpreter.ProcessLine(".O 3")
    if not ROOT.gInterpreter.Declare("\n".join(f'#include "{header}"' for header in HEADERS)):  # one parse
        raise RuntimeError(f"cling could not compile {', '.join(HEADERS)} (in {MACRO_DIR}); see the errors above")
    _START_COLORS.update(_color_rows(ROOT))  # before anything defines or changes a colour
    ROOT.pnetviz.install_error_guard()
    release_module_pages()
    return ROOT


def _color_rows(ROOT, cap: int = 1024) -> Iterator[tuple[int, ColorValues]]:
    """(number, RGBA) of each colour of gROOT's list, in its order (macros/start_colors.h: one C++
    call, not ~5 PyROOT calls a colour; the same values as color_values)."""
    rows = array.array("d", bytes(8 * 5 * cap))
    n = int(ROOT.pnetviz.color_rows(rows, cap))
    if n > cap:
        return _color_rows(ROOT, n)
    return ((int(rows[5 * k]), tuple(rows[5 * k + 1:5 * k + 5])) for k in range(n))


def start_level() -> int:
    """cling's optimisation level when ROOT starts in this process: the last -O<n> of
    EXTRA_CLING_ARGS (ROOT passes them to cling as it starts), else cling's default, 1."""
    level = 1
    for arg in os.environ.get(CLING_ARGS, "").split():
        if arg.startswith("-O"):
            level = int(arg[2:]) if arg[2:].isdigit() else 2  # -O, -Os, -Oz: optimised
    return level


def start_unoptimized() -> bool:
    """Have cling compile everything at optimisation level 0 in this process (EXTRA_CLING_ARGS=-O0,
    read once as ROOT starts, and kept for this process's children), unless ROOT has started already
    or the user set EXTRA_CLING_ARGS; True if so. For a command whose computing C++ is compiled
    ahead of time (io.kernels, draw.native, the reader): what cling still compiles is cppyy's call
    wrappers (hundreds a run, each only forwarding a call) and small helpers, fastest at level 0
    (a default binary evaluation at 1e6: -0.5 s CPU, benchmarks/README.md, issue 55).
    Called before anything starts ROOT: level 0 must hold from cling's start to the process's end,
    never mixed with a level above it. Switching (`.O 0` for the wrappers, `.O 3` before the
    kernels) broke the example notebook: code compiled at one level failed to link against weak
    definitions (inline functions, destructors) compiled at the other ("cling JIT session error:
    Failed to materialize symbols: { (main, { __clang_call_terminate }) }"), and `.O 0` after
    JupyROOT's code (compiled at level 1) broke error_guard.h in a Jupyter kernel."""
    if "cppyy" in sys.modules or CLING_ARGS in os.environ:
        return False
    os.environ[CLING_ARGS] = "-O0"
    return True


MADV_DONTNEED = 4  # Linux's madvise advice: drop the pages (a file mapping's come back from the file when read)


@functools.cache
def _madvise():
    """libc's madvise through ctypes, None where there is none (then nothing is released)."""
    import ctypes  # noqa: PLC0415

    try:
        call = ctypes.CDLL(None).madvise
    except (OSError, AttributeError):
        return None
    call.argtypes, call.restype = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int], ctypes.c_int
    return call


def release_module_pages() -> int:
    """Drop from the resident set the pages of cling's C++ module files (`*.pcm`) mapped read-only;
    bytes released (0 off Linux). cling maps every module of the installation at start-up (73 files,
    ~227 MB resident with the ROOT wheel, whose global module index names its build directory, so
    that none is loaded lazily) and reads few of them again in an evaluation. The pages are clean
    copies of the files: a later read faults them back in from the page cache, so nothing changes
    but the resident size (the kernel would drop them itself under memory pressure)."""
    madvise = _madvise()
    if madvise is None or not os.path.exists("/proc/self/maps"):
        return 0
    released = 0
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()  # address perms offset dev inode path
            if len(fields) >= 6 and fields[1] == "r--p" and fields[5].endswith(".pcm"):
                low, high = (int(x, 16) for x in fields[0].split("-"))
                if madvise(low, high - low, MADV_DONTNEED) == 0:
                    released += high - low
    return released


def color_values(color) -> ColorValues:
    """What a stored TColor gives a reader that has a colour of its index: its RGBA (ROOT's
    TCanvas::Streamer and JSROOT take a stored colour's name only for one they create)."""
    return color.GetRed(), color.GetGreen(), color.GetBlue(), color.GetAlpha()


def start_colors() -> Mapping[int, ColorValues]:
    """The colours ROOT defined when root() first imported it (index -> RGBA), as a plain ROOT
    session starts with them. Recorded in this process, before cmsstyle is imported (its import
    alone defines 4 colours) or a figure defines one, not in a subprocess (a second ROOT start-up,
    ~1 s). Only as fresh as ROOT was then: a colour changed before the first root() call would
    look built in (draw.rootfile leaves out only ROOT's long-standing built-in indices, never one
    defined later)."""
    root()
    return MappingProxyType(_START_COLORS)


@dataclass
class RootErrors:
    """The ROOT error messages captured by `root_errors`: how many, and the first few."""

    count: int = 0
    text: str = ""

    def summary(self) -> str:
        return f"ROOT reported {self.count} error{'s' * (self.count > 1)}: {self.text}" if self.count else ""


@contextlib.contextmanager
def root_errors() -> Iterator[RootErrors]:
    """Capture ROOT's error messages (level kError and above) inside the block instead of
    printing them (`macros/error_guard.h`); the yielded RootErrors is filled on exit, so callers
    turn "ROOT printed an error" into one pnetviz message. Not re-entrant."""
    ROOT = root()
    errors = RootErrors()
    ROOT.pnetviz.begin_capture()
    try:
        yield errors
    finally:
        errors.count = int(ROOT.pnetviz.end_capture())
        errors.text = str(ROOT.pnetviz.captured_messages()) if errors.count else ""  # (no call to compile in a clean run)


@contextlib.contextmanager
def quiet_root(level: int | None = None) -> Iterator[None]:
    """Raise ROOT's message threshold (default kFatal) inside the block: we report problems ourselves."""
    ROOT = root()
    old = ROOT.gErrorIgnoreLevel
    ROOT.gErrorIgnoreLevel = ROOT.kFatal if level is None else level
    try:
        yield
    finally:
        ROOT.gErrorIgnoreLevel = old


def enable_threads(n: int) -> None:
    """ROOT's implicit multi-threading (n > 1); 1 keeps one thread. The ntuple reader then uses
    that many threads (each value still lands at its entry index: results do not change)."""
    if n > 1:
        root().EnableImplicitMT(n)


# TNamed's own SetTitle, called past the overrides: it stores the text as it is; on a TGraph's
# frame histogram (made first) too
_LITERAL_TITLE = ('#include "TGraph.h"\n#include "TH1.h"\n'
                  "namespace pnetviz { inline void set_literal_title(TNamed* obj, const char* title) {"
                  " if (obj->InheritsFrom(TGraph::Class())) { if (TH1* frame = static_cast<TGraph*>(obj)->GetHistogram())"
                  " frame->TNamed::SetTitle(title); }"
                  " obj->TNamed::SetTitle(title); } }")


def compiled(code: str, what: str) -> object:
    """ROOT after cling has declared `code` (a kernel's #include or its source; `what` names it in
    the error); RuntimeError if cling cannot compile it. Callers cache what they take from it."""
    ROOT = root()
    if not ROOT.gInterpreter.Declare(code):
        raise RuntimeError(f"cling could not compile {what}; see the errors above")
    return ROOT


@functools.cache
def _literal_title():
    return compiled(_LITERAL_TITLE, "pnetviz::set_literal_title").pnetviz.set_literal_title


def set_title(obj, title: str, *axis_titles: str) -> None:
    """`title` as the stored title of `obj` (a TH1, TGraph or any TNamed), character for character,
    and `axis_titles` (x, y, z) as its axes'. TH1's and TGraph's SetTitle, and the TH1
    constructors, read "title;x;y;z": a name holding ';' would be cut there and the rest given
    to the axes. A TGraph's frame histogram is made first (from the title it has) and titled
    the same way, so that a later GetXaxis() does not split the new title either."""
    _literal_title()(obj, str(title))  # one C++ call (the frame's title too)
    if not axis_titles:
        return
    getters = (obj.GetXaxis, obj.GetYaxis, obj.GetZaxis if obj.InheritsFrom("TH1") else lambda: None)
    for get, text in zip(getters, axis_titles):
        axis = get()
        if axis:
            axis.SetTitle(text)


@contextlib.contextmanager
def silent_stderr() -> Iterator[None]:
    """File descriptor 2 sent to a scratch file inside the block (cling writes its diagnostics
    there directly, past Python and ROOT's message handler)."""
    saved = os.dup(2)
    try:
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)
