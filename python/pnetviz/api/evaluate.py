"""`evaluate_binary` and `evaluate_multiclass`: the CLI's evaluations called from Python.

The keyword arguments are the subcommand's options (`working_points="0.5,0.8"` is
`--working-points 0.5,0.8`, `no_bjet_comparison=True` is `--no-bjet-comparison`); they are
parsed by the subcommand's own parser and run by the same jobs (cli.common.evaluate_folds ->
jobs.driver.run_jobs -> jobs.binary/jobs.multiclass.run), so the output sets on disk are
exactly the command's. The result holds each fold's report (summary_report.json) as plain data,
its curves (numpy arrays on the fold grids), and its figures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.api.figure import jsroot_base
from pnetviz.api.files import Figures, read_json
from pnetviz.api.options import to_argv
from pnetviz.api.series import Series, check_split, checked_label, pick_pair
from pnetviz.cli import binary as binary_cli
from pnetviz.cli import common
from pnetviz.escape import tlatex
from pnetviz.cli import multiclass as multiclass_cli
from pnetviz.metrics.folds import EFF_GRID, FPR_GRID, FoldCurves

REPORT = "summary_report.json"


@dataclass
class FoldResult:
    """One fold's evaluation: where it was published, its report and working points (plain
    dicts, as in summary_report.json and working_points.json), its curves (pair -> split ->
    FoldCurves: tpr on FPR_GRID, eps_b on EFF_GRID, scalars) and its figures (by name)."""

    fold: int | None
    output: Path
    report: dict
    working_points: dict
    curves: dict[str, dict[str, FoldCurves]]
    figures: Figures


@dataclass
class EvaluationResult:
    """What `evaluate_binary` / `evaluate_multiclass` computed: one FoldResult per fold, and the
    fold summary's report when several folds were evaluated. `report`, `figures` and `curves`
    are those of the first fold (the only one for a single ntuple)."""

    kind: str
    folds: list[FoldResult]
    summary: dict | None = None
    summary_figures: Figures | None = None
    command: list[str] = field(default_factory=list)  # the equivalent command line
    jsroot: str = ""  # JSROOT's base URL for its figures (and overlays of it)

    @property
    def report(self) -> dict:
        return self.folds[0].report

    @property
    def figures(self) -> Figures:
        return self.folds[0].figures

    @property
    def curves(self) -> dict[str, dict[str, FoldCurves]]:
        return self.folds[0].curves

    @property
    def pairs(self) -> list[str]:
        """The evaluated pairs ("<signal> vs <background>"), the keys of `curves`."""
        return list(self.curves)

    def roc(self, pair: str | None = None, split: str = "test", fold: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(background efficiency grid, mean signal efficiency) of one pair and split of fold index `fold`."""
        return FPR_GRID.copy(), self.folds[fold].curves[pick_pair(self.curves, pair, "result")][split].tpr.copy()

    def rejection(self, pair: str | None = None, split: str = "test", fold: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(signal efficiency grid, background rejection 1/eps_b; inf where no background passes)."""
        eps_b = self.folds[fold].curves[pick_pair(self.curves, pair, "result")][split].eps_b
        with np.errstate(divide="ignore"):
            return EFF_GRID.copy(), np.where(eps_b > 0, 1.0 / np.where(eps_b > 0, eps_b, 1.0), np.inf)

    def series(self, pair: str | None = None, split: str = "test", label: str | None = None) -> Series:
        """This result's curves over its folds, for `pnetviz.overlay`."""
        label, split = checked_label(label, "result.series"), check_split(split, "result.series")
        name = pick_pair(self.curves, pair, "result")
        curves = [f.curves[name][split] for f in self.folds if name in f.curves]
        text = label or tlatex(self.report.get("model", {}).get("model_name") or name)
        return Series(text, curves, str(self.report.get("channel") or ""), str(self.report.get("signal") or ""))

    def _repr_html_(self) -> str:
        from pnetviz.escape import html  # noqa: PLC0415

        rows = "".join(f"<tr><td>{html(f.fold)}</td><td>{html(name)}</td><td>{c['test'].scalars.get('auc', float('nan')):.4f}</td></tr>"
                       for f in self.folds for name, c in f.curves.items() if "test" in c)  # fmt: skip
        return f"<table><tr><th>fold</th><th>pair</th><th>test AUC</th></tr>{rows}</table>"


CLIS = {"binary": binary_cli, "multiclass": multiclass_cli}


def _request(kind: str, options: dict) -> tuple[object, list[str]]:
    """The request (requests.evaluation) of `pnetviz <kind>` with these keyword arguments as its
    options, made as the command makes it (its parser and checks: one InputError line for a bad
    value), and the equivalent argv."""
    argv = to_argv(CLIS[kind].parser(f"pnetviz {kind}"), options)  # first: a value of the wrong kind is named before any use
    return common.evaluation_request(kind, CLIS[kind].parser(f"pnetviz {kind}").parse_args(argv)), argv


def binary_request(predictions: str | os.PathLike | None = None, **options) -> object:
    """The request `evaluate_binary` runs with these arguments (requests.evaluation.BinaryRequest),
    equal to the one `pnetviz binary` makes from the same options; nothing is read or run."""
    return _request("binary", {"predictions": predictions, **options})[0]


def multiclass_request(predictions: str | os.PathLike | None = None, **options) -> object:
    """The request `evaluate_multiclass` runs with these arguments (MultiClassRequest); see binary_request."""
    return _request("multiclass", {"predictions": predictions, **options})[0]


def _evaluate(kind: str, cli, run_one: Callable, options: dict) -> EvaluationResult:
    """Make the request of `options` as the subcommand does and run it as the command does,
    keeping each fold's job (its final output directory) and curves."""
    options.setdefault("quiet", True)
    given = options.pop("jsroot", None)
    args, argv = _request(kind, options)
    if given is not None and not isinstance(given, str):
        raise TypeError(f"jsroot=: give the URL as a string, not a {type(given).__name__}")
    jsroot = jsroot_base(Path(options.get("plots_dir") or "plots"), given)  # a campaign's copy first
    jobs, outputs = [], []
    make = cli.make_job(args)

    def made(**fields):
        jobs.append(make(**fields))
        return jobs[-1]

    def ran(job):
        outputs.append(run_one(job))
        return outputs[-1]

    common.evaluate_folds(kind, args, argv, made, ran, cli.what, **({"background": args.background} if kind == "binary" else {}))
    folds = []
    for job, out in zip(jobs, outputs, strict=True):
        where = Path(job.output)
        folds.append(FoldResult(job.fold, where, read_json(where / REPORT), _optional_json(where / "working_points.json"),
                                {name: dict(per_split) for name, (_, per_split) in out.curves.items()},
                                Figures(where / "plots.root", jsroot)))  # fmt: skip
    summary_dir = folds[0].output.parent / "folds" if len(folds) > 1 else None
    summary = read_json(summary_dir / REPORT) if summary_dir and (summary_dir / REPORT).is_file() else None
    figures = Figures(summary_dir / "plots.root", jsroot) if summary is not None else None
    return EvaluationResult(kind, folds, summary, figures, ["pnetviz", kind, *argv], jsroot)


def _optional_json(path: Path) -> dict:
    return read_json(path) if path.is_file() else {}


def evaluate_binary(predictions: str | os.PathLike | None = None, **options) -> EvaluationResult:
    """Evaluate a binary classifier as `pnetviz binary` does and return its numbers and figures.

    `predictions`: one prediction ntuple (`--predictions`); or give `results_dir`, `channel`,
    `signal`, `background`, `fold` ("all", 0, [0, 1]) for a trainer's tree. Every other option of
    `pnetviz binary --help` is a keyword argument of the same name (`output`, `plots_dir`,
    `working_points`, `bootstrap`, `weights`, `syst`, ...; `quiet` defaults to True here);
    `jsroot` sets the figures' JSROOT URL (default: the copy a campaign put in <plots_dir>/jsroot/,
    else the official release). The output sets are written as the command writes them
    (default place: plots/ under the working directory). InputError for a user mistake."""
    from pnetviz.jobs import binary  # noqa: PLC0415 - ROOT starts here, not at `import pnetviz`

    return _evaluate("binary", binary_cli, binary.run, {"predictions": predictions, **options})


def evaluate_multiclass(predictions: str | os.PathLike | None = None, **options) -> EvaluationResult:
    """Evaluate a multi-class classifier as `pnetviz multiclass` does (its options as keyword
    arguments, e.g. `classes=["signal", "nonprompt", "diboson", "ttX"]`); see evaluate_binary."""
    from pnetviz.jobs import multiclass  # noqa: PLC0415

    return _evaluate("multiclass", multiclass_cli, multiclass.run, {"predictions": predictions, **options})

