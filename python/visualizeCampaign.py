#!/usr/bin/env python3
"""Evaluate every model of a results directory in one command, on Dask: each binary and
multi-class model with all its folds, and each binary-vs-multi-class comparison, exactly as the
single scripts would (same directories, same numbers), then the across-signal-point summary in
<output>/campaign/: CSV/JSON table, a LaTeX table for the note, TH2 maps over the mass grid and
AUC-vs-m(A) graphs.

Example:
  python python/visualizeCampaign.py --results-dir ParticleNet/results --channels Run1E2Mu,Run3Mu
  python python/visualizeCampaign.py --results-dir results --dry-run         # list the jobs only
  python python/visualizeCampaign.py --scheduler tls://login01:8786 --tls-ca-file ca.pem ...
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import logging
import os
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli, layout, paths  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402

KINDS = ("binary", "multiclass", "comparison")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Jobs run on a Dask LocalCluster (127.0.0.1 only) by default; --scheduler "
                                            "attaches to any cluster (README: HTCondor with dask-jobqueue).")  # fmt: skip
    parser.add_argument("--results-dir", type=Path, default=paths.DEFAULT_RESULTS,
                        help="the trainer's results/ (or results_bjets/) directory, or pnetviz's first layout "
                             f"(default: {paths.DEFAULT_RESULTS.name}/ in the repo, where the demo writes)")  # fmt: skip
    parser.add_argument("--signal-prefix", default=layout.DEFAULT_PREFIX, help="prefix of signal directories (default: %(default)s)")
    parser.add_argument("--output", type=Path, default=paths.DEFAULT_PLOTS,
                        help="root of the output tree; jobs write where the single scripts would under it, the "
                             "summary goes to <output>/campaign/ (default: plots/ in the repo)")  # fmt: skip
    parser.add_argument("--channels", help="comma list of channels (default: all found)")
    parser.add_argument("--signals", help="comma list of signal points, e.g. MHc130_MA90 (default: all found)")
    parser.add_argument("--folds", help="comma list of folds (default: all found)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="which jobs: binary, multiclass, comparison (default: %(default)s)")
    parser.add_argument("--model", help="only models whose name contains this (full name or a part)")
    parser.add_argument("--pilot", action="store_true", help="the trainer's pilot runs instead of the folds")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="local Dask workers, one single-threaded process each; 0 runs every job in this process "
                             "(default: one per core, %(default)s here)")  # fmt: skip
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786, tls://...) instead of a local cluster")
    parser.add_argument("--tls-ca-file", help="CA certificate of the cluster (with a tls:// --scheduler)")
    parser.add_argument("--tls-cert", help="client certificate (with a tls:// --scheduler)")
    parser.add_argument("--tls-key", help="client private key (with a tls:// --scheduler)")
    parser.add_argument("--force", action="store_true", help="redo jobs whose outputs are up to date")
    parser.add_argument("--dry-run", action="store_true", help="print the job list and exit")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar; only failures and errors")
    evaluation = parser.add_argument_group("evaluation options, passed on to every job")
    evaluation.add_argument("--formats", default="png,pdf", help="image formats (default: %(default)s)")
    evaluation.add_argument("--bootstrap", type=int, default=200, help="bootstrap replicas (default: %(default)s)")
    evaluation.add_argument("--seed", type=int, default=20251001, help="bootstrap seed (default: %(default)s)")
    evaluation.add_argument("--weights", choices=("abs", "signed", "drop"), default="abs", help="weight mode (default: abs)")
    evaluation.add_argument("--energy", type=float, default=13.0, help="CMS label energy: 13 or 13.6 (default: %(default)s)")
    evaluation.add_argument("--run", default="Run 2", help="run period for the CMS label (default: %(default)s)")
    evaluation.add_argument("--extra-text", default="Simulation Preliminary", help="text after 'CMS' (default: %(default)s)")
    evaluation.add_argument("--labels", help="plot labels of classes, name=label pairs (ttX=t#bar{t}X)")
    evaluation.add_argument("--no-bjet-comparison", action="store_true", help="skip the b-jet comparisons")
    cli.add_syst_options(evaluation)
    return parser.parse_args(argv)


def split(text: str | None) -> set[str] | None:
    return None if text is None else {t.strip() for t in text.split(",") if t.strip()}


def options(args: argparse.Namespace):
    """campaign.Options, the shared evaluation options checked once here (not in every job)."""
    from pnetviz import campaign, trainer  # noqa: PLC0415

    cli.parse_formats(args.formats)
    cli.check_energy(args.energy)
    cli.hep_options(argparse.Namespace(bootstrap=args.bootstrap, signal_scale=1.0, weights=args.weights, seed=args.seed))
    trainer.parse_labels(args.labels)
    cli.syst_options(args)
    passthrough = ["--formats", args.formats, "--bootstrap", str(args.bootstrap), "--seed", str(args.seed),
                   "--weights", args.weights, "--energy", str(args.energy), "--run", args.run, "--extra-text", args.extra_text]  # fmt: skip
    model_options = (["--labels", args.labels] if args.labels else []) + (["--no-bjet-comparison"] if args.no_bjet_comparison else [])
    if args.syst or args.score_shift:
        model_options += [*(["--syst", args.syst] if args.syst else []), "--syst-kappa", str(args.syst_kappa),
                          *(["--score-shift", args.score_shift] if args.score_shift else [])]  # fmt: skip
    return campaign.Options(results=args.results_dir.resolve(), plots=args.output.resolve(), prefix=args.signal_prefix,
                            passthrough=tuple(passthrough), model_options=tuple(model_options))  # fmt: skip


def discover_jobs(args: argparse.Namespace, opts) -> list:
    from pnetviz import campaign  # noqa: PLC0415

    kinds = split(args.kinds) or set()
    if not kinds or not kinds <= set(KINDS):
        raise InputError(f"--kinds {args.kinds!r}: choose from {', '.join(KINDS)}.")
    try:
        folds = {int(f) for f in split(args.folds)} if args.folds else None
    except ValueError:
        raise InputError(f"--folds {args.folds!r}: give fold numbers, e.g. 0,1,2.") from None
    model_kinds = {k for k in kinds if k != "comparison"} | ({"binary", "multiclass"} if "comparison" in kinds else set())
    groups = layout.discover(opts.results, opts.prefix, split(args.channels), split(args.signals), model_kinds, folds,
                             args.model, args.pilot)  # fmt: skip
    if not groups:
        channels = layout.channels_in(opts.results)
        raise InputError(f"{opts.results}: no model matches (channels found: {', '.join(channels) or 'none'}). "
                         "Fix: check --results-dir, --channels, --signals, --folds, --model.")  # fmt: skip
    return campaign.plan(groups, opts, kinds)


@contextlib.contextmanager
def dask_client(args: argparse.Namespace) -> Iterator[object]:
    """A Client of --scheduler (TLS with the given files), or of a LocalCluster of --workers
    single-threaded processes listening on 127.0.0.1 only (dashboard on localhost if bokeh is there)."""
    from distributed import Client, LocalCluster  # noqa: PLC0415
    from distributed.security import Security  # noqa: PLC0415

    if args.scheduler:
        tls = [args.tls_ca_file, args.tls_cert, args.tls_key]
        if any(tls) and not all(tls):
            raise InputError("--tls-ca-file, --tls-cert and --tls-key go together.")
        security = Security(tls_ca_file=args.tls_ca_file, tls_client_cert=args.tls_cert, tls_client_key=args.tls_key,
                            require_encryption=True) if all(tls) else None  # fmt: skip
        try:
            client = Client(args.scheduler, security=security, timeout=30)
        except (OSError, TimeoutError, ValueError) as err:
            raise InputError(f"--scheduler {args.scheduler}: cannot connect ({err}). Fix: check the address and TLS files.") from None
        with client:
            yield client
        return
    if args.workers < 1:
        raise InputError(f"--workers {args.workers}: give 1 or more (0 runs in this process).")
    python_dir = str(Path(__file__).resolve().parent)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (python_dir, os.environ.get("PYTHONPATH")) if p)
    dashboard = "127.0.0.1:0" if importlib.util.find_spec("bokeh") else None
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=dashboard, silence_logs=logging.ERROR) as cluster, Client(cluster) as client:  # fmt: skip
        yield client


def run_jobs(args: argparse.Namespace, todo: list) -> list:
    from pnetviz import campaign  # noqa: PLC0415

    with campaign.Progress(len(todo), quiet=args.quiet) as progress:
        if args.workers == 0 and not args.scheduler:
            return campaign.run_here(todo, progress.done)
        with dask_client(args) as client:
            link = getattr(client, "dashboard_link", None)
            if link and not args.quiet and (args.scheduler or importlib.util.find_spec("bokeh")):
                print(f"[visualizeCampaign] Dask dashboard: {link}", file=sys.stderr, flush=True)
            return campaign.execute(todo, client, progress.done)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    opts = options(args)
    from pnetviz import campaign, campaignsummary  # noqa: PLC0415
    from pnetviz.output import transaction  # noqa: PLC0415
    from pnetviz.style import StyleOptions  # noqa: PLC0415

    jobs = discover_jobs(args, opts)
    if args.dry_run:
        for job in jobs:
            state = "" if args.force or not campaign.up_to_date(job) else "  (up to date)"
            print(f"{job.name}{state}\n    {job.script}.py {shlex.join(job.argv)}")
        print(f"[visualizeCampaign] {len(jobs)} jobs")
        return 0
    skipped = [] if args.force else [j for j in jobs if campaign.up_to_date(j)]
    todo = [j for j in jobs if j not in skipped]
    if not args.quiet:
        print(f"[visualizeCampaign] {len(jobs)} jobs: {len(todo)} to run, {len(skipped)} up to date", flush=True)
    results = [campaign.JobResult(j, -1) for j in skipped] + (run_jobs(args, todo) if todo else [])
    data = campaignsummary.summary(results)
    target = opts.plots / "campaign"
    style = StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text)
    with transaction([target], meta=cli.provenance("visualizeCampaign", argv)) as stages:
        campaignsummary.write(stages[target], data, cli.parse_formats(args.formats), style)
    failed = [r for r in results if r.code > 0]
    if not args.quiet:
        print(f"[visualizeCampaign] summary: {target}", flush=True)
    if failed:
        print(f"pnetviz: {len(failed)} of {len(jobs)} jobs failed (the others are done; listed in "
              f"{target / 'summary_report.json'}):", file=sys.stderr)  # fmt: skip
        for r in failed:
            print(f"  {r.job.name}: {r.message or 'failed'}", file=sys.stderr)
        return 1 if any(r.code == 1 for r in failed) else cli.EXIT_USER_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
