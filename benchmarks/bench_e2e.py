#!/usr/bin/env python3
"""End-to-end: visualizeMultiClass (all outputs, bootstrap on) vs the bare read of its columns
and vs the usual way (AsNumpy + scikit-learn + numpy histograms), at several ntuple sizes.

Usage: .venv/bin/python benchmarks/bench_e2e.py [--sizes 1e5,1e6,1e7] [--threads 1]
Each measurement runs in a fresh process; wall time and that process's peak RSS are printed
as a Markdown table for benchmarks/README.md. Demo ntuples go to benchmarks/data/ (ignored).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)\n"
)
READ = (
    "import sys, warnings; warnings.filterwarnings('ignore')\n"
    "import ROOT\n"
    "ROOT.EnableImplicitMT(int(sys.argv[2])) if int(sys.argv[2]) > 1 else None\n"
    "cols = ['true_label', 'weight', 'train_mask', 'test_mask', 'valid_mask', 'score_signal', 'score_nonprompt',"
    " 'score_diboson', 'score_ttZ']\n"
    "ROOT.RDataFrame('Events', sys.argv[1]).AsNumpy(cols)\n"
)
OURS_READ = (
    "import sys\n"
    "from pnetviz.rootenv import enable_threads\n"
    "from pnetviz.io.ntuple import read_predictions\n"
    "enable_threads(int(sys.argv[2]))\n"
    "read_predictions(sys.argv[1])\n"
)
STARTUP = "from pnetviz.draw.style import cmsstyle\ncmsstyle()\n"


def measure(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in GB) of `cmd` in a fresh child process."""
    out = subprocess.run([PY, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=REPO, check=True)
    seconds, rss_kb, code = out.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{cmd} failed with exit code {code}")
    return float(seconds), int(rss_kb) / 1024**2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5,1e6,1e7")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bootstrap", type=int, default=200)
    args = parser.parse_args()
    data = REPO / "benchmarks" / "data"
    t_start, _ = measure([PY, "-c", STARTUP])
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, threads {args.threads}, "
          f"bootstrap {args.bootstrap}; start-up (import ROOT + declare the headers + cmsstyle) {t_start:.2f} s\n")  # fmt: skip
    print("| events | visualizeMultiClass | peak RSS | bare AsNumpy read | pnetviz reader | baseline (sklearn) | ratio to read | speed-up vs baseline |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for n in (int(float(x)) for x in args.sizes.split(",")):
        results = data / f"n{n}"
        pred = results / "Run1E2Mu" / "multiclass" / "MHc160_MA85" / "fold-0" / "predictions.root"
        if not pred.exists():
            subprocess.run([PY, "python/makeDemo.py", "--output", str(results), "--events", str(n), "--folds", "1"],
                           cwd=REPO, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        t_read, _ = measure([PY, "-c", READ, str(pred), str(args.threads)])
        t_reader, _ = measure([PY, "-c", OURS_READ, str(pred), str(args.threads)])
        t_ours, rss = measure([PY, "python/visualizeMultiClass.py", "--predictions", str(pred), "--output",
                               str(data / f"out{n}"), "--bootstrap", str(args.bootstrap), "--threads",
                               str(args.threads), "-q"])  # fmt: skip
        t_base, _ = measure([PY, "benchmarks/baseline_sklearn.py", str(pred)])
        rows.append({"events": n, "ours": t_ours, "rss_gb": rss, "read": t_read, "reader": t_reader, "baseline": t_base})
        print(f"| {n:.0e} | {t_ours:.1f} s | {rss:.2f} GB | {t_read:.1f} s | {t_reader:.1f} s | {t_base:.1f} s | {t_ours / t_read:.2f} | "
              f"{t_base / t_ours:.2f}x |", flush=True)  # fmt: skip
    if len(rows) > 1:
        print(f"\nscaling time({rows[-1]['events']:.0e}) / time({rows[-2]['events']:.0e}) = {rows[-1]['ours'] / rows[-2]['ours']:.1f}")
    (data / "last_run.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
