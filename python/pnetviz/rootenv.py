"""The one place that imports ROOT and declares the C++ core.

`root()` returns the configured ROOT module: batch mode, no automatic histogram ownership
by files, the alpha-stage wheel warning silenced, and the headers in `macros/` declared once.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from pathlib import Path
from collections.abc import Iterator
from types import ModuleType

MACRO_DIR = Path(__file__).resolve().parents[2] / "macros"
HEADERS = ("weighted_roc.h", "column_reader.h", "class_tables.h")


@functools.cache
def root() -> ModuleType:
    """Import and configure ROOT once per process; raise if a header does not compile."""
    warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
    warnings.filterwarnings("ignore", message=r"\s*.*alpha", category=UserWarning)
    import ROOT  # noqa: PLC0415 - deliberately lazy: the import costs start-up time

    ROOT.gROOT.SetBatch(True)
    ROOT.TH1.AddDirectory(False)
    ROOT.gInterpreter.AddIncludePath(str(MACRO_DIR))
    # cling emits machine code lazily, at a function's first call, with the optimisation level
    # in force then (default 1). `#pragma cling optimize` in a header had no effect (measured);
    # so: declare and warm the kernels up at -O3, then restore level 1 for RDataFrame's JIT.
    ROOT.gInterpreter.ProcessLine(".O 3")
    try:
        for header in HEADERS:
            if not ROOT.gInterpreter.Declare(f'#include "{header}"'):
                raise RuntimeError(f"cling could not compile {MACRO_DIR / header}; see the errors above")
        _warm_up(ROOT)
    finally:
        ROOT.gInterpreter.ProcessLine(".O 1")
    return ROOT


def _warm_up(ROOT: ModuleType) -> None:
    """Call every kernel once on two events so that it is compiled at the current level."""
    import numpy as np  # noqa: PLC0415

    weight, label = np.ones(2), np.array([0, 1], dtype=np.uint8)
    out = [np.empty(3) for _ in range(3)] + [np.empty(1)]
    ROOT.pnetviz.roc_curve_f32(np.zeros(2, np.float32), weight, label, 2, *out)
    ROOT.pnetviz.roc_curve_f64(np.zeros(2), weight, label, 2, *out)
    for min_chunk in (1, 2):  # event-level and binned bootstrap
        ROOT.pnetviz.roc_bootstrap_f32(np.zeros(2, np.float32), weight, label, 2, 1, 1, 0.5, min_chunk, out[3], np.empty(1))
        ROOT.pnetviz.roc_bootstrap_f64(np.zeros(2), weight, label, 2, 1, 1, 0.5, min_chunk, out[3], np.empty(1))
    chunks, n_chunks = np.empty(4 * 3), np.zeros(1, dtype=np.uint64)  # 4 rows of n // min_chunk + 1
    ROOT.pnetviz.roc_curve_chunks_f32(np.zeros(2, np.float32), weight, label, 2, *out, 1, chunks, n_chunks)
    ROOT.pnetviz.roc_curve_chunks_f64(np.zeros(2), weight, label, 2, *out, 1, chunks, n_chunks)
    ROOT.pnetviz.bootstrap_chunks(*np.ones((4, 2)), 2, 1, 1, 0.5, out[3], np.empty(1))
    ROOT.pnetviz.auc_weight_modes_f32(np.zeros(2, np.float32), weight, label, 2, out[0])
    ROOT.pnetviz.auc_weight_modes_f64(np.zeros(2), weight, label, 2, out[0])
    ROOT.pnetviz.upper_hull(np.zeros(2), np.ones(2), 2, np.empty(2, dtype=np.int64))
    tables = [np.empty(4) for _ in range(4)]  # k = 2 classes, one bin
    ROOT.pnetviz.class_tables_f32(np.zeros(2, np.float32), 1, 2, np.zeros(1, np.int32), weight, label, 1, *tables)
    ROOT.pnetviz.class_tables_f64(np.zeros(2), 1, 2, np.zeros(1, np.int32), weight, label, 1, *tables)
    ROOT.pnetviz.read_columns("", "", [], np.zeros(1, np.uint64), np.zeros(1, np.int32), 0, 1, "")
    run = ROOT.pnetviz.sort_run_f64(np.zeros(2), weight, label, 2)
    ROOT.pnetviz.sweep_run_f64(ROOT.pnetviz.merge_runs_f64(run, run), *out[:3], out[3])


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
