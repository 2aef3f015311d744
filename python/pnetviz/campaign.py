"""A campaign: every model of a results directory, as jobs run on Dask workers.

A job is a pure function of (inputs, options) to output sets: one visualize script's `main`
called in-process with an argv for one model and all its folds (or one comparison), writing
exactly what that script writes alone, in the same directories (the campaign only sets
`--plots-dir`). Discovery (`layout.discover`) and execution (`execute`: a Dask client, local
or remote) are separate; each worker process imports ROOT, sets up cling and cmsstyle once and
then runs many jobs. A job whose output sets were made by the same command and pnetviz version
after its inputs last changed is skipped (resume).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import json
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__, layout
from .output import MARKER

SCRIPTS_DIR = Path(__file__).resolve().parents[1]
ORDER = {"multiclass": 0, "binary": 1, "comparison": 2}  # longest first: better load balance


@dataclass(frozen=True)
class Job:
    """One script run: `script` (python/<script>.py) with `argv`; what it reads and the output
    sets (directories) it publishes."""

    kind: str  # binary, multiclass, comparison
    channel: str
    signal: str
    model: str | None
    pair: str | None  # binary: the background
    folds: tuple[int | None, ...]
    script: str
    argv: tuple[str, ...]
    inputs: tuple[Path, ...]
    outputs: tuple[Path, ...]

    @property
    def name(self) -> str:
        what = self.pair or self.model or self.kind
        folds = ",".join("pilot" if f is None else str(f) for f in self.folds)
        return f"{self.channel}/{self.signal}/{self.kind}/{what} [folds {folds}]"


@dataclass(frozen=True)
class JobResult:
    job: Job
    code: int  # 0 done, 2 bad input (one line in message), 1 internal error, -1 skipped (up to date)
    message: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Options:
    """The campaign's command line, as passed on to every script."""

    results: Path
    plots: Path
    prefix: str = layout.DEFAULT_PREFIX
    passthrough: tuple[str, ...] = ()  # evaluation options shared by every script (--formats, ...)
    model_options: tuple[str, ...] = ()  # --labels, --no-bjet-comparison: binary/multi-class only


def fold_arg(folds: Sequence[int | None]) -> list[str]:
    return ["--pilot"] if folds == (None,) else ["--fold", ",".join(str(f) for f in folds)]


def json_inputs(ntuple: Path) -> list[Path]:
    from .trainer import MODEL_INFO_SUFFIX, PERFORMANCE_SUFFIX, beside  # noqa: PLC0415

    found = [beside(ntuple, s) for s in (PERFORMANCE_SUFFIX, MODEL_INFO_SUFFIX)]
    if ntuple.name == "predictions.root":
        found += sorted(ntuple.parent.glob(f"*{PERFORMANCE_SUFFIX}"))
    return [p for p in found if p is not None]


def set_dirs(model_dir: Path, folds: Sequence[int | None]) -> tuple[Path, ...]:
    dirs = [model_dir / ("pilot" if f is None else f"fold-{f}") for f in folds]
    return tuple(dirs + ([model_dir / "folds"] if len(folds) > 1 else []))


def model_job(group: layout.ModelGroup, opts: Options) -> Job:
    argv = ["--results-dir", str(opts.results), "--signal-prefix", opts.prefix, "--channel", group.channel,
            "--signal", group.signal, *fold_arg(group.folds), "--plots-dir", str(opts.plots)]  # fmt: skip
    if group.model:
        argv += ["--model", group.model]
    if group.background:
        argv += ["--background", group.background]
    argv += [*opts.passthrough, *opts.model_options, "-q"]
    script = "visualizeBinary" if group.kind == "binary" else "visualizeMultiClass"
    inputs = [p for f in group.files for p in (f, *json_inputs(f))]
    model_dir = layout.plots_model_dir(group.first(), opts.results, opts.plots)
    return Job(group.kind, group.channel, group.signal, group.model, group.background, group.folds, script,
               tuple(argv), tuple(inputs), set_dirs(model_dir, group.folds))  # fmt: skip


