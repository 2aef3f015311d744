#!/usr/bin/env python3
"""What the binning for the fit (issue 39) adds to an evaluation's warm time: the same binary and
multi-class evaluations with `--binning fit` and `--binning none`, in one process, interleaved.

Usage: PYTHONPATH=python .venv/bin/python benchmarks/bench_binning_cost.py [--events 3000] [--repeat 5]
       [--formats none,png]
One demo fold (`pnetviz demo --signals MHc130_MA90 --channels Run3Mu --folds 1`) in a temporary
directory; each evaluation once to warm the process (ROOT, cling kernels, cmsstyle), then
--repeat rounds of [fit, none] in alternating order. Prints a Markdown table of the median wall
and process times and the ratio fit / none (the issue's target: < 1.10).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pnetviz.cli.main import main as pnetviz


def evaluation(kind: str, results: Path, out: Path, formats: str, binning: str) -> list[str]:
    """The argv of one fold's evaluation into `out`."""
    pair = ["--background", "nonprompt"] if kind == "binary" else []
    return [kind, "--results-dir", str(results), "--channel", "Run3Mu", "--signal", "MHc130_MA90", *pair, "--fold", "0",
            "--output", str(out), "--formats", formats, "--binning", binning]  # fmt: skip


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall, process) seconds of one in-process CLI call (its output silenced)."""
    wall, cpu = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = pnetviz(argv)
    if code != 0:
        raise RuntimeError(f"pnetviz {' '.join(argv)} exited with {code}")
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--formats", default="none,png", help="comma list of --formats values to measure, each its own rows")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_binning_cost_") as tmp:
        results = Path(tmp) / "results"
        subprocess.run([sys.executable, "-m", "pnetviz", "demo", "--output", str(results), "--signals", "MHc130_MA90",
                        "--channels", "Run3Mu", "--folds", "1", "--events", str(args.events), "--no-ga"],
                       check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        print(f"demo fold: {args.events} events per fold; median of {args.repeat} interleaved rounds after one warm-up\n")
        print("| evaluation | --formats | with binning: wall / process (s) | --binning none: wall / process (s) | ratio wall | ratio process |")
        print("|---|---|---|---|---|---|")
        for formats in args.formats.split(","):
            for kind in ("binary", "multiclass"):
                argv = {b: evaluation(kind, results, Path(tmp) / f"{kind}_{formats}_{b}", formats, b) for b in ("fit", "none")}
                for b in ("fit", "none"):
                    timed(argv[b])
                spent = {b: [] for b in argv}
                for r in range(args.repeat):
                    for b in ("fit", "none") if r % 2 == 0 else ("none", "fit"):
                        spent[b].append(timed(argv[b]))
                med = {b: np.median(np.array(v), axis=0) for b, v in spent.items()}
                print(f"| {kind} | {formats} | {med['fit'][0]:.3f} / {med['fit'][1]:.3f} | {med['none'][0]:.3f} / {med['none'][1]:.3f} | "
                      f"{med['fit'][0] / med['none'][0]:.3f} | {med['fit'][1] / med['none'][1]:.3f} |")


if __name__ == "__main__":
    main()
