#!/usr/bin/env python3
"""Evaluate a binary classifier (signal vs one background) per fold: ROC, PR, score
distributions, confusion matrix, training curves, summary report and one ROOT file.

Example:
  python python/visualizeBinary.py --signal MHc160_MA85 --background nonprompt --channel Run1E2Mu --fold 3
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli  # noqa: E402


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_common_options(parser, "binary")
    parser.add_argument("--background", help="background the model was trained against: the -binary-<background> "
                                             "suffix of the trainer's model name (default: the only one there is)")  # fmt: skip
    parser.add_argument("--compare-subset", metavar="BRANCH",
                        help="also compare all test events, BRANCH true and BRANCH false (ROC and scores); "
                             "has_bjet is compared automatically")  # fmt: skip
    return parser.parse_args(argv)


def jobs(args: argparse.Namespace) -> tuple[list, list[int], Path]:
    """One BinaryJob per fold found, the missing folds, and the fold-summary directory."""
    from pnetviz.binary import BinaryJob  # noqa: PLC0415 - keeps --help free of ROOT start-up

    make = functools.partial(BinaryJob, compare_subset=args.compare_subset)
    return cli.fold_jobs(args, "binary", make, background=args.background)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from pnetviz import binary, driver  # noqa: PLC0415

    todo, missing, summary = jobs(args)
    first = todo[0]
    context = [f"{first.display[0]} vs {first.display[1]}", first.channel] + ([f"subset: {args.subset}"] if args.subset else [])
    driver.run_jobs("visualizeBinary", todo, binary.run, summary, missing, args.quiet,
                    f"pnetviz fold summary: {first.signal} vs {first.background}, {first.channel}" + (f", {first.model}" if first.model else ""), context, wait=args.wait,
                    meta=cli.provenance("visualizeBinary", argv))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
