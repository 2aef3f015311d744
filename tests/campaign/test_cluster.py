"""A campaign survives its jobs and keeps its cluster to itself: a job that hangs (inside C++,
holding the GIL) or crashes its worker (segfault, abort) fails alone with the real reason, its
worker is replaced, the others finish and the summary is written; the local cluster speaks TLS
with throw-away credentials, so a plain Client cannot connect, let alone run code; a bad
--scheduler or --workers is one line and exit 2, within the connection timeout. No test times
itself: a job that must be stopped records it if it ran to its end."""

from __future__ import annotations

import ctypes
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import SMALL_SIGNALS, load_script, small_tree
from pnetviz.campaign import cluster, execute
from pnetviz.campaign.plan import Job
from pnetviz.cli.common import run

SIGNALS = SMALL_SIGNALS
CRASHES = {("MHc100_MA95", "nonprompt"): "segfault", ("MHc160_MA85", "ttZ"): "abort"}


def fated_runner(fates: dict, command: str, argv: list[str]) -> int:
    """The real `pnetviz <command>`, except for the jobs `fates` names: a segmentation fault
    inside C++ (cling), an abort, a sleep."""
    from pnetviz.cli.commands import run_command

    fate = fates.get((argv[argv.index("--signal") + 1], argv[argv.index("--background") + 1]))
    if fate == "segfault":
        from pnetviz.rootenv import root

        root().gInterpreter.ProcessLine("*(volatile int*)0 = 1;")
    elif fate == "abort":
        os.abort()
    elif fate == "sleep":
        time.sleep(60)
    return run_command(command, argv)


def toy_runner(command: str, argv: list[str]) -> int:
    """Jobs named by their fate: a C-level sleep that holds the GIL (as a C++ loop inside ROOT
    does), a segmentation fault, an immediate exit with status 3; the others take 0.3 s."""
    fate = argv[0]
    if fate == "hang":
        ctypes.PyDLL(None).sleep(3600)
    elif fate == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif fate == "exit":
        os._exit(3)
    time.sleep(0.3)
    return 0


# The toy jobs' timeout: the hang is stopped after it, while a 0.3 s job's round trips (its start
# and end told to the scheduler, on a new worker too) stay far inside it with the other test
# worker of `./run.sh test` busy beside (2 s let them time out on a loaded machine)
TOY_TIMEOUT = 6


# The runners go to the workers by reference: local workers inherit this process's sys.path, so
# they import this module; the external cluster below is given it through PYTHONPATH.


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return small_tree(tmp_path_factory.mktemp("cluster") / "results")


def failures(err: str) -> dict[str, str]:
    """The exit message's failed jobs: name -> reason."""
    lines = err.splitlines()
    start = next(i for i, line in enumerate(lines) if " jobs failed (the others are done" in line)
    return dict(line.strip().split(": ", 1) for line in lines[start + 1:])


@pytest.mark.slow
def test_crashing_jobs_fail_alone_and_the_summary_is_written(results, tmp_path, capsys):
    """A segfault inside ROOT and an abort in a 2-worker local cluster: both named with their
    signal, the other four jobs done (on replaced workers too), the summary written. With a job
    timeout: a crash the campaign did not see would end as 'timed out', not as the signal."""
    plots = tmp_path / "plots"
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--kinds", "binary", "--workers", "2",
            "--formats", "png", "--images", "none", "--bootstrap", "0", "--job-timeout", "300", "-q"]  # fmt: skip
    code = run(lambda a: load_script("visualizeCampaign").main(a, runner=functools.partial(fated_runner, CRASHES)), argv)
    err = capsys.readouterr().err
    assert code == 1 and "pnetviz: 2 of 6 jobs failed" in err and "Traceback" not in err, err
    assert "Break" not in err and "stack trace" not in err  # ROOT's crash handler did not run
    reasons = {"Run3Mu/MHc100_MA95/binary/nonprompt [folds 0]": "its worker died: SIGSEGV (Segmentation fault)",
               "Run3Mu/MHc160_MA85/binary/ttZ [folds 0]": "its worker died: SIGABRT (Aborted)"}  # fmt: skip
    assert failures(err) == reasons
    report = json.loads((plots / "campaign" / "summary_report.json").read_text())
    assert report["jobs"] == {"done": 4, "up to date": 0, "other options": 0, "no ntuple": 0, "failed": 2}
    assert {j["job"]: j["message"] for j in report["failed"]} == reasons
    done = sorted(plots.glob("results/Run3Mu/binary/*/*/fold-0/summary_report.json"))
    assert len(done) == 4 and len(list((plots / "campaign").glob("campaign_summary.csv"))) == 1


