"""`open_round(plots_dir)`: a finished campaign as Python objects, read from its outputs.

The campaign's tables (campaign/*.csv) as pandas DataFrames when pandas is importable, else
lists of records; its models (one per output directory <results>/<channel>/<kind>/<signal>/
<model>/ holding fold-<k>/ sets) with their folds, reports and figures; the campaign's own
figures (campaign.root). Nothing is computed again: every number is the one on disk.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pnetviz.api.figure import jsroot_base
from pnetviz.api.files import Figures, read_json, read_table
from pnetviz.api.series import Series, background, check_split, checked_label, pick_pair
from pnetviz.errors import InputError
from pnetviz.escape import text_line, tlatex
from pnetviz.io import readers
from pnetviz.jobs import foldsummary

CAMPAIGN_DIR = "campaign"
TABLE_PREFIX = "campaign_"
FOLD = re.compile(r"fold-(\d+)")
KIND_LABELS = {"binary": "binary", "multiclass": "multi-class", "comparison": "comparison"}


@dataclass
class Fold:
    """One fold's output set of a model: its report (summary_report.json) and figures."""

    fold: int
    directory: Path
    jsroot: str

    @cached_property
    def report(self) -> dict:
        return read_json(self.directory / "summary_report.json")

    @cached_property
    def figures(self) -> Figures:
        return Figures(self.directory / "plots.root", self.jsroot)


@dataclass
class Model:
    """One evaluated model of the round: kind (binary, multiclass, comparison), channel, signal
    point, the trainer's model name, the campaign's pair (the background of a binary model), its
    folds (fold number -> Fold) and its fold summary (folds/: `summary`, `figures`)."""

    kind: str
    channel: str
    signal: str
    name: str
    directory: Path
    folds: dict[int, Fold]
    jsroot: str
    pair: str = ""
    status: str = "done"

    def __repr__(self) -> str:
        return (f"<pnetviz Model {self.kind} {text_line(self.channel)} {text_line(self.signal)} {text_line(self.pair)} "
                f"{text_line(self.name)} folds {sorted(self.folds)}>")  # fmt: skip

    @property
    def label(self) -> str:
        """A short legend text: kind and pair ("binary vs diboson")."""
        return f"{KIND_LABELS.get(self.kind, self.kind)} vs {self.pair}" if self.pair else KIND_LABELS.get(self.kind, self.kind)

    @cached_property
    def summary(self) -> dict | None:
        """The fold summary's report (folds/summary_report.json), None without one."""
        path = self.directory / "folds" / "summary_report.json"
        return read_json(path) if path.is_file() else None

    @cached_property
    def figures(self) -> Figures:
        """The fold summary's figures (folds/plots.root)."""
        return Figures(self.directory / "folds" / "plots.root", self.jsroot)

    def curves(self) -> dict[str, dict[str, list]]:
        """pair name -> split -> [FoldCurves per fold], from each fold's stored results."""
        results = {}
        for k, fold in sorted(self.folds.items()):
            stored = foldsummary.read_results(fold.directory, self.kind, k)
            if stored is not None:
                results[k] = stored
        pairs, _ = foldsummary.summary_from_results(results)
        return {name: per_split for name, (_, per_split) in pairs.items()}

    def series(self, pair: str | None = None, split: str = "test", label: str | None = None) -> Series:
        """This model's curves over its folds for `pnetviz.overlay` (a multi-class model: name the
        background, `pair="diboson"`); `label` is TLatex (default: kind and background, escaped)."""
        label, split = checked_label(label, text_line(self.name)), check_split(split, text_line(self.name))
        curves = self.curves()
        name = pick_pair(curves, pair if pair is not None or len(curves) == 1 else self.pair or None, text_line(self.name))
        return Series(label or f"{KIND_LABELS.get(self.kind, self.kind)} vs {tlatex(background(name))}", curves[name][split],
                      self.channel, self.signal)  # fmt: skip


