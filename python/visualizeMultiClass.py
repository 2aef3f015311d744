#!/usr/bin/env python3
"""Evaluate a multi-class classifier per fold: likelihood-ratio ROC curves and score
distributions for signal vs each background, per-class score distributions, confusion
matrices, precision/recall/F1 by class, training curves, summary report and one ROOT file.

Example:
  python python/visualizeMultiClass.py --signal MHc160_MA85 --channel Run1E2Mu --fold 3
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli, paths  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402
from pnetviz.ntuple import DEFAULT_CLASSES  # noqa: E402
from pnetviz.style import StyleOptions  # noqa: E402


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_common_options(parser, "multiclass")
    parser.add_argument("--classes", default=",".join(DEFAULT_CLASSES),
                        help="class names in label order, signal first: class i <-> true_label == i <-> branch "
                             "score_<name> (default: %(default)s)")  # fmt: skip
    return parser.parse_args(argv)


def parse_classes(text: str) -> tuple[str, ...]:
    classes = tuple(c.strip() for c in text.split(",") if c.strip())
    if len(classes) < 2 or len(set(classes)) != len(classes):
        raise InputError(f"--classes {text!r}: give at least two distinct names, signal first.")
    return classes


def jobs(args: argparse.Namespace) -> list:
    from pnetviz.multiclass import MultiClassJob  # noqa: PLC0415 - keeps --help free of ROOT start-up

    cli.check_energy(args.energy)
    formats = tuple(cli.parse_formats(args.formats))
    classes = parse_classes(args.classes)
    style = StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text)
    hep = cli.hep_options(args)
    model = paths.multiclass_dir(args.results_dir, args.channel, args.signal)
    plots = paths.multiclass_dir(paths.DEFAULT_PLOTS, args.channel, args.signal)
    if args.predictions:
        folds = paths.parse_folds(args.fold, None)
        if len(folds) != 1:
            raise InputError("--predictions is one file: give a single --fold (used for labels and the output path).")
        inputs = [(folds[0], args.predictions, args.history or paths.find_history(args.predictions.parent))]
    else:
        inputs = [(f, paths.fold_dir(model, f) / paths.PREDICTIONS_FILE, args.history or paths.find_history(paths.fold_dir(model, f)))
                  for f in paths.parse_folds(args.fold, model)]  # fmt: skip
    multi = len(inputs) > 1
    return [
        MultiClassJob(
            signal=args.signal, classes=classes, channel=args.channel, fold=fold, predictions=pred, history=hist,
            formats=formats, tree=args.tree, subset=args.subset, style=style, hep=hep, hull=args.hull,
            output=(args.output / f"fold-{fold}" if multi else args.output) if args.output else paths.fold_dir(plots, fold),
        )
        for fold, pred, hist in inputs
    ]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from pnetviz import multiclass  # noqa: PLC0415

    todo = jobs(args)
    for i, job in enumerate(todo, start=1):
        written = multiclass.run(job)
        if not args.quiet:
            print(f"[visualizeMultiClass] {job.signal}, fold {job.fold} ({i}/{len(todo)}): "
                  f"{len(written)} files in {job.output}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
