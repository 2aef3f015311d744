"""A campaign's plan: every model of a results directory as jobs.

A job is a pure function of (inputs, options) to output sets: one `pnetviz` subcommand
(binary, multiclass, compare) with an argv for one model and all its folds (or one
comparison), writing exactly what that command writes alone, in the same directories (the
campaign only sets `--plots-dir`). Discovery (`layout.discover`, `discover`) and execution
(`campaign.execute`) are separate. A job whose output sets were made by the same command and
pnetviz version after its inputs last changed is skipped (resume).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pnetviz import __version__, escape
from pnetviz.errors import InputError
from pnetviz.io import layout, readers
from pnetviz.output import atomic, paths
from pnetviz.output.atomic import MARKER

KINDS = ("binary", "multiclass", "comparison", "ga")  # --kinds; a comparison runs `pnetviz compare`, ga `pnetviz ga`
COMMANDS = {"binary": "binary", "multiclass": "multiclass", "comparison": "compare", "ga": "ga"}
ORDER = {"multiclass": 0, "binary": 1, "comparison": 2, "ga": 3}  # longest first: better load balance


@dataclass(frozen=True)
class Job:
    """One command run: `pnetviz <command> <argv>`; what it reads and the output sets
    (directories) it publishes."""

    kind: str  # binary, multiclass, comparison, ga
    channel: str
    signal: str
    model: str | None
    pair: str | None  # binary: the background
    folds: tuple[int | None, ...]
    command: str  # the pnetviz subcommand: binary, multiclass, compare
    argv: tuple[str, ...]
    inputs: tuple[Path, ...]
    outputs: tuple[Path, ...]
    label: str = ""  # the name to show instead of one made of the fields (a directory left out of the plan)

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        if self.kind == "ga":  # a GA search: no folds; model = its GAOptim* directory
            return f"{self.channel}/{self.signal}/ga/{self.model}"
        what = self.pair or self.model or self.kind
        folds = ",".join("pilot" if f is None else str(f) for f in self.folds)
        return f"{self.channel}/{self.signal}/{self.kind}/{what} [folds {folds}]"


@dataclass(frozen=True)
class JobResult:
    job: Job
    code: int  # 0 done, 2 bad input (one line in message), 1 internal error, -1 skipped (up to date)
    message: str = ""
    seconds: float = 0.0


DONE, UP_TO_DATE, OTHER_OPTIONS = 0, -1, -3  # JobResult codes of sets the summary describes (failures are > 0)
NO_NTUPLE = -4  # a model with JSON files but no trees/<model>.root: named, not evaluated, not a failure


@dataclass(frozen=True)
class Options:
    """The campaign's command line, as passed on to every job."""

    results: Path
    plots: Path
    prefix: str = layout.DEFAULT_PREFIX
    evaluation: dict[str, tuple[str, ...]] = field(default_factory=dict)  # command -> its evaluation options
    round: str | None = None  # --round: the round's place in the plots tree (None: derived from results)

    def round_argv(self) -> list[str]:
        return option("--round", self.round) if self.round is not None else []


def option(flag: str, value: str) -> list[str]:
    """`flag value` as argv; `flag=value` for a value that starts with '-' (argparse would take it
    for an option)."""
    return [f"{flag}={value}"] if value.startswith("-") else [flag, value]


def fold_arg(folds: Sequence[int | None]) -> list[str]:
    return ["--pilot"] if folds == (None,) else ["--fold", ",".join(str(f) for f in folds)]


def json_inputs(ntuple: Path) -> list[Path]:
    from pnetviz.io.trainer import MODEL_INFO_SUFFIX, PERFORMANCE_SUFFIX, beside  # noqa: PLC0415

    found = [beside(ntuple, s) for s in (PERFORMANCE_SUFFIX, MODEL_INFO_SUFFIX)]
    if ntuple.name == "predictions.root":
        found += sorted(ntuple.parent.glob(f"*{PERFORMANCE_SUFFIX}"))
    return [p for p in found if p is not None]


def set_dirs(model_dir: Path, folds: Sequence[int | None]) -> tuple[Path, ...]:
    dirs = [model_dir / ("pilot" if f is None else f"fold-{f}") for f in folds]
    return tuple(dirs + ([model_dir / "folds"] if len(folds) > 1 else []))


