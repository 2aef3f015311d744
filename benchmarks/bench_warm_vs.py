"""Warm evaluation CPU time of this tree against another checkout of pnetviz (issue 33's target:
a warm evaluation with --images none within 10% of a reference tree's). Two worker processes, one
per tree, each set up as a campaign worker (campaign.execute.worker_setup) and warmed up by one
binary and one multi-class evaluation (fold 0, --formats none); then `--pairs` times, for each
kind, one evaluation in each tree back to back (which tree goes first alternates), each timed as
its process's CPU time (not wall time: other sessions share this VM's two cores, and a host under
load slows both trees alike only when they run side by side in time). Prints, per kind, each
tree's min and median and the ratios: of the mins, of the medians, and the median of the pairs'.

Usage: python benchmarks/bench_warm_vs.py REFERENCE_CHECKOUT [--pairs 16] [-- extra options]
(REFERENCE_CHECKOUT: a git worktree of the reference commit whose python/pnetviz/macros points at
a macros/ directory; options after `--` go to this tree's evaluations only, e.g. `--binning none`).
Uses the tree of bench_campaign.py (campaign_tree.py, made on first use).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
KINDS = ("binary", "multiclass")

WORKER = r"""
import shutil, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from campaign_tree import work_tree, CHANNELS, SIGNALS
from pnetviz.campaign.execute import worker_setup
from pnetviz.cli.main import main
work, base = work_tree(Path(sys.argv[2]), "x")
out = Path(sys.argv[3]); shutil.rmtree(out, ignore_errors=True)
worker_setup()
common = ["--results-dir", str(base), "--channel", CHANNELS[0], "--signal", SIGNALS[1], "--fold", "0",
          "--plots-dir", str(out), "-q", "--formats", "none", *sys.argv[4:]]
argvs = {"binary": ["binary", *common, "--background", "diboson"], "multiclass": ["multiclass", *common]}
print("ready", flush=True)
for line in sys.stdin:
    start = time.process_time()
    assert main(argvs[line.strip()]) == 0
    print(time.process_time() - start, flush=True)
"""


class Worker:
    """One tree's worker process: evaluates a kind when asked, answers with its CPU time."""

    def __init__(self, tree: Path, work: Path, out: Path, extra: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree / "python")}
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(HERE), str(work), str(out), *extra], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        for line in self.proc.stdout:
            if line.strip() == "ready":
                return
        raise RuntimeError(f"the worker of {tree} ended before it was ready (run one evaluation there by hand to see why)")

    def time(self, kind: str) -> float:
        self.proc.stdin.write(kind + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"the worker stopped during a {kind} evaluation")
        return float(answer)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("reference", type=Path, help="a checkout of the reference commit")
    cli.add_argument("--pairs", type=int, default=16, help="paired evaluations of each kind (default: %(default)s)")
    cli.add_argument("--work", type=Path, default=Path("/tmp/pnetviz-bench-warm-vs"), help="work directory")
    args, extra = cli.parse_known_args()
    extra = [a for a in extra if a != "--"]
    make = f"import sys; sys.path.insert(0, {str(HERE)!r}); from pathlib import Path; from campaign_tree import work_tree; " \
           f"work_tree(Path({str(args.work / 'tree')!r}), 'x')"  # fmt: skip
    subprocess.run([sys.executable, "-c", make], env={**os.environ, "PYTHONPATH": str(REPO / "python")}, check=True)
    ref = Worker(args.reference.resolve(), args.work / "tree", args.work / "out-ref", [])
    new = Worker(REPO, args.work / "tree", args.work / "out-new", extra)
    times: dict[tuple[str, str], list[float]] = {(tree, kind): [] for tree in ("ref", "new") for kind in KINDS}
    try:
        for kind in KINDS:  # warm-up
            ref.time(kind)
            new.time(kind)
        for i in range(args.pairs):
            for kind in KINDS:
                for tree, worker in ((("ref", ref), ("new", new)) if i % 2 == 0 else (("new", new), ("ref", ref))):
                    times[tree, kind].append(worker.time(kind))
    finally:
        ref.close()
        new.close()
    print("| kind | reference min / median | this min / median | ratio of mins | of medians | median of pairs |")
    print("|---|---|---|---|---|---|")
    for kind in KINDS:
        r, w = times["ref", kind], times["new", kind]
        pairs = statistics.median(b / a for a, b in zip(r, w, strict=True))
        print(f"| {kind} | {min(r):.4f} / {statistics.median(r):.4f} s | {min(w):.4f} / {statistics.median(w):.4f} s "
              f"| {min(w) / min(r):.3f}x | {statistics.median(w) / statistics.median(r):.3f}x | {pairs:.3f}x |")
    print(json.dumps({f"{tree}_{kind}": v for (tree, kind), v in times.items()}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
