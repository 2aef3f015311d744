"""The per-fold loop shared by the visualize scripts, and the cross-fold summary after it."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pnetviz.errors import PnetvizWarning
from pnetviz.metrics.folds import FoldCurves
from pnetviz.jobs import deployedfold, foldsummary, limits, outoffold
from pnetviz.jobs.foldsummary import write_fold_summary
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.output import imageset, rounds
from pnetviz.output.atomic import check_target, is_output_set, transaction
from pnetviz.draw.style import StyleOptions
from pnetviz.jobs.systematics import SystOptions
from pnetviz.io.trainer import TrainerInfo, channel_label, display_label, signal_label


@dataclass(frozen=True, kw_only=True)
class FoldJob:
    """What one fold's run of a visualize script needs, resolved by the CLI (the binary and
    multi-class jobs add their own fields)."""

    signal: str
    channel: str
    fold: int | None  # None: unknown, or the trainer's pilot run (pilot=True)
    predictions: Path
    history: Path | None
    output: Path
    pilot: bool = False
    model: str | None = None  # the trainer's model name, when the ntuple is in its layout
    info: TrainerInfo = TrainerInfo()  # the trainer's JSON metadata (empty without it)
    label_overrides: dict = field(default_factory=dict)  # --labels: class name -> plot label
    bjet_comparison: bool = True  # all / with / without b-jet when the ntuple has has_bjet
    syst: SystOptions = SystOptions()  # --syst, --syst-kappa, --score-shift: the profiled ROC
    formats: tuple[str, ...] = ("png", "pdf")
    images: str = "all"  # output.imageset: which figures get images (site: the web report's)
    tree: str = "Events"
    columns: tuple[tuple[str, str], ...] = ()  # --column/--columns: contract column -> branch or expression
    observe: tuple[str, ...] = ()  # --observe: observer branches (performance vs variable, sculpting)
    subset: str | None = None
    style: StyleOptions = StyleOptions()
    hep: HepOptions = HepOptions()
    progress: bool = False  # progress bar while reading large files
    hull: bool = False
    fit_binning: bool = True  # --binning none: no optimal binning for the fit (binning.json, its figures, TH1s)
    deployed_fold: int | None = None  # --deployed-fold K: the folds/ set measures fold K's train vs test bias (jobs.deployedfold)
    mass_column: str | None = None  # --mass-column: the mass observable of the limits' strategies (jobs.limits)
    mass_window: str | None = None  # --mass-window: its window around m(A) (limits.strategies.parse_window; None: the default rule)
    limits: bool = True  # --no-limits: no folds/limits.json (docs/limits.md)

    @property
    def fold_text(self) -> str:
        """'fold 3', 'pilot' or '' (unknown fold) for plots and messages."""
        return "pilot" if self.pilot else "" if self.fold is None else f"fold {self.fold}"

    def label(self, name: str) -> str:
        """Plot label of class `name` (--labels, then the physics defaults)."""
        return display_label(name, self.label_overrides)

    def context(self, what: str) -> list[str]:
        """The plot context in physics labels: the signal point (m(H^{+}) = 130 GeV, m(A) = 90 GeV),
        then `what` (e.g. "vs Nonprompt") with the channel's final state and the fold, then the
        subset if any. Short lines: they sit in a legend box."""
        where = ", ".join(t for t in (what, channel_label(self.channel, self.label_overrides), self.fold_text) if t)
        return [signal_label(self.signal, self.label_overrides), where] + ([f"subset: {self.subset}"] if self.subset else [])

    def describe(self, what: str) -> str:
        """One line naming the evaluation: what, channel, fold, model (report and ROOT-object titles)."""
        parts = [what, self.channel, self.fold_text, self.model or ""]
        return ", ".join(p for p in parts if p)

    def report_identity(self) -> dict:
        """Fold, pilot flag and the trainer's model metadata for summary_report.json."""
        return {"fold": self.fold, "pilot": self.pilot, "model": self.info.report() if self.info.meta or self.info.info
                else {"model_name": self.model}}  # fmt: skip


@dataclass
class RunOutput:
    """What one fold's run wrote, and its curves for the fold summary:
    pair name -> (file prefix, split -> FoldCurves)."""

    written: list[Path]
    curves: dict[str, tuple[str, dict[str, FoldCurves]]] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # script-specific per-fold results


def job_inputs(job) -> list[Path]:
    """Every file a job reads (an output directory must not hold one: it is replaced whole)."""
    info = getattr(job, "info", None)
    return [p for p in (job.predictions, job.history, info.model_info if info else None) if p is not None]