@pytest.mark.slow
def test_in_process_a_job_over_time_fails_alone(results, tmp_path, capsys):
    plots = tmp_path / "plots"
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--kinds", "binary", "--signals", "MHc100_MA95",
            "--workers", "0", "--job-timeout", "12", "--formats", "png", "--images", "none", "--bootstrap", "0",
            "-q"]  # fmt: skip
    woke = []  # the sleeping job's argv if its 60 s sleep ran to its end (it must be stopped after 12 s)

    def runner(command, argv):
        code = fated_runner({("MHc100_MA95", "ttZ"): "sleep"}, command, argv)
        woke.append(argv)  # never reached by the job stopped in its sleep
        return code

    code = run(lambda a: load_script("visualizeCampaign").main(a, runner=runner), argv)
    assert len(woke) == 2 and all("ttZ" not in argv for argv in woke), woke  # the others ran; the sleep never ended
    err = capsys.readouterr().err
    assert code == 1 and failures(err) == {"Run3Mu/MHc100_MA95/binary/ttZ [folds 0]": "timed out after 12 s (--job-timeout)"}
    assert len(list(plots.glob("results/Run3Mu/binary/*/*/fold-0/summary_report.json"))) == 2
    assert (plots / "campaign" / "summary_report.json").is_file()


@pytest.mark.slow
def test_hanging_and_crashing_jobs_fail_alone_and_workers_are_replaced():
    """Two workers, eight jobs: one hangs holding the GIL, one segfaults, one exits; each is
    named with its reason, every other job runs (sent again if it waited on a dying worker),
    and the cluster is back to two workers."""
    fates = ("a", "hang", "b", "segfault", "c", "exit", "d", "e")
    jobs = [Job("binary", "Run3Mu", "MHc100_MA95", None, f, (0,), "x", (f,), (), ()) for f in fates]
    seen = []
    with cluster.local_client(2) as client:  # the hang sleeps an hour: this returns only if it is stopped
        out = execute.execute(jobs, client, toy_runner, seen.append, timeout=TOY_TIMEOUT, setup=None)
        client.wait_for_workers(2, timeout=30)
        assert len(client.scheduler_info()["workers"]) == 2
    assert len(out) == 8 and seen == out
    assert {r.job.pair: (r.code, r.message) for r in out} == {
        **{f: (0, "") for f in "abcde"}, "hang": (1, f"timed out after {TOY_TIMEOUT} s (--job-timeout)"),
        "segfault": (1, "its worker died: SIGSEGV (Segmentation fault)"), "exit": (1, "its worker died: exit status 3")}  # fmt: skip


EXTERNAL_CLUSTER = """
import time
from distributed import LocalCluster
if __name__ == "__main__":
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None)
    print(cluster.scheduler_address, flush=True)
    time.sleep(300)
"""


@pytest.mark.slow
def test_a_job_over_time_on_another_cluster_restarts_its_worker_through_the_nanny(tmp_path):
    """A --scheduler cluster whose workers are not this process's children: the worker of a
    job over time is restarted by its nanny, and the next job runs on the new worker."""
    script = tmp_path / "cluster.py"
    script.write_text(EXTERNAL_CLUSTER)
    here = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here), str(here.parent)])}  # this module, conftest
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env)  # fmt: skip
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("tcp://127.0.0.1:"), address
        jobs = [Job("binary", "Run3Mu", "MHc100_MA95", None, f, (0,), "x", (f,), (), ()) for f in ("hang", "a")]
        with cluster.scheduler_client(address) as client:
            before = set(client.scheduler_info()["workers"])
            out = execute.execute(jobs, client, toy_runner, lambda r: None, timeout=TOY_TIMEOUT, setup=None)
            client.wait_for_workers(1, timeout=30)
            after = set(client.scheduler_info()["workers"])
    finally:
        proc.kill()
        proc.wait(timeout=30)
    over = f"timed out after {TOY_TIMEOUT} s (--job-timeout)"
    assert {r.job.pair: (r.code, r.message) for r in out} == {"hang": (1, over), "a": (0, "")}
    assert len(after) == 1 and after != before  # replaced


