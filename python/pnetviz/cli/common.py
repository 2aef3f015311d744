"""Wiring shared by the user-facing scripts: options, error reporting and exit codes, jobs from options."""

from __future__ import annotations

import errno
import functools
import math
import sys
import warnings
import argparse
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from pnetviz.cli import ranges, rounds
from pnetviz.cli.options import (CONTRACT_HELP, EVAL_KINDS, EVALUATION, GROUPS, MODEL_KINDS, READS_NTUPLES,  # noqa: F401 - callers use common.*
                                 evaluation_request, plots_root)
from pnetviz.cli.ranges import MAX_SEED, check_energy, parse_formats  # noqa: F401 - callers use common.*
from pnetviz.errors import InputError, PnetvizWarning

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
    except OSError as err:  # the environment: disk full, file-size limit, name too long, permissions
        print(f"pnetviz: error: {os_error_message(err)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("pnetviz: interrupted", file=sys.stderr)
        return 130


OS_FIXES = {  # errno -> what to do about it
    errno.EACCES: "check the permissions of this path and the directories above it (or run as its owner)",
    errno.EPERM: "check the permissions of this path and the directories above it (or run as its owner)",
    errno.EROFS: "the file system is read-only: choose another --output or --plots-dir",
    errno.ENOSPC: "free disk space",
    errno.EDQUOT: "free space within your quota",
    errno.EFBIG: "raise the file-size limit (ulimit -f)",
    errno.ENAMETOOLONG: "choose a shorter output path",
}


def os_error_message(err: OSError) -> str:
    """One line for an OSError: the path, the system's reason and the fix for that reason (a
    permission problem is named as one, a full disk as one)."""
    where = f"{err.filename}: " if err.filename else ""
    reason = err.strerror or str(err)
    fix = OS_FIXES.get(err.errno or 0, "check free disk space, quotas, the file-size limit, permissions and the "
                                      "path's length")  # fmt: skip
    if isinstance(err, PermissionError) and not reason.lower().startswith("permission"):
        reason = f"permission denied ({reason})"
    return f"{where}{reason}. Nothing was published; every output directory keeps what it had. Fix: {fix}."


def parser_for(kind: str, prog: str | None, description: str, examples: str) -> tuple[argparse.ArgumentParser, dict]:
    """An ArgumentParser with pnetviz's help groups; returns it and the groups by key."""
    parser = ranges.Parser(prog=prog, description=description, formatter_class=ranges.HelpFormatter,
                                     epilog=f"examples:\n{examples}" + (f"\n\n{CONTRACT_HELP}" if kind in READS_NTUPLES else ""))  # fmt: skip
    groups = {key: parser.add_argument_group(title) for key, title in GROUPS.items()}
    return parser, groups


def add_evaluation_options(groups: dict, kind: str) -> None:
    """Every evaluation option of `kind` (binary, multiclass, compare, or campaign) into its group."""
    for opt in EVALUATION:
        if (opt.campaign if kind == "campaign" else kind in opt.kinds):
            groups[opt.group].add_argument(*opt.flags, **opt.kwargs)


def passthrough(args, kind: str) -> list[str]:
    """The campaign's evaluation options as the argv of one `kind` job: every option that job
    kind has, with its value, in the table's order (so a job is exactly a single command)."""
    argv: list[str] = []
    for opt in EVALUATION:
        if not opt.campaign or kind not in opt.kinds:
            continue
        value = getattr(args, opt.dest)
        if opt.dest == "columns" and value is not None:  # the jobs may run elsewhere (a cluster's workers)
            value = str(Path(value).resolve())
        if opt.is_flag:
            argv += [opt.flags[-1]] if value else []
        elif isinstance(value, (list, tuple)):  # a repeatable option (--column)
            argv += [part for item in value for part in (opt.flags[-1], str(item))]
        elif value is not None:
            argv += [opt.flags[-1], str(value)]
    return argv


def add_model_options(groups: dict, kind: str) -> None:
    """What identifies a model in a results directory (binary, multiclass, compare)."""
    from pnetviz.io.layout import DEFAULT_PREFIX  # noqa: PLC0415

    inputs = groups["inputs"]
    with_file = "; with --predictions the trainer's JSON" if kind in MODEL_KINDS else ""  # compare has no --predictions
    inputs.add_argument("--results-dir", type=Path, default=Path("results"),
                        help="the trainer's results/ (or results_bjets/) directory, or pnetviz's first layout; both "
                             "in docs/inputs.md (default: results/ in the current directory, where the demo writes)")  # fmt: skip
    inputs.add_argument("--channel", help=f"analysis channel, e.g. Run3Mu (default: the only one in --results-dir{with_file})")
    inputs.add_argument("--signal", help=f"signal point, e.g. MHc130_MA90 (default: the only one of the channel{with_file})")
    if kind == "binary":
        inputs.add_argument("--background", help="background the model was trained against: the -binary-<background> "
                                                 "suffix of the trainer's model name (default: the only one there is)")  # fmt: skip
    inputs.add_argument("--fold", help="fold number, comma list (0,1,2) or 'all' folds found in --results-dir "
                                       f"(default: 0{with_file.replace('JSON', 'JSON names the fold')})")  # fmt: skip
    inputs.add_argument("--pilot", action="store_true", help="the trainer's pilot run (directory pilot/ instead of fold-<k>/)")
    inputs.add_argument("--signal-prefix", default=DEFAULT_PREFIX,
                        help="prefix of the trainer's signal directories (its --signal_prefix; default: %(default)s)")
    inputs.add_argument("--model", help="which model when several sit in one trees/ directory (hyperparameter "
                                        "variants): its full name or a part only it has")  # fmt: skip
    if kind in MODEL_KINDS:
        inputs.add_argument("--predictions", type=Path, help="use this prediction ntuple instead of --results-dir (single fold)")
        inputs.add_argument("--history", type=Path,
                            help="training history JSON (default: <model>_performance.json beside trees/ or the "
                                 "ntuple; training plots are skipped if there is none)")  # fmt: skip
    outputs = groups["outputs"]
    add_plots_dir(outputs)
    rounds.add_round(outputs)
    outputs.add_argument("--output",
                         help="write exactly this output set's directory (one fold: the set itself; several folds: "
                              "fold-<k>/ and folds/ inside it) instead of its place under --plots-dir; existing files "
                              "are replaced only when the run succeeds")  # fmt: skip


EVALUATION_LAYOUT = "<plots-dir>/<results dir name>/<channel>/<kind>/<signal>/<model>/fold-<k>/"


def add_plots_dir(group, layout: str = EVALUATION_LAYOUT) -> None:
    """--plots-dir, its help naming where the subcommand's sets go (`layout`)."""
    group.add_argument("--plots-dir", default=None,
                       help=f"root of the output tree: every set goes to {layout} (docs/output-tree.md) (default: plots/ in the "
                            "current directory)")  # fmt: skip


def add_run_options(group, with_wait: bool = True) -> None:
    """--quiet and --wait (every evaluating subcommand)."""
    group.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors (no progress bar)")
    if with_wait:
        group.add_argument("--wait", action="store_true",
                           help="if another pnetviz run is writing the same output directory, wait for it (default: "
                                "stop at once, naming its pid)")  # fmt: skip


def evaluation_parser(kind: str, prog: str | None, description: str, examples: str) -> argparse.ArgumentParser:
    """The whole parser of `pnetviz binary|multiclass|compare`."""
    parser, groups = parser_for(kind, prog, description, examples)
    add_model_options(groups, kind)
    add_evaluation_options(groups, kind)
    add_run_options(groups["execution"])
    return parser


def syst_options(args) -> object:
    """SystOptions from --syst, --syst-kappa and --score-shift (validated)."""
    from pnetviz.jobs.systematics import SystOptions  # noqa: PLC0415

    if not (math.isfinite(args.syst_kappa) and args.syst_kappa > 0):
        raise InputError(f"--syst-kappa {args.syst_kappa}: give a positive number.")
    names = tuple(n.strip() for n in (args.syst or "").split(",") if n.strip())
    if args.syst is not None and not names:
        raise InputError("--syst '': give nuisance names or 'all'.")
    shifts = ranges.parse_shifts(args.score_shift)
    return SystOptions(names=names, kappa=args.syst_kappa, shifts=shifts)


def observe_names(args) -> tuple[str, ...]:
    """The observer branches of --observe (validated; see pnetviz.jobs.observers)."""
    from pnetviz.jobs.observers import parse  # noqa: PLC0415

    return parse(getattr(args, "observe", None))


def column_map(args) -> tuple[tuple[str, str], ...]:
    """The column mapping of --columns FILE and --column NAME=EXPR (validated; see pnetviz.io.columns)."""
    from pnetviz.io.columns import parse_columns  # noqa: PLC0415

    return parse_columns(args.column, args.columns)


def apply_run_options(args) -> None:
    from pnetviz.rootenv import enable_threads  # noqa: PLC0415

    if args.threads < 1:
        raise InputError(f"--threads {args.threads}: give 1 or more.")
    enable_threads(args.threads)


def style_options(args) -> object:
    """draw.style.StyleOptions from the style options (--energy checked)."""
    from pnetviz.draw.style import StyleOptions  # noqa: PLC0415

    check_energy(args.energy)
    lumi, bins = getattr(args, "lumi", None), getattr(args, "score_bins", "auto")
    if bins != "auto" and 50 % bins:
        raise InputError(f"--score-bins {bins}: give auto, or a whole number of bins that divides 50: 50, 25, 10 or 5.")
    if lumi is not None and getattr(args, "expected_yields", None) is None:
        raise InputError(f"--lumi {lumi:g}: the label's luminosity names expected yields; give --expected-yields "
                         "(the yields at that luminosity) too, or leave --lumi out.")  # fmt: skip
    return StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text, cms_label=args.cms_label, lumi=lumi,
                        score_bins=bins)


