#!/usr/bin/env python3
"""Images on demand (issue 23): the campaign with `--images none` against `--images all` and
against one process per evaluation with `xargs -P 2`, on bench_campaign.py's trainer-faithful tree
(3000 events per model), for 48 and 120 model-fold evaluations, all in one run:

  xargs    every evaluation as its own process (pnetviz binary/multiclass --fold k), xargs -P 2
  all      pnetviz campaign --workers 2 --kinds binary,multiclass (PNG + PDF of every plot)
  none     the same with --images none (plots.root with every canvas, no PNG/PDF)

Also the warm per-evaluation time with none: (time at 120 - time at 48) / 72. Prints a Markdown
table for benchmarks/README.md. Usage: python benchmarks/bench_images.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from bench_campaign import CHANNELS, SIGNALS, commands, make_tree, timed

SIZES = {48: (CHANNELS[:1], SIGNALS, (0, 1, 2, 3)), 120: (CHANNELS, SIGNALS, (0, 1, 2, 3, 4))}


def campaign(base: Path, out: Path, channels, signals, folds, images: str) -> float:
    return timed([sys.executable, "-m", "pnetviz", "campaign", "--results-dir", str(base), "--plots-dir", str(out),
                  "--workers", "2", "--kinds", "binary,multiclass", "--channels", ",".join(channels),
                  "--signals", ",".join(signals), "--folds", ",".join(map(str, folds)), "--force", "-q",
                  "--images", images])  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="work directory to keep (default: a temporary one)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="pnetviz-bench-images-"))
    base = work / "results"
    if not base.exists():
        make_tree(base)
    rows = {}
    for n, (channels, signals, folds) in SIZES.items():
        cmds = "\n".join(commands(base, work / f"xargs{n}", channels, signals, folds)) + "\n"
        assert cmds.count("\n") == n
        xargs = timed(["xargs", "-P", "2", "-I{}", "sh", "-c", "{}"], cmds)
        every = campaign(base, work / f"all{n}", channels, signals, folds, "all")
        none = campaign(base, work / f"none{n}", channels, signals, folds, "none")
        rows[n] = (xargs, every, none)
        print(f"{n} evaluations: xargs -P 2 {xargs:.1f} s, campaign all {every:.1f} s, none {none:.1f} s", flush=True)
    print("\n| evaluations | xargs -P 2 | campaign --images all | campaign --images none | none vs xargs | none vs all |")
    print("|---|---|---|---|---|---|")
    for n, (xargs, every, none) in rows.items():
        print(f"| {n} | {xargs:.1f} s | {every:.1f} s | {none:.1f} s | {xargs / none:.1f}x | {every / none:.1f}x |")
    (n1, r1), (n2, r2) = sorted(rows.items())
    print(f"\nwarm evaluation with --images none (2 workers): {2 * (r2[2] - r1[2]) / (n2 - n1):.3f} s of worker time "
          f"({(r2[2] - r1[2]) / (n2 - n1):.3f} s wall per evaluation); with all: {2 * (r2[1] - r1[1]) / (n2 - n1):.3f} s")
    print(f"work directory: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
