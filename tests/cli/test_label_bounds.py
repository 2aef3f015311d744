"""User text that reaches ROOT's TLatex parser is bounded before it does: --labels, --extra-text
and --run with braces nested more than 8 deep or over 200 characters are one line naming the
option (exit 2). Before: 5000 nested braces in --labels passed the label check and ROOT's TLatex
parser crashed (exit 139). Names from disk reach TLatex escaped (braces as parentheses)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO
from pnetviz import escape

BRACES = "{" * 5000 + "x" + "}" * 5000


def one_line(proc: subprocess.CompletedProcess, flag: str) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1, (proc.returncode, proc.stderr[-2000:])
    assert lines[0].startswith(f"pnetviz: error: {flag} ") and "Fix:" in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold  # noqa: PLC0415

    results = tmp_path_factory.mktemp("labels") / "results"
    write_trainer_fold(results, "Run3Mu", "MHc130_MA90", 0, models=(ModelSpec("binary", "nonprompt"),), events=300)
    return results


@pytest.mark.parametrize("flag, value, shown", [
    ("--labels", f"nonprompt=#bar{BRACES}", "characters, more than 200"),
    ("--labels", "nonprompt=" + "#bar{" * 9 + "t" + "}" * 9, "braces nested more than 8 deep"),
    ("--extra-text", BRACES, "characters, more than 200"),
    ("--extra-text", "#bf{" * 9 + "x" + "}" * 9, "braces nested more than 8 deep"),
    ("--run", "a" * 201, "201 characters, more than 200"),
])  # fmt: skip
def test_deep_or_long_tlatex_is_one_line_not_a_crash(demo, tmp_path, flag, value, shown):
    plots = tmp_path / "plots"
    proc = subprocess.run([sys.executable, str(REPO / "python" / "visualizeBinary.py"), "--results-dir", str(demo),
                           "--plots-dir", str(plots), "--bootstrap", "0", "--formats", "png", "-q", flag, value],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert shown in one_line(proc, flag) and not plots.exists()


def test_the_campaign_refuses_deep_labels_before_any_job(demo, tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "python" / "visualizeCampaign.py"), "--results-dir", str(demo),
                           "--plots-dir", str(tmp_path / "plots"), "--workers", "0", "--labels", f"ttX={BRACES}"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "more than 200" in one_line(proc, "--labels") and not (tmp_path / "plots").exists()


def test_labels_at_the_bounds_still_pass():
    ok = "#bar{" * 8 + "t" + "}" * 8
    assert escape.check_tlatex(ok, "--labels x=") == ok
    assert escape.check_tlatex("a" * 200, "--labels x=") == "a" * 200


def test_names_from_disk_reach_tlatex_without_braces():
    name = "{" * 240 + "#splitline" + "\\" + "x^_"
    drawn = escape.tlatex(name)
    assert not any(ch in drawn for ch in "{}\\#^_") and drawn.startswith("(" * 240)
