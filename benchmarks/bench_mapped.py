#!/usr/bin/env python3
"""Reading one ntuple three ways: the contract file with pnetviz's compiled reader, the same
events under another group's branch names read through a --column mapping (expressions of branches
compiled by pnetviz.io.expressions), and uproot 5 on the contract file, each in its own fresh process, one thread.

Usage: .venv/bin/python benchmarks/bench_mapped.py [--events 1e6] [--repeat 3]
With uproot not in the environment, give a directory it is installed in (pip install --target
DIR uproot) with --uproot-path DIR. Files go to benchmarks/data/ (ignored by git). Prints one
Markdown table for benchmarks/README.md: time per way (median over --repeat, the runs of the
three ways interleaved so that machine load falls on all), ratios to the plain read.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ["true_label", "weight", "train_mask", "valid_mask", "test_mask", "score_signal", "score_nonprompt",
           "score_diboson", "score_ttZ"]  # fmt: skip
MAPPING = ["true_label=cls", "weight=evt_weight", "train_mask=event % 5 < 3", "valid_mask=event % 5 == 3",
           "test_mask=event % 5 == 4", "score_signal=p_sig", "score_nonprompt=p_np", "score_diboson=p_vv",
           "score_ttZ=p_ttz"]  # fmt: skip
WRITE = """
import sys, numpy as np
from pnetviz.rootenv import root
n, plain, mapped = int(float(sys.argv[1])), sys.argv[2], sys.argv[3]
rng = np.random.default_rng(1)
label = rng.integers(0, 4, n).astype(np.int32)
raw = rng.random((n, 4)) + 2.0 * np.eye(4)[label]
p = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
event = np.arange(n, dtype=np.uint64) * 3 + 7
w = rng.uniform(0.1, 1.0, n).astype(np.float32)
names = ("signal", "nonprompt", "diboson", "ttZ")
ROOT = root()
ROOT.RDF.FromNumpy({"true_label": label, "weight": w, "train_mask": event % 5 < 3, "valid_mask": event % 5 == 3,
                    "test_mask": event % 5 == 4, **{f"score_{c}": np.ascontiguousarray(p[:, i]) for i, c in
                    enumerate(names)}}).Snapshot("Events", plain)
ROOT.RDF.FromNumpy({"cls": label, "evt_weight": w, "event": event, **{b: np.ascontiguousarray(p[:, i]) for i, b in
                    enumerate(("p_sig", "p_np", "p_vv", "p_ttz"))}}).Snapshot("tree", mapped)
"""
PNETVIZ = """
import sys, time
from pnetviz.rootenv import root
root()
from pnetviz.io.columns import parse_columns
from pnetviz.io.ntuple import read_predictions
path, tree, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.perf_counter()
read_predictions(path, tree=tree, columns=parse_columns(pairs, None))
first = time.perf_counter() - t
t = time.perf_counter()
read_predictions(path, tree=tree, columns=parse_columns(pairs, None))
print(first, time.perf_counter() - t)
"""
UPROOT = """
import sys, time
import uproot
t = time.perf_counter()
uproot.open(sys.argv[1])["Events"].arrays(sys.argv[2:], library="np")
first = time.perf_counter() - t
t = time.perf_counter()
uproot.open(sys.argv[1])["Events"].arrays(sys.argv[2:], library="np")
print(first, time.perf_counter() - t)
"""


def child(code: str, args: list[str], env: dict) -> tuple[float, float]:
    """(first, second) call's seconds printed by a fresh process running `code`."""
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    first, second = out.stdout.split()[-2:]
    return float(first), float(second)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", default="1e6")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--uproot-path", help="a directory holding uproot (pip install --target DIR uproot)")
    args = parser.parse_args()
    data = REPO / "benchmarks" / "data"
    data.mkdir(parents=True, exist_ok=True)
    plain, mapped = data / f"contract_{args.events}.root", data / f"mapped_{args.events}.root"
    env = dict(os.environ)
    if not (plain.is_file() and mapped.is_file()):
        subprocess.run([sys.executable, "-c", WRITE, args.events, str(plain), str(mapped)], check=True, env=env)
    up_env = dict(env, PYTHONPATH=os.pathsep.join(p for p in (env.get("PYTHONPATH"), args.uproot_path) if p))
    ways = {"plain (compiled reader)": (PNETVIZ, [str(plain), "Events"], env),
            "mapped (--column, RDataFrame)": (PNETVIZ, [str(mapped), "tree", *MAPPING], env),
            "uproot 5 arrays(library='np')": (UPROOT, [str(plain), *COLUMNS], up_env)}  # fmt: skip
    times: dict[str, list[tuple[float, float]]] = {w: [] for w in ways}
    for _ in range(args.repeat):
        for way, (code, argv, e) in ways.items():
            times[way].append(child(code, argv, e))
    base = statistics.median(t[0] for t in times["plain (compiled reader)"])
    print(f"{args.events} events, 9 columns, one thread; {platform.machine()}, Python {platform.python_version()}; "
          f"median of {args.repeat} fresh processes each\n")
    print("| way | first read in a process | second read, same process | ratio to plain (first) |")
    print("|---|---|---|---|")
    for way, runs in times.items():
        first, second = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"| {way} | {first:.3f} s | {second:.3f} s | {first / base:.2f} |")


if __name__ == "__main__":
    main()
