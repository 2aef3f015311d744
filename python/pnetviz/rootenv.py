"""The one place that imports ROOT and declares the C++ core.

`root()` returns the configured ROOT module: batch mode, no automatic histogram ownership
by files, the alpha-stage wheel warning silenced, and `macros/weighted_roc.h` declared once.
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from types import ModuleType

MACRO_DIR = Path(__file__).resolve().parents[2] / "macros"
HEADERS = ("weighted_roc.h",)


@functools.cache
def root() -> ModuleType:
    """Import and configure ROOT once per process; raise if a header does not compile."""
    warnings.filterwarnings("ignore", category=UserWarning, module="ROOT")
    warnings.filterwarnings("ignore", message=r"\s*.*alpha", category=UserWarning)
    import ROOT  # noqa: PLC0415 - deliberately lazy: the import costs start-up time

    ROOT.gROOT.SetBatch(True)
    ROOT.TH1.AddDirectory(False)
    ROOT.gInterpreter.AddIncludePath(str(MACRO_DIR))
    for header in HEADERS:
        if not ROOT.gInterpreter.Declare(f'#include "{header}"'):
            raise RuntimeError(f"cling could not compile {MACRO_DIR / header}; see the errors above")
    return ROOT
