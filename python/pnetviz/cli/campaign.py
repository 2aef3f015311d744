"""`pnetviz campaign`: every model of a results directory on Dask, then the round's summary."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from pnetviz.cli import common
from pnetviz.errors import InputError, PnetvizWarning

DESCRIPTION = ("Evaluate every model of a results directory in one command, on Dask: each binary and multi-class "
               "model with all its folds, and each binary-vs-multi-class comparison, exactly as the single commands "
               "would (same directories, same numbers), then the across-signal-point summary in "
               "<plots-dir>/campaign/: CSV/JSON table, a LaTeX table for the note, TH2 maps over the mass grid and "
               "AUC-vs-m(A) graphs.")  # fmt: skip
EXAMPLES = """\
  pnetviz campaign --results-dir results --syst all --score-shift background=0.02
  pnetviz campaign --results-dir ParticleNet/results --channels Run1E2Mu,Run3Mu --signals MHc130_MA90
  pnetviz campaign --results-dir results --dry-run                 # list the jobs only
  pnetviz campaign --scheduler tls://login01:8786 --tls-ca-file ca.pem --tls-cert cert.pem --tls-key key.pem

Jobs run on a Dask LocalCluster (127.0.0.1 only) by default; --scheduler attaches to any running
cluster whose scheduler and workers have this pnetviz installed (checked before any job is sent)."""


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    from pnetviz.campaign.plan import KINDS  # noqa: PLC0415
    from pnetviz.io.layout import DEFAULT_PREFIX  # noqa: PLC0415

    parser, groups = common.parser_for("campaign", prog, DESCRIPTION, EXAMPLES)
    inputs = groups["inputs"]
    inputs.add_argument("--results-dir", type=Path, default=Path("results"),
                        help="the trainer's results/ (or results_bjets/) directory, or pnetviz's first layout "
                             "(default: results/ in the current directory, where the demo writes)")  # fmt: skip
    inputs.add_argument("--signal-prefix", default=DEFAULT_PREFIX, help="prefix of signal directories (default: %(default)s)")
    inputs.add_argument("--channels", help="comma list of channels (default: all found)")
    inputs.add_argument("--signals", help="comma list of signal points, e.g. MHc130_MA90 (default: all found)")
    inputs.add_argument("--folds", help="comma list of folds (default: all found)")
    inputs.add_argument("--kinds", default=",".join(KINDS), help="which jobs: binary, multiclass, comparison (default: %(default)s)")
    inputs.add_argument("--model", help="only models whose name contains this (full name or a part)")
    inputs.add_argument("--pilot", action="store_true", help="the trainer's pilot runs instead of the folds")
    common.add_plots_dir(groups["outputs"])
    groups["outputs"].add_argument("--output", dest="legacy_output", help=argparse.SUPPRESS)
    common.add_evaluation_options(groups, "campaign")
    execution = groups["execution"]
    execution.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                           help="local Dask workers, one single-threaded process each; 0 runs every job in this "
                                "process (default: one per core, %(default)s here)")  # fmt: skip
    execution.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786, tls://...) instead of a local cluster")
    execution.add_argument("--tls-ca-file", help="CA certificate of the cluster (with a tls:// --scheduler)")
    execution.add_argument("--tls-cert", help="client certificate (with a tls:// --scheduler)")
    execution.add_argument("--tls-key", help="client private key (with a tls:// --scheduler)")
    execution.add_argument("--force", action="store_true", help="redo jobs whose outputs are up to date")
    execution.add_argument("--dry-run", action="store_true", help="print the job list and exit")
    execution.add_argument("-q", "--quiet", action="store_true", help="no progress bar; only failures and errors")
    return parser


def parse_args(argv: Sequence[str] | None, prog: str | None) -> argparse.Namespace:
    args = parser(prog).parse_args(argv)
    if args.legacy_output is not None:  # visualizeCampaign.py's name for the tree root
        if args.plots_dir is not None:
            raise InputError("--output and --plots-dir: give only --plots-dir (the root of the output tree).")
        warnings.warn("the campaign's --output is now --plots-dir (the root of the output tree, as in every "
                      "subcommand)", PnetvizWarning, stacklevel=2)  # fmt: skip
        args.plots_dir = args.legacy_output
    return args


def split(text: str | None) -> set[str] | None:
    return None if text is None else {t.strip() for t in text.split(",") if t.strip()}


def options(args: argparse.Namespace):
    """campaign.plan.Options: the shared evaluation options checked once here (not in every job)
    and turned into each command's argv."""
    from pnetviz.campaign.plan import Options  # noqa: PLC0415
    from pnetviz.cli.multiclass import parse_classes  # noqa: PLC0415
    from pnetviz.io import trainer  # noqa: PLC0415

    common.parse_formats(args.formats)
    common.check_energy(args.energy)
    common.hep_options(args)
    common.syst_options(args)
    trainer.parse_labels(args.labels)
    trainer.parse_mapping(args.pair, "--pair", ":", "binary:class (ttZ:ttX)")
    parse_classes(args.classes)
    if args.threads < 1:
        raise InputError(f"--threads {args.threads}: give 1 or more.")
    if args.subset is not None and not args.subset.strip():
        raise InputError("--subset '': give the name of a boolean branch, e.g. has_bjet.")
    evaluation = {kind: tuple(common.passthrough(args, kind)) for kind in ("binary", "multiclass", "compare")}
    return Options(results=args.results_dir.resolve(), plots=common.plots_root(args).resolve(),
                   prefix=args.signal_prefix, evaluation=evaluation)  # fmt: skip


