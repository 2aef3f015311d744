"""Worker jobs on a batch system (SLURM, HTCondor) through dask-jobqueue: the only batch-aware
piece of a campaign (`cluster.batch_client` hands out its Client).

Each batch job runs one single-threaded Dask worker (under a nanny, which replaces a crashed
worker inside the job) started by the Python of this venv. Job resources left unset on the
command line come from dask's jobqueue configuration (`~/.config/dask/jobqueue.yaml`,
`DASK_JOBQUEUE__SLURM__MEMORY=...`), where sites keep them; `describe` shows what is used.

Security: scheduler, workers and client speak TLS with throw-away credentials
(`Security.temporary()`); the workers read theirs from a private (0700) directory that this
process makes on the shared filesystem (the jobqueue `shared-temp-directory`, else the output
tree) and removes at the end. Every party requires a certificate signed by them, so nobody
else can connect to the scheduler or to a worker (both listen on the node's network: the
workers must reach the scheduler and it them). The dashboard listens on 127.0.0.1 only (reach
it through an ssh tunnel).

Lifecycle: worker jobs are cancelled when the campaign ends, fails, is interrupted (Ctrl-C,
SIGTERM): first by dask-jobqueue, then every job id this campaign ever submitted once more
with the batch system's own command. A worker job that ends early (preemption, walltime,
`scancel`) is replaced; the job it was running is sent again (`execute`'s retries). While the
workers start, their number and the queue's word on the jobs are reported; if none connects
within the start timeout the campaign stops with one line (exit 2).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pnetviz.campaign.jobspec import (BACKENDS, CONDOR_STATES, DEFAULT_DISK, DEFAULT_MEMORY, MAX_JOBS, MIN_MEMORY,  # noqa: F401 - callers use batch.*
                                      POLL, QUERY_TIMEOUT, START_TIMEOUT, TOOLS, JobSpec, _cluster_kwargs, _config,
                                      jobqueue, make_cluster, resolve, walltime_seconds)
from pnetviz.errors import InputError


def _last_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return (lines[-1] if lines else type(err).__name__)[:200]


class BatchCluster:
    """`with BatchCluster(spec, output) as batch:` worker jobs submitted, `batch.client` a TLS
    Client of their scheduler; `batch.wait_for_workers()` until one connects; `batch.tend()`
    between two looks at the jobs; everything cancelled and removed on leaving."""

    def __init__(self, spec: JobSpec, output: Path, say: Callable[[str], None] | None = None):
        self.spec, self.output, self.say = spec, Path(output), say or (lambda text: None)
        self.client = self.cluster = None
        self.job_ids: set[str] = set()  # every job this campaign submitted
        self.name = f"pnetviz-{os.getpid()}-{int(time.time()) % 100000}"
        self.stack = contextlib.ExitStack()
        self.last_poll = 0.0
        self.last_said = ""
        self.no_worker_since: float | None = None
        self.replaced = 0

    # -- start -------------------------------------------------------------------------------
    def __enter__(self) -> BatchCluster:
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        import dask  # noqa: PLC0415
        from distributed import Client  # noqa: PLC0415
        from distributed.security import Security  # noqa: PLC0415

        submit = TOOLS[self.spec.backend][0]
        if shutil.which(submit) is None:
            raise InputError(f"--cluster {self.spec.backend}: {submit} is not on PATH. Fix: run the campaign on a node "
                             f"that submits {self.spec.backend} jobs (a login node), or --cluster local.")  # fmt: skip
        try:
            security = Security.temporary()
        except ImportError:
            raise InputError(f"--cluster {self.spec.backend}: TLS to the worker jobs needs the `cryptography` package. "
                             "Fix: pip install cryptography.") from None  # fmt: skip
        parent = Path(self.spec.shared_dir) if self.spec.shared_dir else self.output
        try:
            parent.mkdir(parents=True, exist_ok=True)
            shared = Path(tempfile.mkdtemp(prefix=".pnetviz-dask-", dir=parent))  # 0700, this user's
        except OSError as err:
            raise InputError(f"--cluster {self.spec.backend}: cannot make the credentials directory in {parent} "
                             f"({err.strerror}). Fix: a writable directory on the shared filesystem (jobqueue "
                             "shared-temp-directory in the dask config).") from None  # fmt: skip
        self.stack.callback(shutil.rmtree, shared, ignore_errors=True)
        log_dir = Path(self.spec.log_dir) if self.spec.log_dir else self.output / "batch-logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir = log_dir
        self.stack.enter_context(dask.config.set({"distributed.scheduler.allowed-failures": 0,
                                                  "distributed.scheduler.worker-saturation": 1.0}))  # fmt: skip
        try:
            self.cluster = make_cluster(self.spec, security, shared, log_dir, self.name)
        except Exception as err:  # noqa: BLE001 - a bad site setting, no port: one line
            raise InputError(f"--cluster {self.spec.backend}: the Dask scheduler did not start ({type(err).__name__}: "
                             f"{_last_line(err)}). Fix: check the jobqueue settings in the dask config.") from None  # fmt: skip
        self.stack.callback(self._cancel_all)  # runs after the cluster's own close, below
        self.stack.callback(self._close_cluster)
        self.client = self.stack.enter_context(Client(self.cluster, security=security))
        while len(self.cluster.worker_spec) < self.spec.jobs:  # what scale(jobs=N) does, without its background
            self.cluster.worker_spec.update(self.cluster.new_worker_spec())  # submission (whose error is only logged)
        try:
            self._sync_jobs()
        except Exception as err:  # noqa: BLE001 - the batch system refused the job: its own words
            raise InputError(f"--cluster {self.spec.backend}: {submit} refused the worker job ({_last_line(err)}). "
                             "Fix: --job-queue, --job-memory, --job-walltime or the jobqueue settings.") from None  # fmt: skip

    def _sync_jobs(self) -> None:
        """Submit the jobs of the cluster's worker spec that are not running (all at first, then
        those the cluster dropped as lost) now, raising the batch system's refusal, and note their ids."""
        try:
            self.cluster.sync(self.cluster._correct_state)
        finally:
            self._note_ids()

    def _note_ids(self) -> None:
        for job in list(getattr(self.cluster, "_created", ())) + list(self.cluster.workers.values()):
            if getattr(job, "job_id", None):
                self.job_ids.add(str(job.job_id))

    # -- while running -------------------------------------------------------------------------
    def workers(self) -> int:
        try:
            return len(self.client.nthreads())
        except Exception:  # noqa: BLE001 - the scheduler is going away
            return 0

    def queue_states(self) -> Counter:
        """What the batch system says about this campaign's current jobs: state -> count."""
        ids = sorted(str(j.job_id) for j in list(self.cluster.workers.values()) if getattr(j, "job_id", None))
        if not ids:
            return Counter()
        if self.spec.backend == "slurm":
            argv = ["squeue", "-h", "-j", ",".join(ids), "-o", "%T %r"]
        else:
            argv = ["condor_q", *ids, "-af", "JobStatus"]
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=QUERY_TIMEOUT).stdout
        except (OSError, subprocess.SubprocessError):
            return Counter()
        states = Counter()
        for line in out.splitlines():
            state, _, reason = line.strip().partition(" ")
            if self.spec.backend == "htcondor":
                state, reason = CONDOR_STATES.get(state, state), ""
            if state:
                states[f"{state} ({reason})" if reason and reason not in ("None", "(null)") else state] += 1
        return states

    def status(self) -> str:
        states = self.queue_states()
        queue = ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "no job listed"
        return f"{self.workers()} of {self.spec.jobs} workers up; queue: {queue}"

    def _report(self, force: bool = False) -> str:
        text = self.status()
        if force or text != self.last_said:
            self.say(f"[pnetviz campaign] {self.spec.backend}: {text}")
            self.last_said = text
        return text

    def wait_for_workers(self, timeout: float = START_TIMEOUT) -> None:
        """Until one worker is connected, reporting the count and the queue's word on each change;
        one line (InputError) after `timeout` seconds without any."""
        deadline = time.monotonic() + timeout
        text = self._report(force=True)
        while self.workers() < 1:
            if time.monotonic() > deadline:
                raise InputError(f"--cluster {self.spec.backend}: no worker connected within {timeout:g} s ({text}). "
                                 f"Fix: see the worker logs in {self.log_dir} and the queue "
                                 f"({TOOLS[self.spec.backend][1]}); another --job-queue, less --job-memory or "
                                 "--job-walltime, or a longer --start-timeout.")  # fmt: skip
            time.sleep(1.0)
            if time.monotonic() - self.last_poll > POLL:
                self.last_poll = time.monotonic()
                text = self._report()

    def tend(self, timeout: float = START_TIMEOUT) -> str | None:
        """Between two looks at the campaign's jobs: replace worker jobs that ended (the cluster
        drops a lost worker's job after distributed's lost-worker-timeout), report changes; a
        reason (str) when no worker has been connected for `timeout` seconds."""
        now = time.monotonic()
        if now - self.last_poll < POLL:
            return None
        self.last_poll = now
        missing = self.spec.jobs - len(self.cluster.workers)
        if missing > 0:
            self.replaced += missing
            self.say(f"[pnetviz campaign] {self.spec.backend}: {missing} worker job(s) ended; submitting "
                     f"{'a replacement' if missing == 1 else 'replacements'}")  # fmt: skip
            with contextlib.suppress(Exception):  # refused now: tried again at the next look
                self._sync_jobs()
        text = self._report()
        if self.workers() > 0:
            self.no_worker_since = None
        elif self.no_worker_since is None:
            self.no_worker_since = now
        elif now - self.no_worker_since > timeout:
            return f"no worker of --cluster {self.spec.backend} for {timeout:g} s ({text})"
        return None

    # -- end ---------------------------------------------------------------------------------
    def _close_cluster(self) -> None:
        with contextlib.suppress(Exception):
            self._note_ids()
        with contextlib.suppress(Exception):
            self.cluster.close(timeout=60)
        for name, handle in list(vars(self.cluster).items()):  # dask-jobqueue's open credential files
            if name.startswith("_job_") and hasattr(handle, "close"):
                with contextlib.suppress(OSError):
                    handle.close()

    def _cancel_all(self) -> None:
        """Every job id ever submitted, cancelled once more with the batch system's command: no
        job is left in the queue whatever became of dask-jobqueue's own close."""
        ids = sorted(self.job_ids)
        if not ids:
            return
        argv = ["scancel", *ids] if self.spec.backend == "slurm" else ["condor_rm", *ids]
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(argv, capture_output=True, timeout=QUERY_TIMEOUT)

    def close(self) -> None:
        """Close the client and the cluster, cancel the jobs, remove the credentials; shielded
        from a second Ctrl-C or SIGTERM (an interrupted clean-up would leave jobs behind)."""
        with _shielded():
            self.stack.close()


@contextlib.contextmanager
def _shielded():
    """SIGINT and SIGTERM held off while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {s: signal.signal(s, lambda n, f: pending.append(n)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if pending:
            raise KeyboardInterrupt


@contextlib.contextmanager
def terminate_as_interrupt():
    """SIGTERM (a batch system's or the user's kill) unwinds like Ctrl-C while the block runs, so
    the worker jobs are cancelled on the way out (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def hostname() -> str:
    return socket.gethostname()


def dashboard(client) -> str | None:
    """The dashboard's local address (it listens on 127.0.0.1 only), or None without one (bokeh
    is not installed)."""
    try:
        port = client.scheduler_info().get("services", {}).get("dashboard")
    except Exception:  # noqa: BLE001 - no dashboard to show
        port = None
    return f"http://127.0.0.1:{port}/status" if port else None
