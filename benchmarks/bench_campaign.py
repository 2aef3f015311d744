#!/usr/bin/env python3
"""Campaign on Dask vs one process per job: a generated trainer-faithful tree of 2 channels x 3
signal points x 5 folds x 4 models (3 binary + 1 grouped multi-class), 3000 events each, i.e. 120
model-fold evaluations. In one run, for 24, 60 and 120 evaluations:

  loop     every evaluation as its own process (visualizeBinary/visualizeMultiClass --fold k), sequential
  xargs    the same commands with `xargs -P 2`
  campaign visualizeCampaign.py --workers 2 --kinds binary,multiclass (one job per model with all its
           folds, which also writes each model's folds/ summary: more work than the loop)

Prints a Markdown table for benchmarks/README.md. Usage: python benchmarks/bench_campaign.py [--keep DIR]
"""

from __future__ import annotations

import shlex
import sys

from campaign_tree import CHANNELS, FOLDS, REPO, SIGNALS, commands, parser, timed, work_tree

SIZES = {24: (CHANNELS[:1], SIGNALS, (0, 1)), 60: (CHANNELS[:1], SIGNALS, tuple(FOLDS)), 120: (CHANNELS, SIGNALS, tuple(FOLDS))}


def main() -> int:
    args = parser(__doc__).parse_args()
    work, base = work_tree(args.keep, "pnetviz-bench-campaign-")
    rows = []
    for n, (channels, signals, folds) in SIZES.items():
        cmds = "\n".join(commands(base, work / f"loop{n}", channels, signals, folds)) + "\n"
        assert cmds.count("\n") == n
        loop = timed(["xargs", "-P", "1", "-I{}", "sh", "-c", "{}"], cmds)
        cmds2 = cmds.replace(str(work / f"loop{n}"), str(work / f"xargs{n}"))
        xargs = timed(["xargs", "-P", "2", "-I{}", "sh", "-c", "{}"], cmds2)
        campaign = timed([sys.executable, str(REPO / "python" / "visualizeCampaign.py"), "--results-dir", str(base),
                          "--plots-dir", str(work / f"campaign{n}"), "--workers", "2", "--kinds", "binary,multiclass",
                          "--channels", ",".join(channels), "--signals", ",".join(signals),
                          "--folds", ",".join(map(str, folds)), "--force", "-q"])  # fmt: skip
        rows.append((n, loop, xargs, campaign))
        print(f"{n} evaluations: loop {loop:.1f} s, xargs -P 2 {xargs:.1f} s, campaign {campaign:.1f} s", flush=True)
    print("\n| evaluations | process loop | xargs -P 2 | campaign, 2 workers | per evaluation (loop / xargs / campaign) | campaign vs xargs |")
    print("|---|---|---|---|---|---|")
    for n, loop, xargs, campaign in rows:
        print(f"| {n} | {loop:.1f} s | {xargs:.1f} s | {campaign:.1f} s | {loop / n:.2f} / {xargs / n:.2f} / {campaign / n:.2f} s "
              f"| {xargs / campaign:.1f}x |")
    print(f"\nwork directory: {work}  ({shlex.quote(sys.executable)}, {len(FOLDS)} folds, 3000 events per model)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
