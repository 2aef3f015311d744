"""A private single-node SLURM for the batch-cluster tests and benchmarks: its own munged (key,
socket, pid and log in a temporary directory), slurmctld and slurmd on 127.0.0.1 with random
free ports, every state, spool, pid and log file in that directory; stopped by pid.

Needs root and Debian's `slurm-wlm` and `munge` (`.ci/run` installs them). `unavailable()`
says why it cannot run here (the tests skip with that reason). Commands (`sbatch`, `squeue`,
`scancel`, dask-jobqueue's calls) reach it through `SLURM_CONF` in `env`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")
START_TIMEOUT = 60.0  # seconds for the node to turn idle


def unavailable() -> str | None:
    """Why a private SLURM cannot run here, or None."""
    missing = [d for d in DAEMONS if shutil.which(d) is None and not Path("/usr/sbin", d).is_file()]
    if missing:
        return f"SLURM is not installed ({', '.join(missing)} missing; apt-get install slurm-wlm munge)"
    if os.geteuid() != 0:
        return "a private SLURM needs root (its slurmd runs jobs as any user)"
    return None


def _free_ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _binary(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _memory_mb() -> int:
    with open("/proc/meminfo") as f:
        total_kb = int(next(line for line in f if line.startswith("MemTotal:")).split()[1])
    return max(1024, int(total_kb / 1024 * 0.9))


class PrivateSlurm:
    """`with PrivateSlurm(directory) as slurm:` a running single-node SLURM; `slurm.env` is the
    environment its commands need; `slurm.squeue()` lists this cluster's job ids."""

    def __init__(self, directory: Path, cpus: int | None = None):
        self.dir = Path(directory)
        self.cpus = cpus or os.cpu_count() or 1
        self.host = socket.gethostname()
        self.conf = self.dir / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}
        self.pids: dict[str, Path] = {}

    def __enter__(self) -> PrivateSlurm:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        d = self.dir
        for sub in ("munge", "state", "spool", "log"):
            (d / sub).mkdir(parents=True, exist_ok=True, mode=0o700)
        d.chmod(0o755)  # munged refuses group/other-writable parents
        key = d / "munge" / "munge.key"
        key.write_bytes(os.urandom(128))
        key.chmod(0o600)
        munge_socket = d / "munge" / "munge.socket"
        self._run(_binary("munged"), "--force", f"--socket={munge_socket}", f"--key-file={key}",
                  f"--pid-file={d / 'munge' / 'munged.pid'}", f"--log-file={d / 'log' / 'munged.log'}",
                  f"--seed-file={d / 'munge' / 'munged.seed'}")  # fmt: skip
        self.pids["munged"] = d / "munge" / "munged.pid"
        ctld_port, slurmd_port = _free_ports(2)
        self.conf.write_text(f"""\
ClusterName=pnetviz-test
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation={d / 'state'}
SlurmdSpoolDir={d / 'spool'}
SlurmctldPidFile={d / 'slurmctld.pid'}
SlurmdPidFile={d / 'slurmd.pid'}
SlurmctldLogFile={d / 'log' / 'slurmctld.log'}
SlurmdLogFile={d / 'log' / 'slurmd.log'}
SchedulerParameters=sched_interval=1
MessageTimeout=10
KillWait=2
InactiveLimit=0
MinJobAge=2
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={_memory_mb()} State=UNKNOWN
PartitionName=pnetviz Nodes={self.host} Default=YES MaxTime=60 State=UP
""")
        self._run(_binary("slurmctld"), "-f", str(self.conf))
        self.pids["slurmctld"] = d / "slurmctld.pid"
        self._run(_binary("slurmd"), "-f", str(self.conf))
        self.pids["slurmd"] = d / "slurmd.pid"
        deadline = time.monotonic() + START_TIMEOUT
        state = ""
        while time.monotonic() < deadline:
            state = self.command("sinfo", "-h", "-N", "-o", "%t", check=False).strip()
            if state in ("idle", "mix", "alloc"):
                return
            time.sleep(0.5)
        raise RuntimeError(f"the private SLURM's node did not turn idle within {START_TIMEOUT:g} s (state {state!r}; "
                           f"logs in {d / 'log'})")  # fmt: skip

    def _run(self, *argv: str) -> None:
        subprocess.run(argv, env=self.env, check=True, capture_output=True, timeout=30)

    def command(self, *argv: str, check: bool = True) -> str:
        out = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=30)
        if check and out.returncode:
            raise RuntimeError(f"{' '.join(argv)}: exit {out.returncode}: {out.stderr.strip()}")
        return out.stdout

    def squeue(self) -> list[str]:
        """Ids of this cluster's jobs that are not finished."""
        return self.command("squeue", "-h", "-o", "%i").split()

    def wait_empty(self, timeout: float = 30.0) -> list[str]:
        """Wait until no job is queued or running (a cancelled job stays COMPLETING a moment);
        returns the jobs still listed at the deadline."""
        deadline = time.monotonic() + timeout
        while (jobs := self.squeue()) and time.monotonic() < deadline:
            time.sleep(0.5)
        return jobs

    def stop(self) -> None:
        """Cancel every job, then stop slurmd, slurmctld and munged by their pid files."""
        if self.conf.is_file() and "slurmctld" in self.pids:
            with contextlib.suppress(Exception):
                self.command("scancel", "--full", *self.squeue(), check=False) if self.squeue() else None
        for name in ("slurmd", "slurmctld", "munged"):
            path = self.pids.pop(name, None)
            with contextlib.suppress(OSError, ValueError):
                pid = int(path.read_text().split()[0]) if path else None
                if pid:
                    os.kill(pid, signal.SIGTERM)
                    for _ in range(100):
                        if not _alive(pid):
                            break
                        time.sleep(0.1)
                    else:
                        os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Running (a zombie, ended but not yet reaped by init, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"
