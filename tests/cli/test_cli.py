"""Exit codes, one-line errors and staged output shared by every script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pnetviz.cli.common import EXIT_USER_ERROR, run
from pnetviz.errors import InputError

REPO = Path(__file__).resolve().parents[2]


def test_input_error_becomes_exit_2_with_one_line(capsys):
    def main(argv):
        raise InputError("x.root: branch 'weight' is missing. Fix: add it.")

    assert run(main, []) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert err == "pnetviz: error: x.root: branch 'weight' is missing. Fix: add it.\n"


def test_script_reports_bad_output_with_exit_2_and_no_traceback(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    proc = subprocess.run(
        [sys.executable, str(REPO / "python" / "makeDemo.py"), "--output", str(blocker / "res"), "--events", "200", "--folds", "1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("pnetviz: error: ") and "--output" in proc.stderr


def test_help_explains_options():
    proc = subprocess.run([sys.executable, str(REPO / "python" / "makeDemo.py"), "--help"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert "--events" in proc.stdout and "contract" in proc.stdout
