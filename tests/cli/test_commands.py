"""The command line: one meaning per option, no silent analysis defaults, every evaluation
option passed on by the campaign (the commands and paths of README.md and docs/: tests/test_docs.py)."""

from __future__ import annotations

import shlex

import pytest

from conftest import load_script
from pnetviz.cli import common
from pnetviz.cli.commands import parser_of
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold
from pnetviz.errors import PnetvizWarning


@pytest.fixture(scope="module")
def two_channels(tmp_path_factory):
    results = tmp_path_factory.mktemp("two") / "results"
    for channel in ("Run1E2Mu", "Run3Mu"):
        write_trainer_fold(results, channel, "MHc130_MA90", 0, events=300, seed=1)
    return results


def test_missing_channel_is_an_error_listing_what_exists(two_channels, capsys):
    argv = ["--results-dir", str(two_channels), "--signal", "MHc130_MA90", "--background", "nonprompt"]
    assert run(load_script("visualizeBinary").main, argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give --channel; channels found: Run1E2Mu, Run3Mu" in err


def test_the_only_signal_is_taken_and_a_wrong_one_named(two_channels, tmp_path, capsys):
    argv = ["--results-dir", str(two_channels), "--channel", "Run3Mu", "--background", "nonprompt",
            "--plots-dir", str(tmp_path), "--formats", "png", "--bootstrap", "0", "-q", "--no-bjet-comparison"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    assert list(tmp_path.glob("results/Run3Mu/binary/MHc130_MA90*/**/fold-0/summary_report.json"))
    assert run(load_script("visualizeBinary").main, [*argv, "--signal", "MHc130_MA95"]) == 2
    assert "signals found: MHc130_MA90" in capsys.readouterr().err


def test_predictions_without_identity_need_output_or_names(two_channels, tmp_path, capsys):
    ntuple = next(two_channels.glob("Run3Mu/binary/*/fold-0/trees/*nonprompt.root"))
    lone = tmp_path / "lone.root"
    lone.write_bytes(ntuple.read_bytes())  # no trainer JSON beside it
    assert run(load_script("visualizeBinary").main, ["--predictions", str(lone)]) == 2
    assert "give --channel and --signal (or --output)" in capsys.readouterr().err


def test_every_evaluation_option_reaches_the_jobs_that_have_it(two_channels, capsys, tmp_path):
    extra = ["--subset", "has_bjet", "--hull", "--signal-scale", "2", "--classes", "signal,nonprompt,diboson,ttX",
             "--pair", "ttZ:ttX", "--threads", "2", "--tree", "Events", "--labels", "ttX=t#bar{t}X",
             "--weights", "signed", "--compare-subset", "has_bjet", "--syst-kappa", "0.5"]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, ["--results-dir", str(two_channels), "--dry-run", "--plots-dir", str(tmp_path / "plots"), *extra]) == 0
    lines = [shlex.split(line) for line in capsys.readouterr().out.splitlines() if line.startswith("    pnetviz ")]
    by_kind = {}
    for argv in lines:
        by_kind.setdefault(argv[1], []).append(argv[2:])
    assert set(by_kind) == {"binary", "multiclass", "compare"}
    for kind, argvs in by_kind.items():
        args = parser_of(kind).parse_args(argvs[0])  # every job's argv is valid for its command
        for opt in common.EVALUATION:
            if opt.campaign and kind in opt.kinds and opt.flags[-1] in extra:
                assert opt.flags[-1] in argvs[0], (kind, opt.flags)
        assert args.subset == "has_bjet" and args.hull and args.signal_scale == 2.0 and args.threads == 2
    assert parser_of("compare").parse_args(by_kind["compare"][0]).pair == "ttZ:ttX"
    assert "--classes" not in by_kind["binary"][0] and "--compare-subset" in by_kind["binary"][0]


def test_campaign_output_is_the_plots_dir_with_a_warning(two_channels, tmp_path, capsys):
    argv = ["--results-dir", str(two_channels), "--output", str(tmp_path / "p"), "--dry-run"]
    with pytest.warns(PnetvizWarning, match="now --plots-dir"):
        assert run(load_script("visualizeCampaign").main, argv) == 0
    assert f"--plots-dir {tmp_path / 'p'}" in capsys.readouterr().out


HUGEPAGE_PROBE = """
import sys
from numpy._core import multiarray
from pnetviz.cli.commands import run_command
code = run_command("binary", ["--results-dir", sys.argv[1]])  # a user mistake: exit 2, after the switch
print(code, multiarray._set_madvise_hugepage(True))  # returns the setting the command left
"""


@pytest.mark.parametrize("env, advised", [({}, "False"), ({"NUMPY_MADVISE_HUGEPAGE": "1"}, "True")])
def test_commands_turn_off_numpys_huge_page_advice_unless_the_user_set_it(tmp_path, env, advised):
    import os
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    out = subprocess.run([sys.executable, "-c", HUGEPAGE_PROBE, str(tmp_path / "missing")], env={**clean, **env},
                         capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    assert out == ["2", advised]


PARSER_PROBE = """
import os, sys
from pnetviz.cli.commands import run_command
try:
    code = run_command("binary", ["--help"])
except SystemExit as stop:
    code = stop.code
print(code, "numpy" in sys.modules, os.environ.get("NUMPY_MADVISE_HUGEPAGE"))
from numpy._core import multiarray
print(multiarray._set_madvise_hugepage(True))  # returns the setting numpy took from the variable as it was imported
"""


def test_a_command_that_stops_in_its_parser_imports_no_numpy_and_leaves_the_advice_off(tmp_path):
    import os
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    out = subprocess.run([sys.executable, "-c", PARSER_PROBE], env=clean, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    assert out[-4:] == ["0", "False", "0", "False"]


BLAS_PROBE = """
import os, sys
from pnetviz.cli.commands import run_command
code = run_command("binary", ["--results-dir", sys.argv[1]])  # a user mistake: exit 2, after numpy's import
print(code, "numpy" in sys.modules, os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
"""


@pytest.mark.parametrize("env, timeout", [({}, "4"), ({"OPENBLAS_THREAD_TIMEOUT": "28"}, "28")])
def test_commands_have_openblas_threads_sleep_after_a_call_unless_the_user_set_it(tmp_path, env, timeout):
    import os
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    out = subprocess.run([sys.executable, "-c", BLAS_PROBE, str(tmp_path / "missing")], env={**clean, **env},
                         capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    assert out == ["2", "True", timeout]


def test_the_blas_spin_is_left_as_it_is_once_numpy_is_imported(monkeypatch):
    import os

    import numpy  # noqa: F401 - OpenBLAS has read its variables

    from pnetviz.cli.commands import BLAS_SPIN, short_blas_spin

    monkeypatch.delenv(BLAS_SPIN, raising=False)
    assert not short_blas_spin() and BLAS_SPIN not in os.environ