def comparison_jobs(groups: Sequence[layout.ModelGroup], opts: Options) -> list[Job]:
    """One comparison per multi-class model, over the folds that also have a binary model."""
    jobs = []
    for mc in (g for g in groups if g.kind == "multiclass" and g.folds != (None,)):
        binaries = [g for g in groups if g.kind == "binary" and (g.channel, g.signal) == (mc.channel, mc.signal)]
        folds = tuple(f for f in mc.folds if any(f in b.folds for b in binaries))
        if not folds:
            continue
        argv = ["--results-dir", str(opts.results), "--signal-prefix", opts.prefix, "--channel", mc.channel,
                "--signal", mc.signal, *fold_arg(folds), "--plots-dir", str(opts.plots)]  # fmt: skip
        if mc.model:  # binary variants of other trainings are told apart by the shared hyperparameters
            argv += ["--model", mc.model, "--binary-model", layout.hyper_tag(mc.model)]
        argv += [*opts.passthrough, "-q"]
        inputs = [f for f, fold in zip(mc.files, mc.folds) if fold in folds]
        inputs += [f for b in binaries for f, fold in zip(b.files, b.folds) if fold in folds]
        inputs += [p for f in list(inputs) for p in json_inputs(f)]
        out = layout.plots_comparison_dir(mc.first(), opts.results, opts.plots)
        jobs.append(Job("comparison", mc.channel, mc.signal, mc.model, None, folds, "visualizeComparison", tuple(argv),
                        tuple(inputs), set_dirs(out, folds)))  # fmt: skip
    return jobs


def plan(groups: Sequence[layout.ModelGroup], opts: Options, kinds: set[str]) -> list[Job]:
    jobs = [model_job(g, opts) for g in groups if g.kind in kinds]
    if "comparison" in kinds:
        jobs += comparison_jobs(groups, opts)
    return sorted(jobs, key=lambda j: (ORDER[j.kind], j.channel, j.signal, j.name))


def up_to_date(job: Job) -> bool:
    """Every output set exists, was made by this job's command with this pnetviz version, and
    after the inputs last changed."""
    newest = max((p.stat().st_mtime for p in job.inputs if p.exists()), default=0.0)
    command = [job.script, *job.argv]
    for directory in job.outputs:
        marker = directory / MARKER
        try:
            meta = json.loads(marker.read_text())
            if meta.get("command") != command or meta.get("pnetviz_version") != __version__:
                return False
            if marker.stat().st_mtime < newest:
                return False
        except (OSError, ValueError):
            return False
    return True


@functools.cache
def _script(name: str):
    """python/<name>.py imported once per worker process."""
    spec = importlib.util.spec_from_file_location(f"pnetviz_script_{name}", SCRIPTS_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_job(job: Job) -> JobResult:
    """Run one job in this process (a Dask worker, or the campaign itself): the script's main
    with the job's argv, its output captured; never raises."""
    from .cli import run  # noqa: PLC0415

    start = time.perf_counter()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = run(_script(job.script).main, list(job.argv))
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
    from .rootenv import root  # noqa: PLC0415
    from .style import cmsstyle  # noqa: PLC0415

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


def execute(jobs: Sequence[Job], client, on_result: Callable[[JobResult], None]) -> list[JobResult]:
    """Run `jobs` on the Dask `client` (any cluster); results in completion order. A worker
    that dies takes only its job down (reported as an internal error)."""
    from distributed import as_completed  # noqa: PLC0415

    client.run(worker_setup)
    futures = {client.submit(run_job, job, pure=False, key=f"pnetviz-{i}-{job.name}"): job for i, job in enumerate(jobs)}
    results = []
    for future in as_completed(futures):
        try:
            result = future.result()
        except Exception as exc:  # noqa: BLE001 - the worker died (killed, out of memory)
            result = JobResult(futures[future], 1, f"pnetviz: internal error: the worker running it failed: {exc!r}")
        results.append(result)
        on_result(result)
    return results


def run_here(jobs: Iterable[Job], on_result: Callable[[JobResult], None]) -> list[JobResult]:
    """The same jobs in this process, one after the other (no cluster)."""
    results = []
    for job in jobs:
        results.append(run_job(job))
        on_result(results[-1])
    return results
