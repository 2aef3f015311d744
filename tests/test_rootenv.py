"""rootenv: cling's optimisation level in a process (issue 55: the fixed cost of a process). A
process is at one level from cling's start to its end: level 3 as root() sets it, or level 0 for
the whole process when start_unoptimized() ran before ROOT started (the evaluation commands);
level 0 and a level above it never meet in one process (they broke the example notebook)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pnetviz.rootenv import CLING_ARGS, start_level

LEVEL = "root().gInterpreter.ProcessLine('.O')\n"  # cling prints the level in force
START = "from pnetviz.rootenv import compiled, root, start_unoptimized\n"


def run(code: str, extra: str | None = None, **variables: str) -> tuple[list[int], str]:
    """(the levels cling printed, in order, for each LEVEL line of `code`, the whole output) of
    `code` run in a fresh process (EXTRA_CLING_ARGS=`extra`, unset for None; `variables` set)."""
    env = {k: v for k, v in os.environ.items() if k not in (CLING_ARGS, "PNETVIZ_KERNELS")} | variables
    env |= {} if extra is None else {CLING_ARGS: extra}
    done = subprocess.run([sys.executable, "-c", START + code], capture_output=True, text=True, timeout=300, check=True,
                          env=env)  # fmt: skip
    return [int(level) for level in re.findall(r"optimization level: (\d+)", done.stdout)], done.stdout


@pytest.mark.parametrize(("extra", "level"), [
    (None, 1), ("", 1), ("-O0", 0), ("-std=c++17 -O3", 3), ("-O0 -O2", 2), ("-Os", 2), ("-I/x -O1", 1),
])  # fmt: skip
def test_start_level_is_the_last_O_flag_of_extra_cling_args(monkeypatch, extra, level):
    if extra is None:
        monkeypatch.delenv(CLING_ARGS, raising=False)
    else:
        monkeypatch.setenv(CLING_ARGS, extra)
    assert start_level() == level


def test_start_unoptimized_keeps_level_0_for_the_whole_process():
    kernel = "compiled('namespace pnetviz_t56 { inline int one() { return 1; } }', 't56')\n"
    code = "print('set', start_unoptimized())\n" + LEVEL + kernel + LEVEL + "import os\nprint('args', os.environ['EXTRA_CLING_ARGS'])\n"
    found, out = run(code)
    assert found == [0, 0]
    assert "set True" in out and "args -O0" in out  # the variable stays: this process's children start at 0 too


def test_root_sets_level_3_otherwise():
    assert run(LEVEL)[0] == [3]


@pytest.mark.slow  # three fresh ROOT processes
def test_start_unoptimized_leaves_a_user_setting_and_a_started_root_alone():
    assert run("print(start_unoptimized())\n" + LEVEL, extra="-O2") == ([3], "False\nCurrent cling optimization level: 3\n")
    assert run("print(start_unoptimized())\n" + LEVEL, extra="-O0") == ([0], "False\nCurrent cling optimization level: 0\n")
    started = "import ROOT\nROOT.gROOT.GetVersion()\nassert not start_unoptimized()\n"
    assert run(started + LEVEL)[0] == [3]


@pytest.mark.parametrize(("command", "variables", "level"), [
    ("binary", {}, "-O0"), ("render", {}, "-O0"), ("demo", {}, None), ("campaign", {}, None),
    ("binary", {"PNETVIZ_KERNELS": "jit"}, None),  # the kernels through cling: level 3
    ("binary", {"CXX": "/nonexistent/c++"}, None),  # no compiler: the same
])  # fmt: skip
def test_the_evaluation_commands_start_unoptimized_and_the_others_do_not(command, variables, level):
    """The console command sets the level before its subcommand runs (here: only parses --help)."""
    code = (f"from pnetviz.cli.main import main\ntry:\n    main(['{command}', '--help'])\nexcept SystemExit:\n    pass\n"
            "import os, sys\nprint('args', os.environ.get('EXTRA_CLING_ARGS'), 'cppyy' in sys.modules)\n")  # fmt: skip
    assert run(code, **variables)[1].splitlines()[-1] == f"args {level} False"  # set before ROOT starts (--help starts none)


@pytest.mark.parametrize(("script", "level"), [("visualizeMultiClass", "-O0"), ("visualizeCampaign", None)])
def test_the_named_scripts_start_as_their_commands(script, level):
    path = Path(__file__).resolve().parents[1] / "python" / f"{script}.py"
    code = (f"import runpy, sys\nsys.argv = ['{script}.py', '--help']\ntry:\n    runpy.run_path({str(path)!r}, run_name='__main__')\n"
            "except SystemExit:\n    pass\nimport os\nprint('args', os.environ.get('EXTRA_CLING_ARGS'), 'cppyy' in sys.modules)\n")  # fmt: skip
    assert run(code)[1].splitlines()[-1] == f"args {level} False"
