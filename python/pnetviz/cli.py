"""Wiring shared by the user-facing scripts: error reporting, exit codes, staged output."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .errors import InputError, PnetvizWarning

EXIT_USER_ERROR = 2


def run(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> int:
    """Run a script's `main`; a user mistake becomes one message on stderr and exit code 2."""
    warnings.simplefilter("always", PnetvizWarning)
    warnings.formatwarning = lambda msg, cat, *a, **k: f"pnetviz: warning: {msg}\n"
    try:
        return int(main(argv) or 0)
    except InputError as err:
        print(f"pnetviz: error: {err}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("pnetviz: interrupted", file=sys.stderr)
        return 130


@contextlib.contextmanager
def staged_output(directory: Path | str) -> Iterator[Path]:
    """Write into a hidden staging directory; move the files into `directory` only on success.

    On any error the staging directory is removed and `directory` is left as it was: no
    half-written output set, and nothing already there is lost.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".pnetviz-stage-", dir=directory))
    except OSError as err:
        raise InputError(
            f"{directory}: cannot write the output directory ({err.strerror}). Fix: choose another --output."
        ) from None
    try:
        yield stage
        for item in sorted(stage.iterdir()):
            target = directory / item.name
            if target.is_dir() and not item.is_dir():
                raise InputError(f"{target} is a directory; cannot replace it with a file. Fix: remove it.")
            os.replace(item, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


CONTRACT_HELP = (
    "ntuple contract: TTree 'Events' with true_label (int, 0 = signal), score_<class> (float), weight "
    "(float, may be negative), train_mask/test_mask (bool)[, valid_mask, subset bools].\n"
    "history: <model>_performance.json beside the ntuple (training_results.training_history); "
    "details in README.md."
)


def add_common_options(parser, kind: str) -> None:
    """Options shared by visualizeBinary.py and visualizeMultiClass.py."""
    import argparse  # noqa: PLC0415

    from .paths import DEFAULT_PLOTS, DEFAULT_RESULTS  # noqa: PLC0415

    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = CONTRACT_HELP
    parser.add_argument("--signal", default="MHc160_MA85", help="signal point (default: %(default)s)")
    parser.add_argument("--channel", default="Run1E2Mu", help="analysis channel (default: %(default)s)")
    parser.add_argument("--fold", default="0",
                        help="fold number, comma list (0,1,2) or 'all' folds found in --results-dir (default: %(default)s)")
    parser.add_argument("--results-dir", type=Path, default=DEFAULT_RESULTS,
                        help=f"training results with the layout of README.md (default: {DEFAULT_RESULTS.name}/ in the repo, as the demo writes it)")
    parser.add_argument("--predictions", type=Path, help="use this prediction ntuple instead of --results-dir (single fold)")
    parser.add_argument("--history", type=Path,
                        help="training history JSON (default: the *_performance.json beside the ntuple; plots skipped if none)")
    parser.add_argument("--tree", default="Events", help="TTree name in the ntuple (default: %(default)s)")
    parser.add_argument("--output", type=Path,
                        help=f"output directory (default: {DEFAULT_PLOTS.name}/<channel>/{kind}/.../fold-<k>/); existing files are replaced only when the run succeeds")
    parser.add_argument("--formats", default="png,pdf", help="image formats, comma-separated (default: %(default)s)")
    parser.add_argument("--subset", help="evaluate only events where this boolean branch is true (e.g. has_bjet)")
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
    add_run_options(parser)


def add_run_options(parser) -> None:
    """--threads and --quiet (every visualize script)."""
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for reading the ntuples (and ROOT implicit multi-threading); results do not "
                             "depend on it (default: %(default)s)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors (no progress bar)")


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
    if not args.signal_scale > 0:
        raise InputError(f"--signal-scale {args.signal_scale}: must be positive.")
    return HepOptions(weight_mode=args.weights, signal_scale=args.signal_scale, bootstrap=args.bootstrap, seed=args.seed)


def fold_jobs(args, model_dir: Path, plots_dir: Path, make: Callable[..., object]) -> tuple[list, list[int], Path]:
    """One job per fold found, the missing folds and the fold-summary directory. The shared
    options are validated here and passed to `make` as the fields of driver.FoldJob."""
    from .style import StyleOptions  # noqa: PLC0415

    check_energy(args.energy)
    apply_run_options(args)
    common = {
        "signal": args.signal, "channel": args.channel, "formats": tuple(parse_formats(args.formats)),
        "tree": args.tree, "subset": args.subset, "hep": hep_options(args), "hull": args.hull,
        "style": StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text), "progress": not args.quiet,
    }  # fmt: skip
    inputs, missing = resolve_inputs(args, model_dir)
    outputs, summary = output_dirs(args, plots_dir, [fold for fold, _, _ in inputs])
    todo = [make(**common, fold=fold, predictions=pred, history=hist, output=out)
            for (fold, pred, hist), out in zip(inputs, outputs, strict=True)]  # fmt: skip
    return todo, missing, summary


def resolve_inputs(args, model_dir: Path) -> tuple[list[tuple[int, Path, Path | None]], list[int]]:
    """[(fold, predictions, history)] and the missing folds, from --predictions or --results-dir."""
    from . import paths  # noqa: PLC0415

    if args.predictions:
        folds = paths.parse_folds(args.fold, None)
        if len(folds) != 1:
            raise InputError("--predictions is one file: give a single --fold (used for labels and the output path).")
        return [(folds[0], args.predictions, args.history or paths.find_history(args.predictions.parent))], []
    folds = paths.parse_folds(args.fold, model_dir)
    if args.fold.strip().lower() == "all":
        present, missing = folds, paths.gaps(folds)
    else:
        present, missing = paths.split_present(folds, model_dir)
    inputs = [(f, paths.fold_dir(model_dir, f) / paths.PREDICTIONS_FILE,
               args.history or paths.find_history(paths.fold_dir(model_dir, f))) for f in present]  # fmt: skip
    return inputs, missing


def output_dirs(args, plots_dir: Path, folds: list[int]) -> tuple[list[Path], Path]:
    """Per-fold output directories and the fold-summary directory."""
    from . import paths  # noqa: PLC0415

    root_dir = args.output if args.output else plots_dir
    if args.output and len(folds) == 1:
        return [args.output], args.output / "folds"
    return [paths.fold_dir(root_dir, f) for f in folds], root_dir / "folds"
