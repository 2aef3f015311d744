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

from pnetviz import cli, paths  # noqa: E402
from pnetviz.errors import InputError  # noqa: E402
from pnetviz.ntuple import DEFAULT_CLASSES  # noqa: E402
from pnetviz.style import StyleOptions  # noqa: E402


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=cli.CONTRACT_HELP)  # fmt: skip
    parser.add_argument("--signal", default="MHc160_MA85", help="signal point (default: %(default)s)")
    parser.add_argument("--channel", default="Run1E2Mu", help="analysis channel (default: %(default)s)")
    parser.add_argument("--fold", default="0", help="fold number, comma list or 'all' (default: %(default)s)")
    parser.add_argument("--results-dir", type=Path, default=paths.DEFAULT_RESULTS,
                        help="training results with the layout of README.md; needs binary/<signal>_vs_<bkg>/ and "
                             "multiclass/<signal>/ (default: results/ in the repo)")  # fmt: skip
    parser.add_argument("--classes", default=",".join(DEFAULT_CLASSES),
                        help="multi-class class names, signal first; the backgrounds compared are those with a "
                             "binary model (default: %(default)s)")  # fmt: skip
    parser.add_argument("--tree", default="Events", help="TTree name (default: %(default)s)")
    parser.add_argument("--output", type=Path, help="output directory (default: plots/<channel>/comparison/<signal>/fold-<k>/)")
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


def jobs(args: argparse.Namespace) -> tuple[list, list[int], Path]:
    from pnetviz.comparison import ComparisonJob  # noqa: PLC0415

    cli.check_energy(args.energy)
    cli.apply_run_options(args)
    formats = tuple(cli.parse_formats(args.formats))
    classes = tuple(c.strip() for c in args.classes.split(",") if c.strip())
    if len(classes) < 2:
        raise InputError(f"--classes {args.classes!r}: give the signal and at least one background.")
    style = StyleOptions(energy=args.energy, run=args.run, extra_text=args.extra_text)
    hep = cli.hep_options(args)
    mc_dir = paths.multiclass_dir(args.results_dir, args.channel, args.signal)
    inputs, missing = cli.resolve_inputs(args, mc_dir)
    plots_dir = paths.DEFAULT_PLOTS / args.channel / "comparison" / args.signal
    outputs, summary = cli.output_dirs(args, plots_dir, [f for f, _, _ in inputs])
    todo = []
    for (fold, mc_file, _), out in zip(inputs, outputs, strict=True):
        binary = {b: paths.fold_dir(paths.binary_dir(args.results_dir, args.channel, args.signal, b), fold) / paths.PREDICTIONS_FILE
                  for b in classes[1:]}  # fmt: skip
        present = tuple(b for b, f in binary.items() if f.is_file())
        if not present:
            raise InputError(f"fold {fold}: no binary model found for any of {', '.join(classes[1:])} "
                             f"(looked for {next(iter(binary.values()))}). Fix: check --results-dir and --classes.")  # fmt: skip
        absent = [b for b in classes[1:] if b not in present]
        if absent and not args.quiet:
            print(f"[visualizeComparison] fold {fold}: no binary model for {', '.join(absent)}; compared: {', '.join(present)}")
        todo.append(ComparisonJob(signal=args.signal, classes=classes, backgrounds=present, channel=args.channel,
                                  fold=fold, binary_files=binary, multiclass_file=mc_file, output=out, formats=formats,
                                  tree=args.tree, style=style, hep=hep, progress=not args.quiet))  # fmt: skip
    return todo, missing, summary


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    from pnetviz import comparison  # noqa: PLC0415
    from pnetviz.publish import publish  # noqa: PLC0415

    todo, missing, summary = jobs(args)
    per_fold = {}
    for i, job in enumerate(todo, start=1):
        out = comparison.run(job)
        per_fold[job.fold] = out.extra["pairs"]
        if not args.quiet:
            print(f"[visualizeComparison] fold {job.fold} ({i}/{len(todo)}): {len(out.written)} files in {job.output}", flush=True)
    if len(todo) > 1:
        report = comparison.summary_report(per_fold, missing)
        written = publish(summary, todo[0].formats, todo[0].style,
                          lambda: comparison.summary_figures(report, args.signal, args.channel), report,
                          f"pnetviz comparison across folds: {args.signal}")  # fmt: skip
        if not args.quiet:
            print(f"[visualizeComparison] summary of {len(todo)} folds: {len(written)} files in {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