@dataclass
class Round:
    """A finished campaign: `tables` (name -> table: leaderboard, summary, summary_folds_mean,
    working_points, binary_vs_multiclass), `summary` (campaign_summary.json), `models`,
    `figures` (the campaign's maps and graphs, campaign.root)."""

    plots_dir: Path
    summary: dict
    tables: dict[str, object]
    models: list[Model]
    figures: Figures
    jsroot: str = ""
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<pnetviz Round {text_line(self.plots_dir)}: {len(self.models)} models, tables {', '.join(self.tables)}>"

    @property
    def leaderboard(self) -> object:
        return self.tables["leaderboard"]

    @property
    def folds(self) -> list[int]:
        return sorted({k for m in self.models for k in m.folds})

    def model(self, kind: str | None = None, pair: str | None = None, name: str | None = None,
              channel: str | None = None, signal: str | None = None) -> Model:  # fmt: skip
        """The one model matching every given field (`name`: the full name or a part only it has)."""
        found = [m for m in self.models if (kind is None or m.kind == kind) and (pair is None or m.pair == pair)
                 and (channel is None or m.channel == channel) and (signal is None or m.signal == signal)
                 and (name is None or name == m.name or name in m.name)]  # fmt: skip
        if len(found) != 1:
            listed = "; ".join(repr(m) for m in self.models[:8])
            raise InputError(f"{text_line(self.plots_dir)}: {len(found)} models match. Fix: narrow it down with kind=, "
                             f"pair=, name=, channel=, signal= (models: {listed}).")  # fmt: skip
        return found[0]


def _models(plots_dir: Path, jobs: list[dict], jsroot: str) -> list[Model]:
    """Every model directory under the output root that holds fold sets, with the campaign's
    record of its job (pair, status) when there is one."""
    records = {(j.get("kind"), j.get("channel"), j.get("signal"), j.get("model")): j for j in jobs}
    models = []
    for model_dir in sorted({p.parent for p in plots_dir.glob("*/*/*/*/*/fold-*") if p.is_dir()}):
        parts = model_dir.relative_to(plots_dir).parts
        if parts[0] == CAMPAIGN_DIR or any(part.startswith(".") for part in parts):
            continue
        _, channel, kind, signal, name = parts
        folds = {int(m.group(1)): Fold(int(m.group(1)), d, jsroot) for d in sorted(model_dir.iterdir())
                 if (m := FOLD.fullmatch(d.name)) and (d / "summary_report.json").is_file()}  # fmt: skip
        if not folds:
            continue
        record = records.get((kind, channel, signal, name), {})
        models.append(Model(kind, channel, signal, name, model_dir, folds, jsroot, str(record.get("pair") or ""),
                            str(record.get("status") or "done")))  # fmt: skip
    return models


JOB_FIELDS = ("kind", "channel", "signal", "model", "pair", "status")
SUMMARY_FIX = "re-run `pnetviz campaign` for this round (its summary was changed or damaged)"


def summary_jobs(summary: dict, path: Path) -> list[dict]:
    """The campaign summary's `jobs`: a list of objects whose kind, channel, signal, model, pair
    and status are strings (or null); BadFile (an InputError) naming the file and the field else."""
    name = text_line(path)
    jobs = readers.object_list(summary.get("jobs") or [], name, "jobs", SUMMARY_FIX)
    for index, job in enumerate(jobs):
        for key in JOB_FIELDS:
            readers.optional_text(job.get(key), name, f"jobs[{index}].{key}", SUMMARY_FIX)
    return jobs


def open_round(plots_dir: str | os.PathLike = "plots", jsroot: str | None = None, frames: bool | None = None) -> Round:
    """Open the finished campaign whose output root is `plots_dir` (`pnetviz campaign
    --plots-dir`; its summary in <plots_dir>/campaign/). Tables are pandas DataFrames when pandas
    is importable (`frames=False`: lists of records, numbers as floats). Figures display inline
    in Jupyter (JSROOT from `jsroot`, else the round's local copy <plots_dir>/jsroot/, else the
    official site; a PNG beside it). InputError if it holds no finished campaign."""
    plots_dir = Path(plots_dir)
    campaign = plots_dir / CAMPAIGN_DIR
    if plots_dir.name == CAMPAIGN_DIR and (plots_dir / "campaign_summary.json").is_file():
        plots_dir, campaign = plots_dir.parent, plots_dir
    if not (campaign / "campaign_summary.json").is_file():
        raise InputError(f"{text_line(plots_dir)}: no finished campaign (campaign/campaign_summary.json). Fix: give the "
                         "--plots-dir of a `pnetviz campaign` run, after it has finished.")  # fmt: skip
    base = jsroot_base(plots_dir, jsroot)
    summary = read_json(campaign / "campaign_summary.json")
    jobs = summary_jobs(summary, campaign / "campaign_summary.json")
    tables = {p.stem.removeprefix(TABLE_PREFIX): read_table(p, frames) for p in sorted(campaign.glob(f"{TABLE_PREFIX}*.csv"))}
    models = _models(plots_dir, jobs, base)
    return Round(plots_dir, summary, tables, models, Figures(campaign / "campaign.root", base), base)
