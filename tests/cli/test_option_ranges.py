"""Every numeric option of every subcommand has a stated range, checked while the command line is
read: NaN, infinity and a value outside the range are one line naming the option (exit 2), before
any work. Before: `--job-timeout 1e10 --workers 0` crashed with OverflowError (time_t)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO
from pnetviz.cli import ranges
from pnetviz.cli.commands import COMMANDS, parser_of, run_command

def numeric_options() -> list[tuple[str, str, ranges.Range]]:
    """(command, flag, range) of every option read as a number, from the parsers themselves."""
    found = []
    for command in COMMANDS:
        for action in parser_of(command)._actions:
            assert action.type not in (int, float), f"pnetviz {command} {action.option_strings}: a number without a range"
            if isinstance(action.type, ranges.Range):
                found.append((command, action.option_strings[-1], action.type))
    return found


NUMERIC = numeric_options()


def test_the_table_holds_every_numeric_option():
    flags = {(c, f) for c, f, _ in NUMERIC}
    for flag in ("--signal-scale", "--bootstrap", "--seed", "--energy", "--threads"):
        assert ("binary", flag) in flags and ("campaign", flag) in flags
    assert {("campaign", f) for f in ("--workers", "--job-timeout", "--jobs", "--start-timeout")} <= flags
    assert {("demo", "--events"), ("demo", "--folds"), ("ga", "--top"), ("ga", "--p-threshold")} <= flags
    assert ("multiclass", "--syst-kappa") in flags and len(NUMERIC) >= 30


def outside(rng: ranges.Range) -> str:
    """A value just outside the range, above its top."""
    return str(int(rng.high) + 1) if rng.whole else repr(rng.high * 1.5 + 1)


def one_line(err: str, flag: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"pnetviz: error: {flag} ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("command, flag, rng", NUMERIC, ids=[f"{c}{f}" for c, f, _ in NUMERIC])
def test_nan_inf_and_out_of_range_are_one_line(command, flag, rng, capsys):
    for value in ("nan", "inf", "1e400", outside(rng), "x"):
        code = run_command(command, [flag, value])
        line = one_line(capsys.readouterr().err, flag)
        assert code == 2 and f"give {rng.described()}" in line, (value, line)
    default = next(a.default for a in parser_of(command)._actions if a.option_strings and a.option_strings[-1] == flag)
    assert default is None or rng.inside(default)  # the defaults are inside their ranges


def test_ranges_are_stated_in_the_help():
    text = " ".join(parser_of("campaign").format_help().split())
    assert "[range: a number of seconds from 1 to 2592000 (30 days), or 0 (no limit)]" in text
    assert "[range: 0 (every job in this process) or a whole number of worker processes from 1 to 1024]" in text


@pytest.mark.parametrize("flag, value, shown", [
    ("--score-shift", "background=nan", "--score-shift 'background=nan': give shifts in score units above 0 and at most 1"),
    ("--score-shift", "background=inf", "--score-shift 'background=inf'"),
    ("--score-shift", "background=1.5", "not background=1.5"),
    ("--working-points", "nan", "--working-points 'nan'"),
    ("--working-points", "0.5,2", "not a signal efficiency in (0, 1]"),
])  # fmt: skip
def test_number_lists_are_checked_when_read(flag, value, shown, capsys):
    for command in ("binary", "multiclass", "campaign"):
        assert run_command(command, [flag, value]) == 2
        assert shown in one_line(capsys.readouterr().err, flag)


def test_job_timeout_1e10_in_process_is_one_line_not_an_overflow(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "python" / "visualizeCampaign.py"), "--results-dir", str(tmp_path),
                           "--job-timeout", "1e10", "--workers", "0"], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and "OverflowError" not in proc.stderr, proc.stderr
    assert one_line(proc.stderr, "--job-timeout") == ("pnetviz: error: --job-timeout 1e10: give a number of seconds from "
                                                      "1 to 2592000 (30 days), or 0 (no limit).")  # fmt: skip


def test_other_usage_mistakes_are_one_line_too(capsys):
    assert run_command("render", []) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines == ["pnetviz: error: the following arguments are required: paths. Fix: see 'pnetviz render --help'."]