def discover(args: argparse.Namespace, opts) -> list:
    from pnetviz.campaign import plan  # noqa: PLC0415

    try:
        folds = {int(f) for f in split(args.folds)} if args.folds else None
    except ValueError:
        raise InputError(f"--folds {args.folds!r}: give fold numbers, e.g. 0,1,2.") from None
    return plan.discover(opts, split(args.kinds) or set(), split(args.channels), split(args.signals), folds,
                         args.model, args.pilot)  # fmt: skip


def run_jobs(args: argparse.Namespace, todo: list) -> list:
    from pnetviz.campaign import cluster, execute  # noqa: PLC0415
    from pnetviz.cli.commands import run_command  # noqa: PLC0415

    with execute.Progress(len(todo), quiet=args.quiet) as progress:
        if args.workers == 0 and not args.scheduler:
            return execute.run_here(todo, run_command, progress.done)
        if args.scheduler:
            client_of = cluster.scheduler_client(args.scheduler, args.tls_ca_file, args.tls_cert, args.tls_key)
        else:
            client_of = cluster.local_client(args.workers)
        with client_of as client:
            cluster.check_environment(client)
            link = getattr(client, "dashboard_link", None)
            if link and not args.quiet and args.scheduler:
                print(f"[pnetviz campaign] Dask dashboard: {link}", file=sys.stderr, flush=True)
            return execute.execute(todo, client, run_command, progress.done)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    opts = options(args)
    from pnetviz.campaign import plan, summary  # noqa: PLC0415
    from pnetviz.draw.style import StyleOptions  # noqa: PLC0415
    from pnetviz.output.atomic import transaction  # noqa: PLC0415

    jobs = discover(args, opts)
    if args.dry_run:
        for job in jobs:
            state = "" if args.force or not plan.up_to_date(job) else "  (up to date)"
            print(f"{job.name}{state}\n    pnetviz {job.command} {shlex.join(job.argv)}")
        print(f"[pnetviz campaign] {len(jobs)} jobs")
        return 0
    skipped = [] if args.force else [j for j in jobs if plan.up_to_date(j)]
    todo = [j for j in jobs if j not in skipped]
    if not args.quiet:
        print(f"[pnetviz campaign] {len(jobs)} jobs: {len(todo)} to run, {len(skipped)} up to date", flush=True)
    results = [plan.JobResult(j, -1) for j in skipped] + (run_jobs(args, todo) if todo else [])
    data = summary.summary(results)
    target = opts.plots / "campaign"
    style = StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text)
    with transaction([target], meta=common.provenance("campaign", argv)) as stages:
        summary.write(stages[target], data, common.parse_formats(args.formats), style)
    failed = [r for r in results if r.code > 0]
    if not args.quiet:
        print(f"[pnetviz campaign] summary: {target}", flush=True)
    if failed:
        print(f"pnetviz: {len(failed)} of {len(jobs)} jobs failed (the others are done; listed in "
              f"{target / 'summary_report.json'}):", file=sys.stderr)  # fmt: skip
        for r in failed:
            print(f"  {r.job.name}: {r.message or 'failed'}", file=sys.stderr)
        return 1 if any(r.code == 1 for r in failed) else common.EXIT_USER_ERROR
    return 0
