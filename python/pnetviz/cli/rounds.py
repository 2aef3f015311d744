"""Command-line side of training rounds: `--round`, the round a run's sets record, and the
place of a `--predictions` file that sits in a results tree (where `--results-dir` puts it)."""

from __future__ import annotations

import functools
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
    from pnetviz.cli.common import plots_root  # noqa: PLC0415 - common builds on this module
    from pnetviz.output import rounds  # noqa: PLC0415

    return rounds.meta(round_results(args)[0], args.round, plots_root(args))


def claim_round(args, meta: dict | None = None) -> None:
    """Register the run's round in the plots tree (output.rounds.claim) when its name places the
    sets: a trainer's tree or --round, and no --output (`meta`: round_meta(args) if known)."""
    from pnetviz.cli.common import plots_root  # noqa: PLC0415
    from pnetviz.output import rounds  # noqa: PLC0415

    results, in_tree = round_results(args)
    if getattr(args, "output", None) is None and (in_tree or args.round is not None):
        rounds.claim(plots_root(args), (meta or round_meta(args))[rounds.KEY]["name"], results)


def trainer_identity_of(args) -> Path | None:
    from pnetviz.io.roundname import trainer_identity  # noqa: PLC0415

    found = trainer_identity(args.predictions, args.signal_prefix)
    return found[0] if found is not None else None



@functools.cache
def _options_parser(kind: str):
    """The parser remember.single reads the given and the recorded options with: the same for
    every run of `kind` (it drops its defaults each time), made once a process (~1 ms)."""
    from pnetviz.cli import common  # noqa: PLC0415

    return common.evaluation_parser(kind, None, "", "")


def remember_options(args, argv, kind: str, background: str | None = None) -> list[str]:
    """A single command (binary, multiclass): reuse the output options recorded in the sets it
    would replace (cli.remember), say so, and stop before removing outputs without --replace.
    Returns the command line as run (with the reused options), which the new sets record."""
    from pnetviz.cli import common, remember  # noqa: PLC0415
    from pnetviz.output.rounds import check_same  # noqa: PLC0415

    files, _, model_dir = common.resolve_files(args, kind, background)
    outputs, summary = common.output_dirs(args, model_dir, files)
    meta = round_meta(args)  # once: it resolves paths and reads the round registry
    for directory in (*outputs, summary):  # another round's sets: refused before anything is read from them
        check_same(directory, meta)
    changes = remember.single(args, argv, kind, lambda: _options_parser(kind), [*outputs, summary], [f.fold for f in files])
    claim_round(args, meta)
    if not args.quiet:
        for line in changes.lines(str(Path(outputs[0]).parent)):
            print(f"[pnetviz {kind}] {line}", flush=True)
    import sys  # noqa: PLC0415

    extra = [t for flag, value in changes.reused.items() for t in ([flag] if value is True else [f"{flag}={value}"])]
    return [*(sys.argv[1:] if argv is None else argv), *extra]
