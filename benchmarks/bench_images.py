#!/usr/bin/env python3
"""Images on demand (issue 23): the campaign with `--images none` against `--images all` and
against one process per evaluation with `xargs -P 2`, on the trainer-faithful tree of
campaign_tree.py (3000 events per model), for 48 and 120 model-fold evaluations, all in one run:

  xargs    every evaluation as its own process (pnetviz binary/multiclass --fold k), xargs -P 2
  all      pnetviz campaign --workers 2 --kinds binary,multiclass (PNG + PDF of every plot)
  site     the same with --images site (the campaign's default: PNG of the web report's figures)
  none     the same with --images none (plots.root with every canvas, no PNG/PDF)

Also the warm per-evaluation time with none: (time at 120 - time at 48) / 72 (whole campaign jobs:
each model's folds and its fold summary), the same with the campaign run in this process
(--workers 0: worker time without Dask and without two workers sharing two cores), and, in this
process after a worker's set-up, one evaluation (fold 0, no summary) repeated: binary and
multi-class separately. Prints Markdown
tables for benchmarks/README.md. Usage: python benchmarks/bench_images.py [--keep DIR] [--warm-only]
[--repeat N] [--warm-formats png,pdf] [--sizes 48] (--sizes 48: the smallest size only, without the
differences between sizes, for a loaded machine)
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from campaign_tree import CHANNELS, SIGNALS, commands, parser, timed, work_tree

SIZES = {48: (CHANNELS[:1], SIGNALS, (0, 1, 2, 3)), 120: (CHANNELS, SIGNALS, (0, 1, 2, 3, 4))}


def tree_mb(path: Path) -> float:
    """MB of the files under `path` (what du counts, without directories)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def campaign(base: Path, out: Path, channels, signals, folds, images: str) -> float:
    return timed([sys.executable, "-m", "pnetviz", "campaign", "--results-dir", str(base), "--plots-dir", str(out),
                  "--workers", "2", "--kinds", "binary,multiclass", "--channels", ",".join(channels),
                  "--signals", ",".join(signals), "--folds", ",".join(map(str, folds)), "--force", "-q",
                  "--images", images])  # fmt: skip


def in_process(base: Path, out: Path, repeat: int = 2) -> float:
    """Seconds of worker time per warm evaluation without Dask: the campaign with --workers 0
    (every job in this process, after a worker's set-up) at 48 and at 120 evaluations, each
    `repeat` times, (min at 120 - min at 48) / 72; a first 48-evaluation run left out."""
    from pnetviz.campaign.execute import worker_setup
    from pnetviz.cli.main import main

    worker_setup()
    times: dict[int, list[float]] = {n: [] for n in SIZES}
    for rep in range(repeat + 1):
        for n, (channels, signals, folds) in SIZES.items():
            argv = ["campaign", "--results-dir", str(base), "--plots-dir", str(out / f"here{n}"), "--workers", "0",
                    "--kinds", "binary,multiclass", "--channels", ",".join(channels), "--signals", ",".join(signals),
                    "--folds", ",".join(map(str, folds)), "--force", "-q", "--images", "none"]  # fmt: skip
            start = time.perf_counter()
            if main(argv) != 0:
                raise RuntimeError(f"pnetviz {' '.join(argv)} failed")
            if rep:
                times[n].append(time.perf_counter() - start)
            elif n == 48:
                break  # the first run warms up
    (n1, t1), (n2, t2) = sorted(times.items())
    return (min(t2) - min(t1)) / (n2 - n1)