def hep_options(args) -> object:
    """HepOptions from the shared command-line options (validated)."""
    from pnetviz.metrics.pairmetrics import HepOptions  # noqa: PLC0415

    if args.bootstrap < 0:
        raise InputError(f"--bootstrap {args.bootstrap}: give 0 (off) or a positive number of replicas.")
    if not (args.signal_scale > 0 and math.isfinite(args.signal_scale)):
        raise InputError(f"--signal-scale {args.signal_scale}: must be a positive finite number.")
    if not 0 <= args.seed <= MAX_SEED:
        raise InputError(f"--seed {args.seed}: give a whole number from 0 to {MAX_SEED}.")
    from pnetviz.metrics.workingpoints import DEFAULT_TARGETS, parse_targets  # noqa: PLC0415

    text = getattr(args, "working_points", None)  # compare has no working points of its own
    targets = DEFAULT_TARGETS if text is None else parse_targets(text)
    min_events = getattr(args, "cut_scan_min_events", None)  # compare has no cut scan
    if min_events is not None and not (math.isfinite(min_events) and min_events >= 0):
        raise InputError(f"--cut-scan-min-events {min_events}: give a finite number of events >= 0, e.g. 10.")
    return HepOptions(weight_mode=args.weights, signal_scale=args.signal_scale, bootstrap=args.bootstrap, seed=args.seed,
                      working_points=targets, wp_from=getattr(args, "wp_from", None) or "train",
                      cut_scan_min_events=10.0 if min_events is None else float(min_events))  # fmt: skip


