"""The only Dask-aware piece of a campaign: a Client of a local cluster, of a running
scheduler or of worker jobs on a batch system (`batch_client`: SLURM, HTCondor; campaign/batch.py),
and the check that the cluster can run pnetviz before any job is sent.

The local cluster authenticates: scheduler, nannies and workers speak TLS with throw-away
credentials made for this campaign (`Security.temporary()`: held in memory, handed to the
workers through their start-up pipe; distributed writes them for an instant to a private
temporary directory to load them), and every party requires a certificate signed by them. Another process, even of the same user, cannot connect to it, let
alone run code. Everything listens on 127.0.0.1; the dashboard (plain HTTP, read-only) too.

A `--scheduler` is checked before anything waits on it: the address's form and the TLS files
at once, then Dask's own handshake under a hard deadline (distributed waits for the handshake
without one, so a silent port would hang the campaign).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import ssl
from collections.abc import Iterator
from pathlib import Path

from pnetviz import __version__
from pnetviz.errors import InputError

CONNECT_TIMEOUT = 30  # seconds to reach a --scheduler and finish Dask's handshake (the one Dask uses too)
SCHEMES = ("tcp", "tls")  # what --scheduler accepts (a bare host:port is tcp://)
WORKERS_PER_CORE = 4  # more local workers than this per core needs --oversubscribe
MAX_LOCAL_WORKERS = 1024  # never more (each one imports ROOT: ~0.3 GB), or 4 per core if that is more


def cores() -> int:
    return os.cpu_count() or 1


def check_workers(workers: int, oversubscribe: bool) -> None:
    """--workers: 0 (in this process) up to 4 per core, more with --oversubscribe, never absurd."""
    limit = WORKERS_PER_CORE * cores()
    ceiling = max(MAX_LOCAL_WORKERS, limit)
    if workers < 0:
        raise InputError(f"--workers {workers}: give 0 (every job in this process) or a number of worker processes, "
                         f"1 to {limit} here ({cores()} cores).")  # fmt: skip
    if workers > ceiling:
        raise InputError(f"--workers {workers}: at most {ceiling} local worker processes ({cores()} cores here; "
                         f"each imports ROOT). Fix: give 1 to {limit}, or --scheduler for a bigger cluster.")  # fmt: skip
    if workers > limit and not oversubscribe:
        raise InputError(f"--workers {workers}: more than {WORKERS_PER_CORE} per core ({cores()} cores here). Fix: "
                         f"give 1 to {limit}, or add --oversubscribe if you mean it.")  # fmt: skip


def _shown(text: str) -> str:
    return text if text.isprintable() else repr(text)


def check_scheduler(address: str, tls_ca_file: str | None = None, tls_cert: str | None = None,
                    tls_key: str | None = None) -> object | None:  # fmt: skip
    """The Security for --scheduler `address` (None for tcp://), or one line (InputError) on a
    malformed address, an unknown protocol, or TLS files that are missing, unreadable or not PEM.
    No network."""
    shown = _shown(address)
    match = re.fullmatch(r"(?:([A-Za-z][A-Za-z0-9+.-]*)://)?(.*)", address, flags=re.S)
    scheme, location = match.group(1) or "tcp", match.group(2)
    if scheme not in SCHEMES:
        hint = (" (a web address: give the scheduler's address, e.g. tcp://host:8786, not its dashboard's)"
                if scheme in ("http", "https") else "")  # fmt: skip
        raise InputError(f"--scheduler {shown}: unknown protocol {scheme}://{hint}. Fix: tcp://host:port or "
                         "tls://host:port (with --tls-ca-file, --tls-cert, --tls-key).")  # fmt: skip
    host, _, port = location.rpartition(":")
    if not re.fullmatch(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+", host or "") or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"--scheduler {shown}: not a scheduler address. Fix: {scheme}://host:port, e.g. "
                         f"{scheme}://login01:8786 (the address the cluster prints).")  # fmt: skip
    files = {"--tls-ca-file": tls_ca_file, "--tls-cert": tls_cert, "--tls-key": tls_key}
    given = [option for option, path in files.items() if path]
    if scheme == "tcp":
        if given:
            raise InputError(f"{given[0]} with --scheduler {shown}: TLS files need a tls:// address. Fix: "
                             f"--scheduler tls://{location}.")  # fmt: skip
        return None
    missing = [option for option, path in files.items() if not path]
    if missing:
        raise InputError(f"--scheduler {shown}: a TLS scheduler needs {', '.join(missing)} (the cluster's CA "
                         "certificate and a client certificate and key it signed, PEM files).")  # fmt: skip
    for option, path in files.items():
        p = Path(path)
        if not p.is_file():
            raise InputError(f"{option} {_shown(path)}: no such file. Fix: the PEM file of the cluster's TLS setup.")
        if not os.access(p, os.R_OK):
            raise InputError(f"{option} {_shown(path)}: not readable (permission denied). Fix: chmod u+r, or run as its owner.")
    from distributed.security import Security  # noqa: PLC0415

    security = Security(tls_ca_file=tls_ca_file, tls_client_cert=tls_cert, tls_client_key=tls_key, require_encryption=True)
    try:
        security.get_connection_args("client")  # reads the three files: PEM, and a key matching the certificate
    except (OSError, ValueError) as err:  # ssl.SSLError is an OSError
        reason = " ".join(str(err).split())[:200]
        raise InputError(f"--tls-ca-file/--tls-cert/--tls-key: cannot load them ({reason}). Fix: PEM files: the "
                         "cluster's CA, a client certificate it signed and that certificate's key.") from None  # fmt: skip
    return security


async def _handshake(address: str, connection_args: dict) -> None:
    """The plain probe (a refused port told at once), then Dask's own handshake."""
    from distributed.comm import connect  # noqa: PLC0415

    await _probe(address)
    comm = await connect(address, timeout=CONNECT_TIMEOUT, **connection_args)
    await comm.close()


async def _probe(address: str) -> None:
    """One plain TCP connection to `address` (scheme://host:port, as check_scheduler accepted it),
    within reach()'s deadline (the name lookup included). Raises ConnectionRefusedError when
    nothing listens: decided by the socket at once, not by Dask, which retries a refused port
    until its timeout and may then report only the timeout. Other failures (a name that does not
    resolve, a host that drops the packets) are left to Dask's handshake and the deadline."""
    location = address.split("://", 1)[-1]
    host, _, port = location.rpartition(":")
    try:
        _, writer = await asyncio.open_connection(host.strip("[]"), int(port))
    except ConnectionRefusedError:
        raise
    except OSError:
        return
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


def reach(address: str, security) -> None:
    """Open one connection to `address` and finish Dask's handshake within CONNECT_TIMEOUT, else
    one line (InputError): refused, silent, garbage (a port of another program), TLS refused."""
    shown = _shown(address)
    args = security.get_connection_args("client") if security is not None else {}
    loop = asyncio.new_event_loop()  # not asyncio.run: a DNS lookup left behind must not hold the exit
    try:
        loop.run_until_complete(asyncio.wait_for(_handshake(address, args), CONNECT_TIMEOUT + 2))
    except (asyncio.TimeoutError, TimeoutError):
        raise InputError(f"--scheduler {shown}: no Dask scheduler answered within {CONNECT_TIMEOUT} s (the port "
                         "accepted nothing or said nothing). Fix: check the address the cluster printed and that "
                         "it still runs.") from None  # fmt: skip
    except Exception as err:  # noqa: BLE001 - whatever the other end made Dask raise: one line
        chain, cause = [], err
        while cause is not None and cause not in chain:  # Dask wraps the socket's error in its own
            chain.append(cause)
            cause = cause.__cause__ or cause.__context__
        cause = chain[0]
        text = " ".join(str(cause).split())[:160]
        if any(isinstance(c, ConnectionRefusedError) for c in chain):
            why = "nothing listens there (connection refused)"
        elif any(isinstance(c, ssl.SSLError) for c in chain):
            why = f"the TLS handshake failed ({text})"
        elif isinstance(cause, OSError):
            why = f"{type(cause).__name__}: {text}" if text else type(cause).__name__
        else:
            why = f"it does not speak Dask's protocol ({type(cause).__name__}: {text})"
        raise InputError(f"--scheduler {shown}: cannot connect: {why}. Fix: the address the cluster printed, with "
                         "tls:// and its TLS files if it uses TLS.") from None  # fmt: skip
    finally:
        loop.close()


def temporary_security():
    """Throw-away TLS credentials for the local cluster (needs `cryptography`)."""
    from distributed.security import Security  # noqa: PLC0415

    try:
        return Security.temporary()
    except ImportError:
        raise InputError("the local Dask cluster authenticates with TLS and needs the `cryptography` package. Fix: pip "
                         "install cryptography (or --workers 0 to run every job in this process).") from None  # fmt: skip


@contextlib.contextmanager
def local_client(workers: int) -> Iterator[object]:
    """A Client of a LocalCluster of `workers` single-threaded processes on 127.0.0.1, speaking
    TLS with throw-away credentials (module docstring). A task whose worker dies fails at once
    (allowed-failures 0: the campaign decides what a dead worker means) and the nanny starts a
    new worker; the scheduler sends a worker one task at a time. The workers import pnetviz
    because it is installed in this Python."""
    import dask  # noqa: PLC0415
    from distributed import Client, LocalCluster  # noqa: PLC0415

    if workers < 1:
        raise InputError(f"--workers {workers}: give 1 or more (0 runs in this process).")
    security = temporary_security()
    config = {"distributed.scheduler.allowed-failures": 0, "distributed.scheduler.worker-saturation": 1.0}
    stack = contextlib.ExitStack()
    nanny_log = logging.getLogger("distributed.nanny")  # the nannies run here: keep their word on how a worker died
    stack.callback(nanny_log.setLevel, nanny_log.level)
    nanny_log.setLevel(logging.INFO)
    try:
        stack.enter_context(dask.config.set(config))
        cluster = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                   host="127.0.0.1", protocol="tls://", security=security,
                                                   dashboard_address="127.0.0.1:0", scheduler_kwargs={"allowed_failures": 0},
                                                   silence_logs=logging.CRITICAL))  # fmt: skip
        client = stack.enter_context(Client(cluster, security=security))
    except Exception as err:  # noqa: BLE001 - no port, no process, a broken environment: one line
        with contextlib.suppress(Exception):
            stack.close()
        text = " ".join(str(err.__cause__ or err).split())[:160]
        raise InputError(f"--workers {workers}: the local Dask cluster did not start ({type(err).__name__}: {text}). "
                         "Fix: fewer --workers, or --workers 0 to run every job in this process.") from None  # fmt: skip
    with stack:
        yield client