def run_jobs(script: str, jobs: Sequence, run_one: Callable[[object], RunOutput], summary_dir: Path,
             missing: Sequence[int], quiet: bool, title: str, context: Sequence[str], wait: bool = False,
             meta: dict | None = None) -> None:  # fmt: skip
    """Run every fold (progress per fold); with several folds, write the summary to summary_dir.
    All or nothing: every fold's set and the summary are staged and published only when all
    succeeded (output.transaction); on any error every output directory keeps what it had.
    One fold beside an existing summary updates it from the stored results of its other folds,
    or withdraws it, in the same transaction (foldsummary). `meta` (cli.provenance) is recorded
    in every set's marker."""
    if missing:
        warnings.warn(f"folds {', '.join(map(str, missing))} have no predictions file and are skipped; "
                      "the fold summary lists them as missing", PnetvizWarning, stacklevel=2)  # fmt: skip
    targets = [job.output for job in jobs]
    inputs = [p for job in jobs for p in job_inputs(job)]
    with_summary = len(jobs) > 1 or foldsummary.touches_summary(targets, summary_dir)
    if with_summary:
        check_target(summary_dir, inputs)  # before the work, not after it
        rounds.check_same(summary_dir, meta)  # a summary of another training round is never replaced
    collected: dict[str, tuple[str, dict[str, list[FoldCurves]]]] = {}
    display: dict[str, str] = {}  # pair name -> plot text (physics labels)
    fresh: dict[int, dict] = {}  # fold -> its stored results
    summary_note = ""
    with transaction(targets, inputs, wait, meta) as stages:
        for i, job in enumerate(jobs, start=1):
            out = run_one(replace(job, output=stages[job.output]))
            stages.marks[job.output] = imageset.marker_field(job.formats, job.images)  # a fold after the first: {}
            shown = out.extra.get("display", {})
            display.update(shown)
            for name, (prefix, per_split) in out.curves.items():
                entry = collected.setdefault(name, (prefix, {}))
                for split, curves in per_split.items():
                    entry[1].setdefault(split, []).append(curves)
            if job.fold is not None and out.curves:
                fresh[job.fold] = foldsummary.curve_results(out.curves, shown)
                foldsummary.write_results(stages[job.output], script, job.fold, fresh[job.fold])
            if not quiet:
                print(set_line(script, job.fold_text, i, len(jobs), len(out.written), job.output), flush=True)
        if with_summary:
            summary_note = _summary(stages, script, jobs, summary_dir, title, context, collected, missing, display, fresh)
    if not quiet:
        if summary_note:
            print(f"[pnetviz {script}] {summary_note}", flush=True)
        print(published_line(script, len(targets), summary_note), flush=True)


def set_line(script: str, fold_text: str, i: int, n: int, files: int, output: Path) -> str:
    """The progress line of one evaluated set: '[pnetviz binary] 1/2 evaluated (fold 0): 20 files
    staged for <dir>' (published together at the end); a file of unknown fold says so."""
    return f"[pnetviz {script}] {i}/{n} evaluated ({fold_text or 'fold unknown'}): {files} files staged for {output}"


def published_line(script: str, sets: int, summary_note: str) -> str:
    """'[pnetviz binary] published 3 output sets': the evaluated sets plus a written or updated
    fold summary (summary_note as _summary returns it)."""
    published = sets + summary_note.startswith(("summary", "updated"))
    return f"[pnetviz {script}] published {published} output set{'s' * (published != 1)}"


def _summary(stages, script: str, jobs: Sequence, summary_dir: Path, title: str, context: Sequence[str],
             collected: dict, missing: Sequence[int], display: dict[str, str], fresh: dict[int, dict]) -> str:  # fmt: skip
    """Stage the fold summary (several folds), or update or withdraw an existing one (one fold);
    returns what was done, for the progress line ('' if there was no summary to touch)."""
    stage = stages.add(summary_dir)  # locked now: no other run publishes a fold here meanwhile
    first = jobs[0]
    if len(jobs) > 1:
        pooled = outoffold.pooled(script, {job.fold: stages[job.output] for job in jobs if job.fold is not None}, missing,
                                  first.hep, first.fit_binning)  # fmt: skip
        deployed = deployedfold.of_jobs(jobs, summary_dir)
        written = write_fold_summary(stage, first.formats, first.style, title, context, collected, missing, display,
                                     {job.fold: job.history for job in jobs}, pooled, deployed=deployed,
                                     limits=limits.compute(script, pooled, first, stage))  # fmt: skip
        note = deployedfold.line(deployed, first.deployed_fold)
        return f"summary of {len(jobs)} folds: {len(written)} files in {summary_dir}{'; ' * bool(note)}{note}"
    existed = is_output_set(summary_dir)
    update = foldsummary.updated_folds(summary_dir, script, fresh) if fresh else None
    if update is None:
        stages.withdraw(summary_dir)
        return f"withdrew the fold summary {summary_dir}: it no longer describes the folds on disk" if existed else ""
    results, still_missing = update
    pairs, shown = foldsummary.summary_from_results(results)
    fold_dirs = {fold: stages[job.output] if (job := next((j for j in jobs if j.fold == fold), None)) else
                 summary_dir.parent / f"fold-{fold}" for fold in results}  # fmt: skip
    deployed = deployedfold.of_jobs(jobs, summary_dir)
    pooled = outoffold.pooled(script, fold_dirs, still_missing, first.hep, first.fit_binning)
    write_fold_summary(stage, first.formats, first.style, title, context, pairs, still_missing, {**shown, **display},
                       foldsummary.histories_beside(summary_dir, results, {first.fold: first.history}), pooled,
                       deployed=deployed, limits=limits.compute(script, pooled, first, stage))  # fmt: skip
    note = deployedfold.line(deployed, first.deployed_fold)
    return f"updated the fold summary of folds {', '.join(map(str, results))} in {summary_dir}{'; ' * bool(note)}{note}"
