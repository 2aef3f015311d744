"""A campaign's execution: jobs run on Dask workers (any cluster) or in this process.

Each worker process imports ROOT, sets up cling and cmsstyle once, then runs many jobs. A job
is run by a `runner(command, argv) -> exit code` handed in by the caller (the command line's
dispatcher), so this layer knows nothing of argument parsing.

A job must not take the campaign down. On Dask, a job first tells the scheduler it started
(a round trip, so it is known to have started before it can crash), then runs. This process
keeps the clock: a job running longer than the timeout is recorded as failed ("timed out after
N s"), cancelled, and its worker process killed (a thread stuck in C++ cannot be stopped any
other way): at once with SIGKILL on the local cluster, by a restart through its nanny on any
other (the nanny kills it if it does not stop within seconds); the nanny starts a new worker. A job whose
worker dies (segfault, abort, out of memory) fails at once with the worker's fate read from
the nanny ("its worker died: SIGSEGV (Segmentation fault)"); the nanny starts a new worker. A
job that was only queued on a dead worker, or ran beside a job over time, is sent again. The
other jobs go on. In this process (`run_here`), the timeout is a SIGALRM: it interrupts a job
at its deadline unless the job is inside C++ code, in which case it is reported as soon as the
C++ call returns; a crash there ends the campaign (use a cluster for isolation).
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import queue
import re
import signal
import sys
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pnetviz.campaign.plan import Job, JobResult

Runner = Callable[[str, list[str]], int]

DEFAULT_TIMEOUT = 1800.0  # seconds a job may run (--job-timeout); the slowest measured job takes about a minute
TICK = 0.5  # seconds between two looks at the clock when no job finishes
SENDS = 3  # a job whose worker died before it started is sent at most this many times in all
DEATH_WAIT = 5.0  # seconds to wait for the nanny's word on how a worker died
SETUP_TIMEOUT = 600.0  # seconds a worker may take to set up (ROOT, cling), at least, whatever the job timeout


class JobTimeout(BaseException):
    """The job's time ran out (in this process: raised by SIGALRM). A BaseException so that a
    job's own `except Exception` does not swallow it."""


def overtime(timeout: float) -> str:
    return f"timed out after {timeout:g} s (--job-timeout)"


def run_job(job: Job, runner: Runner, timeout: float | None = None) -> JobResult:
    """Run one job in this process (a Dask worker, or the campaign itself): the command with the
    job's argv, its output captured; never raises but for Ctrl-C (a JobTimeout, raised by
    `run_here`'s alarm, is the result "timed out after `timeout` s")."""
    start = time.perf_counter()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = runner(job.command, list(job.argv))
    except KeyboardInterrupt:
        raise
    except JobTimeout:
        return JobResult(job, 1, overtime(timeout or 0), time.perf_counter() - start)
    except BaseException as exc:  # noqa: BLE001 - a bug in one job must not stop the others
        code = 1
        err.write(f"pnetviz: internal error: {exc!r}\n{traceback.format_exc()}")
    lines = [line.removeprefix("pnetviz: error: ") for line in err.getvalue().splitlines()
             if line.startswith("pnetviz: error:")]  # fmt: skip
    message = ""
    if code:
        message = lines[-1] if lines else (err.getvalue().strip().splitlines() or ["failed"])[0]
    return JobResult(job, code, message, time.perf_counter() - start)


_SET_UP: list[bool] = []  # this worker process has run its setup
_SETTING_UP = threading.Lock()  # once, also in a worker of several threads


def run_on_worker(job: Job, runner: Runner, topic: str, key: str, setup: Callable[[], None] | None = None) -> JobResult:
    """On a Dask worker: the worker's `setup` if it has not run yet, then the job; each phase
    reported to the scheduler (and so to the campaign) first, waiting for the answer, and the
    result too (so that it does not live only in this worker's memory, lost if it dies)."""
    from distributed import get_client, get_worker  # noqa: PLC0415

    client, worker = get_client(), get_worker()

    def report(phase: str, **more) -> None:
        client.log_event(topic, {"key": key, "worker": worker.address, "pid": os.getpid(), "phase": phase, **more})

    if setup is not None and not _SET_UP:
        report("setup")
        with _SETTING_UP:
            if not _SET_UP:
                setup()
                _SET_UP.append(True)
    report("job")
    result = run_job(job, runner)
    report("done", code=result.code, message=result.message, seconds=result.seconds)
    return result