@contextlib.contextmanager
def scheduler_client(address: str, tls_ca_file: str | None = None, tls_cert: str | None = None,
                     tls_key: str | None = None) -> Iterator[object]:  # fmt: skip
    """A Client of the running scheduler at `address` (TLS with the three files), after
    `check_scheduler` and `reach`: every failure to connect is one line within ~CONNECT_TIMEOUT."""
    from distributed import Client  # noqa: PLC0415

    security = check_scheduler(address, tls_ca_file, tls_cert, tls_key)
    reach(address, security)
    try:
        client = Client(address, security=security, timeout=CONNECT_TIMEOUT)
    except Exception as err:  # noqa: BLE001 - it answered the handshake a moment ago: report what changed
        text = " ".join(str(err).split())[:160]
        raise InputError(f"--scheduler {_shown(address)}: cannot connect ({type(err).__name__}: {text}). Fix: check "
                         "the address and TLS files.") from None  # fmt: skip
    with client:
        yield client


def _describe(name: str, env: object) -> str | None:
    """What `name` (the scheduler or a worker) lacks, or None if it can run pnetviz's jobs."""
    if not isinstance(env, dict):
        return f"{name}: the environment check failed ({env!r})"
    if env.get("pnetviz") is None:
        return f"{name} ({env.get('host')}, {env.get('python')}) has no pnetviz"
    if env["pnetviz"] != __version__:
        return f"{name} ({env.get('host')}) has pnetviz {env['pnetviz']}, this command {__version__}"
    return None


