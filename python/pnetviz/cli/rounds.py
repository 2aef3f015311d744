"""Command-line side of training rounds: `--round`, the round a run's sets record, and the
place of a `--predictions` file that sits in a results tree (where `--results-dir` puts it)."""

from __future__ import annotations

from pathlib import Path


def add_round(group) -> None:
    group.add_argument("--round", metavar="NAME",
                       help="the training round's place in the output tree, <plots-dir>/<NAME>/... (default: the "
                            "results directory's parent and name, e.g. ana-results); a set of another round is never "
                            "replaced")  # fmt: skip
    group.add_argument("--replace", action="store_true",
                       help="run with exactly this command line's options: the options recorded for the round's "
                            "outputs are not reused, and outputs they made that these options do not (e.g. the "
                            "profiled plots of --syst) are removed (default: reuse them; stop before removing any)")  # fmt: skip


def in_results_tree(args, kind: str) -> tuple[Path, object] | None:
    """(results tree, layout.ModelFile) of --predictions when it sits in a results tree of `kind`
    and no option names it otherwise; None else."""
    from pnetviz.io.roundname import trainer_identity  # noqa: PLC0415

    found = trainer_identity(args.predictions, args.signal_prefix) if args.predictions else None
    if found is None or found[1].kind != kind or (args.fold is not None and args.fold != str(found[1].fold)):
        return None
    given = {"channel": args.channel, "signal": args.signal, "background": getattr(args, "background", None)}
    return found if all(v is None or v == getattr(found[1], k) for k, v in given.items()) else None


def round_meta(args) -> dict:
    """The training round this run's sets record (output.rounds): the results tree that holds
    the input (--results-dir, or the tree --predictions sits in, else the file's directory)."""
    from pnetviz.output import rounds  # noqa: PLC0415

    if getattr(args, "predictions", None):
        found = trainer_identity_of(args)
        results = found if found is not None else Path(args.predictions).resolve().parent
    else:
        results = args.results_dir
    return rounds.meta(results, args.round)


def trainer_identity_of(args) -> Path | None:
    from pnetviz.io.roundname import trainer_identity  # noqa: PLC0415

    found = trainer_identity(args.predictions, args.signal_prefix)
    return found[0] if found is not None else None



def remember_options(args, argv, kind: str, background: str | None = None) -> list[str]:
    """A single command (binary, multiclass): reuse the output options recorded in the sets it
    would replace (cli.remember), say so, and stop before removing outputs without --replace.
    Returns the command line as run (with the reused options), which the new sets record."""
    from pnetviz.cli import common, remember  # noqa: PLC0415
    from pnetviz.output.rounds import check_same  # noqa: PLC0415

    files, _, model_dir = common.resolve_files(args, kind, background)
    outputs, summary = common.output_dirs(args, model_dir, files)
    for directory in (*outputs, summary):  # another round's sets: refused before anything is read from them
        check_same(directory, round_meta(args))
    make_parser = lambda: common.evaluation_parser(kind, None, "", "")  # noqa: E731
    changes = remember.single(args, argv, kind, make_parser, [*outputs, summary])
    if not args.quiet:
        for line in changes.lines(str(Path(outputs[0]).parent)):
            print(f"[pnetviz {kind}] {line}", flush=True)
    import sys  # noqa: PLC0415

    extra = [t for flag, value in changes.reused.items() for t in ([flag] if value is True else [f"{flag}={value}"])]
    return [*(sys.argv[1:] if argv is None else argv), *extra]