def worker_setup() -> None:
    """Pay the start-up once per worker: ROOT, the cling kernels, cmsstyle. And let a crash
    kill the worker at once with its real signal: ROOT's own handlers would run gdb for a
    stack trace of hundreds of lines on the terminal, then try to go on in a broken process.
    Then the start-up's objects (modules, ROOT's and cppyy's proxies: ~36,000) are frozen out of
    the garbage collector's passes (gc.freeze, as Python's docs advise for long-lived workers):
    they live as long as the worker, and a full pass over them cost ~25 ms every few evaluations."""
    from pnetviz.draw.style import cmsstyle  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    r = root()
    for name in ("kSigSegmentationViolation", "kSigBus", "kSigIllegalInstruction", "kSigFloatingException", "kSigAbort"):
        if hasattr(r, name):
            r.gSystem.ResetSignal(getattr(r, name), True)
    cmsstyle()
    gc.collect()
    gc.freeze()


@dataclass
class Progress:
    """Counts for the campaign bar (tqdm)."""

    total: int
    quiet: bool = False
    failed: int = 0
    bar: object = field(default=None, repr=False)

    def __enter__(self) -> Progress:
        from tqdm import tqdm  # noqa: PLC0415

        tty = sys.stderr.isatty()  # in a log file: a line every 30 s, not a redraw every 0.1 s
        self.bar = tqdm(total=self.total, unit="job", desc="campaign", disable=self.quiet, dynamic_ncols=True,
                        mininterval=0.1 if tty else 30.0)  # fmt: skip
        return self

    def done(self, result: JobResult) -> None:
        self.failed += result.code > 0
        self.bar.set_postfix(failed=self.failed, refresh=False)
        self.bar.update(1)

    def __exit__(self, *exc) -> None:
        self.bar.close()


def signal_text(number: int) -> str:
    """SIGSEGV (Segmentation fault), with a hint where the signal alone misleads."""
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    text = f"{sig.name} ({signal.strsignal(sig) or sig.name})"
    if sig == signal.SIGKILL:
        text = f"{sig.name} (killed from outside, e.g. by the kernel when memory ran out)"
    return text


def death_reason(pid: int, logs: dict) -> str | None:
    """How worker process `pid` ended, from the nannies' logs (`Client.get_worker_logs(nanny=True)`),
    or None if they do not say (yet)."""
    lines = []
    for entries in logs.values():
        if isinstance(entries, (list, tuple)):
            lines += [str(e[1]) if isinstance(e, (list, tuple)) and len(e) > 1 else str(e) for e in entries]
    text = "\n".join(lines)
    memory = re.search(rf"\(pid={pid}\) exceeded (\d+)% memory budget", text)
    if memory:
        return f"out of memory (above {memory.group(1)}% of the worker's memory limit)"
    killed = re.search(rf"Worker process {pid} was killed by signal (\d+)", text)
    if killed:
        return signal_text(int(killed.group(1)))
    exited = re.search(rf"Worker process {pid} exited with status (\d+)", text)
    if exited:
        return f"exit status {exited.group(1)}"
    if re.search(rf"Worker process {pid} was killed by unknown signal", text):
        return "killed by an unknown signal"
    return None


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _kill_own_worker(address: str, pid: int) -> bool:
    """SIGKILL worker process `pid` if it is a child of this process (the local cluster's: its
    nanny, in this process, starts a new one at once); False for anyone else's."""
    import psutil  # noqa: PLC0415 - a dependency of distributed

    if "://127.0.0.1:" not in address:
        return False
    try:
        if psutil.Process(pid).ppid() != os.getpid():
            return False
        os.kill(pid, signal.SIGKILL)
    except (psutil.Error, OSError):
        return False
    return True