PLAIN_CLIENT = """
import os, sys, threading
from distributed import Client
from distributed.security import Security
address, marker = sys.argv[1], sys.argv[2]
def plant():
    open(marker, "w").write("ran")
def attempt(addr, security):
    try:
        with Client(addr, security=security, timeout=5) as c:
            c.submit(plant).result(timeout=5)
            c.run(plant)
        print("CONNECTED", addr, flush=True)
    except Exception as err:
        print("refused", addr, type(err).__name__, flush=True)
for addr, security in ((address, None), (address.replace("tls://", "tcp://"), None), (address, Security.temporary())):
    thread = threading.Thread(target=attempt, args=(addr, security), daemon=True)
    thread.start()
    thread.join(15)
    if thread.is_alive():  # distributed waits for the handshake without a deadline
        print("refused", addr, "no answer", flush=True)
os._exit(0)
"""


@pytest.mark.slow  # a TLS cluster and a Python process of three connection attempts
def test_a_plain_client_cannot_reach_the_local_cluster(tmp_path):
    marker = tmp_path / "ran"
    with cluster.local_client(1) as client:
        address = client.scheduler.address
        info = client.scheduler_info()
        listening = [address, *info["workers"], *(w["nanny"] for w in info["workers"].values())]
        assert all(a.startswith("tls://127.0.0.1:") for a in listening), listening
        assert client.dashboard_link.startswith("http://127.0.0.1:")
        assert client.submit(os.getpid, pure=False).result() != os.getpid()  # its own client works
        proc = subprocess.run([sys.executable, "-c", PLAIN_CLIENT, address, str(marker)], capture_output=True,
                              text=True, timeout=60)  # fmt: skip
    assert proc.stdout.count("refused") == 3 and "CONNECTED" not in proc.stdout, proc.stdout + proc.stderr
    assert not marker.exists()


def test_in_process_jobs_time_out_and_the_others_run():
    finished = []  # the jobs that ran to their end: the sleep (60 s) and the spin (30 s) must be stopped

    def runner(command, argv):
        if argv[0] == "sleep":
            time.sleep(60)
        if argv[0] == "spin":  # pure Python, no system call to interrupt
            end = time.monotonic() + 30
            while time.monotonic() < end:
                pass
        finished.append(argv[0])
        return 0

    jobs = [Job("binary", "Run3Mu", "MHc100_MA95", None, what, (0,), "x", (what,), (), ()) for what in ("sleep", "ok", "spin", "ok2")]
    handler = signal.getsignal(signal.SIGALRM)
    out = execute.run_here(jobs, runner, lambda r: None, timeout=0.5)
    assert finished == ["ok", "ok2"]
    assert [(r.code, r.message) for r in out] == [(1, "timed out after 0.5 s (--job-timeout)"), (0, ""),
                                                  (1, "timed out after 0.5 s (--job-timeout)"), (0, "")]  # fmt: skip
    assert signal.getsignal(signal.SIGALRM) is handler and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_how_a_worker_died_is_read_from_its_nanny():
    logs = {"tls://127.0.0.1:1": [("INFO", "Worker process 1234 was killed by signal 11"),
                                  ("INFO", "Worker process 12345 exited with status 129"),
                                  ("WARNING", "Worker tls://127.0.0.1:5 (pid=777) exceeded 95% memory budget. Restarting..."),
                                  ("INFO", "Worker process 777 was killed by signal 15"),
                                  ("INFO", "Worker process 99 was killed by signal 9")]}  # fmt: skip
    assert execute.death_reason(1234, logs) == "SIGSEGV (Segmentation fault)"
    assert execute.death_reason(12345, logs) == "exit status 129"
    assert execute.death_reason(777, logs) == "out of memory (above 95% of the worker's memory limit)"
    assert execute.death_reason(99, logs).startswith("SIGKILL (killed from outside")
    assert execute.death_reason(123, logs) is None


# --- --scheduler and --workers: one line, exit 2, in time ----------------------------------------


@pytest.fixture
def port():
    """A local TCP server: `port(mode)` -> its port; mode "garbage" answers every connection with
    bytes that are not Dask's protocol, "silent" accepts and never says anything."""
    servers, conns = [], []

    def serve(mode: str) -> int:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        servers.append(server)

        def loop():
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                conns.append(conn)
                if mode == "garbage":
                    try:
                        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 4)
                    except OSError:
                        pass

        threading.Thread(target=loop, daemon=True).start()
        return server.getsockname()[1]

    yield serve
    for s in servers + conns:
        s.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def pem(tmp_path_factory):
    """The CA, certificate and key of throw-away TLS credentials, as files."""
    from distributed.security import Security

    sec = Security.temporary()
    folder = tmp_path_factory.mktemp("pem")
    files = {}
    for name, text in (("ca.pem", sec.tls_ca_file), ("cert.pem", sec.tls_client_cert), ("key.pem", sec.tls_client_key)):
        (folder / name).write_text(text)
        files[name] = str(folder / name)
    return files


