"""Fault injection on real runs (subprocesses): file-size limit, long paths, SIGKILL at random
instants, concurrent writers, damaged input. Every case: exit code, one-line message, and the
published set complete and from one run."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, contract_columns, load_script, write_ntuple
from pnetviz.cli.common import run
from pnetviz.output.atomic import MARKER, verify_file
from pnetviz.rootenv import root

pytestmark = pytest.mark.slow  # fault injection on real runs in subprocesses

SCRIPT = str(REPO / "python" / "visualizeBinary.py")


@pytest.fixture(scope="module")
def ntuple(tmp_path_factory):
    return write_ntuple(tmp_path_factory.mktemp("in") / "pred.root", contract_columns(n=4000, n_classes=2))


def command(pred: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, SCRIPT, "--predictions", str(pred), "--fold", "0", "--output", str(out), "--formats",
            "png,pdf", "-q", *extra]  # fmt: skip


def set_state(out: Path) -> tuple[int, dict[str, bytes]]:
    """(bootstrap replicas of the run that wrote it, file contents); asserts the set is complete."""
    marker = json.loads((out / MARKER).read_text())
    files = sorted(p.name for p in out.iterdir() if p.name != MARKER)
    assert files == marker["files"], "files differ from the set's own list"
    for name in files:
        assert verify_file(out / name) is None, name
    report = json.loads((out / "summary_report.json").read_text())
    return report["hep_metrics"]["test"]["bootstrap_replicas"], {n: (out / n).read_bytes() for n in files}


def litter(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.pnetviz-") and
                  not p.name.endswith("-lock"))  # fmt: skip


@pytest.fixture(scope="module")
def written_set(ntuple, tmp_path_factory):
    """An output set of 10 bootstrap replicas, written once by a run (copied for each test)."""
    out = tmp_path_factory.mktemp("written") / "out"
    subprocess.run(command(ntuple, out, "--bootstrap", "10"), check=True)
    return out


@pytest.fixture
def old_set(written_set, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(written_set, out, symlinks=True)
    return out


def one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_file_size_limit_fails_cleanly(ntuple, old_set):
    before = set_state(old_set)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (30 * 1024, 30 * 1024))

    proc = subprocess.run(command(ntuple, old_set, "--bootstrap", "20"), preexec_fn=limit, capture_output=True, text=True)
    one_line_error(proc)
    assert set_state(old_set) == before and litter(old_set) == []


def test_output_path_too_long(ntuple, tmp_path):
    deep = tmp_path / "/".join(["d" * 200] * 20)  # about 4 kB: beyond PATH_MAX
    proc = subprocess.run(command(ntuple, deep), capture_output=True, text=True)
    assert "too long" in one_line_error(proc).lower()


def test_sigkill_at_random_instants_leaves_old_or_new(ntuple, old_set):
    old = set_state(old_set)
    seen = set()
    for delay in np.random.default_rng(7).uniform(0.5, 4.5, 6):
        proc = subprocess.Popen(command(ntuple, old_set, "--bootstrap", "20"), stderr=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        replicas, files = set_state(old_set)  # complete, from one run
        assert replicas in (10, 20)
        if replicas == 10:
            assert files == old[1]
        seen.add(replicas)
    subprocess.run(command(ntuple, old_set, "--bootstrap", "30"), check=True)
    assert set_state(old_set)[0] == 30 and litter(old_set) == []  # the next run clears what kills left


def test_concurrent_writers(ntuple, old_set):
    procs = [subprocess.Popen(command(ntuple, old_set, "--bootstrap", str(n)), stderr=subprocess.PIPE, text=True)
             for n in (20, 30)]  # fmt: skip
    results = [(p.wait(), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes in ([0, 0], [0, 2])  # the second stops at once, or they did not overlap
    for code, err in results:
        if code == 2:
            assert "another pnetviz run (pid" in err and "--wait" in err
    assert set_state(old_set)[0] in (20, 30)
    procs = [subprocess.Popen(command(ntuple, old_set, "--bootstrap", str(n), "--wait"), stderr=subprocess.DEVNULL)
             for n in (40, 50)]  # fmt: skip
    assert [p.wait() for p in procs] == [0, 0]
    assert set_state(old_set)[0] in (40, 50) and litter(old_set) == []


def test_branch_filled_fewer_times_than_the_tree(tmp_path, capsys):
    ROOT = root()
    cols = contract_columns(n=4000, n_classes=2)
    weight = cols.pop("weight")
    path = write_ntuple(tmp_path / "uneven.root", cols)
    f = ROOT.TFile.Open(str(path), "UPDATE")
    tree = f.Get("Events")
    value = np.zeros(1)
    branch = tree.Branch("weight", value, "weight/D")
    for w in weight[:2000]:  # test data: a branch filled for half the entries only
        value[0] = w
        branch.Fill()
    tree.Write("", ROOT.TObject.kOverwrite)
    f.Close()
    assert run(load_script("visualizeBinary").main, ["--predictions", str(path), "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "'weight' (2000)" in err and "4000 entries" in err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("scale", [1e160, 1e-170])
def test_extreme_weights_are_one_line(tmp_path, capsys, scale):
    cols = contract_columns(n=600, n_classes=2)
    cols["weight"] = cols["weight"] * scale
    path = write_ntuple(tmp_path / "w.root", cols)
    assert run(load_script("visualizeBinary").main, ["--predictions", str(path), "--output", str(tmp_path / "o")]) == 2
    assert "beyond 1e+-100" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--seed", "-5"], "--seed -5"),
    (["--seed", str(2**70)], "--seed"),
    (["--signal-scale", "inf"], "--signal-scale inf"),
    (["--subset", ""], "--subset ''"),
    (["--output", ""], "--output ''"),
])  # fmt: skip
def test_bad_options_are_one_line(ntuple, tmp_path, capsys, args, message):
    argv = ["--predictions", str(ntuple), "--output", str(tmp_path / "o"), *args]
    assert run(load_script("visualizeBinary").main, argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_empty_class_name_and_lr_denominator(tmp_path, capsys):
    script = load_script("visualizeMultiClass")
    cols = contract_columns(n=800)
    path = write_ntuple(tmp_path / "mc.root", cols)
    assert run(script.main, ["--predictions", str(path), "--classes", "signal,,diboson,ttZ", "--output", str(tmp_path / "o")]) == 2
    assert "non-empty names" in capsys.readouterr().err
    cols = {k: v.astype(np.float64) if k.startswith("score_") else v for k, v in cols.items()}
    cols["score_signal"][:3] = 0.0
    cols["score_nonprompt"][:3] = -1e-10  # P(s) + P(b) + 1e-10 == 0 exactly
    path = write_ntuple(tmp_path / "mc2.root", cols)
    assert run(script.main, ["--predictions", str(path), "--output", str(tmp_path / "o"), "-q"]) == 2
    assert "likelihood ratio is undefined" in capsys.readouterr().err


def test_fold_all_failing_part_way_publishes_nothing(tmp_path, capsys):
    from pnetviz.demo.toys import DemoConfig, write_fold
    from pnetviz.io.layout import PREDICTIONS_FILE, binary_dir

    cfg = DemoConfig(events=1500, folds=2)
    results = tmp_path / "results"
    for fold in range(cfg.folds):
        write_fold(cfg, results, fold)
    out = tmp_path / "out"
    argv = ["--results-dir", str(results), "--background", "ttZ", "--fold", "all", "--output", str(out), "--formats",
            "png", "--bootstrap", "10", "-q"]  # fmt: skip
    script = load_script("visualizeBinary")
    assert run(script.main, argv) == 0
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    (binary_dir(results, cfg.channel, cfg.signal, "ttZ") / "fold-1" / PREDICTIONS_FILE).write_bytes(b"broken")
    assert run(script.main, [*argv[:-2], "20", "-q"]) == 2  # another bootstrap: a new run would differ everywhere
    assert "fold-1" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == before  # fold-0 and folds/ untouched
