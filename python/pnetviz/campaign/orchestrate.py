"""A campaign's steps between parsing and the summary: the jobs the options select (with the
models left out and the rest of the round on disk) and running them on the cluster the options
name. `args` is the campaign's request (requests.campaign.CampaignRequest, made by cli.campaign:
kinds, channels, signals, folds, model, pilot, cluster and batch options, workers, scheduler,
timeouts, quiet), never changed here; `opts` its campaign.plan.Options."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from pnetviz.errors import InputError, PnetvizWarning

DEFAULT_JOBS = 20  # batch jobs when --jobs is not given (fewer if the campaign has fewer jobs)


def split(text: str | None) -> set[str] | None:
    """A comma-separated option (`--kinds binary,comparison`) as its set of names; None when not given."""
    return None if text is None else {t.strip() for t in text.split(",") if t.strip()}


def discover(args: object, opts, skipped: dict | None = None, without_ntuple: list | None = None) -> list:
    """The jobs the options select; directories and ntuples whose names are not UTF-8 are left out
    into `skipped` (path -> why) and said in one warning line each; the models with JSON files but
    no ntuple go into `without_ntuple` (plan.JobResult, for the summary)."""
    from pnetviz.campaign import plan  # noqa: PLC0415
    from pnetviz.escape import printable  # noqa: PLC0415

    try:
        folds = {int(f) for f in split(args.folds)} if args.folds else None
    except ValueError:
        raise InputError(f"--folds {args.folds!r}: give fold numbers, e.g. 0,1,2.") from None
    skipped = {} if skipped is None else skipped
    kinds = split(args.kinds) or set()
    orphans = no_ntuple(args, opts, kinds, folds)
    try:
        jobs = plan.discover(opts, kinds, split(args.channels), split(args.signals), folds, args.model, args.pilot,
                             skipped)  # fmt: skip
    except InputError as err:
        if not orphans:
            raise
        raise InputError(f"{err} {len(orphans)} models have JSON files but no ntuple, e.g. "
                         f"{orphans[0].job.name}: {orphans[0].message}") from None  # fmt: skip
    for path, why in sorted(skipped.items()):
        warnings.warn(f"{printable(path)}: {why}", PnetvizWarning, stacklevel=2)
    for r in orphans:
        warnings.warn(f"{r.job.name}: {r.message}", PnetvizWarning, stacklevel=2)
    if without_ntuple is not None:
        without_ntuple += orphans  # for the summary
    return jobs


def no_ntuple(args: object, opts, kinds: set[str], folds: set[int] | None) -> list:
    """A JobResult (status "no ntuple", not a failure) per model with JSON files but no ntuple
    (`pnetviz.io.orphans`) among the kinds the campaign evaluates."""
    from pnetviz.campaign import plan  # noqa: PLC0415
    from pnetviz.io import orphans  # noqa: PLC0415

    model_kinds = (kinds & {"binary", "multiclass"}) | ({"binary", "multiclass"} if "comparison" in kinds else set())
    found = orphans.discover(opts.results, opts.prefix, split(args.channels), split(args.signals), model_kinds, folds,
                             args.model, args.pilot)  # fmt: skip
    return [plan.JobResult(plan.Job(o.kind, o.channel, o.signal, o.model, o.background, o.folds, o.kind, (), (), ()),
                           plan.NO_NTUPLE, o.message()) for o in found]  # fmt: skip


def rest_of_round(args: object, opts, jobs: list) -> list:
    """The summary describes the whole output, not only this run's filtered jobs: every other job
    of the results directory whose sets are on disk, as "up to date" when made with these options
    and this pnetviz (their numbers in the tables), else as "other options" (listed, not mixed in)."""
    from pnetviz.campaign import plan  # noqa: PLC0415

    try:  # names that are not UTF-8 are left out here too (the run's own discovery has said so)
        everything = plan.discover(opts, set(plan.KINDS), None, None, None, None, args.pilot, {})
    except InputError:
        return []
    ours = {d for j in jobs for d in j.outputs}
    out = []
    for job in everything:
        if ours.intersection(job.outputs) or not all((d / plan.MARKER).is_file() for d in job.outputs):
            continue
        if plan.up_to_date(job, tidy=False):
            out.append(plan.JobResult(job, plan.UP_TO_DATE))
        else:
            out.append(plan.JobResult(job, plan.OTHER_OPTIONS, "made by another command line or pnetviz version, "
                                      "or before its inputs changed: rerun the campaign without filters to include it"))  # fmt: skip
    return out


def job_spec(args: object, jobs: int):
    """The batch request (campaign.batch.JobSpec) for a campaign of `jobs` jobs to run."""
    from pnetviz.campaign import batch  # noqa: PLC0415

    count = args.jobs if args.jobs is not None else max(1, min(jobs, DEFAULT_JOBS))
    return batch.resolve(args.cluster, count, args.job_memory, args.job_walltime, args.job_queue)


def say(text: str) -> None:
    """A progress line on stderr, above the progress bar if one is shown."""
    from tqdm import tqdm  # noqa: PLC0415

    tqdm.write(text, file=sys.stderr)


def run_batch(args: object, todo: list, runner, timeout: float | None, plots: Path) -> list:
    """The jobs on batch worker jobs: submitted, waited for (progress: workers up, the queue's
    word), checked, run; cancelled on the way out whatever happens. `plots`: the resolved plots
    tree (cluster.batch_client's output directory)."""
    from pnetviz.campaign import batch, cluster, execute  # noqa: PLC0415

    spec = job_spec(args, len(todo))
    quiet = args.quiet
    tell = (lambda text: None) if quiet else say
    tell(f"[pnetviz campaign] {spec.describe()}")
    with cluster.batch_client(spec, plots, tell) as jobs:
        jobs.wait_for_workers(args.start_timeout)
        cluster.check_environment(jobs.client)
        link = batch.dashboard(jobs.client)
        if link and not quiet:
            port = link.split(":")[2].split("/")[0]
            say(f"[pnetviz campaign] Dask dashboard on {batch.hostname()}: {link} (from your machine: ssh -L "
                f"{port}:127.0.0.1:{port} {batch.hostname()}, then open it)")  # fmt: skip
        with execute.Progress(len(todo), quiet=quiet) as progress:
            return execute.execute(todo, jobs.client, runner, progress.done, timeout, retries=execute.SENDS - 1,
                                   on_tick=lambda: jobs.tend(args.start_timeout))  # fmt: skip


def run_jobs(args: object, todo: list, runner, plots: Path, client=None) -> list:
    """The jobs on the cluster the options name, or on `client` (a Dask Client the caller made
    and keeps: used as it is, never closed here); `runner(command, argv) -> exit code` runs one
    job (the CLI hands in its subcommands); `plots`: the resolved plots tree."""
    from pnetviz.campaign import cluster, execute  # noqa: PLC0415

    timeout = args.job_timeout or None
    if client is not None:
        with execute.Progress(len(todo), quiet=args.quiet) as progress:
            cluster.check_environment(client)
            return execute.execute(todo, client, runner, progress.done, timeout)
    if args.cluster != "local":
        return run_batch(args, todo, runner, timeout, plots)
    with execute.Progress(len(todo), quiet=args.quiet) as progress:
        if args.workers == 0 and not args.scheduler:
            return execute.run_here(todo, runner, progress.done, timeout)
        if args.scheduler:
            client_of = cluster.scheduler_client(args.scheduler, args.tls_ca_file, args.tls_cert, args.tls_key)
        else:
            client_of = cluster.local_client(args.workers)
        with client_of as client:
            cluster.check_environment(client)
            link = getattr(client, "dashboard_link", None)
            if link and not args.quiet and args.scheduler:
                print(f"[pnetviz campaign] Dask dashboard: {link}", file=sys.stderr, flush=True)
            return execute.execute(todo, client, runner, progress.done, timeout)
