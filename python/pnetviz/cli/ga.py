"""`pnetviz ga`: evaluate a whole GA hyperparameter-search run and name the true best model."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import common, ranges
from pnetviz.errors import InputError

DESCRIPTION = ("Evaluate a whole genetic-algorithm hyperparameter search of the trainer (GAOptim*/<channel>/multiclass/"
               "<prefix><signal>/GA-iter<N>/): every model of every iteration with its fitness recomputed from its "
               "epoch history with the run's own rule, the best model over ALL iterations (the trainer reports the best "
               "of the final population only), duplicates, fitness vs iteration and vs each gene, loss curves, and with "
               "model<i>_predictions.npz the train-vs-test KS grid and the LR ROC per background of the best models.")  # fmt: skip
EXAMPLES = """\
  pnetviz ga --ga-dir GAOptim_bjets --channel Run1E2Mu --signal MHc130_MA90
  pnetviz ga --ga-dir GAOptim_bjets/Run3Mu/multiclass/TTToHcToWAToMuMu-MHc100_MA95 --output plots/ga_MHc100_MA95"""
SHARED = ("formats", "energy", "cms_label", "run", "extra_text", "labels")  # evaluation options (cli/common.py) ga has too
SET_NAME = "ga"  # the output set: <plots-dir>/<GAOptim dir>/<channel>/multiclass/<signal>/ga/


def parser(prog: str | None = None):
    from pnetviz.io.layout import DEFAULT_PREFIX  # noqa: PLC0415

    parser, groups = common.parser_for("ga", prog, DESCRIPTION, EXAMPLES)
    inputs = groups["inputs"]
    inputs.add_argument("--ga-dir", type=Path,
                        help="the trainer's GAOptim_bjets/ directory (with --channel/--signal), or one run directory "
                             "holding GA-iter<N>/ (default: the only GAOptim* directory in the current directory)")  # fmt: skip
    inputs.add_argument("--channel", help="channel, e.g. Run1E2Mu (default: the only one with a GA run)")
    inputs.add_argument("--signal", help="signal point, e.g. MHc130_MA90 (default: the only one of the channel)")
    inputs.add_argument("--signal-prefix", default=DEFAULT_PREFIX, help="prefix of the run directories (default: %(default)s)")
    common.add_plots_dir(groups["outputs"], f"<plots-dir>/<GAOptim dir>/<channel>/multiclass/<signal>/{SET_NAME}/")
    groups["outputs"].add_argument("--output", help="write exactly this output set's directory instead of "
                                                    f"<plots-dir>/<GAOptim dir>/<channel>/multiclass/<signal>/{SET_NAME}/")  # fmt: skip
    ranges.add(groups["outputs"], "--top", type=ranges.TOP, default=10, help="models in the LaTeX table (default: %(default)s)")
    ranges.add(groups["physics"], "--p-threshold", type=ranges.P_THRESHOLD, default=0.05,
                                   help="KS p-values below this are listed as failed tests (default: %(default)s)")
    shared_options(groups)
    common.add_run_options(groups["execution"])
    return parser


def shared_options(groups: dict) -> None:
    for opt in common.EVALUATION:
        if opt.dest in SHARED:
            groups[opt.group].add_argument(*opt.flags, **opt.kwargs)


def passthrough(args) -> list[str]:
    """The campaign's shared options as a `pnetviz ga` argv (the ones ga has)."""
    argv: list[str] = []
    for opt in common.EVALUATION:
        value = getattr(args, opt.dest, None)
        if opt.dest in SHARED and value is not None:
            argv += [opt.flags[-1], str(value)]
    return argv


def default_ga_dir() -> Path:
    from pnetviz.io.ga import ROOT_PATTERN  # noqa: PLC0415
    from pnetviz.io.layout import is_dir, listing  # noqa: PLC0415

    found = sorted(d.name for d in listing(Path(".")) if ROOT_PATTERN.fullmatch(d.name) and is_dir(d))
    if len(found) != 1:
        raise InputError(f"give --ga-dir; {'GAOptim* directories here: ' + ', '.join(found) if found else 'no GAOptim* directory here'}.")
    return Path(found[0])


def output_dir(args, ga_dir: Path, run_dir: Path, channel: str, signal: str) -> Path:
    if args.output is not None:
        if not str(args.output).strip():
            raise InputError("--output '': give a directory.")
        return Path(args.output)
    root, run = Path(ga_dir).resolve(), run_dir.resolve()
    top = run.parents[2] if root == run and len(run.parents) > 2 else root  # --ga-dir names the run itself
    return common.plots_root(args) / top.name / channel / "multiclass" / signal / SET_NAME


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = parser(prog).parse_args(argv)
    common.check_energy(args.energy)
    formats = tuple(common.parse_formats(args.formats))
    if args.top < 1:
        raise InputError(f"--top {args.top}: give 1 or more.")
    if not (math.isfinite(args.p_threshold) and 0 < args.p_threshold < 1):
        raise InputError(f"--p-threshold {args.p_threshold}: give a number between 0 and 1.")
    channel = common.option_name(args.channel, "--channel") if args.channel is not None else None
    signal = common.option_name(args.signal, "--signal") if args.signal is not None else None
    from pnetviz.io import ga as gaio  # noqa: PLC0415
    from pnetviz.io.readers import read_json  # noqa: PLC0415
    from pnetviz.io.trainer import parse_labels  # noqa: PLC0415
    from pnetviz.jobs import ga  # noqa: PLC0415 - keeps --help free of ROOT start-up

    ga_dir = args.ga_dir if args.ga_dir is not None else default_ga_dir()
    channel, signal, run_dir = gaio.locate(ga_dir, channel, signal, args.signal_prefix)
    job = ga.GAJob(run_dir=run_dir, channel=channel, signal=signal, output=output_dir(args, ga_dir, run_dir, channel, signal),
                   formats=formats, style=common.style_options(args),
                   label_overrides=parse_labels(args.labels), top=args.top, p_threshold=args.p_threshold)  # fmt: skip
    written = ga.run(job, wait=args.wait, meta={**common.provenance("ga", argv), **common.images_field(args)})
    if not args.quiet:
        report = read_json(job.output / "summary_report.json", "GA report", finite=False)
        print(f"[pnetviz ga] {channel}/{signal}: best model over all iterations {ga.best_line(report)}", flush=True)
        tc = report.get("trainer_choice")
        if tc and tc.get("names_a_different_model"):
            print(f"[pnetviz ga] the trainer's best_chromosome ({tc['model']}, final population) is another model", flush=True)
        print(f"[pnetviz ga] published {len(written)} files in {job.output}", flush=True)
    return 0
