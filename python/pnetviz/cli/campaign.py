"""`pnetviz campaign`: every model of a results directory on Dask, then the round's summary."""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from pnetviz.campaign import orchestrate
from pnetviz.rounds.rounds import check_round, claim_round, record_round, summary_root, unclaim_new_tree
from pnetviz.cli import common, images, ranges, remember
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
  pnetviz campaign --results-dir /eos/user/y/you/results --cluster htcondor --jobs 50 --job-queue workday
  pnetviz campaign --results-dir results --cluster slurm --jobs 20 --job-walltime 02:00:00 --job-queue short

Jobs run on a Dask LocalCluster by default: 127.0.0.1 only, TLS with throw-away credentials, so no
other process can connect or run code in it. --scheduler attaches to any running cluster whose
scheduler and workers have this pnetviz installed (checked before any job is sent). --cluster
slurm|htcondor submits --jobs batch jobs of one worker each (dask-jobqueue; TLS; resources from
the options or dask's jobqueue config) and cancels them at the end, on failure and on Ctrl-C. A
job over --job-timeout or crashing its worker (segfault, abort, out of memory) fails alone, with
the reason; its worker is replaced and the other jobs go on (a job whose batch worker is lost is
sent again)."""


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    from pnetviz.campaign.batch import BACKENDS, DEFAULT_MEMORY, START_TIMEOUT  # noqa: PLC0415
    from pnetviz.campaign.execute import DEFAULT_TIMEOUT  # noqa: PLC0415
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
    inputs.add_argument("--kinds", default=",".join(KINDS), help="which jobs: binary, multiclass, comparison, ga (the GA hyperparameter searches: GAOptim*/ "
                        "directories in and beside --results-dir, filtered by --channels and --signals only) "
                        "(default: %(default)s)")
    inputs.add_argument("--model", help="only models whose name contains this (full name or a part)")
    inputs.add_argument("--pilot", action="store_true", help="the trainer's pilot runs instead of the folds")
    common.add_plots_dir(groups["outputs"], f"{common.EVALUATION_LAYOUT} (and .../folds/), the GA runs to <plots-dir>/"
                                            "<GAOptim dir>/<channel>/multiclass/<signal>/ga/ and the summary to <plots-dir>/campaign/")  # fmt: skip
    common.rounds.add_round(groups["outputs"])
    groups["outputs"].add_argument("--images", choices=images.CHOICES, default=images.DEFAULT, help=images.HELP)
    groups["outputs"].add_argument("--jsroot", type=Path, metavar="DIR",
                                   help="the unpacked npm package of JSROOT (npm pack jsroot@7.11.2): copied into "
                                        "<plots-dir>/jsroot/ for the web report's live views offline (default: the cache "
                                        "$PNETVIZ_JSROOT/package or ~/.cache/pnetviz/jsroot-7.11.2/package if there, "
                                        "else JSROOT from its pinned release on root.cern)")  # fmt: skip
    groups["outputs"].add_argument("--output", dest="legacy_output", help=argparse.SUPPRESS)
    common.add_evaluation_options(groups, "campaign")
    execution = groups["execution"]
    ranges.add(execution, "--workers", type=ranges.WORKERS, default=None,
                           help="local Dask workers, one single-threaded process each; 0 runs every job in this "
                                f"process (default: one per core, {os.cpu_count() or 1} here; more than 4 per core "
                                "needs --oversubscribe)")  # fmt: skip
    execution.add_argument("--oversubscribe", action="store_true", help="allow --workers above 4 per core")
    ranges.add(execution, "--job-timeout", type=ranges.JOB_TIMEOUT, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                           help="a job running longer fails with 'timed out after SECONDS s' and its worker is "
                                "restarted; the other jobs go on (0: no limit; default: %(default)g). With --workers "
                                "0 the job is interrupted at its deadline, or, inside C++, as soon as it returns")  # fmt: skip
    execution.add_argument("--cluster", choices=("local",) + BACKENDS, default="local",
                           help="where the workers run: local (default: --workers processes on this machine), or "
                                "batch jobs on slurm or htcondor through dask-jobqueue (--jobs; TLS; the jobs are "
                                "cancelled at the end, on failure and on Ctrl-C)")  # fmt: skip
    ranges.add(execution, "--jobs", type=ranges.JOBS, metavar="N",
                           help=f"batch jobs of one single-threaded worker each (default: one per campaign job, at "
                                f"most {orchestrate.DEFAULT_JOBS})")  # fmt: skip
    execution.add_argument("--job-memory", metavar="SIZE",
                           help=f"memory per batch job, e.g. '3 GB' (default: memory in dask's jobqueue config, "
                                f"else {DEFAULT_MEMORY})")  # fmt: skip
    execution.add_argument("--job-walltime", metavar="HH:MM:SS",
                           help="time limit per batch job (default: walltime in dask's jobqueue config for slurm, "
                                "the site's default for htcondor); a worker job that reaches it is replaced")  # fmt: skip
    execution.add_argument("--job-queue", metavar="NAME",
                           help="SLURM partition, or HTCondor JobFlavour at CERN (espresso, microcentury, longlunch, "
                                "workday, ...) (default: queue in dask's jobqueue config, else the site's)")  # fmt: skip
    ranges.add(execution, "--start-timeout", type=ranges.START_TIMEOUT, default=START_TIMEOUT, metavar="SECONDS",
                           help="stop (exit 2) if no batch worker connects within this time, and fail the jobs left "
                                "if none is connected for that long later (default: %(default)g)")  # fmt: skip
    execution.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786, tls://...) instead of a local cluster")
    execution.add_argument("--tls-ca-file", help="CA certificate of the cluster (with a tls:// --scheduler)")
    execution.add_argument("--tls-cert", help="client certificate (with a tls:// --scheduler)")
    execution.add_argument("--tls-key", help="client private key (with a tls:// --scheduler)")
    execution.add_argument("--force", action="store_true", help="redo jobs whose outputs are up to date")
    execution.add_argument("--dry-run", action="store_true", help="print the job list and exit")
    execution.add_argument("-q", "--quiet", action="store_true", help="no progress bar; only failures and errors")
    return parser


def parse_args(argv: Sequence[str] | None, prog: str | None) -> object:
    """The campaign's request (requests.campaign.CampaignRequest): the command line parsed, checked
    and turned once into typed fields; the rest of the campaign reads only the request."""
    from pnetviz.requests.campaign import from_namespace  # noqa: PLC0415

    args = parser(prog).parse_args(argv)
    if args.legacy_output is not None:  # visualizeCampaign.py's name for the tree root
        if args.plots_dir is not None:
            raise InputError("--output and --plots-dir: give only --plots-dir (the root of the output tree).")
        warnings.warn("the campaign's --output is now --plots-dir (the root of the output tree, as in every "
                      "subcommand)", PnetvizWarning, stacklevel=2)  # fmt: skip
        args.plots_dir = args.legacy_output
    check_execution(args)
    return from_namespace(args)


BATCH_OPTIONS = ("--jobs", "--job-memory", "--job-walltime", "--job-queue")


def check_execution(args: argparse.Namespace) -> None:
    """--workers, --cluster and its job options, --job-timeout, --scheduler and its TLS files:
    one line each, before any work (reaching the scheduler or submitting jobs is the campaign's
    first step once there are jobs to run)."""
    from pnetviz.campaign import batch, cluster  # noqa: PLC0415

    batch_values = {o: getattr(args, o[2:].replace("-", "_")) for o in BATCH_OPTIONS}
    if args.cluster == "local":
        given = [o for o, v in batch_values.items() if v is not None]
        if given:
            raise InputError(f"{given[0]} is for batch worker jobs. Fix: add --cluster slurm or --cluster htcondor "
                             "(or drop it for the local cluster).")  # fmt: skip
        if args.workers is None:
            args.workers = cluster.cores()
        cluster.check_workers(args.workers, args.oversubscribe)
    else:
        if args.workers is not None or args.oversubscribe:
            raise InputError(f"--workers with --cluster {args.cluster}: the batch cluster has --jobs workers. Fix: "
                             f"--jobs N (or --cluster local).")  # fmt: skip
        if args.scheduler is not None:
            raise InputError(f"--scheduler with --cluster {args.cluster}: give one of them (--scheduler attaches to "
                             "a cluster you started; --cluster starts one).")  # fmt: skip
        if not math.isfinite(args.start_timeout) or args.start_timeout <= 0:
            raise InputError(f"--start-timeout {args.start_timeout:g}: give a number of seconds, e.g. 600.")
        batch.resolve(args.cluster, args.jobs if args.jobs is not None else 1, args.job_memory, args.job_walltime,
                      args.job_queue)  # fmt: skip
    if not math.isfinite(args.job_timeout) or args.job_timeout < 0:
        raise InputError(f"--job-timeout {args.job_timeout:g}: give a number of seconds, e.g. 1800 (0: no limit).")
    if args.scheduler is not None:
        cluster.check_scheduler(args.scheduler, args.tls_ca_file, args.tls_cert, args.tls_key)
    elif args.tls_ca_file or args.tls_cert or args.tls_key:
        raise InputError("--tls-ca-file, --tls-cert and --tls-key go with a tls:// --scheduler (the local cluster "
                         "makes its own credentials).")  # fmt: skip


def options(args):
    """campaign.plan.Options: the shared evaluation options checked once here (not in every job)
    and turned into each command's argv (`args`: the campaign's request)."""
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
    common.column_map(args)  # a bad mapping stops the campaign before any job (the jobs get its absolute path: passthrough)
    if args.threads < 1:
        raise InputError(f"--threads {args.threads}: give 1 or more.")
    if args.subset is not None and not args.subset.strip():
        raise InputError("--subset '': give the name of a boolean branch, e.g. has_bjet.")
    if args.jsroot is not None and not (args.jsroot / "modules" / "main.mjs").is_file():
        raise InputError(f"--jsroot {args.jsroot}: no modules/main.mjs. Fix: give the unpacked npm package (npm pack "
                         "jsroot@7.11.2 && tar xzf jsroot-7.11.2.tgz, then --jsroot package).")  # fmt: skip
    job_args = images.job_args(args)
    evaluation = {kind: (*common.passthrough(job_args, kind), *images.job_extra(args, kind)) for kind in ("binary", "multiclass", "compare")}
    from pnetviz.cli import ga  # noqa: PLC0415

    evaluation["ga"] = tuple(ga.passthrough(job_args))
    results, plots = args.results_dir.resolve(), common.plots_root(args).resolve()
    from pnetviz.escape import is_utf8, printable  # noqa: PLC0415

    for flag, path in (("--results-dir", results), ("--plots-dir", plots), ("--signal-prefix", args.signal_prefix)):
        if not is_utf8(path):  # every job's command line holds it: workers could not be sent one
            raise InputError(f"{flag} {printable(path)}: not valid UTF-8 (the bytes shown as \\xNN are not text). "
                             "Fix: rename the directory, or give a path without them.")  # fmt: skip
    if args.round is not None:
        from pnetviz.io.roundname import check_round_name  # noqa: PLC0415

        check_round_name(args.round)
    return Options(results=results, plots=plots, prefix=args.signal_prefix, evaluation=evaluation, round=args.round)


def remembered(args, argv: Sequence[str] | None, prog: str | None):
    """(options this command line gives, remember.Changes, the request with the reused options):
    the output options recorded with the round's campaign summary that this run does not give are
    reused (a new request: the given one is never changed)."""
    from pnetviz.requests.fields import evolve  # noqa: PLC0415

    made = parser(prog)  # one parser for the given and the recorded options (remember drops its defaults)
    given = remember.given_options(lambda: made, sys.argv[1:] if argv is None else argv)
    plots = common.plots_root(args)
    summary = (plots / args.round if args.round is not None else plots) / "campaign"
    recorded = remember.read_manifest(summary, made)
    changes = remember.apply(args, given, recorded, "campaign", str(summary / remember.MANIFEST))
    return given, changes, evolve(args, **changes.values)


def main(argv: Sequence[str] | None = None, prog: str | None = None, runner=None, client=None) -> int:
    """`runner(command, argv) -> exit code` runs each job (default: the pnetviz subcommand;
    tests hand in others); `client`: an existing Dask Client to run them on (pnetviz.run_campaign)."""
    args = parse_args(argv, prog)
    now, changes, args = remembered(args, argv, prog)
    opts = options(args)
    from pnetviz.campaign import plan  # noqa: PLC0415
    from pnetviz.summary import summary  # noqa: PLC0415
    from pnetviz.cli.commands import run_command  # noqa: PLC0415
    from pnetviz.io import trainer  # noqa: PLC0415
    from pnetviz.output.atomic import transaction  # noqa: PLC0415

    not_utf8: dict = {}
    check_round(opts)  # before any job: nothing of another round's tree is touched
    no_ntuple: list = []
    jobs = orchestrate.discover(args, opts, not_utf8, no_ntuple)
    left_out = plan.left_out(not_utf8, opts)
    changes.removed = remember.removed_files(changes, [d for j in jobs for d in j.outputs], images.bare_sets(args, jobs))
    for line in changes.lines(str(summary_root(opts) / "campaign")) if (args.dry_run or not args.quiet) else []:
        print(f"[pnetviz campaign] {line}", flush=True)
    if args.dry_run:
        for path in changes.removed:
            print(f"    would remove {path}")
        for job in jobs:
            state = "" if args.force or not plan.up_to_date(job, tidy=False) else "  (up to date)"
            print(f"{job.name}{state}\n    pnetviz {job.command} {shlex.join(job.argv)}")
        print(f"[pnetviz campaign] {len(jobs)} jobs")
        if args.cluster != "local":
            print(f"[pnetviz campaign] {orchestrate.job_spec(args, len(jobs)).describe()}")
        return 0
    remember.check_removals(changes, args.replace, str(summary_root(opts)))
    existed = Path(opts.plots).exists()
    claim_round(opts)
    try:
        return _run(args, argv, opts, jobs, (left_out, no_ntuple), now, changes, runner, client)
    except InputError:
        unclaim_new_tree(opts, existed)
        raise


def _run(args, argv, opts, jobs, not_run, now, changes, runner, client) -> int:
    """The campaign after its checks: the jobs, the summary, the site. `not_run`: the results of
    the models left out (names not UTF-8) and of those without an ntuple."""
    from pnetviz.campaign import plan  # noqa: PLC0415
    from pnetviz.summary import summary  # noqa: PLC0415
    from pnetviz.cli.commands import run_command  # noqa: PLC0415
    from pnetviz.io import trainer  # noqa: PLC0415
    from pnetviz.output.atomic import transaction  # noqa: PLC0415

    skipped = [] if args.force else [j for j in jobs if plan.up_to_date(j)]
    todo = [j for j in jobs if j not in skipped]
    if not args.quiet:
        print(f"[pnetviz campaign] {len(jobs)} jobs: {len(todo)} to run, {len(skipped)} up to date", flush=True)
    rest = orchestrate.rest_of_round(args, opts, jobs)
    # the reports the summary reads from sets not redone: a damaged one is one error now, not after the last job
    summary.check_reports([*skipped, *(r.job for r in rest if r.code == summary.UP_TO_DATE)])
    ran = orchestrate.run_jobs(args, todo, runner or run_command, opts.plots, client) if todo else []
    left_out, no_ntuple = not_run
    results = [plan.JobResult(j, -1) for j in skipped] + ran + rest + left_out + no_ntuple
    results = summary.readable(results)  # a set that cannot give its rows: a failure listed, not the summary's end
    data = summary.summary(results, pair=trainer.parse_mapping(args.pair, "--pair", ":", "binary:class (ttZ:ttX)"))
    target = summary_root(opts) / "campaign"
    style = common.style_options(args)
    from pnetviz.web import site  # noqa: PLC0415

    jsroot = args.jsroot or site.cached_jsroot()  # the README's cache: live views offline without --jsroot
    formats = images.summary_formats(args)
    meta = {**common.provenance("campaign", argv), **images.summary_field(args), **common.rounds.round_meta(args)}
    with transaction([target], meta=meta) as stages:
        pages = lambda directory: site.site_files(data, summary_root(opts), directory, site.jsroot_source(jsroot))  # noqa: E731
        summary.write(stages[target], data, formats, style, pages=pages)
        (stages[target] / remember.MANIFEST).write_text(json.dumps(remember.manifest(args, now, changes), indent=1) + "\n")
    site.publish_root_files(summary_root(opts), jsroot)
    record_round(opts)
    failed = [r for r in results if r.code > 0]
    if not args.quiet:
        print(f"[pnetviz campaign] summary: {target}", flush=True)
    if failed:
        print(f"pnetviz: {len(failed)} of {len(jobs) + len(left_out)} jobs failed (the others are done; listed in "
              f"{target / 'summary_report.json'}):", file=sys.stderr)  # fmt: skip
        for r in failed:
            print(f"  {r.job.name}: {r.message or 'failed'}", file=sys.stderr)
        return 1 if any(r.code == 1 for r in failed) else common.EXIT_USER_ERROR
    return 0
