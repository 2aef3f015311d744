"""Campaigns on a batch system (`--cluster slurm|htcondor`, campaign/batch.py) on a real, private
single-node SLURM (tests/campaign/slurm.py; one per module, skipped with the reason where SLURM
is not installed): the same reports as a local run, TLS between scheduler and workers, a worker
job cancelled mid-run replaced and its job sent again, no job left in the queue after success,
failure or Ctrl-C, one line when no worker starts. HTCondor cannot run here: its generated
submit description is checked. The retry and tick logic of execute() is checked on a local
cluster (no batch system needed)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SMALL_SIGNALS, small_tree
import slurm as private  # tests/campaign/slurm.py: pytest puts this directory on sys.path
from pnetviz.campaign import batch, cluster, execute
from pnetviz.campaign.plan import Job
from pnetviz.cli.campaign import parse_args
from pnetviz.errors import InputError

PNETVIZ = str(Path(sys.executable).with_name("pnetviz"))
SIGNALS = SMALL_SIGNALS
REPORTS = "results/Run3Mu/binary/*/*/fold-0/summary_report.json"
WAIT = 150  # seconds a campaign subprocess may take at most (they take 15-30 s here)


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    reason = private.unavailable()
    if reason:
        print(f"SKIPPED test_slurm: {reason}", file=sys.stderr)
        pytest.skip(reason)
    with private.PrivateSlurm(tmp_path_factory.mktemp("slurm")) as s:
        yield s
    assert not s.pids  # stopped by pid


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return small_tree(tmp_path_factory.mktemp("batch") / "results")


def campaign(slurm, results: Path, plots: Path, *extra: str) -> subprocess.Popen:
    """`pnetviz campaign` of the binary models in a subprocess; --images none (the reports are the subject)."""
    argv = [PNETVIZ, "campaign", "--results-dir", str(results), "--plots-dir", str(plots), "--kinds", "binary",
            "--images", "none", "--bootstrap", "50", *extra]  # fmt: skip
    return subprocess.Popen(argv, env=slurm.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=plots.parent)  # fmt: skip


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _, err = proc.communicate(timeout=WAIT)
    return proc.returncode, err


def wait_for(predicate, timeout: float = 90.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def reports(plots: Path) -> dict[str, dict]:
    """Every output set's summary report, the output tree's own path made neutral."""
    out = {}
    for path in sorted(plots.glob(REPORTS)):
        text = path.read_text().replace(str(plots.resolve()), "<plots>")
        out[str(path.relative_to(plots))] = json.loads(text)
    return out


def worker_command_lines() -> list[str]:
    lines = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"distributed.cli.dask_worker" in argv:
            lines.append(" ".join(a.decode() for a in argv if a))
    return lines


@pytest.mark.slow
def test_slurm_campaign_writes_the_local_reports_over_tls_and_leaves_no_job(slurm, results, tmp_path):
    local = tmp_path / "local" / "plots"
    local.parent.mkdir()
    code, err = finish(campaign(slurm, results, local, "--workers", "2", "-q"))
    assert code == 0, err
    expected = reports(local)
    assert len(expected) == 6

    plots = tmp_path / "slurm" / "plots"
    plots.parent.mkdir()
    proc = campaign(slurm, results, plots, "--cluster", "slurm", "--jobs", "2")
    seen: list[str] = []

    def two_workers() -> bool:
        seen[:] = worker_command_lines()
        return len(seen) >= 2 or proc.poll() is not None

    wait_for(two_workers, what="two dask workers started by SLURM")
    code, err = finish(proc)
    assert code == 0, err
    assert len(seen) >= 2
    for line in seen:  # the job script: the scheduler's tls:// address and this venv's Python
        assert re.search(r" -m distributed\.cli\.dask_worker tls://[\w.:\[\]-]+:\d+ ", line), line
        assert line.startswith(sys.executable) and "--tls-ca-file" in line and "--tls-key" in line
    assert "[pnetviz campaign] --cluster slurm: 2 jobs of 1 core, memory 3 GB, walltime 00:30:00" in err
    assert re.search(r"slurm: \d of 2 workers up; queue: .*(PENDING|RUNNING)", err), err
    assert reports(plots) == expected
    rows = [(p / "campaign" / "campaign_summary.csv").read_text().splitlines() for p in (plots, local)]
    assert rows[0][0] == rows[1][0] and sorted(rows[0]) == sorted(rows[1])  # rows in completion order
    assert slurm.wait_empty() == []
    assert not list(plots.glob(".pnetviz-dask-*"))  # the credentials are gone
    assert len(list((plots / "batch-logs").glob("*.err"))) >= 2  # the worker jobs' logs stay


@pytest.mark.slow
def test_a_cancelled_worker_job_is_replaced_and_its_job_sent_again(slurm, results, tmp_path):
    plots = tmp_path / "plots"
    proc = campaign(slurm, results, plots, "--cluster", "slurm", "--jobs", "2", "-q")
    wait_for(lambda: list(plots.glob(REPORTS)) or proc.poll() is not None, what="a first report")
    running = slurm.squeue()
    assert len(running) == 2 and proc.poll() is None, running
    slurm.command("scancel", running[0])  # its worker was running the next job (6 jobs, 2 workers)
    code, err = finish(proc)
    assert code == 0, err
    assert len(reports(plots)) == 6
    report = json.loads((plots / "campaign" / "summary_report.json").read_text())
    assert report["jobs"]["done"] == 6 and report["jobs"]["failed"] == 0
    assert slurm.wait_empty() == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.slow
def test_an_interrupted_campaign_leaves_no_job(slurm, results, tmp_path, sig):
    plots = tmp_path / "plots"
    proc = campaign(slurm, results, plots, "--cluster", "slurm", "--jobs", "2", "-q")
    wait_for(lambda: len(worker_command_lines()) >= 2 or proc.poll() is not None, what="the workers")
    assert proc.poll() is None and len(slurm.squeue()) == 2, finish(proc)
    proc.send_signal(sig)
    code, err = finish(proc)
    assert code == 130 and "pnetviz: interrupted" in err, err
    assert slurm.wait_empty() == []
    assert not list(plots.glob(".pnetviz-dask-*"))


@pytest.mark.parametrize("extra, message", [
    (("--job-walltime", "02:00:00", "--start-timeout", "4"),  # longer than the partition's 60 min: pending forever
     r"--cluster slurm: no worker connected within 4 s \(0 of 1 workers up; queue: 1 PENDING \(PartitionTimeLimit\)\)"),
    (("--job-queue", "nosuch"), r"--cluster slurm: sbatch refused the worker job \(sbatch: error: .*Invalid partition name.*\)"),
])  # fmt: skip
@pytest.mark.slow
def test_no_worker_is_one_line_exit_2_and_no_job(slurm, results, tmp_path, extra, message):
    plots = tmp_path / "plots"
    code, err = finish(campaign(slurm, results, plots, "--cluster", "slurm", "--jobs", "1", "-q", *extra))
    lines = [line for line in err.splitlines() if line.startswith("pnetviz: error:")]
    assert code == 2 and len(lines) == 1 and re.search(message, lines[0]), err
    assert "Traceback" not in err
    assert slurm.wait_empty() == []
    assert not list(plots.glob(".pnetviz-dask-*"))


def test_htcondor_submit_description(tmp_path):
    """The HTCondor job of `--cluster htcondor --job-memory '4 GB' --job-walltime 02:00:00
    --job-queue workday`: one core, the memory and disk requests, the CERN time limit and
    flavour, the worker started by this venv's Python with the scheduler's tls:// address and
    the credentials in the private shared directory."""
    from distributed.security import Security

    spec = batch.resolve("htcondor", 3, "4 GB", "02:00:00", "workday")
    assert spec.describe() == ("--cluster htcondor: 3 jobs of 1 core, memory 4 GB, walltime 02:00:00, JobFlavour "
                               f"workday, disk 2 GB; workers run {sys.executable}")  # fmt: skip
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o700)
    with batch.make_cluster(spec, Security.temporary(), shared, tmp_path / "logs", "pnetviz-test") as condor:
        script = condor.job_script()
        address = condor.scheduler_address
    assert address.startswith("tls://")
    header = dict(line.split(" = ", 1) for line in script.splitlines() if " = " in line)
    assert header["MY.DaskWorkerCores"] == "1" and header["RequestCpus"] == "MY.DaskWorkerCores"
    assert header["MY.DaskWorkerMemory"] == "4000000000" and header["MY.DaskWorkerDisk"] == "2000000000"
    assert header["+MaxRuntime"] == "7200" and header["+JobFlavour"] == '"workday"'
    assert header["Output"].startswith("$(LogDirectory)/worker-") and header["LogDirectory"] == str(tmp_path / "logs")
    arguments = header["Arguments"]
    assert f"{sys.executable} -m distributed.cli.dask_worker {address} " in arguments
    assert "--nthreads 1" in arguments and "--protocol tls://" in arguments
    for option in ("--tls-ca-file", "--tls-cert", "--tls-key"):
        path = re.search(rf"{option} (\S+)", arguments).group(1)
        assert Path(path).parent == shared, (option, path)


def test_resources_come_from_the_options_then_the_jobqueue_config():
    import dask

    with dask.config.set({"jobqueue.slurm.memory": "6 GB", "jobqueue.slurm.queue": "short",
                          "jobqueue.slurm.walltime": "01:00:00"}):  # fmt: skip
        spec = batch.resolve("slurm", 2)
        assert (spec.memory, spec.queue, spec.walltime, spec.python) == ("6 GB", "short", "01:00:00", sys.executable)
        spec = batch.resolve("slurm", 2, "8 GB", "1-00:00:00", "long")
        assert (spec.memory, spec.queue, spec.walltime) == ("8 GB", "long", "1-00:00:00")
    spec = batch.resolve("slurm", 1)  # dask-jobqueue's own default walltime; pnetviz's memory
    assert (spec.memory, spec.queue, spec.walltime) == (batch.DEFAULT_MEMORY, None, "00:30:00")
    # SLURM's forms: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:minutes[:seconds]]
    forms = {"90": 5400, "02:30": 150, "02:00:00": 7200, "1-02": 93600, "1-02:03": 93780, "1-02:03:04": 93784}
    assert {text: batch.walltime_seconds(text) for text in forms} == forms
    for bad in ("2h", "01:60:00", "0", "1:2:3:4"):
        with pytest.raises(InputError):
            batch.walltime_seconds(bad)


@pytest.mark.parametrize("argv, message", [
    (["--jobs", "2"], "--jobs is for batch worker jobs. Fix: add --cluster slurm"),
    (["--cluster", "slurm", "--workers", "2"], "--workers with --cluster slurm"),
    (["--cluster", "slurm", "--scheduler", "tcp://h:8786"], "--scheduler with --cluster slurm"),
    (["--cluster", "slurm", "--jobs", "0"], "--jobs 0: give the number of batch jobs"),
    (["--cluster", "slurm", "--job-memory", "500 MB"], "--job-memory '500 MB': give a size of at least 1 GiB"),
    (["--cluster", "htcondor", "--job-walltime", "2h"], "--job-walltime '2h': not a time"),
    (["--cluster", "slurm", "--job-queue", "a b"], "--job-queue 'a b': not a queue name"),
    (["--cluster", "slurm", "--start-timeout", "0"], "--start-timeout 0: give a number of seconds"),
])  # fmt: skip
def test_bad_batch_options_are_one_line(argv, message):
    with pytest.raises(InputError, match=re.escape(message)):
        parse_args(argv, "pnetviz campaign")


def test_the_dry_run_shows_the_resolved_request(results, capsys, tmp_path):
    from pnetviz.cli.common import run
    from pnetviz.cli.campaign import main

    argv = ["--results-dir", str(results), "--kinds", "binary", "--cluster", "slurm", "--job-queue", "short", "--dry-run",
            "--plots-dir", str(tmp_path / "plots")]  # fmt: skip
    assert run(main, argv) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "[pnetviz campaign] --cluster slurm: 6 jobs of 1 core, memory 3 GB, walltime 00:30:00, partition short; "
        f"workers run {sys.executable}")  # fmt: skip


def dies_once(marker: str, command: str, argv: list[str]) -> int:
    """Kills its worker process the first time a job named `argv[0]` in `marker`'s directory runs."""
    flag = Path(marker) / argv[0]
    if argv[0].startswith("lost") and not flag.exists():
        flag.touch()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return 0