class _Dispatch:
    """The campaign's side of a Dask run: sends jobs, keeps their clocks, reads their ends."""

    def __init__(self, client, runner: Runner, on_result: Callable[[JobResult], None], timeout: float | None,
                 setup: Callable[[], None] | None, retries: int = 0,
                 on_tick: Callable[[], str | None] | None = None):  # fmt: skip
        self.client, self.runner, self.on_result, self.timeout, self.setup = client, runner, on_result, timeout, setup
        self.retries, self.on_tick = retries, on_tick
        self.deaths: Counter = Counter()  # job index -> workers lost while running it
        self.token = uuid.uuid4().hex[:8]  # keys and topic of this campaign only (a shared scheduler)
        self.topic = f"pnetviz-started-{self.token}"
        self.started: dict[str, dict] = {}  # key -> worker, pid, phase (setup, job), "at" (this process's monotonic clock)
        self.done: dict[str, dict] = {}  # key -> code, message, seconds, as the worker reported them
        self.live: dict[str, tuple[object, int, Job]] = {}  # key -> future, job index, job
        self.sent: Counter = Counter()  # job index -> times sent
        self.finished: queue.SimpleQueue = queue.SimpleQueue()
        self.restarted: set[str] = set()  # addresses of workers restarted for a job over time
        self.results: list[JobResult] = []

    def _on_event(self, event) -> None:  # in the client's event loop, before the task's end is known
        msg = event[1]
        if msg.get("phase") == "done":
            self.done[msg["key"]] = msg
        else:
            self.started[msg["key"]] = {**msg, "at": time.monotonic()}

    def submit(self, index: int, job: Job) -> None:
        self.sent[index] += 1
        key = f"pnetviz-{self.token}-{index}-{self.sent[index]}-{job.name}"
        future = self.client.submit(run_on_worker, job, self.runner, self.topic, key, self.setup, key=key, pure=False)
        self.live[key] = (future, index, job)
        future.add_done_callback(self._finished)

    def _finished(self, future) -> None:  # in a thread of the client
        """Note the end and release the task at once: the scheduler would otherwise run a
        finished job again when the worker holding its result dies."""
        exc = None
        if future.status == "error":
            with contextlib.suppress(Exception):
                exc = future.exception(timeout=10)
        self.finished.put((future.key, future.status, exc))
        future.release()

    def run(self, jobs: Sequence[Job]) -> list[JobResult]:
        self.client.subscribe_topic(self.topic, self._on_event)
        try:
            for index, job in enumerate(jobs):
                self.submit(index, job)
            while self.live:
                try:
                    ended = self.finished.get(timeout=TICK)
                except queue.Empty:
                    ended = None
                if ended is not None and ended[0] in self.live:
                    self._ended(*ended)
                self._over_time()
                lost = "the Dask cluster was lost before it ran" if self.client.status == "closed" else None
                if lost is None and self.on_tick is not None:
                    lost = self.on_tick()
                if lost:
                    for future, _, job in list(self.live.values()):
                        with contextlib.suppress(Exception):  # a closed client
                            future.cancel()
                        self._record(JobResult(job, 1, lost))
                    self.live.clear()
        finally:
            with contextlib.suppress(Exception):
                self.client.unsubscribe_topic(self.topic)
        return self.results

    def _record(self, result: JobResult) -> None:
        self.results.append(result)
        self.on_result(result)

    def _ended(self, key: str, status: str, exc: BaseException | None) -> None:
        from distributed import KilledWorker  # noqa: PLC0415

        _, index, job = self.live.pop(key)
        done = self.done.get(key)
        if done is not None:  # whatever befell the worker after the job
            result = JobResult(job, done["code"], done["message"], done["seconds"])
        elif status == "finished":
            result = JobResult(job, 1, "pnetviz: internal error: the job ended without reporting its result")
        elif status == "cancelled":
            result = JobResult(job, 1, "cancelled by the Dask scheduler (was the cluster closed?)")
        else:
            start = self.started.get(key)
            if not isinstance(exc, KilledWorker):
                result = JobResult(job, 1, f"pnetviz: internal error: {_one_line(exc) if exc else 'the task failed'}")
            elif start is None or start["worker"] in self.restarted:  # not its fault: queued there, or beside a job over time
                if self.sent[index] < SENDS:
                    self.submit(index, job)
                    return
                result = JobResult(job, 1, f"its worker died {SENDS} times before it could start (see the Dask worker logs)")
            else:  # its worker was lost while it ran: sent again up to `retries` times (batch: preemption, walltime)
                self.deaths[index] += 1
                if self.deaths[index] <= self.retries:
                    self.submit(index, job)
                    return
                seconds = time.monotonic() - start["at"]
                times = f" {self.deaths[index]} times, last" if self.deaths[index] > 1 else ""
                result = JobResult(job, 1, f"its worker died{times}: {self.death(start['pid'])}", seconds)
        self._record(result)

    def death(self, pid: int) -> str:
        """How worker process `pid` ended, as its nanny logged it (waiting for the log a moment:
        the scheduler may learn of the death before the nanny writes it)."""
        deadline = time.monotonic() + DEATH_WAIT
        while True:
            try:
                logs = self.client.get_worker_logs(nanny=True)
            except Exception:  # noqa: BLE001 - workers without a nanny, a worker just gone
                logs = {}
            reason = death_reason(pid, logs)
            if reason or time.monotonic() > deadline:
                return reason or "no exit status known (workers without a nanny?); see the Dask worker logs"
            time.sleep(0.2)

    def _over_time(self) -> None:
        if not self.timeout:
            return
        now = time.monotonic()
        limits = {"job": self.timeout, "setup": max(self.timeout, SETUP_TIMEOUT)}
        over = [key for key, s in list(self.started.items())
                if key in self.live and key not in self.done and now - s["at"] > limits[s["phase"]]]  # fmt: skip
        workers = set()
        for key in over:
            future, _, job = self.live.pop(key)
            future.cancel()
            start = self.started[key]
            workers.add((start["worker"], start["pid"]))
            message = overtime(self.timeout) if start["phase"] == "job" else \
                f"its worker did not set up ROOT within {limits['setup']:g} s"
            self._record(JobResult(job, 1, message, now - start["at"]))
        self.restarted |= {address for address, _ in workers}
        remote = [address for address, pid in sorted(workers) if not _kill_own_worker(address, pid)]
        if remote:
            with contextlib.suppress(Exception):  # a worker already gone; or without a nanny: removed, not replaced
                self.client.restart_workers(remote, raise_for_error=False)


