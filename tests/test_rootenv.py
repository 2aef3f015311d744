"""rootenv: cling's optimisation level. cppyy's call wrappers (most of what cling compiles in a run)
are compiled at level 0, the C++ that computes at level 3 (issue 55: the fixed cost of a process).
Each case runs in a fresh process: the level, once raised, stays for the rest of a process."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

LEVEL = "root().gInterpreter.ProcessLine('.O')\n"  # cling prints the level in force
START = "from pnetviz.rootenv import compiled, optimized, root, set_title\n"


def levels(code: str) -> list[int]:
    """The levels cling printed, in order, for each LEVEL line of `code` run in a fresh process."""
    done = subprocess.run([sys.executable, "-c", START + code], capture_output=True, text=True, timeout=300, check=True)
    return [int(level) for level in re.findall(r"optimization level: (\d+)", done.stdout)]


def test_wrappers_at_level_0_until_c_plus_plus_that_computes_is_declared():
    title = "h = root().TH1D('h55', '', 2, 0, 1)\nset_title(h, 'a;b')\n"  # a helper that only forwards: stays at 0
    kernel = "compiled('namespace pnetviz_t55 { inline int one() { return 1; } }', 't55')\n"
    assert levels(LEVEL + title + LEVEL + kernel + LEVEL + "optimized()\n" + LEVEL) == [0, 0, 3, 3]


@pytest.mark.slow  # a fresh ROOT process each (~1.5 s CPU)
@pytest.mark.parametrize("entry", [
    "from pnetviz.io.kernels import jit\njit()\n",  # the numeric kernels through cling (no compiler, or PNETVIZ_KERNELS=jit)
    "from pnetviz.io.grammar import declare_helpers\ndeclare_helpers()\n",  # --column expressions' RDataFrame loop
    "from pnetviz.io.native import _cling\n_cling()\n",  # the ntuple reader through cling
])  # fmt: skip
def test_cling_compiled_kernels_raise_the_level_to_3(entry):
    assert levels(LEVEL + entry + LEVEL) == [0, 3]
