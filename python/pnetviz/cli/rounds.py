"""Command-line side of training rounds: `--round`, the round a run's sets record, and the
place of a `--predictions` file that sits in a results tree (where `--results-dir` puts it)."""

from __future__ import annotations

from pathlib import Path


def add_round(group) -> None:
    group.add_argument("--round", metavar="NAME",
                       help="the training round's place in the output tree, <plots-dir>/<NAME>/... (default: the name the "
                            "plots tree's rounds.json gives the results directory: its own name, e.g. results, or "
                            "<parent>-<name> when another results directory holds that); a set of another round is never "
                            "replaced")  # fmt: skip
    group.add_argument("--replace", action="store_true",
                       help="run with exactly this command line's options: the options recorded for the round's "
                            "outputs are not reused, and outputs they made that these options do not (e.g. profiled "
                            "plots) are removed (default: reuse them; stop before removing any)")  # fmt: skip


def in_results_tree(args, kind: str) -> tuple[Path, object] | None:
    """(results tree, layout.ModelFile) of --predictions when it sits in a results tree of `kind`
    and no option names it otherwise; None else."""
    from pnetviz.io.roundname import trainer_identity  # noqa: PLC0415

    found = trainer_identity(args.predictions, args.signal_prefix) if args.predictions else None
    if found is None or found[1].kind != kind or (args.fold is not None and args.fold != str(found[1].fold)):
        return None
    given = {"channel": args.channel, "signal": args.signal, "background": getattr(args, "background", None)}
    return found if all(v is None or v == getattr(found[1], k) for k, v in given.items()) else None


def round_results(args) -> tuple[Path, bool]:
    """(the results tree of this run's round, whether it is a trainer's tree): --results-dir, the
    tree --predictions sits in, else the prediction file's directory."""
    if getattr(args, "predictions", None):
        found = trainer_identity_of(args)
        return (found, True) if found is not None else (Path(args.predictions).resolve().parent, False)
    return Path(args.results_dir), True


def round_meta(args) -> dict:
    """The training round this run's sets record (output.rounds)."""
    from pnetviz.cli.options import plots_root  # noqa: PLC0415
    from pnetviz.output import rounds  # noqa: PLC0415

    return rounds.meta(round_results(args)[0], args.round, plots_root(args))


def claim_round(args, meta: dict | None = None) -> None:
    """Register the run's round in the plots tree (output.rounds.claim) when its name places the
    sets: a trainer's tree or --round, and no --output (`meta`: round_meta(args) if known)."""
    from pnetviz.cli.options import plots_root  # noqa: PLC0415
    from pnetviz.output import rounds  # noqa: PLC0415

    results, in_tree = round_results(args)
    if getattr(args, "output", None) is None and (in_tree or args.round is not None):
        rounds.claim(plots_root(args), (meta or round_meta(args))[rounds.KEY]["name"], results)


def trainer_identity_of(args) -> Path | None:
    from pnetviz.io.roundname import trainer_identity  # noqa: PLC0415

    found = trainer_identity(args.predictions, args.signal_prefix)
    return found[0] if found is not None else None
