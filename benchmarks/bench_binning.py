#!/usr/bin/env python3
"""Optimal binning (issue 39): the cling DP kernel (macros/optimal_binning.h) vs the same
recursion in numpy (metrics.binning.optimal_numpy), in one process, on a logistic-normal toy.

Usage: PYTHONPATH=python .venv/bin/python benchmarks/bench_binning.py [--bins 2000] [--k 20] [--repeat 5]
       [--baseline-header OLD.h]
Prints a Markdown table (minimum and median process time of --repeat runs, after one warm-up call,
the kernels and the numpy DP interleaved) for benchmarks/README.md. --baseline-header: an older
optimal_binning.h (e.g. `git show 70f2330:macros/optimal_binning.h > /tmp/old.h`), declared under
another namespace and timed in the same rounds.
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile
import time

import numpy as np

from pnetviz.metrics import binning as bn
from pnetviz.rootenv import root


def toy(n: int = 400_000, seed: int = 1):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.05
    x = 1 / (1 + np.exp(-rng.normal(np.where(y, 1.5, -1.0), 1.0)))
    w = rng.uniform(0.5, 1.5, n)
    return x, y, w


def baseline_kernel(header: pathlib.Path):
    """An older header's optimal_binning, declared as pnetviz_baseline::optimal_binning."""
    text = header.read_text().replace("namespace pnetviz {", "namespace pnetviz_baseline {")
    text = text.replace("PNETVIZ_OPTIMAL_BINNING_H", "PNETVIZ_BASELINE_OPTIMAL_BINNING_H")
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as out:
        out.write(text)
    ROOT = root()
    if not ROOT.gInterpreter.Declare(f'#include "{out.name}"'):
        raise RuntimeError(f"cling could not compile {header}")
    return ROOT.pnetviz_baseline.optimal_binning


def call(kernel, fine: bn.FineBins, k: int, objective: str):
    """One kernel call with the default constraints: the totals."""
    s, b, nb, w2, c, n_cls = bn._arrays(fine)
    totals, cuts = np.empty(k), np.empty((k, k + 1), dtype=np.int32)
    cons = bn.Constraints()
    kernel(s, b, nb, w2, c, n_cls, fine.size, k, bn.OBJECTIVES[objective], cons.min_background_events,
           cons.max_relative_error, cons.min_class_events, totals, cuts.ravel())  # fmt: skip
    return totals


def rounds(calls: dict, repeat: int) -> dict[str, tuple[float, float]]:
    """(minimum, median) process time of each call over `repeat` interleaved rounds, after one warm-up."""
    spent = {name: [] for name in calls}
    for fn in calls.values():
        fn()
    for _ in range(repeat):
        for name, fn in calls.items():
            t = time.process_time()
            fn()
            spent[name].append(time.process_time() - t)
    return {name: (min(v), float(np.median(v))) for name, v in spent.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bins", type=int, default=bn.FINE_BINS)
    ap.add_argument("--k", type=int, default=bn.K_MAX)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--baseline-header", type=pathlib.Path)
    args = ap.parse_args()
    x, y, w = toy()
    fine = bn.fill(bn.fine_edges(x, y, w, args.bins), x, y, w, (50 / w[y].sum(), 5000 / w[~y].sum()))
    kernel = bn._kernel()
    old = baseline_kernel(args.baseline_header) if args.baseline_header else None
    print(f"M = {fine.size} fine bins, K = 1..{args.k}, constraints {bn.Constraints().report()}\n")
    print("| objective | cling kernel, min / median (ms) |" + (" baseline header, min / median (ms) | speed-up (min) |" if old else "")
          + " numpy DP, min / median (ms) | numpy / kernel (min) | same optimum |")  # fmt: skip
    print("|---|---|" + ("---|---|" if old else "") + "---|---|---|")
    for objective in bn.OBJECTIVES:
        calls = {"kernel": lambda: call(kernel, fine, args.k, objective), "numpy": lambda: bn.optimal_numpy(fine, args.k, objective)}
        if old:
            calls["old"] = lambda: call(old, fine, args.k, objective)
        t = rounds(calls, args.repeat)
        same = np.allclose(call(kernel, fine, args.k, objective), bn.optimal_numpy(fine, args.k, objective), rtol=1e-12)
        row = f"| {objective} | **{1e3 * t['kernel'][0]:.1f}** / {1e3 * t['kernel'][1]:.1f} |"
        if old:
            row += f" {1e3 * t['old'][0]:.1f} / {1e3 * t['old'][1]:.1f} | {t['old'][0] / t['kernel'][0]:.2f}x |"
        row += f" {1e3 * t['numpy'][0]:.1f} / {1e3 * t['numpy'][1]:.1f} | {t['numpy'][0] / t['kernel'][0]:.1f}x | {same} |"
        print(row)


if __name__ == "__main__":
    main()