def limit_options(args) -> dict:
    """--mass-column, --mass-window and --no-limits as driver.FoldJob fields (validated: one line, exit 2)."""
    from pnetviz.limits.strategies import parse_window  # noqa: PLC0415

    column = getattr(args, "mass_column", None)
    if column is not None and (not column.strip() or column != column.strip()):
        raise InputError(f"--mass-column {column!r}: give the name of a float branch or of a column mapped with --column, "
                         "e.g. --mass-column m_mumu.")  # fmt: skip
    window = getattr(args, "mass_window", None)
    if window is not None:
        parse_window(window)
    return {"mass_column": column, "mass_window": window, "limits": not getattr(args, "no_limits", False)}


def fold_jobs(args, kind: str, make: Callable[..., object], background: str | None = None,
              resolved: tuple | None = None) -> tuple[list, list[int], Path]:  # fmt: skip
    """One job per fold found, the missing folds and the fold-summary directory. The shared
    options are validated here and passed to `make` as the fields of driver.FoldJob.
    `resolved`: resolve_files(args, kind, background) when the caller has it already."""
    from pnetviz.io import layout, trainer  # noqa: PLC0415
    from pnetviz.io.yields import expected_yields  # noqa: PLC0415

    check_energy(args.energy)
    apply_run_options(args)
    if args.subset is not None and not args.subset.strip():
        raise InputError("--subset '': give the name of a boolean branch, e.g. has_bjet.")
    common = {
        "formats": tuple(parse_formats(args.formats)), "images": args.images, "tree": args.tree, "subset": args.subset,
        "hep": hep_options(args), "hull": args.hull, "label_overrides": trainer.parse_labels(args.labels),
        "style": style_options(args), "progress": not args.quiet,
        "bjet_comparison": not args.no_bjet_comparison, "syst": syst_options(args), "columns": column_map(args),
        "observe": observe_names(args),
        "fit_binning": args.binning == "fit", "deployed_fold": args.deployed_fold, **limit_options(args),
    }  # fmt: skip
    files, missing, model_dir = resolved or resolve_files(args, kind, background)
    yields = expected_yields(args.expected_yields, files[0].channel, files[0].signal)
    if yields is not None and args.signal_scale != 1.0:
        raise InputError("--expected-yields and --signal-scale: give one (the expected signal yield already sets the "
                         "signal normalisation).")  # fmt: skip
    common["hep"] = replace(common["hep"], expected_yields=yields)
    outputs, summary = output_dirs(args, model_dir, files)
    todo = []
    for file, out in zip(files, outputs, strict=True):
        layout.check_readable(file.predictions, "prediction ntuple")  # chmod 000: a permission error, not "corrupt"
        history = args.history or trainer.find_performance(file.predictions)
        info = trainer.load_info(file.predictions, history)
        todo.append(make(**common, signal=file.signal, channel=file.channel, fold=file.fold, pilot=file.fold is None
                         and (args.pilot or info.pilot), predictions=file.predictions, history=history, info=info,
                         output=out, model=file.model, **({"background": file.background} if kind == "binary" else {})))  # fmt: skip
    from pnetviz.output.imageset import fold_jobs as with_images  # noqa: PLC0415
    from pnetviz.jobs.deployedfold import check  # noqa: PLC0415

    check([job.fold for job in todo], args.deployed_fold, todo[0].model or str(todo[0].predictions))  # before any work
    return with_images(todo, args.images), missing, summary  # --images site: key PNGs in the first fold set only