@pytest.mark.parametrize("retries", [0, 2])
@pytest.mark.slow
def test_a_job_whose_worker_is_lost_is_sent_again_up_to_the_retries(tmp_path, retries):
    import functools

    names = ("a", "lost", "b", "c")
    jobs = [Job("binary", "Run3Mu", "MHc100_MA95", None, n, (0,), "x", (n,), (), ()) for n in names]
    with cluster.local_client(2) as client:
        out = execute.execute(jobs, client, functools.partial(dies_once, str(tmp_path)), lambda r: None, timeout=30,
                              setup=None, retries=retries)  # fmt: skip
    got = {r.job.pair: (r.code, r.message) for r in out}
    lost = (0, "") if retries else (1, "its worker died: SIGKILL (killed from outside, e.g. by the kernel when memory ran out)")
    assert got == {"a": (0, ""), "b": (0, ""), "c": (0, ""), "lost": lost}


@pytest.mark.slow
def test_a_tick_reason_fails_the_jobs_left(tmp_path):
    jobs = [Job("binary", "Run3Mu", "MHc100_MA95", None, n, (0,), "x", (n,), (), ()) for n in ("a", "b", "c", "d")]
    ticks = []

    def tick() -> str | None:
        ticks.append(1)
        return "no worker of --cluster slurm for 600 s" if len(ticks) > 1 else None

    with cluster.local_client(1) as client:
        out = execute.execute(jobs, client, lambda c, a: time.sleep(2) or 0, lambda r: None, timeout=30, setup=None,
                              on_tick=tick)  # fmt: skip
    assert len(out) == 4
    assert {(r.code, r.message) for r in out} == {(1, "no worker of --cluster slurm for 600 s")}
    assert len(ticks) == 2
