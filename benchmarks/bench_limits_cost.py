#!/usr/bin/env python3
"""What the expected limits (issue 52) add to a campaign's CPU time: the same campaign on a demo
tree with `--mass-column m_mumu` (three strategies per pair, pooled and per fold) and with
`--no-limits` (`--syst all --score-shift background=0.02`, every job in one process: `--workers 0`).

Usage: PYTHONPATH=python .venv/bin/python benchmarks/bench_limits_cost.py [--events 3000]
       [--signals MHc130_MA90,MHc160_MA155] [--channels Run3Mu] [--all] [--results DIR]
       [--fresh-process [--pairs 2]]
The demo tree is written to a temporary directory (or --results, reused if it exists; --all: every
channel and signal point, the README demo's round). Default: each campaign in this process after
a warm-up campaign, the `limits.model.expected` calls timed as well. --fresh-process: each
campaign a new `python -m pnetviz campaign` (user + sys of it and its children), `--pairs` pairs
interleaved (the order swapped in every other pair), a fresh --plots-dir each; prints a table
row per campaign with the load average before and after, the ratio of each pair, the date and
the commit. The issue's target: a ratio of at most 1.25.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pnetviz.cli.commands import run_command
from pnetviz.limits import model

OPTIONS = {"--no-limits": ["--no-limits"], "--mass-column m_mumu": ["--mass-column", "m_mumu"]}


def argv_of(results: Path, plots: Path, selection: list[str], extra: list[str]) -> list[str]:
    return ["--results-dir", str(results), "--plots-dir", str(plots), *selection, "--syst", "all",
            "--score-shift", "background=0.02", "--workers", "0", "-q", *extra]  # fmt: skip


def campaign(results: Path, plots: Path, selection: list[str], extra: list[str]) -> float:
    """Process seconds of one in-process campaign (its output silenced)."""
    cpu = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = run_command("campaign", argv_of(results, plots, selection, extra))
    if code != 0:
        sys.exit(f"campaign {' '.join(extra)} failed (exit {code})")
    return time.process_time() - cpu


def fresh_campaign(results: Path, plots: Path, selection: list[str], extra: list[str]) -> float:
    """user + sys seconds of one campaign in a new process (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "pnetviz", "campaign", *argv_of(results, plots, selection, extra)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"campaign {' '.join(extra)} failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parent)  # fmt: skip
    return done.stdout.strip() or "unknown"


def fresh_pairs(results: Path, tmp: Path, selection: list[str], pairs: int) -> None:
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, commit {commit()}, {os.cpu_count()} cores")
    print("| pair | campaign | CPU user+sys (s) | load average before / after |\n|---|---|---|---|")
    ratios = []
    for pair in range(1, pairs + 1):
        order = list(OPTIONS) if pair % 2 else list(OPTIONS)[::-1]
        cpu = {}
        for n, name in enumerate(order):
            start = load()
            cpu[name] = fresh_campaign(results, tmp / f"plots-{pair}-{n}", selection, OPTIONS[name])
            print(f"| {pair} | {name} | {cpu[name]:.1f} | {start} / {load()} |", flush=True)
        ratios.append(cpu["--mass-column m_mumu"] / cpu["--no-limits"])
    print("ratios " + ", ".join(f"{r:.3f}" for r in ratios) + f"; mean {sum(ratios) / len(ratios):.3f}")


def in_process(results: Path, tmp: Path, selection: list[str]) -> None:
    fits = []
    expected = model.expected

    def timed(m, *built):
        start = time.process_time()
        try:
            return expected(m, *built)
        finally:
            fits.append(time.process_time() - start)

    campaign(results, tmp / "plots-warm", selection, OPTIONS["--mass-column m_mumu"])  # ROOT, cling, the fits: warm
    without = campaign(results, tmp / "plots-none", selection, OPTIONS["--no-limits"])
    model.expected = timed
    try:
        with_limits = campaign(results, tmp / "plots-limits", selection, OPTIONS["--mass-column m_mumu"])
    finally:
        model.expected = expected
    print("| campaign | process (s) |\n|---|---|")
    print(f"| --no-limits | {without:.1f} |\n| --mass-column m_mumu | {with_limits:.1f} |")
    print(f"ratio {with_limits / without:.3f}; {len(fits)} expected() calls, {sum(fits):.1f} s process "
          f"({1000 * sum(fits) / max(len(fits), 1):.0f} ms each)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--signals", default="MHc130_MA90,MHc160_MA155")
    parser.add_argument("--channels", default="Run3Mu")
    parser.add_argument("--all", action="store_true", help="every channel and signal point (the README demo)")
    parser.add_argument("--results", type=Path, default=None)
    parser.add_argument("--fresh-process", action="store_true", help="each campaign a new process, --pairs pairs")
    parser.add_argument("--pairs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        results = args.results or tmp / "results"
        subset = [] if args.all else ["--signals", args.signals, "--channels", args.channels, "--no-ga"]
        if not results.exists():
            assert run_command("demo", ["--output", str(results), "--events", str(args.events), *subset]) == 0
        selection = [] if args.all else ["--channels", args.channels, "--signals", args.signals]
        if args.fresh_process:
            fresh_pairs(results, tmp, selection, args.pairs)
        else:
            in_process(results, tmp, selection)


if __name__ == "__main__":
    main()