def execute(jobs: Sequence[Job], client, runner: Runner, on_result: Callable[[JobResult], None],
            timeout: float | None = DEFAULT_TIMEOUT, setup: Callable[[], None] | None = worker_setup,
            retries: int = 0, on_tick: Callable[[], str | None] | None = None) -> list[JobResult]:  # fmt: skip
    """Run `jobs` on the Dask `client` (any cluster); results in completion order. A job over
    `timeout` seconds (None or 0: no limit) or whose worker dies fails alone (module docstring);
    `setup` runs once in every worker process (a replaced one too) before its first job, outside
    the job's clock. A job whose worker is lost while it runs is sent again up to `retries` times
    (batch workers are preempted, reach their walltime, are cancelled: not the job's fault), then
    fails with "its worker died N times, last: ...". `on_tick()` is called between two looks at
    the jobs (the batch cluster replaces lost worker jobs there); a text it returns fails every
    job not finished with that reason."""
    return _Dispatch(client, runner, on_result, timeout, setup, retries, on_tick).run(jobs)


def run_here(jobs: Iterable[Job], runner: Runner, on_result: Callable[[JobResult], None],
             timeout: float | None = DEFAULT_TIMEOUT) -> list[JobResult]:  # fmt: skip
    """The same jobs in this process, one after the other (no cluster). The timeout is a SIGALRM
    (main thread only): a job past it stops at the next Python instruction it runs."""
    alarm = bool(timeout) and hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    armed = [False]

    def on_alarm(signum, frame) -> None:
        if armed[0]:
            armed[0] = False
            raise JobTimeout

    previous = signal.signal(signal.SIGALRM, on_alarm) if alarm else None
    results = []
    try:
        for job in jobs:
            start, result = time.perf_counter(), None
            try:
                try:
                    if alarm:
                        armed[0] = True
                        signal.setitimer(signal.ITIMER_REAL, timeout)
                    result = run_job(job, runner, timeout)
                finally:
                    armed[0] = False
                    if alarm:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except JobTimeout:  # the alarm rang just as the job returned
                result = result or JobResult(job, 1, overtime(timeout), time.perf_counter() - start)
            results.append(result)
            on_result(result)
    finally:
        if alarm:
            signal.signal(signal.SIGALRM, previous)
    return results
