"""What a campaign's worker jobs on a batch system (SLURM, HTCondor) ask for: the resources from the
command line or dask's jobqueue configuration, checked (JobSpec, resolve), and the dask-jobqueue
cluster object they make (campaign.batch runs and watches the jobs)."""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from pnetviz.errors import InputError

BACKENDS = ("slurm", "htcondor")
TOOLS = {"slurm": ("sbatch", "squeue", "scancel"), "htcondor": ("condor_submit", "condor_q", "condor_rm")}
DEFAULT_MEMORY = "3 GB"  # when neither --job-memory nor the jobqueue config says: ROOT (~0.3 GB) and one model's folds
DEFAULT_DISK = "2 GB"  # HTCondor needs a disk request (jobqueue `disk`)
MIN_MEMORY = 2**30  # a worker imports ROOT: less than 1 GiB per job cannot work
START_TIMEOUT = 600.0  # seconds for the first worker to connect (--start-timeout)
POLL = 5.0  # seconds between two looks at the queue
QUERY_TIMEOUT = 30  # seconds for squeue/condor_q/scancel/condor_rm to answer
MAX_JOBS = 10000
CONDOR_STATES = {"1": "IDLE", "2": "RUNNING", "3": "REMOVED", "4": "COMPLETED", "5": "HELD", "6": "TRANSFERRING",
                 "7": "SUSPENDED"}  # fmt: skip


@dataclass(frozen=True)
class JobSpec:
    """One batch job's request, resolved: command line first, then dask's jobqueue config, then
    pnetviz's defaults. walltime/queue None: the site's default (nothing requested)."""

    backend: str
    jobs: int
    memory: str
    walltime: str | None
    queue: str | None
    disk: str | None
    python: str
    log_dir: str | None
    shared_dir: str | None  # parent of the private credentials directory (None: the output tree)

    def describe(self) -> str:
        queue = {"slurm": "partition", "htcondor": "JobFlavour"}[self.backend]
        parts = [f"{self.jobs} job{'s' if self.jobs != 1 else ''} of 1 core", f"memory {self.memory}",
                 f"walltime {self.walltime or 'site default'}", f"{queue} {self.queue or 'site default'}"]  # fmt: skip
        if self.disk:
            parts.append(f"disk {self.disk}")
        return f"--cluster {self.backend}: {', '.join(parts)}; workers run {self.python}"


def jobqueue(backend: str):
    """The dask_jobqueue module, Ctrl-C left as it was: dask-jobqueue 0.9.0 replaces the SIGINT
    handler on import (dask_jobqueue/runner.py: `sys.exit()`, i.e. exit status 0 on Ctrl-C)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    try:
        import dask_jobqueue  # noqa: PLC0415
    except ImportError:
        raise InputError(f"--cluster {backend} needs dask-jobqueue. Fix: pip install 'pnetviz[batch]' (in the "
                         "environment the campaign and the workers run).") from None  # fmt: skip
    finally:
        if main and previous is not None and signal.getsignal(signal.SIGINT) is not previous:
            signal.signal(signal.SIGINT, previous)
    return dask_jobqueue


def _config(backend: str, key: str):
    """A jobqueue setting (dask-jobqueue's defaults loaded first: importing it adds them)."""
    import dask  # noqa: PLC0415

    jobqueue(backend)
    return dask.config.get(f"jobqueue.{backend}.{key}", None)


def walltime_seconds(text: str, option: str = "--job-walltime") -> int:
    """A time in SLURM's forms, in seconds: minutes, minutes:seconds, hours:minutes:seconds,
    days-hours, days-hours:minutes, days-hours:minutes:seconds (one line on anything else)."""
    match = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text.strip())
    if not match:
        raise InputError(f"{option} {text!r}: not a time. Fix: HH:MM:SS (e.g. 02:00:00), D-HH:MM:SS or minutes.")
    days, first, second, third = match.groups()
    numbers = [int(g) for g in (first, second, third) if g is not None]
    if days is not None:  # days-hours[:minutes[:seconds]]
        hours, minutes, secs = (numbers + [0, 0])[:3]
        hours += int(days) * 24
    elif len(numbers) == 3:
        hours, minutes, secs = numbers
    else:  # minutes[:seconds]
        hours, (minutes, secs) = 0, (numbers + [0])[:2]
    if (len(numbers) > 1 and minutes > 59) or secs > 59:
        raise InputError(f"{option} {text!r}: minutes and seconds go to 59. Fix: HH:MM:SS, e.g. 02:00:00.")
    seconds = (hours * 60 + minutes) * 60 + secs
    if seconds <= 0:
        raise InputError(f"{option} {text!r}: give a positive time, e.g. 02:00:00.")
    return seconds


