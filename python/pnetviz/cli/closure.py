"""`pnetviz closure`: the deployment closure of one mass point (jobs.closure; docs/datamc.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import common, ranges

DESCRIPTION = ("Check that the model whose scores the analysis' samples carry is the model the trainer evaluated: per "
               "process of the samples that is a training class, each output node's score distribution (physics weights) "
               "against the trainer's test predictions of the model said to be deployed (a GA model's "
               "model<i>_predictions.npz or a fold model's ntuple): weighted KS with Holm over the family, the class order "
               "(a swapped pair of outputs named), a node that matches none of the model's outputs; one verdict. Writes "
               "closure.json, one figure per output node and plots.root.")  # fmt: skip
EXAMPLES = """\
  pnetviz closure --samples-dir samples --era 2018 --channel SR3Mu --masspoint MHc130_MA90 --method Baseline \\
      --deployed-model 3 --predictions GAOptim_bjets/Combined/multiclass/TTToHcToWAToMuMu-MHc130_MA90/GA-iter3 --output closure
  pnetviz closure ... --deployed-model results/Run3Mu/multiclass/TTToHcToWAToMuMu-MHc130_MA90/fold-3/models/MODEL.pt"""
ALPHA = ranges.Range(0.0, 1.0, "a significance level {range}", low_open=True, high_open=True)
SHARED = ("formats", "energy", "cms_label", "run", "extra_text")


def add_sample_options(inputs) -> None:
    """Where the analysis' samples are (the layout of io.samples)."""
    inputs.add_argument("--samples-dir", type=Path, required=True,
                        help="the analysis' samples directory (<samples-dir>/<era>/<channel>/<masspoint>/<method>/<process>.root)")  # fmt: skip
    inputs.add_argument("--era", required=True, help="era, e.g. 2018")
    inputs.add_argument("--channel", required=True, help="region (channel), e.g. SR3Mu")
    inputs.add_argument("--masspoint", required=True, help="mass point, e.g. MHc130_MA90 (its process is the signal)")
    inputs.add_argument("--method", required=True, help="the samples' method directory, e.g. Baseline")
    inputs.add_argument("--processes", help="processes, comma-separated (default: configs/samplegroups.json, else the files)")
    inputs.add_argument("--column", action="append", metavar="NAME=EXPR",
                        help="where a column of the samples comes from: NAME is weight, mass or score_<node>, EXPR a branch "
                             "or an expression of branches (docs/inputs.md: the grammar); repeatable")  # fmt: skip
    inputs.add_argument("--columns", metavar="FILE", help="a JSON file of such pairs (--column pairs win)")
    inputs.add_argument("--nodes", default="signal,nonprompt,diboson,ttZ",
                        help="the deployed model's output nodes as the samples name them (score_<masspoint>_<node>), in "
                             "the model's output order (default: %(default)s)")  # fmt: skip


def add_deployed_options(inputs) -> None:
    """The model said to be deployed and its test predictions (io.deployed)."""
    inputs.add_argument("--deployed-model", required=True,
                        help="the model said to be deployed: a GA model index (3 or model3, with --predictions) or a fold "
                             "model's checkpoint .../fold-<k>/models/<model>.pt")  # fmt: skip
    inputs.add_argument("--predictions", type=Path,
                        help="the trainer's test predictions: a GA-iter<N>/ directory or its model<i>_predictions.npz, a "
                             "fold-<k>/ directory or the ntuple fold-<k>/trees/<model>.root")  # fmt: skip
    inputs.add_argument("--process-class", metavar="PROCESS=CLASS,...",
                        help="pair a process of the samples with a class of the model (default: the mass point is the "
                             "signal, other processes the class of the same name)")  # fmt: skip
    inputs.add_argument("--tree", default="Events", help="tree of a fold ntuple (default: %(default)s)")


def parser(prog: str | None = None):
    parser, groups = common.parser_for("closure", prog, DESCRIPTION, EXAMPLES)
    add_sample_options(groups["inputs"])
    add_deployed_options(groups["inputs"])
    ranges.add(groups["physics"], "--alpha", type=ALPHA, default=0.05,
               help="significance level of the Holm-adjusted p-values (default: %(default)s)")
    groups["outputs"].add_argument("--output", type=Path, default=Path("closure"),
                                   help="output directory, replaced whole when the run succeeds (default: %(default)s)")
    for opt in common.EVALUATION:
        if opt.dest in SHARED:
            groups[opt.group].add_argument(*opt.flags, **opt.kwargs)
    common.add_run_options(groups["execution"])
    return parser


def names(text: str | None, option: str) -> tuple[str, ...]:
    """A comma-separated list of plain names (InputError for an empty one or one that is no name)."""
    items = tuple(item.strip() for item in (text or "").split(","))
    if not all(items):
        from pnetviz.errors import InputError  # noqa: PLC0415

        raise InputError(f"{option} {text!r}: an empty name in the list. Fix: give names separated by commas.")
    return tuple(common.option_name(item, option) for item in items)


def job_of(args):
    """The jobs.closure.ClosureJob of the parsed options."""
    from pnetviz.io.samples import SampleSpec  # noqa: PLC0415
    from pnetviz.jobs.closure import ClosureJob, parse_pairs  # noqa: PLC0415

    spec = SampleSpec(samples_dir=args.samples_dir, era=common.option_name(args.era, "--era"),
                      channel=common.option_name(args.channel, "--channel"),
                      masspoint=common.option_name(args.masspoint, "--masspoint"),
                      method=common.option_name(args.method, "--method"),
                      processes=names(args.processes, "--processes") if args.processes else (),
                      nodes=names(args.nodes, "--nodes"), columns=common.column_map(args))  # fmt: skip
    return ClosureJob(spec, args.deployed_model, args.predictions, parse_pairs(args.process_class), args.alpha, args.tree)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = parser(prog).parse_args(argv)
    formats = [] if args.formats == "none" else common.parse_formats(args.formats)
    style = common.style_options(args)
    from pnetviz.errors import InputError  # noqa: PLC0415
    from pnetviz.jobs import closure  # noqa: PLC0415 - keeps --help free of ROOT start-up
    from pnetviz.output.atomic import transaction  # noqa: PLC0415

    if not str(args.output).strip():
        raise InputError("--output '': give a directory.")
    job = job_of(args)
    doc, comps = closure.evaluate(job)
    inputs = [Path(doc["deployed_model"]["predictions"]), *(Path(p["file"]) for p in doc["processes"])]
    with transaction([args.output], inputs, args.wait, common.provenance("closure", argv)) as stages:
        closure.write(stages[args.output], doc, comps, formats, style)
    if not args.quiet:
        print(f"[pnetviz closure] {doc['masspoint']} ({doc['deployed_model']['name']}): {doc['line']}", flush=True)
        print(f"[pnetviz closure] published {args.output}", flush=True)
    return 0