def evaluate_folds(kind: str, args, argv: Sequence[str] | None, make: Callable[..., object], run_one: Callable,
                   what: Callable[[object], tuple[list[str], str]], background: str | None = None) -> int:  # fmt: skip
    """`pnetviz binary|multiclass` after parsing: one job per fold (`make`), run by `run_one` in
    one all-or-nothing transaction with the fold summary; `what(first job)` gives the plot
    context line and the summary title's head. `args`: the run's request (evaluation_request)."""
    from pnetviz.jobs import driver  # noqa: PLC0415 - keeps --help free of ROOT start-up

    resolved = resolve_files(args, kind, background)  # once: the remembered options do not name the model
    argv, args = remember_options(args, argv, kind, background, resolved)  # before the jobs are made from the options
    todo, missing, summary = fold_jobs(args, kind, make, background=background, resolved=resolved)
    first = todo[0]
    head, title = what(first)
    # the folds' context without a fold: the signal point, then what and the channel
    context = [head[0], head[1].replace(f", {first.fold_text}", "")] + ([f"subset: {args.subset}"] if args.subset else [])
    title = f"pnetviz fold summary: {title}, {first.channel}" + (f", {first.model}" if first.model else "")
    driver.run_jobs(kind, todo, run_one, summary, missing, args.quiet, title, context, wait=args.wait,
                    meta={**provenance(kind, argv), **images_field(args), **rounds.round_meta(args)})  # fmt: skip
    return 0