def model_job(group: layout.ModelGroup, opts: Options) -> Job:
    argv = [*option("--results-dir", str(opts.results)), *option("--signal-prefix", opts.prefix),
            *option("--channel", group.channel), *option("--signal", group.signal), *fold_arg(group.folds),
            *option("--plots-dir", str(opts.plots)), *opts.round_argv()]  # fmt: skip
    if group.model:
        argv += option("--model", group.model)
    if group.background:
        argv += option("--background", group.background)
    argv += [*opts.evaluation.get(group.kind, ()), "--replace", "-q"]  # the campaign has settled the options
    inputs = [p for f in group.files for p in (f, *json_inputs(f))]
    model_dir = paths.plots_model_dir(group.first(), opts.results, opts.plots, opts.round)
    return Job(group.kind, group.channel, group.signal, group.model, group.background, group.folds, group.kind,
               tuple(argv), tuple(inputs), set_dirs(model_dir, group.folds))  # fmt: skip


def comparison_jobs(groups: Sequence[layout.ModelGroup], opts: Options) -> list[Job]:
    """One comparison per multi-class model, over the folds that also have a binary model."""
    jobs = []
    for mc in (g for g in groups if g.kind == "multiclass" and g.folds != (None,)):
        binaries = [g for g in groups if g.kind == "binary" and (g.channel, g.signal) == (mc.channel, mc.signal)]
        folds = tuple(f for f in mc.folds if any(f in b.folds for b in binaries))
        if not folds:
            continue
        argv = [*option("--results-dir", str(opts.results)), *option("--signal-prefix", opts.prefix),
                *option("--channel", mc.channel), *option("--signal", mc.signal), *fold_arg(folds),
                *option("--plots-dir", str(opts.plots)), *opts.round_argv()]  # fmt: skip
        if mc.model:  # binary variants of other trainings are told apart by the shared hyperparameters
            argv += [*option("--model", mc.model), *option("--binary-model", layout.hyper_tag(mc.model))]
        argv += [*opts.evaluation.get("compare", ()), "--replace", "-q"]
        inputs = [f for f, fold in zip(mc.files, mc.folds) if fold in folds]
        inputs += [f for b in binaries for f, fold in zip(b.files, b.folds) if fold in folds]
        inputs += [p for f in list(inputs) for p in json_inputs(f)]
        out = paths.plots_comparison_dir(mc.first(), opts.results, opts.plots, opts.round)
        jobs.append(Job("comparison", mc.channel, mc.signal, mc.model, None, folds, "compare", tuple(argv),
                        tuple(inputs), set_dirs(out, folds)))  # fmt: skip
    return jobs


def ga_jobs(opts: Options, channels: set[str] | None, signals: set[str] | None,
            skipped: dict[Path, str] | None = None) -> list[Job]:  # fmt: skip
    """One `pnetviz ga` job per GA search run in the GAOptim* directories in and beside the
    results directory (io.ga.roots_near), its set where the command alone would write it; with
    `skipped`, runs under a name that is not UTF-8 are left out and recorded there."""
    from pnetviz.io import ga  # noqa: PLC0415

    jobs = []
    for root in ga.roots_near(opts.results):
        for channel, signal, run in ga.find_runs(root, opts.prefix, channels, signals, skipped):
            argv = [*option("--ga-dir", str(run)), *option("--channel", channel), *option("--signal", signal),
                    *option("--signal-prefix", opts.prefix), *option("--plots-dir", str(opts.plots)),
                    *opts.evaluation.get("ga", ()), "-q"]  # fmt: skip
            inputs = tuple(sorted(p for p in run.rglob("*") if p.is_file() and p.suffix in (".json", ".csv", ".npz")))
            out = opts.plots / root.name / channel / "multiclass" / signal / "ga"
            jobs.append(Job("ga", channel, signal, root.name, None, (), "ga", tuple(argv), inputs, (out,)))
    return jobs


def plan(groups: Sequence[layout.ModelGroup], opts: Options, kinds: set[str], ga: Sequence[Job] = ()) -> list[Job]:
    """The jobs of `groups` (and the GA jobs `ga`); InputError before any job runs if two would
    publish into the same output directory (the last would silently win)."""
    jobs = [model_job(g, opts) for g in groups if g.kind in kinds] + list(ga)
    if "comparison" in kinds:
        jobs += comparison_jobs(groups, opts)
    check_distinct(jobs)
    return sorted(jobs, key=lambda j: (ORDER[j.kind], j.channel, j.signal, j.name))


