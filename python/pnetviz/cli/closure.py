"""The deployment closure's options of `pnetviz datamc` (--closure REGION; jobs.closure, docs/datamc.md)."""

from __future__ import annotations

from pathlib import Path

from pnetviz.cli import common, ranges
from pnetviz.errors import InputError

ALPHA = ranges.Range(0.0, 1.0, "a significance level {range}", low_open=True, high_open=True)
EXAMPLE = """\
  pnetviz datamc --samples-dir samples --era 2018 --channel WZ3Mu --masspoint MHc130_MA90 --method ParticleNet \\
      --closure SR3Mu --deployed-model 3 --predictions GAOptim_bjets/Combined/multiclass/TTToHcToWAToMuMu-MHc130_MA90/GA-iter3"""


def add_options(parser) -> None:
    """--closure and the deployed model's options, in a group of their own."""
    group = parser.add_argument_group("deployment closure (the deployed model against its training; docs/datamc.md)")
    group.add_argument("--closure", metavar="REGION",
                       help="also check the deployed model in this region's samples (simulation only, never data): each "
                            "process' output distributions against the trainer's test predictions of --deployed-model; "
                            "writes closure.json and closure_<node> figures into the set")  # fmt: skip
    group.add_argument("--deployed-model",
                       help="the model said to be deployed: a GA model index (3 or model3, with --predictions) or a fold "
                            "model's checkpoint .../fold-<k>/models/<model>.pt")  # fmt: skip
    group.add_argument("--predictions", type=Path,
                       help="the trainer's test predictions: a GA-iter<N>/ directory or its model<i>_predictions.npz, a "
                            "fold-<k>/ directory or the ntuple fold-<k>/trees/<model>.root")  # fmt: skip
    group.add_argument("--process-class", metavar="PROCESS=CLASS,...",
                       help="pair a process of the samples with a class of the model (default: the mass point is the "
                            "signal, every other process the class of the same name)")  # fmt: skip
    group.add_argument("--tree", default="Events", help="tree of a fold ntuple (default: %(default)s)")
    ranges.add(group, "--closure-alpha", type=ALPHA, default=0.05,
               help="significance level of the closure's Holm-adjusted p-values (default: %(default)s)")


def job_of(args, era: str, masspoint: str, method: str, processes: tuple[str, ...], columns) -> object | None:
    """The jobs.closure.ClosureJob of the parsed options (None without --closure); InputError for
    closure options given without --closure, or --closure without --deployed-model."""
    given = [f"--{name.replace('_', '-')}" for name in ("deployed_model", "predictions", "process_class")
             if getattr(args, name) is not None]  # fmt: skip
    if args.closure is None:
        if given:
            raise InputError(f"{', '.join(given)} without --closure REGION. Fix: add --closure with the region whose "
                             "samples to check (e.g. the signal region), or leave them out.")  # fmt: skip
        return None
    if args.deployed_model is None:
        raise InputError("--closure without --deployed-model. Fix: name the deployed model (a GA model index with "
                         "--predictions, or a fold model's checkpoint .../fold-<k>/models/<model>.pt).")  # fmt: skip
    from pnetviz.io.samples import SampleSpec  # noqa: PLC0415
    from pnetviz.jobs.closure import ClosureJob, parse_pairs  # noqa: PLC0415

    spec = SampleSpec(samples_dir=args.samples_dir, era=era, channel=common.option_name(args.closure, "--closure"),
                      masspoint=masspoint, method=method, processes=processes, systematics=(), columns=columns)  # fmt: skip
    return ClosureJob(spec, args.deployed_model, args.predictions, parse_pairs(args.process_class), args.closure_alpha, args.tree)
