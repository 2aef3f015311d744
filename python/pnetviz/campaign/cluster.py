"""The only Dask-aware piece of a campaign: a Client of a local cluster or of a running
scheduler, and the check that the cluster can run pnetviz before any job is sent."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Iterator

from pnetviz import __version__
from pnetviz.errors import InputError

CONNECT_TIMEOUT = 30  # seconds to reach a --scheduler


@contextlib.contextmanager
def local_client(workers: int) -> Iterator[object]:
    """A Client of a LocalCluster of `workers` single-threaded processes listening on 127.0.0.1
    only (dashboard on localhost if bokeh is there). The workers import pnetviz because it is
    installed in this Python."""
    from distributed import Client, LocalCluster  # noqa: PLC0415

    if workers < 1:
        raise InputError(f"--workers {workers}: give 1 or more (0 runs in this process).")
    dashboard = "127.0.0.1:0" if importlib.util.find_spec("bokeh") else None
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=dashboard, silence_logs=logging.ERROR) as cluster, Client(cluster) as client:  # fmt: skip
        yield client


@contextlib.contextmanager
def scheduler_client(address: str, tls_ca_file: str | None = None, tls_cert: str | None = None,
                     tls_key: str | None = None) -> Iterator[object]:  # fmt: skip
    """A Client of the running scheduler at `address` (TLS with the three files)."""
    from distributed import Client  # noqa: PLC0415
    from distributed.security import Security  # noqa: PLC0415

    tls = [tls_ca_file, tls_cert, tls_key]
    if any(tls) and not all(tls):
        raise InputError("--tls-ca-file, --tls-cert and --tls-key go together.")
    security = Security(tls_ca_file=tls_ca_file, tls_client_cert=tls_cert, tls_client_key=tls_key,
                        require_encryption=True) if all(tls) else None  # fmt: skip
    try:
        client = Client(address, security=security, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"--scheduler {address}: cannot connect ({err}). Fix: check the address and TLS files.") from None
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
                         "from (README: campaigns on a cluster).")  # fmt: skip
