"""A directory whose name is not valid UTF-8 (b'...MA90\\xff\\xfe', beside valid ones) is one line
naming it: the single commands stop with exit 2; the campaign leaves it out (one warning line),
evaluates the valid models, writes its summary, site and failure list (the directory listed),
and exits 2. Before: every job failed on Dask (msgpack), then the summary died with a
UnicodeEncodeError traceback; a single evaluation crashed in TLegend::AddEntry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.io import layout

CHANNEL, PREFIX = "Run3Mu", "TTToHcToWAToMuMu-"
GOOD, BAD = "MHc100_MA95", os.fsdecode(b"MHc130_MA90\xff\xfe")
SHOWN = "MHc130_MA90\\xff\\xfe"  # how every message writes the bad name
FAST = ["--bootstrap", "0", "-q"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A results tree: a good signal point and a copy of it under a name that is not UTF-8."""
    results = tmp_path_factory.mktemp("nonutf8") / "results"
    write_trainer_fold(results, CHANNEL, GOOD, 0, models=(ModelSpec("binary", "nonprompt"), ModelSpec("grouped")), events=300)
    for kind in ("binary", "multiclass"):
        shutil.copytree(results / CHANNEL / kind / f"{PREFIX}{GOOD}", results / CHANNEL / kind / f"{PREFIX}{BAD}")
    return results


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.strip()]


@pytest.mark.parametrize("command, extra", [("binary", ["--background", "nonprompt"]), ("multiclass", []), ("compare", [])])
def test_single_command_with_a_name_that_is_not_utf8_is_one_line(tree, tmp_path, capsys, command, extra):
    plots = tmp_path / "plots"
    code = run(load_script({"binary": "visualizeBinary", "multiclass": "visualizeMultiClass",
                            "compare": "visualizeComparison"}[command]).main,
               ["--results-dir", str(tree), "--channel", CHANNEL, "--signal", BAD, "--plots-dir", str(plots), *extra, *FAST])  # fmt: skip
    lines = error_lines(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("pnetviz: error: ") and f"--signal '{SHOWN}'" in lines[0] and "not valid UTF-8" in lines[0]
    assert not plots.exists()


def test_single_command_finding_only_a_bad_directory_names_it(tree, tmp_path, capsys):
    only_bad = tmp_path / "results"
    shutil.copytree(tree / CHANNEL / "binary" / f"{PREFIX}{BAD}", only_bad / CHANNEL / "binary" / f"{PREFIX}{BAD}")
    code = run(load_script("visualizeBinary").main, ["--results-dir", str(only_bad), "--background", "nonprompt",
                                                     "--plots-dir", str(tmp_path / "plots"), *FAST])  # fmt: skip
    lines = error_lines(capsys.readouterr().err)
    assert code == 2 and len(lines) == 1 and f"signal point '{SHOWN}'" in lines[0] and "Traceback" not in lines[0]
    assert lines[0].encode("utf-8") and "\\xff\\xfe" in lines[0]  # printable: the bytes as \xNN


def test_discovery_leaves_the_directory_out_when_asked(tree):
    skipped: dict = {}
    groups = layout.discover(tree, PREFIX, skipped=skipped)
    assert {g.signal for g in groups} == {GOOD}
    assert sorted(skipped) == [tree / CHANNEL / kind / f"{PREFIX}{BAD}" for kind in ("binary", "multiclass")]
    assert all("not valid UTF-8" in why and "\\xff\\xfe" in why and "Fix: rename it" in why for why in skipped.values())
    with pytest.raises(layout.InputError, match="not valid UTF-8"):
        layout.discover(tree, PREFIX)  # without the record: one error, as for '..'


def campaign_argv(tree: Path, plots: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "pnetviz", "campaign", "--results-dir", str(tree), "--plots-dir", str(plots),
            "--images", "none", "--kinds", "binary,multiclass,comparison", *FAST, *extra]  # fmt: skip


def check_campaign(tree: Path, plots: Path, proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr and proc.returncode == 2, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if line.startswith("pnetviz: warning:") and "not valid UTF-8" in line]
    assert len(warned) == 2 and all(SHOWN in line and "left out" in line for line in warned), proc.stderr
    assert "2 of 5 jobs failed" in proc.stderr
    report = json.loads((plots / "campaign" / "summary_report.json").read_text())
    assert report["jobs"]["done"] == 3 and report["jobs"]["failed"] == 2
    assert sorted(j["job"] for j in report["failed"]) == [f"{CHANNEL}/{k}/{PREFIX}{SHOWN}" for k in ("binary", "multiclass")]
    rows = (plots / "campaign" / "campaign_summary.csv").read_text().splitlines()
    assert len(rows) == 1 + 1 + 3 and all(GOOD in r for r in rows[1:])  # binary nonprompt + 3 grouped classes
    assert SHOWN in (plots / "campaign" / "site" / "index.html").read_text()


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO / "python")}


@pytest.mark.slow
def test_campaign_in_process_leaves_the_directory_out_and_writes_its_summary(tree, tmp_path):
    plots = tmp_path / "plots"
    proc = subprocess.run(campaign_argv(tree, plots, "--workers", "0"), capture_output=True, text=True, env=env(), timeout=300)
    check_campaign(tree, plots, proc)


@pytest.mark.slow
def test_campaign_on_the_local_cluster_leaves_the_directory_out(tree, tmp_path):
    plots = tmp_path / "plots"
    proc = subprocess.run(campaign_argv(tree, plots, "--workers", "1"), capture_output=True, text=True, env=env(), timeout=600)
    check_campaign(tree, plots, proc)


@pytest.mark.slow
def test_campaign_results_dir_that_is_not_utf8_is_one_line(tree, tmp_path):
    bad = tmp_path / os.fsdecode(b"res\xff")
    shutil.copytree(tree / CHANNEL / "binary" / f"{PREFIX}{GOOD}", bad / CHANNEL / "binary" / f"{PREFIX}{GOOD}")
    proc = subprocess.run(campaign_argv(bad, tmp_path / "plots", "--workers", "0"), capture_output=True, text=True,
                          env=env(), timeout=120)  # fmt: skip
    lines = error_lines(proc.stderr)
    assert proc.returncode == 2 and len(lines) == 1 and "--results-dir" in lines[0] and "res\\xff" in lines[0], proc.stderr