def model_query(args, kind: str, background: str | None = None) -> object:
    """The layout.Query of the model the options name; a missing --channel or --signal is taken
    only when there is exactly one, else an error listing what exists."""
    from pnetviz.io import layout  # noqa: PLC0415

    results = Path(args.results_dir)
    fix = "rename it, or give another one with --channel / --signal."
    if args.channel is not None:
        channel = option_name(args.channel, "--channel")
    else:
        only = layout.the_only(layout.channels_in(results), "--channel", "channels", results)
        channel = layout.check_name(only, "channel", f"{results / only} (directory name)", fix)
    kind_dir = results / channel / kind
    if args.signal is not None:
        signal = option_name(args.signal, "--signal")
    else:
        only = layout.the_only(layout.signals_in(kind_dir, args.signal_prefix), "--signal", "signal points", kind_dir)
        signal = layout.check_name(only, "signal point", f"{kind_dir} (a directory name)", fix)
    if background is not None:
        option_name(background, "--background")
    return layout.Query(results=results, channel=channel, signal=signal, kind=kind, background=background,
                        model=args.model, prefix=args.signal_prefix, pilot=args.pilot)  # fmt: skip


def resolve_files(args, kind: str, background: str | None = None) -> tuple[list, list[int], Path]:
    """[layout.ModelFile], the missing folds and the default output directory of the model, from
    --predictions (one file; identity from the trainer's JSON where not given) or --results-dir."""
    from pnetviz.io import layout, trainer  # noqa: PLC0415
    from pnetviz.output import paths  # noqa: PLC0415

    if not args.predictions:
        files, missing = layout.resolve(model_query(args, kind, background), args.fold)
        return files, missing, paths.plots_model_dir(files[0], args.results_dir, plots_root(args), args.round)
    if args.pilot:
        raise InputError("--pilot goes with --results-dir; with --predictions the trainer's JSON says whether it is a pilot run.")
    found = rounds.in_results_tree(args, kind)
    if found is not None:  # in a results tree: published where --results-dir would publish it
        return [found[1]], [], paths.plots_model_dir(found[1], found[0], plots_root(args), args.round)
    history = args.history or trainer.find_performance(args.predictions)
    info = trainer.load_info(args.predictions, history) if args.predictions.is_file() else trainer.TrainerInfo()
    if args.fold is None:
        fold = info.fold
    else:
        folds = layout.parse_fold_list(args.fold)
        if len(folds) != 1:
            raise InputError("--predictions is one file: give a single --fold (used for labels and the output path).")
        fold = folds[0]
    json_source = f"{history} (the trainer's JSON)"
    if kind == "binary":
        background = _checked(background, "--background", info.binary_background(), "background_info.backgrounds",
                              json_source, "--background") or "background"  # fmt: skip
    channel = _checked(args.channel, "--channel", info.channel, "channel", json_source, "--channel")
    signal = _checked(args.signal, "--signal", info.signal(args.signal_prefix), "signal_sample", json_source, "--signal")
    if (not channel or not signal) and args.output is None:
        what = " and ".join(o for o, v in (("--channel", channel), ("--signal", signal)) if not v)
        raise InputError(f"{args.predictions}: give {what} (or --output): the trainer's JSON beside it does not "
                         f"name {'them' if ' and ' in what else 'it'}, and they place the output under --plots-dir.")  # fmt: skip
    # With --output they only label the plots: a neutral "signal" and no channel, never a made-up one.
    channel, signal = channel or "", signal or "signal"
    file = layout.ModelFile(kind, channel, signal, fold, args.predictions, model=None, background=background)
    return [file], [], paths.plots_model_dir(file, args.results_dir, plots_root(args), args.round)


