#!/usr/bin/env python3
"""Cost of the profiled ROC: visualizeBinary on a 1e6-event ntuple without systematics, with one
nuisance (a weight variation) and with two (plus an analytic score shift). Prints a Markdown row
for benchmarks/README.md. Usage: python benchmarks/bench_profiled.py [--events N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def make(path: Path, n: int) -> None:
    from pnetviz.rootenv import root

    rng = np.random.default_rng(5)
    label = (rng.random(n) < 0.5).astype(np.int32)  # 0 = signal
    score = np.where(label == 0, rng.normal(0.65, 0.15, n), rng.normal(0.4, 0.15, n)).clip(0, 1).astype(np.float32)
    w = rng.uniform(0.5, 1.5, n)
    tilt = np.where(label == 1, 0.4 * (score - 0.5), 0.0)
    split = rng.random(n)
    cols = {"true_label": label, "score_signal": score, "weight": w, "weight__shapeUp": w * (1 + tilt),
            "weight__shapeDown": w * (1 - tilt), "train_mask": split < 0.5, "test_mask": split >= 0.5}
    root().RDF.FromNumpy({k: np.ascontiguousarray(v) for k, v in cols.items()}).Snapshot("Events", str(path))


def timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, str(REPO / "python" / "visualizeBinary.py"), *args, "-q"], check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pnetviz-bench-syst-"))
    path = work / "pred.root"
    make(path, args.events)
    base = ["--predictions", str(path), "--fold", "0", "--formats", "png", "--no-bjet-comparison"]
    times = {name: timed([*base, "--output", str(work / name), *extra]) for name, extra in (
        ("nominal", []), ("one", ["--syst", "shape"]), ("two", ["--syst", "shape", "--score-shift", "background=0.02"]))}  # fmt: skip
    print("| events | nominal run | + 1 nuisance | + 2 nuisances | per nuisance / nominal |")
    print("|---|---|---|---|---|")
    per = (times["two"] - times["nominal"]) / 2 / times["nominal"]
    print(f"| {args.events:.0e} | {times['nominal']:.1f} s | {times['one']:.1f} s | {times['two']:.1f} s | "
          f"+{100 * per:.0f}% ({1 + per:.2f}x) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
