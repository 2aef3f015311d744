"""Wiring shared by the user-facing scripts: options, error reporting and exit codes, jobs from options."""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import InputError, PnetvizWarning

EXIT_USER_ERROR = 2
MAX_SEED = 2**62  # seeds are 64-bit unsigned in the C++ bootstrap; per-split offsets are added


def run(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run a script's `main`; a user mistake becomes one message on stderr and exit code 2."""
    warnings.simplefilter("always", PnetvizWarning)
    warnings.formatwarning = lambda msg, cat, *a, **k: f"pnetviz: warning: {msg}\n"
    try:
        return int(main(argv) or 0)
    except InputError as err:
        print(f"pnetviz: error: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as err:  # the environment: disk full, file-size limit, name too long, permissions
        where = f"{err.filename}: " if err.filename else ""
        print(f"pnetviz: error: {where}{err.strerror or err}. Nothing was published; every output directory keeps "
              "what it had. Fix: check free disk space, quotas, the file-size limit, permissions and the path's "
              "length.", file=sys.stderr)  # fmt: skip
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("pnetviz: interrupted", file=sys.stderr)
        return 130


CONTRACT_HELP = (
    "ntuple contract: TTree 'Events' with true_label (int, 0 = signal), score_<class> (float), weight "
    "(float, may be negative), train_mask/test_mask (bool)[, valid_mask, subset bools].\n"
    "history: <model>_performance.json beside the ntuple (training_results.training_history); "
    "details in README.md."
)


def add_model_options(parser, with_predictions: bool = True) -> None:
    """What identifies a model in a results directory (every visualize script)."""
    from .layout import DEFAULT_PREFIX  # noqa: PLC0415
    from .paths import DEFAULT_RESULTS  # noqa: PLC0415

    parser.add_argument("--signal", help=f"signal point, e.g. MHc130_MA90 (default: from the trainer's JSON with "
                                         f"--predictions, else {DEFAULT_SIGNAL})")  # fmt: skip
    parser.add_argument("--channel", help=f"analysis channel, e.g. Run3Mu (default: from the trainer's JSON with "
                                          f"--predictions, else {DEFAULT_CHANNEL})")  # fmt: skip
    parser.add_argument("--fold", help="fold number, comma list (0,1,2) or 'all' folds found in --results-dir "
                                       "(default: 0; with --predictions the fold in the trainer's JSON)")  # fmt: skip
    parser.add_argument("--pilot", action="store_true", help="the trainer's pilot run (directory pilot/ instead of fold-<k>/)")
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS,
                        help="the trainer's results/ (or results_bjets/) directory, or pnetviz's first layout; "
                             f"both in README.md (default: {DEFAULT_RESULTS.name}/ in the repo, where the demo writes)")  # fmt: skip
    parser.add_argument("--signal-prefix", default=DEFAULT_PREFIX,
                        help="prefix of the trainer's signal directories (its --signal_prefix; default: %(default)s)")
    parser.add_argument("--model", help="which model when several sit in one trees/ directory (hyperparameter "
                                        "variants): its full name or a part only it has")  # fmt: skip
    if with_predictions:
        parser.add_argument("--predictions", type=Path, help="use this prediction ntuple instead of --results-dir (single fold)")
        parser.add_argument("--history", type=Path,
                            help="training history JSON (default: <model>_performance.json beside trees/ or the "
                                 "ntuple; training plots are skipped if there is none)")  # fmt: skip
    parser.add_argument("--plots-dir", type=Path, default=None,
                        help="root of the default output tree (default: plots/ in the repo; visualizeCampaign sets it)")
    parser.add_argument("--labels", help="plot labels of classes, name=label pairs: ttX=t#bar{t}X,nonprompt=Fakes "
                                         "(defaults for the usual classes; file names keep the class names)")  # fmt: skip


def add_common_options(parser, kind: str) -> None:
    """Options shared by visualizeBinary.py and visualizeMultiClass.py."""
    import argparse  # noqa: PLC0415

    from .paths import DEFAULT_PLOTS  # noqa: PLC0415

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = CONTRACT_HELP
    add_model_options(parser)
    parser.add_argument("--tree", default="Events", help="TTree name in the ntuple (default: %(default)s)")
    parser.add_argument("--output",
                        help=f"output directory (default: {DEFAULT_PLOTS.name}/<results dir>/<channel>/{kind}/<signal>/<model>/fold-<k>/, "
                             "README.md); existing files are replaced only when the run succeeds")  # fmt: skip
    parser.add_argument("--formats", default="png,pdf", help="image formats, comma-separated (default: %(default)s)")
    parser.add_argument("--subset", help="evaluate only events where this boolean branch is true (e.g. has_bjet)")
    parser.add_argument("--no-bjet-comparison", action="store_true",
                        help="skip the all / with / without b-jet comparison made when the ntuple has has_bjet")
    parser.add_argument("--energy", type=float, default=13.0, help="centre-of-mass energy in TeV for the CMS label: 13 or 13.6 (default: %(default)s)")
    parser.add_argument("--run", default="Run 2", help="run period for the CMS label (default: %(default)s)")
    parser.add_argument("--extra-text", default="Simulation Preliminary", help="text after 'CMS' (default: %(default)s)")
    parser.add_argument("--weights", choices=("abs", "signed", "drop"), default="abs",
                        help="negative weights: abs = |w| (the spec's default), signed = as stored (rates may leave "
                             "[0,1]: flagged in the report), drop = ignore w<0 events; the report gives the AUC "
                             "under all three")  # fmt: skip
    parser.add_argument("--signal-scale", type=float, default=1.0,
                        help="multiply signal weights for prevalence-aware metrics (FIP, Punzi, Asimov), since "
                             "the signal normalisation is a hypothesis (default: %(default)s)")  # fmt: skip
    parser.add_argument("--bootstrap", type=int, default=200,
                        help="Poisson bootstrap replicas for AUC and rejection errors; 0 disables (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=20251001, help="bootstrap seed (default: %(default)s)")
    parser.add_argument("--hull", action="store_true", help="draw the ROC convex hull and iso-accuracy optimum (test)")
    add_syst_options(parser)
    add_run_options(parser)


def add_syst_options(parser) -> None:
    """The profiled ROC under systematic uncertainties (README: definition, interpolation)."""
    parser.add_argument("--syst", help="nuisances for the profiled ROC: names of variation branches "
                                       "score_<class>__<NAME>Up/Down and weight__<NAME>Up/Down, comma-separated, or 'all'")  # fmt: skip
    parser.add_argument("--syst-kappa", type=float, default=1.0,
                        help="scan each nuisance over [-kappa, kappa] (1 = the Up/Down variations; default: %(default)s)")
    parser.add_argument("--score-shift", metavar="CLASS=TAU",
                        help="analytic nuisance: shift the discriminant scores of CLASS (signal, background or a class "
                             "name) by theta in [-kappa TAU, kappa TAU], e.g. background=0.02")  # fmt: skip


def syst_options(args) -> object:
    """SystOptions from --syst, --syst-kappa and --score-shift (validated)."""
    from .systematics import SystOptions  # noqa: PLC0415
    from .trainer import parse_mapping  # noqa: PLC0415

    if not (math.isfinite(args.syst_kappa) and args.syst_kappa > 0):
        raise InputError(f"--syst-kappa {args.syst_kappa}: give a positive number.")
    names = tuple(n.strip() for n in (args.syst or "").split(",") if n.strip())
    if args.syst is not None and not names:
        raise InputError("--syst '': give nuisance names or 'all'.")
    shifts = {}
    for cls, text in parse_mapping(args.score_shift, "--score-shift", "=", "background=0.02").items():
        try:
            shifts[cls] = float(text)
        except ValueError:
            raise InputError(f"--score-shift {args.score_shift!r}: {text!r} is not a number.") from None
        if not (math.isfinite(shifts[cls]) and shifts[cls] > 0):
            raise InputError(f"--score-shift {args.score_shift!r}: the shift must be a positive number.")
    return SystOptions(names=names, kappa=args.syst_kappa, shifts=shifts)


def add_run_options(parser) -> None:
    """--threads and --quiet (every visualize script)."""
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for reading the ntuples (and ROOT implicit multi-threading); results do not "
                             "depend on it (default: %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors (no progress bar)")
    parser.add_argument("--wait", action="store_true",
                        help="if another pnetviz run is writing the same output directory, wait for it (default: stop "
                             "at once, naming its pid)")  # fmt: skip


def apply_run_options(args) -> None:
    from .rootenv import enable_threads  # noqa: PLC0415

    if args.threads < 1:
        raise InputError(f"--threads {args.threads}: give 1 or more.")
    enable_threads(args.threads)


def parse_formats(text: str) -> list[str]:
    formats = [f.strip().lower().lstrip(".") for f in text.split(",") if f.strip()]
    allowed = {"png", "pdf", "svg", "eps", "root", "c"}
    bad = [f for f in formats if f not in allowed]
    if not formats or bad:
        raise InputError(f"--formats {text!r}: choose from {', '.join(sorted(allowed))}.")
    return formats


def check_energy(energy: float) -> None:
    if not any(abs(energy - e) < 1e-3 for e in (13.0, 13.6)):
        raise InputError(f"--energy {energy}: cmsstyle labels 13 or 13.6 TeV only.")


def hep_options(args) -> object:
    """HepOptions from the shared command-line options (validated)."""
    from .hepsummary import HepOptions  # noqa: PLC0415

    if args.bootstrap < 0:
        raise InputError(f"--bootstrap {args.bootstrap}: give 0 (off) or a positive number of replicas.")
    if not (args.signal_scale > 0 and math.isfinite(args.signal_scale)):
        raise InputError(f"--signal-scale {args.signal_scale}: must be a positive finite number.")
    if not 0 <= args.seed <= MAX_SEED:
        raise InputError(f"--seed {args.seed}: give a whole number from 0 to {MAX_SEED}.")
    return HepOptions(weight_mode=args.weights, signal_scale=args.signal_scale, bootstrap=args.bootstrap, seed=args.seed)


def fold_jobs(args, kind: str, make: Callable[..., object], background: str | None = None) -> tuple[list, list[int], Path]:
    """One job per fold found, the missing folds and the fold-summary directory. The shared
    options are validated here and passed to `make` as the fields of driver.FoldJob."""
    from . import trainer  # noqa: PLC0415
    from .style import StyleOptions  # noqa: PLC0415

    check_energy(args.energy)
    apply_run_options(args)
    if args.subset is not None and not args.subset.strip():
        raise InputError("--subset '': give the name of a boolean branch, e.g. has_bjet.")
    common = {
        "formats": tuple(parse_formats(args.formats)), "tree": args.tree, "subset": args.subset,
        "hep": hep_options(args), "hull": args.hull, "label_overrides": trainer.parse_labels(args.labels),
        "style": StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text), "progress": not args.quiet,
        "bjet_comparison": not args.no_bjet_comparison, "syst": syst_options(args),
    }  # fmt: skip
    files, missing, model_dir = resolve_files(args, kind, background)
    outputs, summary = output_dirs(args, model_dir, files)
    todo = []
    for file, out in zip(files, outputs, strict=True):
        history = args.history or trainer.find_performance(file.predictions)
        info = trainer.load_info(file.predictions, history)
        todo.append(make(**common, signal=file.signal, channel=file.channel, fold=file.fold, pilot=file.fold is None
                         and (args.pilot or info.pilot), predictions=file.predictions, history=history, info=info,
                         output=out, model=file.model, **({"background": file.background} if kind == "binary" else {})))  # fmt: skip
    return todo, missing, summary


