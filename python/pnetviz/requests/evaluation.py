"""The request of one evaluation (`pnetviz binary`, `pnetviz multiclass`, `pnetviz compare`): the command line turned
once into a frozen, typed record that the jobs are made from; the Python API builds the same one
from its keyword arguments.

Every field is named as its option's argparse dest (`request.signal_scale` is `--signal-scale`),
so a field reads as the option did; a text option keeps its text (`formats="png,pdf"`: the jobs
parse it as the command line's), a repeatable one is a tuple, a path a Path, a choice a Literal.
A request is never changed: a new one is made with `dataclasses.replace` (fields.evolve).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pnetviz.io.folders import DEFAULT_PREFIX
from pnetviz.requests import fields


@dataclass(frozen=True)
class CommonOptions:
    """The evaluation options of the option table (cli/options.py) that every evaluation (binary,
    multi-class, compare) and the campaign have: how the ntuples are read, the physics, the style,
    the threads."""

    # inputs: how the ntuple is read
    tree: str = "Events"
    column: tuple[str, ...] | None = None
    columns: str | None = None
    observe: str | None = None
    subset: str | None = None
    # outputs
    formats: str = "png,pdf"
    # physics
    weights: Literal["abs", "signed", "drop"] = "abs"
    signal_scale: float = 1.0
    expected_yields: str | None = None
    bootstrap: int = 200
    seed: int = 20251001
    hull: bool = False
    # style
    energy: float = 13.0
    cms_label: Literal["cms", "private"] = "cms"
    run: str = "Run 2"
    lumi: float | None = None
    extra_text: str = "Simulation Preliminary"
    labels: str | None = None
    # execution
    threads: int = 1

    def __post_init__(self) -> None:
        fields.check(self)


@dataclass(frozen=True)
class EvaluationOptions(CommonOptions):
    """The evaluation options a model's evaluation (binary, multi-class) and the campaign have
    beyond the common ones: working points, cut scan, fit binning, the deployed fold, the expected
    limits' mass observable, systematics."""

    working_points: str = "0.5,0.7,0.9"
    wp_from: Literal["train", "test"] = "train"
    cut_scan_min_events: float = 10.0
    binning: Literal["fit", "none"] = "fit"
    deployed_fold: int | None = None
    no_bjet_comparison: bool = False
    score_bins: int | Literal["auto"] = "auto"
    # expected limits (docs/limits.md)
    mass_column: str | None = None
    mass_window: str | None = None
    no_limits: bool = False
    # systematics
    syst: str | None = None
    syst_kappa: float = 1.0
    score_shift: str | None = None


@dataclass(frozen=True)
class ModelSelection:
    """Which model of a results tree a single command evaluates, where its sets go, how the run
    behaves (binary, multiclass, compare)."""

    # inputs: which model
    results_dir: Path = Path("results")
    channel: str | None = None
    signal: str | None = None
    fold: str | None = None
    pilot: bool = False
    signal_prefix: str = DEFAULT_PREFIX
    model: str | None = None
    predictions: Path | None = None  # compare has no --predictions: always None there
    history: Path | None = None
    # outputs
    plots_dir: Path | None = None
    round: str | None = None
    replace: bool = False
    output: Path | None = None
    images: Literal["all", "site"] = "all"
    # execution
    quiet: bool = False
    wait: bool = False


@dataclass(frozen=True)
class EvaluationRequest(ModelSelection, EvaluationOptions):
    """The options every model evaluation has (binary and multi-class)."""


@dataclass(frozen=True)
class BinaryRequest(EvaluationRequest):
    """`pnetviz binary`: signal vs one background."""

    kind = "binary"
    background: str | None = None
    compare_subset: str | None = None
    stream: bool = False
    memory_budget: float = 4.0


@dataclass(frozen=True)
class MultiClassRequest(EvaluationRequest):
    """`pnetviz multiclass`: one model of all classes."""

    kind = "multiclass"
    classes: str | None = None
    fit_score: Literal["lr", "signal"] = "lr"
    score: Literal["lr", "weighted-lr"] = "lr"


@dataclass(frozen=True)
class CompareRequest(ModelSelection, CommonOptions):
    """`pnetviz compare`: a multi-class model against the binary models of the same signal point."""

    kind = "compare"
    classes: str | None = None
    pair: str | None = None
    binary_model: str | None = None
    score: Literal["lr", "weighted-lr"] = "lr"


REQUESTS = {"binary": BinaryRequest, "multiclass": MultiClassRequest, "compare": CompareRequest}


def from_namespace(kind: str, namespace: object) -> EvaluationRequest:
    """The request of `pnetviz <kind>` from its parsed (and checked) command line."""
    return fields.from_namespace(REQUESTS[kind], namespace)
