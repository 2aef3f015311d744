#!/usr/bin/env python3
"""ROC+AUC at 1e7 (weighted, float32 scores with ties): the host-compiled kernel and cling's vs np.sort.

Usage: python benchmarks/bench_kernels.py [--events 1e7] [--repeat 5] [--decimals 4] [--sklearn] [--library SO]
CPU time (user+sys of this process, getrusage) per call, the median of --repeat calls, the builds
interleaved and each call paired with an np.sort of the same array; prints a Markdown row per build and the ratio to
np.sort (issue 55: at most 3x). The machine may be loaded: CPU time, not wall. --decimals 4: scores
rounded to 1e-4 (10001 distinct values: the kernel sums per distinct score, macros/roc_distinct.h);
--decimals -1: not rounded (the radix sort of macros/roc_split.h). --sklearn: the curve and AUC
against scikit-learn's roc_curve (max differences of eps_s, eps_b and AUC; issue 55: 1e-12).
--library SO: also a kernels library built from another checkout (e.g. main's macros/kernels.cxx
with the command of io/kernels.py), measured first, in the same process.
"""

from __future__ import annotations

import argparse
import os
import resource
from pathlib import Path

import numpy as np

from pnetviz.io import kernels


def toy(n: int, seed: int = 1, decimals: int = 4):
    """float32 scores rounded to 10^-decimals (ties; not rounded if decimals < 0), weights of both
    signs stored as float32 (as trees store them; handed over in float64), 30% signal."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).view(np.uint8)
    s = np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1)
    s = (np.round(s, decimals) if decimals >= 0 else s).astype(np.float32)
    w = 10.0 ** rng.uniform(-3, 0, n) * np.where(rng.random(n) < 0.05, -1.0, 1.0)
    return s, y, w.astype(np.float32).astype(np.float64)


def cpu(fn) -> tuple[float, float]:
    """(user, sys) CPU seconds of fn() (getrusage: microseconds, where os.times counts 10 ms ticks)."""
    t0 = resource.getrusage(resource.RUSAGE_SELF)
    fn()
    t1 = resource.getrusage(resource.RUSAGE_SELF)
    return t1.ru_utime - t0.ru_utime, t1.ru_stime - t0.ru_stime


def against_sklearn(s, y, w, tps, fps, m, auc) -> str:
    """Max |d eps_s|, |d eps_b| against scikit-learn's roc_curve, |d AUC| against its trapezoid."""
    from sklearn.metrics import roc_curve  # noqa: PLC0415 - only with --sklearn

    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    if len(fpr) != m:
        return f"scikit-learn has {len(fpr)} points, the kernel {m}"
    d_s = np.max(np.abs(tps[:m] / tps[m - 1] - tpr))
    d_b = np.max(np.abs(fps[:m] / fps[m - 1] - fpr))
    return f"max |d eps_s| {d_s:.1e}, max |d eps_b| {d_b:.1e}, |d AUC| {abs(auc - np.trapezoid(tpr, fpr)):.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--decimals", type=int, default=4)
    parser.add_argument("--sklearn", action="store_true")
    parser.add_argument("--library", help="another build of macros/kernels.cxx to measure too")
    args = parser.parse_args()
    n = int(args.events)
    s, y, w = toy(n, decimals=args.decimals)
    out = [np.empty(n + 1) for _ in range(3)] + [np.empty(1)]
    builds = {"host-compiled (g++ -O3 -march=native)": kernels.native(), "cling JIT": kernels.jit()}
    if args.library:
        builds = {f"`{args.library}`": kernels.load(Path(args.library)), **builds}
    print(f"load average {os.getloadavg()[0]:.1f}, {n:.0e} events, {len(np.unique(s))} distinct scores\n")
    print("| build | ROC+AUC CPU (user + sys) | np.sort CPU (user + sys) | ratio |\n|---|---|---|---|")
    available = {name: k for name, k in builds.items() if k is not None}
    for k in available.values():
        k.roc_curve_f32(s[:10], w[:10], y[:10], 10, *out)  # cling compiles at the first call
    kernel = {name: [] for name in available}
    sort = {name: [] for name in available}
    for _ in range(args.repeat):  # the builds interleaved, each call paired with an np.sort
        for name, k in available.items():
            kernel[name].append(cpu(lambda k=k: k.roc_curve_f32(s, w, y, n, *out)))
            sort[name].append(cpu(lambda: np.sort(s)))
    aucs, checked = {}, "the host-compiled build is not available"
    for name, k in builds.items():
        if k is None:
            print(f"| {name} | not available | | |")
            continue
        points = int(k.roc_curve_f32(s, w, y, n, *out))
        aucs[name] = out[3][0]
        ka, sa = np.array(kernel[name]), np.array(sort[name])
        a, b = np.median(ka.sum(1)), np.median(sa.sum(1))
        print(f"| {name} | {a:.3f} s ({np.median(ka[:, 0]):.3f} + {np.median(ka[:, 1]):.3f}) | "
              f"{b:.3f} s ({np.median(sa[:, 0]):.3f} + {np.median(sa[:, 1]):.3f}) | {a / b:.2f}x |")
        if args.sklearn and name == "host-compiled (g++ -O3 -march=native)":
            checked = against_sklearn(s, y, w, out[0], out[1], points, out[3][0])
    print(f"\nAUC of each build: {', '.join(f'{value!r}' for value in aucs.values())}")
    if args.sklearn:
        print(f"against scikit-learn: {checked}")

if __name__ == "__main__":
    main()
