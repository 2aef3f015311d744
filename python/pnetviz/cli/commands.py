"""The `pnetviz` subcommands: name -> module and one-line summary, and the runner that the
campaign hands to its workers (a subcommand's main with an argv, as exit code)."""

from __future__ import annotations

import ctypes
import importlib
import os
import shutil
import sys
from collections.abc import Sequence

from pnetviz.cli import common
from pnetviz.rootenv import start_unoptimized

COMMANDS = {
    "binary": ("pnetviz.cli.binary", "evaluate a binary classifier (signal vs one background), per fold"),
    "multiclass": ("pnetviz.cli.multiclass", "evaluate a multi-class classifier (likelihood-ratio pairs), per fold"),
    "compare": ("pnetviz.cli.compare", "binary models vs the multi-class likelihood-ratio score, per fold"),
    "campaign": ("pnetviz.cli.campaign", "every model of a results directory on Dask, plus the round's summary"),
    "render": ("pnetviz.cli.render", "write the PNG/PDF a run left to stored canvases (the PDFs for a note)"),
    "ga": ("pnetviz.cli.ga", "evaluate a whole GA hyperparameter search (every iteration and model): the true best model"),
    "diff": ("pnetviz.cli.diff", "round B against round A: matched models, delta AUC with paired fold tests, Holm-adjusted"),
    "datamc": ("pnetviz.cli.datamc", "data against the stacked simulation of an analysis' samples: verdicts, systematics, blinding"),
    "demo": ("pnetviz.cli.demo", "write the shipped demo: a toy results tree in the trainer's layout"),
}


# The commands whose computing C++ is built by the system's compiler (io.kernels, draw.native, the
# reader): cling compiles only cppyy's call wrappers and small helpers for them, at level 0
# (rootenv.start_unoptimized). Without a compiler, or with PNETVIZ_KERNELS=jit, the kernels are
# cling's: level 3 then.
# Not the campaign (its workers run many commands in one process) nor the demo, ga, diff, datamc
# (RDataFrame's jitted event loops, RooFit: not measured at level 0), which keep level 3.
UNOPTIMIZED = ("binary", "multiclass", "compare", "render")


def main_of(command: str):
    """The `main(argv, prog)` of a subcommand."""
    return importlib.import_module(COMMANDS[command][0]).main


def parser_of(command: str, prog: str | None = None):
    """The ArgumentParser of a subcommand (for checking a command line without running it)."""
    return importlib.import_module(COMMANDS[command][0]).parser(prog or f"pnetviz {command}")


def small_pages() -> bool:
    """Turn off numpy's `madvise(MADV_HUGEPAGE)` on its large arrays for this process, unless the user
    set `NUMPY_MADVISE_HUGEPAGE`; True if it was turned off. Where the kernel's transparent huge pages
    are `defrag=madvise` (the default of many distributions) each advised array's first touch may
    compact memory in the page fault: a default binary evaluation of 1e7 events spent 2.5 s of
    system time against 1.3 s without the advice (benchmarks/README.md, issue 55). Before numpy is
    imported, by the variable numpy reads as it is imported (NUMPY_MADVISE_HUGEPAGE=0, kept for this
    process's children): a command that stops in its parser (--help, a usage error) imports no numpy."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return False
    if "numpy" not in sys.modules:
        os.environ["NUMPY_MADVISE_HUGEPAGE"] = "0"
        return True
    try:
        from numpy._core import multiarray  # the switch behind NUMPY_MADVISE_HUGEPAGE (numpy >= 2)
    except ImportError:  # numpy 1.26
        from numpy.core import multiarray
    multiarray._set_madvise_hugepage(False)
    return True


M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # glibc's mallopt parameters (malloc.h)


def keep_freed_memory() -> bool:
    """For a process that runs one command alone: glibc's malloc keeps the memory a command frees
    for its next allocations instead of giving it back to the system at once: no block is mmap'ed
    (M_MMAP_MAX 0: large arrays come from the heap too, whose freed space is reused) and the heap's
    free top is not trimmed below 2 GB (M_TRIM_THRESHOLD). Each page given back is a page fault
    when memory is asked for again, and a fault costs ~3-5 us of system time in a virtual machine:
    a default binary evaluation of 1e7 events made 594,000 faults (1.5-1.9 s of system time of its
    ~8 s) against 205,000 so (0.6-0.9 s), its peak RSS 854 -> 908 MB (benchmarks/README.md, issue 55).
    Explicit trims (io.native.trim_heap at a job's phase boundaries) still give free pages back.
    A no-op where the C library is not glibc; True if set."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD, 2**31 - 1))


def alone(command: str) -> None:
    """For a process that runs `command` by itself (the console command, the named scripts), before
    anything starts ROOT: cling's level for it (unoptimized) and malloc's keeping of freed memory
    (keep_freed_memory)."""
    unoptimized(command)
    keep_freed_memory()


BLAS_SPIN = "OPENBLAS_THREAD_TIMEOUT"  # OpenBLAS's variable, read as numpy loads it: a worker's spin, 2**value cycles (4-30)


def short_blas_spin() -> bool:
    """Have OpenBLAS's worker threads sleep as soon as a call is done (OPENBLAS_THREAD_TIMEOUT=4,
    2**4 cycles, for this process and its children) instead of spinning 2**28 cycles (~0.1 s) for
    the next one, unless the user set the variable or numpy (which loads OpenBLAS) is imported
    already; True if set. A call long enough for OpenBLAS's threads (metrics.roc.average_precision's
    np.dot) kept one core busy after it: the worker thread's CPU at 1e6 events, 0.82 s in a multi-class
    evaluation and 0.24 s in a binary one, is 0 with it (issue 55; less where the machine is busy:
    the spinning thread yields to other processes).
    The threads and the split of the work stay as they were: every sum is the same."""
    if BLAS_SPIN in os.environ or "numpy" in sys.modules:
        return False
    os.environ[BLAS_SPIN] = "4"
    return True


def unoptimized(command: str) -> bool:
    """For a process that runs `command` alone (the console command, the named scripts), called before
    anything starts ROOT: cling at optimisation level 0 for the whole process if `command` is in
    UNOPTIMIZED and the system's compiler builds the kernels (rootenv.start_unoptimized); True if set.
    Not in run_command: a campaign's workers and the Python API run many commands in one process."""
    ahead = shutil.which(os.environ.get("CXX") or "c++") and os.environ.get("PNETVIZ_KERNELS", "").lower() != "jit"
    return bool(command in UNOPTIMIZED and ahead and start_unoptimized())


def run_command(command: str, argv: Sequence[str], prog: str | None = None) -> int:
    """`pnetviz <command> <argv>` in this process: exit code 0, 1 or 2, one line per error."""
    short_blas_spin()  # before small_pages, which may import numpy
    small_pages()
    main = main_of(command)
    return common.run(lambda a: main(a, prog=prog or f"pnetviz {command}"), list(argv))