DEFAULT_SIGNAL = "MHc160_MA85"
DEFAULT_CHANNEL = "Run1E2Mu"


def model_query(args, kind: str, background: str | None = None) -> object:
    from .layout import Query  # noqa: PLC0415

    return Query(results=args.results_dir, channel=args.channel or DEFAULT_CHANNEL, signal=args.signal or DEFAULT_SIGNAL,
                 kind=kind, background=background, model=args.model, prefix=args.signal_prefix, pilot=args.pilot)  # fmt: skip


def resolve_files(args, kind: str, background: str | None = None) -> tuple[list, list[int], Path]:
    """[layout.ModelFile], the missing folds and the default output directory of the model, from
    --predictions (one file; identity from the trainer's JSON where not given) or --results-dir."""
    from . import layout, paths, trainer  # noqa: PLC0415

    if not args.predictions:
        files, missing = layout.resolve(model_query(args, kind, background), args.fold)
        return files, missing, layout.plots_model_dir(files[0], args.results_dir, plots_root(args))
    if args.pilot:
        raise InputError("--pilot goes with --results-dir; with --predictions the trainer's JSON says whether it is a pilot run.")
    history = args.history or trainer.find_performance(args.predictions)
    info = trainer.load_info(args.predictions, history) if args.predictions.is_file() else trainer.TrainerInfo()
    if args.fold is None:
        fold = info.fold
    else:
        folds = paths.parse_fold_list(args.fold)
        if len(folds) != 1:
            raise InputError("--predictions is one file: give a single --fold (used for labels and the output path).")
        fold = folds[0]
    if kind == "binary":
        background = background or info.binary_background() or "background"
    file = layout.ModelFile(kind, args.channel or info.channel or DEFAULT_CHANNEL,
                            args.signal or info.signal(args.signal_prefix) or DEFAULT_SIGNAL, fold, args.predictions,
                            model=None, background=background)  # fmt: skip
    return [file], [], layout.plots_model_dir(file, args.results_dir, plots_root(args))


def plots_root(args) -> Path:
    from .paths import DEFAULT_PLOTS  # noqa: PLC0415

    return args.plots_dir if args.plots_dir is not None else DEFAULT_PLOTS


def provenance(script: str, argv: Sequence[str] | None) -> dict:
    """What made an output set, recorded in its marker: the command and pnetviz's version (a
    campaign redoes a job whose sets were made otherwise)."""
    from . import __version__  # noqa: PLC0415

    return {"command": [script, *(sys.argv[1:] if argv is None else argv)], "pnetviz_version": __version__}


def output_dirs(args, model_dir: Path, files: list) -> tuple[list[Path], Path]:
    """Per-fold output directories and the fold-summary directory."""
    if args.output is not None and not str(args.output).strip():
        raise InputError("--output '': give a directory.")
    output = Path(args.output) if args.output is not None else None
    if output and len(files) == 1:
        return [output], output / "folds"
    root_dir = output or model_dir
    return [root_dir / f.fold_name for f in files], root_dir / "folds"
