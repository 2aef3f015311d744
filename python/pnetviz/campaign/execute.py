"""A campaign's execution: jobs run on Dask workers (any cluster) or in this process.

Each worker process imports ROOT, sets up cling and cmsstyle once, then runs many jobs. A job
is run by a `runner(command, argv) -> exit code` handed in by the caller (the command line's
dispatcher), so this layer knows nothing of argument parsing.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pnetviz.campaign.plan import Job, JobResult

Runner = Callable[[str, list[str]], int]


def run_job(job: Job, runner: Runner) -> JobResult:
    """Run one job in this process (a Dask worker, or the campaign itself): the command with the
    job's argv, its output captured; never raises."""
    start = time.perf_counter()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = runner(job.command, list(job.argv))
    except BaseException as exc:  # noqa: BLE001 - a bug in one job must not stop the others
        code = 1
        err.write(f"pnetviz: internal error: {exc!r}\n{traceback.format_exc()}")
    lines = [line.removeprefix("pnetviz: error: ") for line in err.getvalue().splitlines()
             if line.startswith("pnetviz: error:")]  # fmt: skip
    message = ""
    if code:
        message = lines[-1] if lines else (err.getvalue().strip().splitlines() or ["failed"])[0]
    return JobResult(job, code, message, time.perf_counter() - start)


def worker_setup() -> None:
    """Pay the start-up once per worker: ROOT, the cling kernels, cmsstyle."""
    from pnetviz.draw.style import cmsstyle  # noqa: PLC0415
    from pnetviz.rootenv import root  # noqa: PLC0415

    root()
    cmsstyle()


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


def execute(jobs: Sequence[Job], client, runner: Runner, on_result: Callable[[JobResult], None]) -> list[JobResult]:
    """Run `jobs` on the Dask `client` (any cluster); results in completion order. A worker
    that dies takes only its job down (reported as an internal error)."""
    from distributed import as_completed  # noqa: PLC0415

    client.run(worker_setup)
    futures = {client.submit(run_job, job, runner, pure=False, key=f"pnetviz-{i}-{job.name}"): job
               for i, job in enumerate(jobs)}  # fmt: skip
    results = []
    for future in as_completed(futures):
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - the worker died (killed, out of memory)
            result = JobResult(futures[future], 1, f"pnetviz: internal error: the worker running it failed: {exc!r}")
        results.append(result)
        on_result(result)
    return results


def run_here(jobs: Iterable[Job], runner: Runner, on_result: Callable[[JobResult], None]) -> list[JobResult]:
    """The same jobs in this process, one after the other (no cluster)."""
    results = []
    for job in jobs:
        results.append(run_job(job, runner))
        on_result(results[-1])
    return results
