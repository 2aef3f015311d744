#!/usr/bin/env python3
"""Optimal binning (issue 39): the cling DP kernel (macros/optimal_binning.h) vs the same
recursion in numpy (metrics.binning.optimal_numpy), in one process, on a logistic-normal toy.

Usage: PYTHONPATH=python .venv/bin/python benchmarks/bench_binning.py [--bins 2000] [--k 20] [--repeat 5]
Prints a Markdown table (minimum and median process time of --repeat runs, after one warm-up call) for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pnetviz.metrics import binning as bn


def toy(n: int = 400_000, seed: int = 1) -> bn.FineBins:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.05
    x = 1 / (1 + np.exp(-rng.normal(np.where(y, 1.5, -1.0), 1.0)))
    w = rng.uniform(0.5, 1.5, n)
    return x, y, w


def times(call, repeat: int) -> tuple[float, float]:
    """(minimum, median) process time of `repeat` calls after one warm-up call."""
    call()
    spent = []
    for _ in range(repeat):
        t = time.process_time()
        call()
        spent.append(time.process_time() - t)
    return min(spent), float(np.median(spent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bins", type=int, default=bn.FINE_BINS)
    ap.add_argument("--k", type=int, default=bn.K_MAX)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    x, y, w = toy()
    fine = bn.fill(bn.fine_edges(x, y, w, args.bins), x, y, w, (50 / w[y].sum(), 5000 / w[~y].sum()))
    print(f"M = {fine.size} fine bins, K = 1..{args.k}, constraints {bn.Constraints().report()}\n")
    print("| objective | cling kernel, min / median (ms) | numpy DP, min / median (ms) | ratio (min) | same optimum |")
    print("|---|---|---|---|---|")
    for objective in bn.OBJECTIVES:
        kernel = times(lambda: bn.optimal_cuts(fine, args.k, objective), args.repeat)
        numpy = times(lambda: bn.optimal_numpy(fine, args.k, objective), max(1, args.repeat // 2))
        same = np.allclose(bn.optimal_cuts(fine, args.k, objective)[0], bn.optimal_numpy(fine, args.k, objective), rtol=1e-12)
        print(f"| {objective} | {1e3 * kernel[0]:.1f} / {1e3 * kernel[1]:.1f} | {1e3 * numpy[0]:.1f} / {1e3 * numpy[1]:.1f} | "
              f"{numpy[0] / kernel[0]:.2f}x | {same} |")


if __name__ == "__main__":
    main()
