"""`pnetviz demo`: write the shipped demo results tree (the trainer's layout, toy physics)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import common, ranges
from pnetviz.errors import InputError

SIGNALS = "MHc100_MA95,MHc130_MA90,MHc130_MA100,MHc160_MA85,MHc160_MA155"
CHANNELS = "Run1E2Mu,Run3Mu"
SAMPLES_DIR = "samples"  # <output>/samples/: the analysis' preprocessed samples layout (demo.samples, pnetviz datamc)
DESCRIPTION = ("Generate a deterministic toy results tree in the trainer's layout (docs/inputs.md): per channel, signal "
               "point and fold, binary models vs nonprompt, diboson and ttZ and a grouped multi-class model "
               "(nonprompt, diboson, ttX), each with trees/<model>.root (the ntuple contract), "
               "<model>_performance.json, <model>_model_info.json, CSV/ and models/; and one GA hyperparameter "
               "search (GAOptim_bjets/<channel>/multiclass/<prefix><signal>/GA-iter<N>/, 2 iterations of 5 models: "
               "pnetviz ga, docs/evaluating.md); and samples/ in the analysis' preprocessed layout (simulation per process with "
               "variation trees, data; pnetviz datamc, docs/datamc.md).")  # fmt: skip
EXAMPLES = """\
  pnetviz demo --output results                  # the whole demo (2 channels x 5 signal points x 5 folds)
  pnetviz demo --output small --signals MHc130_MA90 --channels Run3Mu --folds 2 --events 500"""


def parser(prog: str | None = None):
    parser, groups = common.parser_for("demo", prog, DESCRIPTION, EXAMPLES)
    groups["outputs"].add_argument("--output", type=Path, default=Path("results"),
                                   help="results directory to write (default: results/ in the current directory)")
    toy = parser.add_argument_group("the toy sample (what is generated)")  # the demo reads no input
    ranges.add(toy, "--events", type=ranges.EVENTS, default=3000, help="events per fold and signal point (default: %(default)s)")
    ranges.add(toy, "--folds", type=ranges.FOLDS, default=5, help="number of cross-validation folds (default: %(default)s)")
    toy.add_argument("--signals", default=SIGNALS,
                     help=f"signal points, MHc<m(H+)>_MA<m(A)>, comma-separated (default: {SIGNALS.replace(',', ', ')})")
    toy.add_argument("--channels", default=CHANNELS, help=f"channels (default: {CHANNELS.replace(',', ', ')})")
    toy.add_argument("--no-ga", action="store_true", help="do not write the GA search run")
    toy.add_argument("--no-samples", action="store_true",
                     help="do not write the analysis-layout samples tree (<output>/samples/, for pnetviz datamc)")
    ranges.add(toy, "--seed", type=ranges.SEED, default=20251001, help="random seed (default: %(default)s)")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = parser(prog).parse_args(argv)
    if args.events < 100 or args.folds < 1:
        raise InputError("--events must be at least 100 and --folds at least 1.")
    signals = [s.strip() for s in args.signals.split(",") if s.strip()]
    channels = [c.strip() for c in args.channels.split(",") if c.strip()]
    if not signals or not channels:
        raise InputError("--signals and --channels need at least one name each.")
    from pnetviz.demo.trainertree import write_trainer_fold  # noqa: PLC0415 - keeps --help free of ROOT start-up

    total = len(channels) * len(signals) * args.folds
    done = 0
    try:
        for channel in channels:
            for signal in signals:
                for fold in range(args.folds):
                    write_trainer_fold(args.output, channel, signal, fold, events=args.events, seed=args.seed)
                    done += 1
                print(f"[pnetviz demo] {done}/{total} folds written ({channel}, {signal})", flush=True)
        if not args.no_ga:
            from pnetviz.demo.ga import write_demo_run  # noqa: PLC0415

            signal = "MHc130_MA90" if "MHc130_MA90" in signals else signals[0]
            run = write_demo_run(args.output, channels[0], signal, seed=args.seed, events=min(args.events, 1500))
            print(f"[pnetviz demo] GA search run in {run}", flush=True)
        if not args.no_samples:
            from pnetviz.demo.samples import write_samples  # noqa: PLC0415

            samples = write_samples(args.output / SAMPLES_DIR, mc_events=min(args.events, 3000), seed=args.seed)
            print(f"[pnetviz demo] analysis samples (pnetviz datamc) in {samples}", flush=True)
    except OSError as err:
        raise InputError(f"{args.output}: cannot write ({err.strerror}). Fix: choose another --output.") from None
    print(f"[pnetviz demo] demo results tree in {args.output}")
    return 0
