#!/usr/bin/env python3
"""Campaigns on a batch system (`--cluster slurm`) against the local cluster, on one machine.

Starts the private single-node SLURM of the tests (tests/campaign/slurm.py: root, slurm-wlm and
munge needed) unless SLURM_CONF names a running one, generates a trainer-faithful tree (1 channel
x 3 signal points x 2 folds x 4 models, 3000 events: 12 campaign jobs, 24 model-fold evaluations)
and measures, each in a fresh campaign process:

  campaign  --cluster local --workers 1 and 2; --cluster slurm --jobs 1 and 2 (wall time, exit 0)
  start-up  from submitting 2 worker jobs to each worker connected over TLS, then the worker's
            one-time set-up (ROOT, cling kernels, cmsstyle)
  overhead  per task, through the campaign's dispatcher (execute.execute: start/done events,
            result), with a runner that does nothing: 200 tasks on 2 SLURM workers vs 2 local ones

and from these an estimate for a full round (480 evaluations) on 50 and 500 workers. Prints
Markdown tables for benchmarks/README.md. Usage: python benchmarks/bench_slurm.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHANNEL = "Run3Mu"
SIGNALS = ("MHc100_MA95", "MHc130_MA90", "MHc160_MA85")
FOLDS = (0, 1)
EVALUATIONS = len(SIGNALS) * len(FOLDS) * 4  # 3 binary + 1 multi-class model per signal point and fold
ROUND = 480
NOOP_TASKS = 200


def private_slurm_module():
    spec = importlib.util.spec_from_file_location("pnetviz_private_slurm", REPO / "tests" / "campaign" / "slurm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_tree(base: Path) -> None:
    from pnetviz.demo.trainertree import write_trainer_fold

    for signal in SIGNALS:
        for fold in FOLDS:
            write_trainer_fold(base, CHANNEL, signal, fold, events=3000)


def campaign(results: Path, plots: Path, env: dict, *extra: str) -> float:
    argv = [str(Path(sys.executable).with_name("pnetviz")), "campaign", "--results-dir", str(results), "--plots-dir",
            str(plots), "--kinds", "binary,multiclass", "-q", *extra]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def noop(command: str, argv: list[str]) -> int:
    return 0


def per_task(client, workers: int) -> float:
    """Seconds of dispatch per task and worker: NOOP_TASKS no-op jobs through execute()."""
    from pnetviz.campaign import execute
    from pnetviz.campaign.plan import Job

    jobs = [Job("binary", CHANNEL, "x", None, str(i), (0,), "x", (str(i),), (), ()) for i in range(NOOP_TASKS)]
    execute.execute(jobs[:4], client, noop, lambda r: None, timeout=None, setup=None)  # warm
    start = time.perf_counter()
    execute.execute(jobs, client, noop, lambda r: None, timeout=None, setup=None)
    return (time.perf_counter() - start) * workers / NOOP_TASKS


def start_up(output: Path) -> tuple[list[float], float, float]:
    """(seconds from submission to each of 2 workers connected, worker set-up, per-task overhead)."""
    from pnetviz.campaign import batch, execute

    spec = batch.resolve("slurm", 2)
    start = time.perf_counter()
    connected = []
    with batch.BatchCluster(spec, output) as jobs:
        submitted = time.perf_counter() - start
        while len(connected) < 2:
            n = jobs.workers()
            connected += [time.perf_counter() - start] * (n - len(connected))
            time.sleep(0.05)
        t = time.perf_counter()
        jobs.client.run(execute.worker_setup)
        setup = time.perf_counter() - t
        overhead = per_task(jobs.client, 2)
    print(f"(submission of 2 jobs: {submitted:.2f} s, cluster object and scheduler included)", file=sys.stderr)
    return connected, setup, overhead


def local_overhead() -> float:
    from pnetviz.campaign import cluster

    with cluster.local_client(2) as client:
        return per_task(client, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it (default: a temporary one)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        work = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_slurm")))
        work.mkdir(parents=True, exist_ok=True)
        if not os.environ.get("SLURM_CONF"):
            private = private_slurm_module()
            reason = private.unavailable()
            if reason:
                print(f"bench_slurm: {reason}", file=sys.stderr)
                return 2
            slurm = stack.enter_context(private.PrivateSlurm(work / "slurm"))
            os.environ["SLURM_CONF"] = str(slurm.conf)
        env = dict(os.environ)
        results = work / "results"
        if not results.is_dir():
            make_tree(results)
        runs = {}
        for label, extra in (("local, 1 worker", ("--workers", "1")), ("local, 2 workers", ("--workers", "2")),
                             ("slurm, 1 job", ("--cluster", "slurm", "--jobs", "1")),
                             ("slurm, 2 jobs", ("--cluster", "slurm", "--jobs", "2"))):  # fmt: skip
            runs[label] = campaign(results, work / f"plots-{len(runs)}", env, *extra, "--force")
            print(f"{label}: {runs[label]:.1f} s", file=sys.stderr)
        connected, setup, slurm_task = start_up(work / "startup")
        local_task = local_overhead()

    print(f"Tree: 1 channel x {len(SIGNALS)} signal points x {len(FOLDS)} folds x 4 models, 3000 events: 12 campaign "
          f"jobs, {EVALUATIONS} evaluations; every image (PNG+PDF), bootstrap 200.\n")  # fmt: skip
    print("| cluster | campaign wall time | per evaluation x workers |")
    print("|---|---|---|")
    for label, seconds in runs.items():
        workers = 2 if "2" in label else 1
        print(f"| {label} | {seconds:.1f} s | {seconds * workers / EVALUATIONS:.2f} s |")
    print()
    print("| quantity | value |")
    print("|---|---|")
    print(f"| SLURM: submission to worker connected (TLS), 2 jobs | {connected[0]:.1f} s, {connected[1]:.1f} s |")
    print(f"| worker set-up (ROOT, cling kernels, cmsstyle), once per worker | {setup:.1f} s |")
    print(f"| dispatch per task and worker, SLURM workers ({NOOP_TASKS} no-op tasks) | {slurm_task * 1e3:.0f} ms |")
    print(f"| dispatch per task and worker, local workers | {local_task * 1e3:.0f} ms |")
    evaluation = (runs["local, 1 worker"] - setup) / EVALUATIONS  # one worker: everything is serial
    print(f"| one evaluation on one worker (local, 1 worker: (wall - set-up) / {EVALUATIONS}) | {evaluation:.2f} s |")
    print()
    print(f"Estimate for a full round ({ROUND} evaluations; a job is one model's folds, 5 per job: {ROUND // 5} jobs):\n")
    print("| workers | estimate |")
    print("|---|---|")
    jobs = ROUND // 5
    for workers in (50, 500):
        used = min(workers, jobs)
        waves = math.ceil(jobs / used)
        scheduler = jobs * slurm_task / 2  # the scheduler's work is serial: per task, not per worker
        total = connected[-1] + setup + waves * 5 * (evaluation + slurm_task) + scheduler
        print(f"| {workers} ({used} busy) | {total:.0f} s (start {connected[-1] + setup:.0f} s + {waves} wave(s) of "
              f"{5 * evaluation:.0f} s + scheduler {scheduler:.1f} s) |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