def resolve(backend: str, jobs: int, memory: str | None = None, walltime: str | None = None,
            queue: str | None = None) -> JobSpec:  # fmt: skip
    """The request of `jobs` batch jobs on `backend`, checked (one line, InputError, on a bad
    value, naming the option or the jobqueue setting); no network, no batch command."""
    from dask.utils import parse_bytes  # noqa: PLC0415

    if backend not in BACKENDS:
        raise InputError(f"--cluster {backend}: give local, slurm or htcondor.")
    if not 1 <= jobs <= MAX_JOBS:
        raise InputError(f"--jobs {jobs}: give the number of batch jobs (one worker each), 1 to {MAX_JOBS}.")
    where = f"(jobqueue.{backend} in the dask config)"
    memory_text = memory or _config(backend, "memory") or DEFAULT_MEMORY
    try:
        memory_bytes = parse_bytes(str(memory_text))
    except (ValueError, TypeError):
        memory_bytes = -1
    if memory_bytes < MIN_MEMORY:
        source = "--job-memory" if memory else f"memory {where}"
        raise InputError(f"{source} {memory_text!r}: give a size of at least 1 GiB, e.g. '3 GB' (each worker imports "
                         "ROOT).")  # fmt: skip
    given = walltime
    if backend == "slurm":  # HTCondor's jobqueue config has no such keys (its job-extra-directives are kept)
        walltime = walltime or _config(backend, "walltime")
        queue = queue or _config(backend, "queue")
    if walltime is not None:
        walltime_seconds(str(walltime), "--job-walltime" if given else f"walltime {where}")
    if queue is not None and not re.fullmatch(r"[A-Za-z0-9_.+-]+(?:,[A-Za-z0-9_.+-]+)*", str(queue)):
        raise InputError(f"--job-queue {queue!r}: not a queue name. Fix: the partition (SLURM) or job flavour "
                         "(HTCondor at CERN: espresso, microcentury, longlunch, workday, tomorrow, ...).")  # fmt: skip
    disk = None
    if backend == "htcondor":
        disk_text = _config(backend, "disk") or DEFAULT_DISK
        try:
            parse_bytes(str(disk_text))
            disk = str(disk_text)
        except (ValueError, TypeError):
            raise InputError(f"disk {where} {disk_text!r}: not a size. Fix: e.g. '2 GB'.") from None
    python = _config(backend, "python") or sys.executable
    log_dir = _config(backend, "log-directory")
    shared = _config(backend, "shared-temp-directory")
    return JobSpec(backend, jobs, str(memory_text), None if walltime is None else str(walltime),
                   None if queue is None else str(queue), disk, str(python),
                   None if log_dir is None else os.path.expanduser(os.path.expandvars(str(log_dir))),
                   None if shared is None else os.path.expanduser(os.path.expandvars(str(shared))))  # fmt: skip


def _cluster_kwargs(spec: JobSpec, security, shared: Path, log_dir: Path, name: str) -> dict:
    kwargs = {"cores": 1, "processes": 1, "memory": spec.memory, "nanny": True, "python": spec.python,
              "security": security, "protocol": "tls://", "shared_temp_directory": str(shared),
              "log_directory": str(log_dir), "job_name": name, "silence_logs": logging.CRITICAL,
              "scheduler_options": {**(_config(spec.backend, "scheduler-options") or {}),
                                    "dashboard_address": "127.0.0.1:0", "allowed_failures": 0}}  # fmt: skip
    if spec.backend == "slurm":
        kwargs |= {"walltime": spec.walltime, "queue": spec.queue}
    else:
        extra = dict(_config(spec.backend, "job-extra-directives") or {})
        if spec.walltime:
            extra["+MaxRuntime"] = walltime_seconds(spec.walltime)
        if spec.queue:
            extra["+JobFlavour"] = f'"{spec.queue}"'
        kwargs |= {"disk": spec.disk, "job_extra_directives": extra}
    return kwargs


def make_cluster(spec: JobSpec, security, shared: Path, log_dir: Path, name: str = "pnetviz-worker"):
    """The dask-jobqueue cluster object (no job submitted yet): its `job_script()` is what each
    worker job runs."""
    module = jobqueue(spec.backend)
    cls = {"slurm": module.SLURMCluster, "htcondor": module.HTCondorCluster}[spec.backend]
    return cls(**_cluster_kwargs(spec, security, shared, log_dir, name))
