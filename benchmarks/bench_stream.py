#!/usr/bin/env python3
"""Issue 55, item 4: a binary ntuple evaluated in memory (`pnetviz binary --formats none`) and
streamed in chunks into per-split score summaries (pnetviz.jobs.stream), each in a fresh process:
CPU (user + sys), peak RSS and the two AUCs per split.

Usage: .venv/bin/python benchmarks/bench_stream.py NTUPLE [--chunk 1e6] [--fold 0]
NTUPLE: a binary prediction ntuple beside its trainer JSON (as `pnetviz binary --predictions` takes it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STREAM = (
    "import json, sys\nfrom pathlib import Path\nfrom pnetviz.jobs import stream\nfrom pnetviz.metrics import summaries as sm\n"
    "out = stream.binary_summaries(Path(sys.argv[1]), chunk=int(float(sys.argv[2])))\n"
    "print(json.dumps({s: sm.roc(v).auc for s, v in out.items()}))\n"
)


def measure(cmd: list[str]) -> tuple[str, float, float]:
    """(stdout, CPU seconds, peak RSS GB) of `cmd` in a fresh child process (its own rusage: os.wait4)."""
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[:4]} failed with exit code {os.waitstatus_to_exitcode(status)}")
    return out, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024**2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ntuple", type=Path)
    parser.add_argument("--chunk", default="1e6")
    parser.add_argument("--fold", default="0")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _, cpu_mem, rss_mem = measure([sys.executable, "-m", "pnetviz", "binary", "--predictions", str(args.ntuple),
                                       "--output", tmp, "--fold", args.fold, "--formats", "none", "-q"])  # fmt: skip
        memory = json.loads((Path(tmp) / "summary_report.json").read_text())["auc"]
    out, cpu_stream, rss_stream = measure([sys.executable, "-c", STREAM, str(args.ntuple), args.chunk])
    streamed = json.loads(out.splitlines()[-1])
    print("| path | CPU | peak RSS | AUC train | AUC test |\n|---|---|---|---|---|")
    print(f"| in memory | {cpu_mem:.1f} s | {rss_mem:.2f} GB | {memory['train']:.15f} | {memory['test']:.15f} |")
    print(f"| streamed (chunk {float(args.chunk):.0e}) | {cpu_stream:.1f} s | {rss_stream:.2f} GB | {streamed['train']:.15f} | "
          f"{streamed['test']:.15f} |")  # fmt: skip
    print(f"\n|dAUC| train {abs(memory['train'] - streamed['train']):.1e}, test {abs(memory['test'] - streamed['test']):.1e}")


if __name__ == "__main__":
    main()