def check_distinct(jobs: Sequence[Job]) -> None:
    """InputError naming two jobs and the directory if they would write the same output set."""
    owner: dict[Path, Job] = {}
    for job in jobs:
        for directory in job.outputs:
            key = Path(os.path.normpath(directory))
            other = owner.setdefault(key, job)
            if other is not job:
                raise InputError(f"{directory}: jobs '{other.name}' and '{job.name}' would both publish this output "
                                 "directory. Fix: rename one of the models or signal points, or leave one out "
                                 "(--channels, --signals, --model, --kinds).")  # fmt: skip


def up_to_date(job: Job, tidy: bool = True) -> bool:
    """Every output set exists, was made by this job's command with this pnetviz version, and
    after the inputs last changed. With `tidy`, an up-to-date job's sets lose the staging
    leftovers of killed runs beside them (when no run is writing them), as a run would."""
    newest = max((p.stat().st_mtime for p in job.inputs if p.exists()), default=0.0)
    command = ["pnetviz", job.command, *job.argv]
    fresh = _sets_match(job, command, newest)
    if fresh and tidy:
        for directory in job.outputs:
            atomic.tidy(directory)
    return fresh


def _sets_match(job: Job, command: list[str], newest: float) -> bool:
    for directory in job.outputs:
        marker = directory / MARKER
        try:
            meta = readers.read_marker(marker)
            if meta.get("command") != command or meta.get("pnetviz_version") != __version__:
                return False
            if marker.stat().st_mtime < newest:
                return False
        except (OSError, InputError):
            return False
    return True


def discover(opts: Options, kinds: set[str], channels: set[str] | None, signals: set[str] | None,
             folds: set[int] | None, model: str | None, pilot: bool, skipped: dict[Path, str] | None = None) -> list[Job]:
    """Every job of `kinds` found under opts.results with these filters; InputError if none.
    With `skipped`, directories and ntuples whose names are not UTF-8 are left out and recorded
    there (path -> why; `left_out` makes them failures of the summary) instead of an InputError."""
    if not kinds or not kinds <= set(KINDS):
        given = ",".join(sorted(kinds)) or "''"
        raise InputError(f"--kinds {given}: choose from {', '.join(KINDS)}.")
    model_kinds = {k for k in kinds if k not in ("comparison", "ga")} | ({"binary", "multiclass"} if "comparison" in kinds else set())
    groups = layout.discover(opts.results, opts.prefix, channels, signals, model_kinds, folds, model, pilot,
                             skipped) if model_kinds else []  # fmt: skip
    found_ga = ga_jobs(opts, channels, signals, skipped) if "ga" in kinds and not pilot and model is None else []
    if not groups and not found_ga:
        found = escape.printable(", ".join(layout.channels_in(opts.results)) or "none")
        left = "; ".join(f"{escape.printable(p)}: {why}" for p, why in (skipped or {}).items())
        raise InputError(f"{escape.printable(opts.results)}: no model matches (channels found: {found}). Fix: check "
                         "--results-dir, --channels, --signals, --folds, --model." + (f" Left out: {left}" if left else ""))  # fmt: skip
    return plan(groups, opts, kinds, found_ga)


LEFT_OUT = "left out"  # the kind of a left_out result (no command, no output)


def left_out(skipped: dict[Path, str], opts: Options) -> list[JobResult]:
    """A failure (code 2: a user's to fix) per directory or ntuple that discovery left out, named
    by its printable path under the results directory (or its GA directory), for the summary's
    failure list and the campaign's exit code."""
    out = []
    for path, why in sorted(skipped.items()):
        rel = path.relative_to(opts.results) if path.is_relative_to(opts.results) else path
        parts = [escape.printable(p) for p in rel.parts]
        job = Job(LEFT_OUT, parts[0] if len(parts) > 1 else "", parts[-1], None, None, (), "", (), (), (),
                  label="/".join(parts))  # fmt: skip
        out.append(JobResult(job, 2, why))
    return out