def option_name(value: str, option: str) -> str:
    """`value` of a name option (--channel, --signal, --background); InputError unless it is a
    single path component (output paths are built from it)."""
    from pnetviz.io.layout import check_name  # noqa: PLC0415

    return check_name(value, option, "command line", f"give a plain name to {option}.")


def _checked(given: str | None, option: str, from_json: str | None, field: str, source: str, fix: str) -> str | None:
    """The name given on the command line, else the trainer's JSON's; InputError (naming the
    option or the JSON file and field) unless it is a single path component."""
    from pnetviz.io.layout import check_name  # noqa: PLC0415

    if given is not None:
        return option_name(given, option)
    if from_json is None:
        return None
    return check_name(from_json, field, source, f"give {fix} (or correct the JSON).")


def images_field(args) -> dict:
    """The set marker's `images` field of a run with these --formats/--images (output.imageset):
    what images its sets hold, apart from the physics (a later run adding images changes no number)."""
    from pnetviz.output.imageset import marker_field  # noqa: PLC0415

    return marker_field(parse_formats(args.formats), getattr(args, "images", "all"))


def provenance(command: str, argv: Sequence[str] | None) -> dict:
    """What made an output set, recorded in its marker: the command (`pnetviz <command> ...`)
    and pnetviz's version (a campaign redoes a job whose sets were made otherwise)."""
    from pnetviz import __version__  # noqa: PLC0415

    return {"command": ["pnetviz", command, *(sys.argv[1:] if argv is None else argv)], "pnetviz_version": __version__}


def output_dirs(args, model_dir: Path, files: list) -> tuple[list[Path], Path]:
    """Per-fold output directories and the fold-summary directory."""
    if args.output is not None and not str(args.output).strip():
        raise InputError("--output '': give a directory.")
    output = Path(args.output) if args.output is not None else None
    if output and len(files) == 1:
        return [output], output / "folds"
    root_dir = output or model_dir
    return [root_dir / f.fold_name for f in files], root_dir / "folds"


@functools.cache
def _options_parser(kind: str):
    """The parser remember.single reads the given and the recorded options with: the same for
    every run of `kind` (it drops its defaults each time), made once a process (~1 ms)."""
    return evaluation_parser(kind, None, "", "")


def remember_options(args, argv, kind: str, background: str | None = None,
                     resolved: tuple | None = None) -> tuple[list[str], object]:  # fmt: skip
    """A single command (binary, multiclass): reuse the output options recorded in the sets it
    would replace (cli.remember), say so, and stop before removing outputs without --replace.
    Returns the command line as run (with the reused options), which the new sets record, and
    the request with the reused options (a new one: a request is never changed)."""
    from pnetviz.cli import remember  # noqa: PLC0415
    from pnetviz.output.rounds import check_same  # noqa: PLC0415
    from pnetviz.requests.fields import evolve  # noqa: PLC0415

    files, _, model_dir = resolved or resolve_files(args, kind, background)
    outputs, summary = output_dirs(args, model_dir, files)
    meta = rounds.round_meta(args)  # once: it resolves paths and reads the round registry
    for directory in (*outputs, summary):  # another round's sets: refused before anything is read from them
        check_same(directory, meta)
    changes = remember.single(args, argv, kind, lambda: _options_parser(kind), [*outputs, summary], [f.fold for f in files])
    args = evolve(args, **changes.values)
    rounds.claim_round(args, meta)
    if not args.quiet:
        for line in changes.lines(str(Path(outputs[0]).parent)):
            print(f"[pnetviz {kind}] {line}", flush=True)
    extra = [t for flag, value in changes.reused.items() for t in ([flag] if value is True else [f"{flag}={value}"])]
    return [*(sys.argv[1:] if argv is None else argv), *extra], args
