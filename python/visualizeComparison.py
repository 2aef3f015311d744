#!/usr/bin/env python3
"""Compare binary models with the multi-class model's likelihood-ratio score, per background:
overlaid test ROC and rejection curves, AUC +- error for both, their difference and its
significance (paired bootstrap when both ntuples hold the same events), dominance check, and a
check that both were evaluated on comparable test events.

Example:
  python python/visualizeComparison.py --signal MHc160_MA85 --channel Run1E2Mu --fold 3
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pnetviz import cli, layout, paths  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402
from pnetviz.style import StyleOptions  # noqa: E402


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=cli.CONTRACT_HELP)  # fmt: skip
    cli.add_model_options(parser, with_predictions=False)
    parser.add_argument("--binary-model", help="which binary model when several are trained against one background "
                                               "(hyperparameter variants): full name or a part only it has")  # fmt: skip
    parser.add_argument("--classes", help="multi-class class names, signal first (default: from the trainer's JSON, "
                                          "else the score_* branches)")  # fmt: skip
    parser.add_argument("--pair", help="which multi-class class each binary background is compared with, "
                                       "binary:class pairs (ttZ:ttX); default: the class of the same name, else the "
                                       "group holding that sample (trainer's JSON)")  # fmt: skip
    parser.add_argument("--tree", default="Events", help="TTree name (default: %(default)s)")
    parser.add_argument("--output", help="output directory (default: plots/.../comparison/<signal>/[<model>/]fold-<k>/)")
    parser.add_argument("--formats", default="png,pdf", help="image formats (default: %(default)s)")
    parser.add_argument("--weights", choices=("abs", "signed", "drop"), default="abs", help="weight mode (default: abs)")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap replicas; 0 disables (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=20251001, help="bootstrap seed (default: %(default)s)")
    parser.add_argument("--energy", type=float, default=13.0, help="CMS label energy: 13 or 13.6 (default: %(default)s)")
    parser.add_argument("--run", default="Run 2", help="run period for the CMS label (default: %(default)s)")
    parser.add_argument("--extra-text", default="Simulation Preliminary", help="text after 'CMS' (default: %(default)s)")
    cli.add_run_options(parser)
    args = parser.parse_args(argv)
    args.signal_scale, args.predictions, args.history = 1.0, None, None
    return args


def binary_files(args: argparse.Namespace, mc: layout.ModelFile, classes: tuple[str, ...]) -> dict[str, layout.ModelFile]:
    """Binary background -> its model's ntuple in the same fold: every `-binary-<bkg>` model of the
    trainer's layout (--binary-model where one background has several), or the legacy
    `<signal>_vs_<bkg>` directories of the multi-class backgrounds."""
    if mc.model is None:
        out = {}
        for b in classes[1:]:
            path = paths.fold_dir(paths.binary_dir(args.results_dir, mc.channel, mc.signal, b), mc.fold) / paths.PREDICTIONS_FILE
            if path.is_file():
                out[b] = layout.ModelFile("binary", mc.channel, mc.signal, mc.fold, path, background=b)
        return out
    query = cli.model_query(args, "binary")
    fold_dir = layout.trainer_signal_dir(query) / mc.fold_name
    names = layout.tree_models(fold_dir)
    out = {}
    for b in sorted({bg for n in names if (bg := layout.model_background(n))}):
        cands = [n for n in names if layout.model_background(n) == b]
        if len(cands) > 1 and args.binary_model:
            cands = [n for n in cands if n == args.binary_model] or [n for n in cands if args.binary_model in n]
        if cands:
            name = layout.choose(cands, fold_dir / "trees", args.binary_model)
            out[b] = layout.ModelFile("binary", mc.channel, mc.signal, mc.fold, fold_dir / "trees" / f"{name}.root", name, b)
    return out


def jobs(args: argparse.Namespace) -> tuple[list, list[int], Path]:
    from pnetviz import trainer  # noqa: PLC0415
    from pnetviz.comparison import ComparisonJob  # noqa: PLC0415
    from pnetviz.ntuple import classes_from_branches  # noqa: PLC0415

    cli.check_energy(args.energy)
    cli.apply_run_options(args)
    formats = tuple(cli.parse_formats(args.formats))
    style = StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text)
    hep = cli.hep_options(args)
    overrides = trainer.parse_mapping(args.pair, "--pair", ":", "binary:class (ttZ:ttX)")
    labels = trainer.parse_labels(args.labels)
    files, missing, _ = cli.resolve_files(args, "multiclass")
    first = files[0]
    plots_dir = layout.plots_comparison_dir(first, args.results_dir, cli.plots_root(args))
    outputs, summary = cli.output_dirs(args, plots_dir, files)
    todo = []
    for mc, out in zip(files, outputs, strict=True):
        info = trainer.load_info(mc.predictions, trainer.find_performance(mc.predictions))
        if args.classes:
            classes = tuple(c.strip() for c in args.classes.split(","))
            if len(classes) < 2 or not all(classes):
                raise InputError(f"--classes {args.classes!r}: give the signal and at least one background, no empty name.")
        else:
            classes = info.classes() or classes_from_branches(mc.predictions, args.tree)
        binaries = binary_files(args, mc, classes)
        pairs = {b: overrides.get(b) or trainer.pairing(b, classes, info.groups()) for b in binaries}
        bad = {b: c for b, c in pairs.items() if c is not None and c not in classes[1:]}
        if bad:
            raise InputError(f"--pair: {', '.join(bad.values())} is not a multi-class background; classes: "
                             f"{', '.join(classes[1:])}.")  # fmt: skip
        pairs = {b: c for b, c in pairs.items() if c is not None}
        if not pairs:
            where = layout.trainer_signal_dir(cli.model_query(args, "binary")) if mc.model else args.results_dir
            raise InputError(f"{mc.fold_name}: no binary model found for any of {', '.join(classes[1:])} "
                             f"(looked in {where}). Fix: check --results-dir, --classes or --pair.")  # fmt: skip
        unpaired = [b for b in binaries if b not in pairs]
        if unpaired and not args.quiet:
            print(f"[visualizeComparison] {mc.fold_name}: binary {', '.join(unpaired)} has no multi-class counterpart "
                  "(use --pair binary:class)")  # fmt: skip
        todo.append(ComparisonJob(signal=mc.signal, classes=classes, pairs=pairs, channel=mc.channel, fold=mc.fold,
                                  binary_files={b: binaries[b].predictions for b in pairs},
                                  binary_models={b: binaries[b].model for b in pairs}, multiclass_file=mc.predictions,
                                  multiclass_model=mc.model, groups=info.groups(), output=out, formats=formats,
                                  tree=args.tree, style=style, hep=hep, progress=not args.quiet,
                                  labels={c: trainer.display_label(c, labels) for c in (*classes[1:], *pairs)}))  # fmt: skip
    return todo, missing, summary


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from dataclasses import replace  # noqa: PLC0415

    from pnetviz import comparison  # noqa: PLC0415
    from pnetviz.output import transaction  # noqa: PLC0415
    from pnetviz.publish import write_set  # noqa: PLC0415

    todo, missing, summary = jobs(args)
    targets = [job.output for job in todo] + ([summary] if len(todo) > 1 else [])
    inputs = [p for job in todo for p in (job.multiclass_file, *job.binary_files.values())]
    per_fold = {}
    with transaction(targets, inputs, args.wait, cli.provenance("visualizeComparison", argv)) as stages:  # all folds and the summary, or nothing
        for i, job in enumerate(todo, start=1):
            out = comparison.run(replace(job, output=stages[job.output]))
            per_fold[job.fold] = out.extra["pairs"]
            if not args.quiet:
                print(f"[visualizeComparison] fold {job.fold} ({i}/{len(todo)}): {len(out.written)} files for {job.output}",
                      flush=True)  # fmt: skip
        if len(todo) > 1:
            report = comparison.summary_report(per_fold, missing)
            written = write_set(stages[summary], todo[0].formats, todo[0].style,
                                lambda: comparison.summary_figures(report, todo[0].signal, todo[0].channel), report,
                                f"pnetviz comparison across folds: {todo[0].signal}")  # fmt: skip
            if not args.quiet:
                print(f"[visualizeComparison] summary of {len(todo)} folds: {len(written)} files for {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
