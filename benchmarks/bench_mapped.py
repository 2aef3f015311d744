#!/usr/bin/env python3
"""Reading one ntuple three ways: the contract file with pnetviz's compiled reader, the same
events under another group's branch names read through a --column mapping (expressions of branches
compiled by pnetviz.io.expressions), and uproot 5 on the contract file, each in its own fresh process, one thread.

Usage: .venv/bin/python benchmarks/bench_mapped.py [--events 1e6] [--repeat 3] [--with-cling]
With uproot not in the environment, give a directory it is installed in (pip install --target
DIR uproot) with --uproot-path DIR. Files go to benchmarks/data/ (ignored by git). The reader's
cached library (pnetviz.io.native) is built or found first; --with-cling adds the plain read
with the reader JIT-compiled by cling instead (the cache made unusable). Every way runs in fresh
processes, once timed by the wall clock and once by CPU time (user + system: what a loaded,
shared machine distorts least), all runs interleaved. Per way it prints the medians over
--repeat of: the imports (ROOT, pnetviz's kernels / uproot), the first read (read_predictions /
arrays(library="np")), a second read in the same process, and the whole process as its parent
saw it (interpreter start-up and exit included); ratios to uproot, and mapped / plain.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
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
clock = time.process_time if sys.argv.pop(1) == "cpu" else time.perf_counter
t0 = clock()
from pnetviz.rootenv import root
root()
from pnetviz.io.columns import parse_columns
from pnetviz.io.ntuple import read_predictions
path, tree, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
t1 = clock()
read_predictions(path, tree=tree, columns=parse_columns(pairs, None))
t2 = clock()
read_predictions(path, tree=tree, columns=parse_columns(pairs, None))
print(t1 - t0, t2 - t1, clock() - t2)
"""
UPROOT = """
import sys, time
clock = time.process_time if sys.argv.pop(1) == "cpu" else time.perf_counter
t0 = clock()
import uproot
t1 = clock()
uproot.open(sys.argv[1])["Events"].arrays(sys.argv[2:], library="np")
t2 = clock()
uproot.open(sys.argv[1])["Events"].arrays(sys.argv[2:], library="np")
print(t1 - t0, t2 - t1, clock() - t2)
"""
CLOCKS = ("wall", "cpu")
PLAIN_WAY, MAPPED_WAY = "plain (compiled reader, cached library)", "mapped (--column, expressions compiled)"
UPROOT_WAY = "uproot 5 arrays(library='np')"
PHASES = ("start", "first", "second", "process")  # imports; first read; second read; the whole child, as the parent saw it
BUILD = "from pnetviz.io import native; import sys; sys.exit(native.library() is None)"


def child(code: str, args: list[str], env: dict, clock: str) -> tuple[float, ...]:
    """(start, first read, second read, process) seconds of a fresh process running `code`:
    the first three measured by the child, the last the whole child as the parent saw it
    (interpreter start-up and exit included); `clock` "wall" or "cpu" (user + system time)."""
    before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, clock, *args], capture_output=True, text=True, env=env, check=True)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - t
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    start, first, second = out.stdout.split()[-3:]
    return float(start), float(first), float(second), wall if clock == "wall" else cpu


def ways(plain: Path, mapped: Path, env: dict, args: argparse.Namespace) -> dict[str, tuple[str, list[str], dict]]:
    """Each way's child code, arguments and environment."""
    up_env = dict(env, PYTHONPATH=os.pathsep.join(p for p in (env.get("PYTHONPATH"), args.uproot_path) if p))
    out = {PLAIN_WAY: (PNETVIZ, [str(plain), "Events"], env), MAPPED_WAY: (PNETVIZ, [str(mapped), "tree", *MAPPING], env)}
    if args.with_cling:  # the cache unusable (a file where the directory would be): the reader through cling
        out["plain, reader JIT-compiled by cling"] = (PNETVIZ, [str(plain), "Events"], dict(env, PNETVIZ_CACHE=__file__))
    out[UPROOT_WAY] = (UPROOT, [str(plain), *COLUMNS], up_env)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", default="1e6")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--uproot-path", help="a directory holding uproot (pip install --target DIR uproot)")
    parser.add_argument("--with-cling", action="store_true", help="also the plain read without the cached library")
    args = parser.parse_args()
    data = REPO / "benchmarks" / "data"
    data.mkdir(parents=True, exist_ok=True)
    plain, mapped = data / f"contract_{args.events}.root", data / f"mapped_{args.events}.root"
    env = dict(os.environ)
    if not (plain.is_file() and mapped.is_file()):
        subprocess.run([sys.executable, "-c", WRITE, args.events, str(plain), str(mapped)], check=True, env=env)
    t = time.perf_counter()
    built = subprocess.run([sys.executable, "-c", BUILD], env=env, check=False).returncode == 0
    print(f"reader library {'ready' if built else 'NOT built (cling fallback)'} after {time.perf_counter() - t:.1f} s "
          "(a process that builds it, or finds it built)")  # fmt: skip
    todo = ways(plain, mapped, env, args)
    times: dict[tuple[str, str], list[tuple[float, ...]]] = {(c, w): [] for c in CLOCKS for w in todo}
    for _ in range(args.repeat):
        for clock in CLOCKS:
            for way, (code, argv, e) in todo.items():
                times[clock, way].append(child(code, argv, e, clock))
    print(f"{args.events} events, 9 columns, one thread; {platform.machine()}, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}; median of {args.repeat} fresh processes per way and clock, "
          "interleaved")  # fmt: skip
    for clock in CLOCKS:
        table({w: times[clock, w] for w in todo}, clock)


def table(times: dict[str, list[tuple[float, ...]]], clock: str) -> None:
    """One Markdown table of the medians per way (`clock`: wall or CPU seconds), ratios to uproot."""
    med = {w: [statistics.median(r[i] for r in runs) for i in range(len(PHASES))] for w, runs in times.items()}
    up = med[UPROOT_WAY]
    print(f"\n{'Wall' if clock == 'wall' else 'CPU (user + system)'} time:\n")
    print("| way | imports (ROOT + kernels / uproot) | first read | second read, same process | imports + first read "
          "| whole process (from outside) | ratio to uproot: imports + first read / whole process / second read |")
    print("|---|---|---|---|---|---|---|")
    for way, (start, first, second, whole) in med.items():
        print(f"| {way} | {start:.2f} s | {first:.2f} s | {second:.2f} s | {start + first:.2f} s | {whole:.2f} s | "
              f"{(start + first) / (up[0] + up[1]):.2f} / {whole / up[3]:.2f} / {second / up[2]:.2f} |")
    base, other = med[PLAIN_WAY], med[MAPPED_WAY]
    print(f"\nmapped / plain: imports + first read {(other[0] + other[1]) / (base[0] + base[1]):.2f}, "
          f"whole process {other[3] / base[3]:.2f}, second read {other[2] / base[2]:.2f}")

if __name__ == "__main__":
    main()
