#!/usr/bin/env python3
"""What the expected limits (issue 52) add to a campaign's CPU time: the same campaign on a demo
tree with `--mass-column m_mumu` (three strategies per pair, pooled and per fold) and with
`--no-limits`, each in this process (`--workers 0`) after a warm-up campaign, the limits' fits
timed on their own.

Usage: PYTHONPATH=python .venv/bin/python benchmarks/bench_limits_cost.py [--events 3000]
       [--signals MHc130_MA90,MHc160_MA155] [--channels Run3Mu] [--results DIR]
The demo tree is written to a temporary directory (or --results, reused if it exists). Prints the
process time of each campaign, their ratio (the issue's target: at most 1.25), and the number and
process time of the `limits.model.expected` calls.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

from pnetviz.cli.commands import run_command
from pnetviz.limits import model


def campaign(results: Path, plots: Path, selection: list[str], extra: list[str]) -> float:
    """Process seconds of one in-process campaign (its output silenced)."""
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), *selection, "--syst", "all",
            "--score-shift", "background=0.02", "--workers", "0", "-q", *extra]  # fmt: skip
    cpu = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = run_command("campaign", argv)
    if code != 0:
        sys.exit(f"campaign {' '.join(extra)} failed (exit {code})")
    return time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--signals", default="MHc130_MA90,MHc160_MA155")
    parser.add_argument("--channels", default="Run3Mu")
    parser.add_argument("--results", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = args.results or Path(tmp) / "results"
        if not results.exists():
            assert run_command("demo", ["--output", str(results), "--events", str(args.events), "--signals", args.signals,
                                        "--channels", args.channels, "--no-ga"]) == 0  # fmt: skip
        selection = ["--channels", args.channels, "--signals", args.signals]
        fits = []
        expected = model.expected

        def timed(m):
            start = time.process_time()
            try:
                return expected(m)
            finally:
                fits.append(time.process_time() - start)

        campaign(results, Path(tmp) / "plots-warm", selection, ["--mass-column", "m_mumu"])  # ROOT, cling, the fits: warm
        without = campaign(results, Path(tmp) / "plots-none", selection, ["--no-limits"])
        model.expected = timed
        try:
            with_limits = campaign(results, Path(tmp) / "plots-limits", selection, ["--mass-column", "m_mumu"])
        finally:
            model.expected = expected
    print("| campaign | process (s) |\n|---|---|")
    print(f"| --no-limits | {without:.1f} |\n| --mass-column m_mumu | {with_limits:.1f} |")
    print(f"ratio {with_limits / without:.3f}; {len(fits)} expected() calls, {sum(fits):.1f} s process "
          f"({1000 * sum(fits) / max(len(fits), 1):.0f} ms each)")  # fmt: skip


if __name__ == "__main__":
    main()
