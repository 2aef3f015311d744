#!/usr/bin/env python3
"""End-to-end: visualizeMultiClass.py (default options: every output, PNG+PDF, bootstrap 200) vs
the bare RDataFrame `AsNumpy` read of its columns, and vs the usual way (AsNumpy + scikit-learn +
numpy histograms, baseline_sklearn.py), at several ntuple sizes.

Usage: .venv/bin/python benchmarks/bench_e2e.py [--sizes 1e5,1e6,1e7] [--threads 1] [--repeat 1]
Each measurement runs in a fresh process; the three commands interleaved, --repeat times (the
order alternating); printed per size: the medians of wall time, CPU time (user+sys of the process
and its children) and peak RSS, and the medians of the paired ratios of visualizeMultiClass to the
read (wall, the issue's measure, and CPU, which a shared machine does not inflate). The ntuple:
the demo's grouped multi-class model (`pnetviz demo --events N --folds 1`), in benchmarks/data/
(ignored by git). pnetviz's modules are byte-compiled first (benchmarks/peer.py says why).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
SIGNAL, CHANNEL = "MHc160_MA85", "Run1E2Mu"
MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(time.perf_counter() - t, u.ru_utime + u.ru_stime, u.ru_maxrss, r.returncode)\n"
)
READ = (
    "import sys, warnings; warnings.filterwarnings('ignore')\n"
    "import ROOT\n"
    "ROOT.EnableImplicitMT(int(sys.argv[2])) if int(sys.argv[2]) > 1 else None\n"
    "ROOT.RDataFrame('Events', sys.argv[1]).AsNumpy(sys.argv[3].split(','))\n"
)


def measure(cmd: list) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in GB) of `cmd` in a fresh child process."""
    out = subprocess.run([PY, "-c", MEASURE, *map(str, cmd)], capture_output=True, text=True, cwd=REPO, check=True)
    wall, cpu, rss_kb, code = out.stdout.split()
    if int(code) != 0:
        raise RuntimeError(f"{cmd} failed with exit code {code}")
    return float(wall), float(cpu), int(rss_kb) / 1024**2


def ntuple(n: int) -> Path:
    """The demo's multi-class ntuple with n events (generated once)."""
    results = REPO / "benchmarks" / "data" / f"e2e-{n:.0e}"
    trees = results / CHANNEL / "multiclass" / f"TTToHcToWAToMuMu-{SIGNAL}" / "fold-0" / "trees"
    if not trees.is_dir():
        subprocess.run([PY, "-m", "pnetviz", "demo", "--output", str(results), "--events", str(n), "--folds", "1", "--signals",
                        SIGNAL, "--channels", CHANNEL, "--no-ga", "--no-samples"], cwd=REPO, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    return next(trees.glob("*.root"))


def columns(tree: Path) -> list[str]:
    """What visualizeMultiClass reads of the demo's tree: the class scores, label, weight, split masks, has_bjet."""
    import ROOT  # noqa: PLC0415

    tfile = ROOT.TFile.Open(str(tree))  # kept open while its tree is read
    names = [str(b.GetName()) for b in tfile.Get("Events").GetListOfBranches()]
    tfile.Close()
    return [n for n in names if n.startswith("score_")] + ["true_label", "weight", "train_mask", "valid_mask", "test_mask", "has_bjet"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5,1e6,1e7")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    import pnetviz  # noqa: PLC0415

    subprocess.run([PY, "-m", "compileall", "-q", str(Path(pnetviz.__file__).parent)], check=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, threads "
          f"{args.threads}; load average at the start {os.getloadavg()[0]:.1f}\n")  # fmt: skip
    print("| events | visualizeMultiClass wall / CPU | peak RSS | bare AsNumpy read wall / CPU | baseline (sklearn) CPU "
          "| ratio to read: wall / CPU |\n|---|---|---|---|---|---|")  # fmt: skip
    for n in (int(float(x)) for x in args.sizes.split(",")):
        tree = ntuple(n)
        out = REPO / "benchmarks" / "data" / f"e2e-out-{n:.0e}"
        names = columns(tree)
        cmds = {"ours": [PY, "python/visualizeMultiClass.py", "--predictions", tree, "--output", out, "--threads", args.threads, "-q"],
                "read": [PY, "-c", READ, tree, args.threads, ",".join(names)],
                "base": [PY, "benchmarks/baseline_sklearn.py", tree, "--classes",
                         ",".join(c[len("score_"):] for c in names if c.startswith("score_"))]}  # fmt: skip
        runs = {key: [] for key in cmds}
        for rep in range(args.repeat):
            for key in list(cmds) if rep % 2 == 0 else list(cmds)[::-1]:
                runs[key].append(measure(cmds[key]))
        ours, read, base = (np.array(runs[k]) for k in ("ours", "read", "base"))
        ratio = np.median(ours[:, :2] / read[:, :2], axis=0)
        print(f"| {n:.0e} | {np.median(ours[:, 0]):.1f} s / {np.median(ours[:, 1]):.1f} s | {np.median(ours[:, 2]):.2f} GB | "
              f"{np.median(read[:, 0]):.1f} s / {np.median(read[:, 1]):.1f} s | {np.median(base[:, 1]):.1f} s | "
              f"{ratio[0]:.2f} / {ratio[1]:.2f} |", flush=True)  # fmt: skip
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
