#!/usr/bin/env python3
"""Weighted ROC + AUC: pnetviz's cling core vs scikit-learn and numpy.sort, in one process.

Usage: .venv/bin/python benchmarks/bench_roc.py [--sizes 1e6,1e7] [--repeat 3]
Prints a Markdown table (median wall time of --repeat runs) for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np


from pnetviz.metrics.roc import binary_clf_curve  # noqa: E402
from pnetviz.rootenv import root  # noqa: E402


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), result


def toy(n: int, seed: int = 1):
    """float32 scores (as stored by trainers) with ties, physics-like weights, 30% signal."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1).astype(np.float32)
    w = 10.0 ** rng.uniform(-3, 0, n)
    return s, y, w


def main() -> None:
    from sklearn.metrics import roc_auc_score, roc_curve  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e6,1e7")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    t0 = time.perf_counter()
    root()
    # cling compiles a kernel at its first call: that is start-up, not part of the timings below
    binary_clf_curve(np.array([0.2, 0.8], np.float32), np.array([0, 1]), np.ones(2))
    print(f"start-up (import ROOT + declare the headers + compile the float32 kernel): {time.perf_counter() - t0:.2f} s\n")
    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}\n")
    print("| events | pnetviz ROC+AUC | scikit-learn roc_curve+roc_auc_score | numpy.sort(float32) | speed-up vs sklearn | ratio to numpy.sort | abs AUC difference |")
    print("|---|---|---|---|---|---|---|")
    for n in (int(float(x)) for x in args.sizes.split(",")):
        s, y, w = toy(n)
        t_ours, auc = median_time(lambda: binary_clf_curve(s, y, w).auc, args.repeat)
        t_sk, auc_sk = median_time(
            lambda: (roc_curve(y, s, sample_weight=w), roc_auc_score(y, s, sample_weight=w))[1], args.repeat
        )
        t_np, _ = median_time(lambda: np.sort(s), args.repeat)
        print(f"| {n:.0e} | {t_ours:.3f} s | {t_sk:.3f} s | {t_np:.3f} s | {t_sk / t_ours:.1f}x | "
              f"{t_ours / t_np:.2f} | {abs(auc - auc_sk):.1e} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