def check_environment(client, need_root: bool = True) -> None:
    """Stop with one line (InputError) unless the scheduler and every worker import pnetviz of
    this version (and the workers PyROOT): jobs sent otherwise fail one by one, each with a
    "deserialization" error or a traceback."""
    import cloudpickle  # noqa: PLC0415

    from pnetviz.campaign import probe  # noqa: PLC0415

    cloudpickle.register_pickle_by_value(probe)
    try:
        scheduler = client.run_on_scheduler(probe.environment)
    except Exception as err:  # noqa: BLE001 - whatever the remote side raised: report it in one line
        scheduler = err
    workers = client.run(probe.environment, on_error="return")
    problems = [p for p in [_describe("the scheduler", scheduler)] if p]
    if not workers:
        problems.append("the cluster has no workers")
    for address, env in sorted(workers.items()):
        problem = _describe(f"worker {address}", env)
        if problem is None and need_root and not env.get("root"):
            problem = f"worker {address} ({env.get('host')}) cannot import PyROOT"
        if problem:
            problems.append(problem)
    if problems:
        more = f" (and {len(problems) - 2} more)" if len(problems) > 2 else ""
        raise InputError(f"the Dask cluster cannot run pnetviz {__version__}: {'; '.join(problems[:2])}{more}. Fix: install "
                         "this pnetviz (pip install) and ROOT in the environment the scheduler and workers start "
                         "from (docs/campaigns.md: on a batch system).")  # fmt: skip


@contextlib.contextmanager
def batch_client(spec, output: Path, say=None) -> Iterator[object]:
    """A Client of worker jobs on a batch system (`batch.JobSpec`: SLURM or HTCondor through
    dask-jobqueue; TLS, private credentials on the shared filesystem, jobs cancelled on the way
    out, also on Ctrl-C and SIGTERM). Yields the `batch.BatchCluster`: `.client`,
    `.wait_for_workers()`, `.tend()`."""
    from pnetviz.campaign import batch  # noqa: PLC0415

    with batch.terminate_as_interrupt(), batch.BatchCluster(spec, output, say) as cluster:
        yield cluster