BAD = {
    "tls without files": (["--scheduler", "tls://127.0.0.1:8786"], "a TLS scheduler needs --tls-ca-file, --tls-cert, --tls-key"),
    "tls file missing": (["--scheduler", "tls://127.0.0.1:8786", "--tls-ca-file", "/nonexistent/ca.pem", "--tls-cert", "{cert}",
                          "--tls-key", "{key}"], "--tls-ca-file /nonexistent/ca.pem: no such file"),
    "tls file not PEM": (["--scheduler", "tls://127.0.0.1:8786", "--tls-ca-file", "{ca}", "--tls-cert", "{junk}",
                          "--tls-key", "{key}"], "cannot load them"),
    "tls files with tcp": (["--scheduler", "tcp://127.0.0.1:8786", "--tls-ca-file", "{ca}", "--tls-cert", "{cert}",
                            "--tls-key", "{key}"], "TLS files need a tls:// address"),
    "http": (["--scheduler", "http://127.0.0.1:8787"], "unknown protocol http:// (a web address"),
    "foo": (["--scheduler", "foo://host:1"], "unknown protocol foo://"),
    "no port": (["--scheduler", "tcp://127.0.0.1"], "not a scheduler address"),
    "port out of range": (["--scheduler", "tcp://127.0.0.1:99999"], "not a scheduler address"),
    "garbage": (["--scheduler", "tcp://127.0.0.1:{garbage}"], "does not speak Dask's protocol"),
    "garbage tls": (["--scheduler", "tls://127.0.0.1:{garbage}", "--tls-ca-file", "{ca}", "--tls-cert", "{cert}",
                     "--tls-key", "{key}"], "cannot connect"),
    "silent": (["--scheduler", "tcp://127.0.0.1:{silent}"], "no Dask scheduler answered within 3 s"),
    "refused": (["--scheduler", "tcp://127.0.0.1:{free}"], "nothing listens there"),
    "workers huge": (["--workers", "99999999999999999999"], "--workers 99999999999999999999: give 0 (every job in this process) or a whole number of worker processes from 1 to 1024"),
    "workers negative": (["--workers", "-3"], "--workers -3: give 0"),
    "workers above 4 per core": (["--workers", str(4 * (os.cpu_count() or 1) + 1)], "add --oversubscribe if you mean it"),
    "job timeout negative": (["--job-timeout", "-1"], "--job-timeout -1: give a number of seconds"),
    "job timeout nan": (["--job-timeout", "nan"], "--job-timeout nan: give a number of seconds"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD))
@pytest.mark.slow
def test_bad_scheduler_or_workers_is_one_line_and_exit_2(case, results, pem, port, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 3)  # the silent and refused cases wait this long (30 s for real)
    junk = tmp_path / "junk.pem"
    junk.write_text("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n")
    extra, expected = BAD[case]
    values = {"ca": pem["ca.pem"], "cert": pem["cert.pem"], "key": pem["key.pem"], "junk": str(junk)}
    for mode in ("garbage", "silent"):
        if any("{" + mode + "}" in a for a in extra):
            values[mode] = port(mode)
    if any("{free}" in a for a in extra):
        values["free"] = free_port()
    extra = [a.format(**values) for a in extra]
    argv = ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--kinds", "binary", "-q", *extra]
    assert run(load_script("visualizeCampaign").main, argv) == 2  # "silent" waits the patched 3 s (its message says so)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert expected in err, err
    assert not (tmp_path / "plots").exists()  # no job ran, no summary was written


@pytest.mark.slow
def test_oversubscribe_allows_more_workers_and_the_defaults_stay_in_time(results, capsys, tmp_path):
    many = str(4 * (os.cpu_count() or 1) + 1)
    argv = ["--results-dir", str(results), "--dry-run", "--workers", many, "--oversubscribe", "--plots-dir", str(tmp_path / "plots")]
    assert run(load_script("visualizeCampaign").main, argv) == 0
    assert "[pnetviz campaign] 10 jobs" in capsys.readouterr().out
    assert cluster.CONNECT_TIMEOUT + 2 < 60  # a silent --scheduler is one line within the minute
