"""Warm evaluation CPU time of this tree against another checkout of pnetviz (issue 33's target:
a warm evaluation with --images none within 10% of a reference tree's), paired: rounds alternate
between the two trees, each round a fresh process that sets up as a campaign worker, runs one
binary and one multi-class evaluation (fold 0, --formats none) once to warm up and then
`--repeat` times, and reports the minimum process CPU time of each (CPU, not wall time: other
sessions share this VM's two cores).

Usage: python benchmarks/bench_warm_vs.py REFERENCE_CHECKOUT [--rounds 3] [--repeat 5] [-- extra options]
(REFERENCE_CHECKOUT: a git worktree of the reference commit whose python/pnetviz/macros points at
a macros/ directory; options after `--` go to this tree's evaluations only, e.g. `--binning none`).
Uses the tree of bench_campaign.py (campaign_tree.py, made on first use).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

ONE_TREE = r"""
import json, shutil, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from campaign_tree import work_tree, CHANNELS, SIGNALS
from pnetviz.campaign.execute import worker_setup
from pnetviz.cli.main import main
repeat, out, extra = int(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:]
work, base = work_tree(Path(sys.argv[3]).parent / "tree", "x")
shutil.rmtree(out, ignore_errors=True)
worker_setup()
common = ["--results-dir", str(base), "--channel", CHANNELS[0], "--signal", SIGNALS[1], "--fold", "0",
          "--plots-dir", str(out), "-q", "--formats", "none", *extra]
times = {}
for kind, argv in (("binary", ["binary", *common, "--background", "diboson"]), ("multiclass", ["multiclass", *common])):
    runs = []
    for _ in range(repeat + 1):
        start = time.process_time()
        assert main(argv) == 0
        runs.append(time.process_time() - start)
    times[kind] = min(runs[1:])
print(json.dumps(times))
"""


def run_tree(tree: Path, repeat: int, out: Path, extra: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree / "python")}
    done = subprocess.run([sys.executable, "-c", ONE_TREE, str(HERE), str(repeat), str(out), *extra], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("reference", type=Path, help="a checkout of the reference commit")
    cli.add_argument("--rounds", type=int, default=3, help="paired rounds (default: %(default)s)")
    cli.add_argument("--repeat", type=int, default=5, help="warm runs of each kind per round (default: %(default)s)")
    cli.add_argument("--work", type=Path, default=Path("/tmp/pnetviz-bench-warm-vs"), help="work directory")
    args, extra = cli.parse_known_args()
    extra = [a for a in extra if a != "--"]
    make = f"import sys; sys.path.insert(0, {str(HERE)!r}); from pathlib import Path; from campaign_tree import work_tree; " \
           f"work_tree(Path({str(args.work / 'tree')!r}), 'x')"  # fmt: skip
    subprocess.run([sys.executable, "-c", make], env={**os.environ, "PYTHONPATH": str(REPO / "python")}, check=True)
    print("| round | reference binary | this binary | ratio | reference multi-class | this multi-class | ratio |")
    print("|---|---|---|---|---|---|---|")
    for k in range(1, args.rounds + 1):
        ref = run_tree(args.reference.resolve(), args.repeat, args.work / "out-ref", [])
        new = run_tree(REPO, args.repeat, args.work / "out-new", extra)
        print(f"| {k} | {ref['binary']:.4f} s | {new['binary']:.4f} s | {new['binary'] / ref['binary']:.2f}x "
              f"| {ref['multiclass']:.4f} s | {new['multiclass']:.4f} s | {new['multiclass'] / ref['multiclass']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
