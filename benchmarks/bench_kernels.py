#!/usr/bin/env python3
"""ROC+AUC at 1e7 (weighted, float32 scores with ties): the host-compiled kernel and cling's vs np.sort.

Usage: python benchmarks/bench_kernels.py [--events 1e7] [--repeat 5]
CPU time (user+sys of this process, time.process_time) per call, the median of --repeat calls,
each kernel interleaved with np.sort of the same array; prints a Markdown row per build and the
ratio to np.sort (issue 55: at most 3x). The machine may be loaded: CPU time, not wall.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from pnetviz.io import kernels


def toy(n: int, seed: int = 1):
    """float32 scores rounded to 1e-4 (ties), weights of both signs stored as float32 (as trees
    store them; handed over in float64), 30% signal."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).view(np.uint8)
    s = np.round(np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1), 4).astype(np.float32)
    w = 10.0 ** rng.uniform(-3, 0, n) * np.where(rng.random(n) < 0.05, -1.0, 1.0)
    return s, y, w.astype(np.float32).astype(np.float64)


def cpu(fn) -> tuple[float, float]:
    """(user, sys) CPU seconds of fn()."""
    t0 = os.times()
    fn()
    t1 = os.times()
    return t1.user - t0.user, t1.system - t0.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = int(args.events)
    s, y, w = toy(n)
    out = [np.empty(n + 1) for _ in range(3)] + [np.empty(1)]
    builds = {"host-compiled (g++ -O3 -march=native)": kernels.native(), "cling JIT": kernels.jit()}
    print(f"load average {os.getloadavg()[0]:.1f}, {n:.0e} events, {len(np.unique(s))} distinct scores\n")
    print("| build | ROC+AUC CPU (user + sys) | np.sort CPU (user + sys) | ratio |\n|---|---|---|---|")
    aucs = {}
    for name, k in builds.items():
        if k is None:
            print(f"| {name} | not available | | |")
            continue
        k.roc_curve_f32(s[:10], w[:10], y[:10], 10, *out)  # cling compiles at the first call
        kernel, sort = [], []
        for _ in range(args.repeat):
            kernel.append(cpu(lambda k=k: k.roc_curve_f32(s, w, y, n, *out)))
            sort.append(cpu(lambda: np.sort(s)))
        aucs[name] = out[3][0]
        ka, sa = np.array(kernel), np.array(sort)
        a, b = np.median(ka.sum(1)), np.median(sa.sum(1))
        print(f"| {name} | {a:.3f} s ({np.median(ka[:, 0]):.3f} + {np.median(ka[:, 1]):.3f}) | "
              f"{b:.3f} s ({np.median(sa[:, 0]):.3f} + {np.median(sa[:, 1]):.3f}) | {a / b:.2f}x |")
    if len(aucs) == 2:
        first, second = aucs.values()
        print(f"\nAUC of the two builds: {first!r} {second!r} (equal: {first == second})")


if __name__ == "__main__":
    main()
