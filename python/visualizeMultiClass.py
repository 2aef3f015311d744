#!/usr/bin/env python3
"""Evaluate a multi-class classifier per fold: likelihood-ratio ROC curves and score
distributions for signal vs each background, per-class score distributions, confusion
matrices, precision/recall/F1 by class, training curves, summary report and one ROOT file.

Example:
  python python/visualizeMultiClass.py --signal MHc160_MA85 --channel Run1E2Mu --fold 3
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_common_options(parser, "multiclass")
    parser.add_argument("--classes",
                        help="class names in label order, signal first: class i <-> true_label == i <-> branch "
                             "score_<name> (default: from the trainer's JSON background_info, else the ntuple's "
                             "score_* branches in order)")  # fmt: skip
    return parser.parse_args(argv)


def parse_classes(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    classes = tuple(c.strip() for c in text.split(","))
    if len(classes) < 2 or len(set(classes)) != len(classes) or not all(classes):
        raise InputError(f"--classes {text!r}: give at least two distinct, non-empty names, signal first.")
    return classes


def jobs(args: argparse.Namespace) -> tuple[list, list[int], Path]:
    """One MultiClassJob per fold found, the missing folds, and the fold-summary directory."""
    from pnetviz.multiclass import MultiClassJob  # noqa: PLC0415 - keeps --help free of ROOT start-up

    return cli.fold_jobs(args, "multiclass", functools.partial(MultiClassJob, classes=parse_classes(args.classes)))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from pnetviz import driver, multiclass  # noqa: PLC0415

    todo, missing, summary = jobs(args)
    first = todo[0]
    context = [f"{first.signal}, multi-class", first.channel] + ([f"subset: {args.subset}"] if args.subset else [])
    driver.run_jobs("visualizeMultiClass", todo, multiclass.run, summary, missing, args.quiet,
                    f"pnetviz fold summary: {first.signal} multi-class, {first.channel}" + (f", {first.model}" if first.model else ""), context, wait=args.wait,
                    meta=cli.provenance("visualizeMultiClass", argv))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