def warm(base: Path, out: Path, repeat: int, formats: str) -> dict[str, list[float]]:
    """Seconds of each run of one evaluation (fold 0, `--formats formats`) in this process after
    the campaign worker's set-up; the first run of each kind (its first drawing) is left out."""
    from pnetviz.campaign.execute import worker_setup
    from pnetviz.cli.main import main

    worker_setup()
    common = ["--results-dir", str(base), "--channel", CHANNELS[0], "--signal", SIGNALS[1], "--fold", "0",
              "--plots-dir", str(out), "-q", "--formats", formats]  # fmt: skip
    times = {}
    for kind, argv in (("binary", ["binary", *common, "--background", "diboson"]), ("multiclass", ["multiclass", *common])):
        runs = []
        for _ in range(repeat + 1):
            start = time.perf_counter()
            if main(argv) != 0:
                raise RuntimeError(f"pnetviz {' '.join(argv)} failed")
            runs.append(time.perf_counter() - start)
        times[kind] = runs[1:]
    return times


def main() -> int:
    cli = parser(__doc__)
    cli.add_argument("--warm-only", action="store_true", help="only the in-process warm evaluations")
    cli.add_argument("--repeat", type=int, default=10, help="warm runs of each kind (default: %(default)s)")
    cli.add_argument("--warm-formats", default="none", help="--formats of the warm runs (default: %(default)s)")
    cli.add_argument("--sizes", default="48,120", help="evaluations of the campaign runs (default: %(default)s)")
    args = cli.parse_args()
    sizes = {n: SIZES[n] for n in map(int, args.sizes.split(","))}
    work, base = work_tree(args.keep, "pnetviz-bench-images-")
    rows = {}
    for n, (channels, signals, folds) in ({} if args.warm_only else sizes).items():
        cmds = "\n".join(commands(base, work / f"xargs{n}", channels, signals, folds)) + "\n"
        assert cmds.count("\n") == n
        xargs = timed(["xargs", "-P", "2", "-I{}", "sh", "-c", "{}"], cmds)
        every = campaign(base, work / f"all{n}", channels, signals, folds, "all")
        shown = campaign(base, work / f"site{n}", channels, signals, folds, "site")
        none = campaign(base, work / f"none{n}", channels, signals, folds, "none")
        rows[n] = (xargs, every, none, shown)
        sizes_mb = {mode: tree_mb(work / f"{mode}{n}") for mode in ("all", "site", "none")}
        print(f"{n} evaluations: xargs -P 2 {xargs:.1f} s, campaign all {every:.1f} s, site {shown:.1f} s, none {none:.1f} s; "
              "output " + ", ".join(f"{mode} {mb:.1f} MB" for mode, mb in sizes_mb.items()), flush=True)  # fmt: skip
    if rows:
        print("\n| evaluations | xargs -P 2 | campaign --images all | --images site | --images none | none vs xargs | none vs all |")
        print("|---|---|---|---|---|---|---|")
        for n, (xargs, every, none, shown) in rows.items():
            print(f"| {n} | {xargs:.1f} s | {every:.1f} s | {shown:.1f} s | {none:.1f} s | {xargs / none:.1f}x | {every / none:.1f}x |")
    if len(rows) == len(SIZES):
        (n1, r1), (n2, r2) = sorted(rows.items())
        print(f"\nwarm evaluation in the campaign with --images none (2 workers): {2 * (r2[2] - r1[2]) / (n2 - n1):.3f} s "
              f"of worker time ({(r2[2] - r1[2]) / (n2 - n1):.3f} s wall per evaluation); with all: "
              f"{2 * (r2[1] - r1[1]) / (n2 - n1):.3f} s")  # fmt: skip
    if len(sizes) == len(SIZES):
        print(f"\nwarm evaluation in a campaign with --workers 0 (no Dask, one process): {in_process(base, work):.3f} s "
              "of worker time per evaluation", flush=True)
    times = warm(base, work / "warm", args.repeat, args.warm_formats)
    print(f"\n| warm evaluation, one process, --formats {args.warm_formats} | min | median | runs |\n|---|---|---|---|")
    for kind, runs in times.items():
        print(f"| {kind} | {min(runs):.3f} s | {statistics.median(runs):.3f} s | {len(runs)} |")
    print(f"work directory: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
