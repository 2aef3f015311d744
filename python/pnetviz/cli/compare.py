"""`pnetviz compare`: binary models against the multi-class model's likelihood-ratio score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pnetviz.cli import common
from pnetviz.cli.multiclass import parse_classes
from pnetviz.errors import InputError

DESCRIPTION = ("Compare binary models with the multi-class model's likelihood-ratio score P(s)/(P(s)+P(b_i)), per "
               "background and fold, on the test split: ROC and rejection overlays, AUC difference with its "
               "(paired where possible) bootstrap error, dominance, and a summary across folds.")  # fmt: skip
EXAMPLES = """\
  pnetviz compare --results-dir results --channel Run1E2Mu --signal MHc130_MA90 --fold all
  pnetviz compare --results-dir results --channel Run3Mu --signal MHc160_MA85 --pair ttZ:ttX --binary-model nNodes64"""


def binary_files(args, mc, classes: tuple[str, ...]) -> dict:
    """Binary background -> its model's ntuple (layout.ModelFile) in the same fold: every
    `-binary-<bkg>` model of the trainer's layout (--binary-model where one background has
    several), or the first layout's `<signal>_vs_<bkg>` directories of the multi-class backgrounds."""
    from pnetviz.io import layout  # noqa: PLC0415

    if mc.model is None:
        out = {}
        for b in classes[1:]:
            path = layout.fold_dir(layout.binary_dir(args.results_dir, mc.channel, mc.signal, b), mc.fold) / layout.PREDICTIONS_FILE
            if path.is_file():
                out[b] = layout.ModelFile("binary", mc.channel, mc.signal, mc.fold, path, background=b)
        return out
    query = replace(common.model_query(args, "multiclass"), kind="binary")
    fold_dir = layout.trainer_signal_dir(query) / mc.fold_name
    names = layout.tree_models(fold_dir)
    out = {}
    for b in sorted({bg for n in names if (bg := layout.model_background(n))}):
        cands = [n for n in names if layout.model_background(n) == b]
        if len(cands) > 1 and args.binary_model:
            cands = [n for n in cands if n == args.binary_model] or [n for n in cands if args.binary_model in n]
        if cands:
            layout.check_name(b, "background", f"{fold_dir / 'trees'} (a model name)", "rename the model's files.")
            name = layout.choose(cands, fold_dir / "trees", args.binary_model)
            out[b] = layout.ModelFile("binary", mc.channel, mc.signal, mc.fold, fold_dir / "trees" / f"{name}.root", name, b)
    return out


def jobs(args) -> tuple[list, list[int], Path]:  # args: the run's request (requests.evaluation.CompareRequest)
    """One ComparisonJob per fold, the missing folds and the fold-summary directory."""
    from pnetviz.io import layout, trainer  # noqa: PLC0415
    from pnetviz.io.ntuple import classes_from_branches  # noqa: PLC0415
    from pnetviz.io.yields import expected_yields  # noqa: PLC0415
    from pnetviz.jobs.comparison import ComparisonJob  # noqa: PLC0415
    from pnetviz.output.paths import plots_comparison_dir  # noqa: PLC0415

    common.check_energy(args.energy)
    common.apply_run_options(args)
    if args.subset is not None and not args.subset.strip():
        raise InputError("--subset '': give the name of a boolean branch, e.g. has_bjet.")
    formats = tuple(common.parse_formats(args.formats))
    style = common.style_options(args)
    hep = common.hep_options(args)
    overrides = trainer.parse_mapping(args.pair, "--pair", ":", "binary:class (ttZ:ttX)")
    labels = trainer.parse_labels(args.labels)
    given_classes = parse_classes(args.classes)
    columns = common.column_map(args)
    observe = common.observe_names(args)
    files, missing, _ = common.resolve_files(args, "multiclass")
    plots_dir = plots_comparison_dir(files[0], args.results_dir, common.plots_root(args), args.round)
    outputs, summary = common.output_dirs(args, plots_dir, files)
    todo = []
    for mc, out in zip(files, outputs, strict=True):
        layout.check_readable(mc.predictions, "prediction ntuple")
        info = trainer.load_info(mc.predictions, trainer.find_performance(mc.predictions))
        classes = given_classes or info.classes() or classes_from_branches(mc.predictions, args.tree, columns)
        binaries = binary_files(args, mc, classes)
        pairs = {b: overrides.get(b) or trainer.pairing(b, classes, info.groups()) for b in binaries}
        bad = {b: c for b, c in pairs.items() if c is not None and c not in classes[1:]}
        if bad:
            raise InputError(f"--pair: {', '.join(bad.values())} is not a multi-class background; classes: "
                             f"{', '.join(classes[1:])}.")  # fmt: skip
        pairs = {b: c for b, c in pairs.items() if c is not None}
        for b in pairs:
            layout.check_readable(binaries[b].predictions, "prediction ntuple")
        if not pairs:
            where = layout.trainer_signal_dir(replace(common.model_query(args, "multiclass"), kind="binary")) if mc.model else args.results_dir
            raise InputError(f"{mc.fold_name}: no binary model found for any of {', '.join(classes[1:])} "
                             f"(looked in {where}). Fix: check --results-dir, --classes or --pair.")  # fmt: skip
        unpaired = [b for b in binaries if b not in pairs]
        if unpaired and not args.quiet:
            print(f"[pnetviz compare] {mc.fold_name}: binary {', '.join(unpaired)} has no multi-class counterpart "
                  "(use --pair binary:class)")  # fmt: skip
        # compare reads --expected-yields for the weighted LR's weights only
        yields = expected_yields(args.expected_yields, mc.channel, mc.signal) if args.score == "weighted-lr" else None
        todo.append(ComparisonJob(signal=mc.signal, classes=classes, pairs=pairs, channel=mc.channel, fold=mc.fold, score=args.score,
                                  binary_files={b: binaries[b].predictions for b in pairs},
                                  binary_models={b: binaries[b].model for b in pairs}, multiclass_file=mc.predictions,
                                  multiclass_model=mc.model, groups=info.groups(), output=out, formats=formats, images=args.images,
                                  tree=args.tree, columns=columns, style=style, hep=replace(hep, expected_yields=yields),
                                  subset=args.subset, hull=args.hull,
                                  progress=not args.quiet, observe=observe,
                                  labels={c: trainer.display_label(c, labels) for c in (*classes[1:], *pairs)}
                                  | {o: labels[o] for o in observe if o in labels}))  # fmt: skip
    from pnetviz.output.imageset import fold_jobs as with_images  # noqa: PLC0415

    return with_images(todo, args.images), missing, summary  # --images site: key PNGs in the first fold set only


def limit_lines(args, job) -> list[str]:
    """Which of binary and multi-class gives the better expected limit, per compared background,
    from the models' folds/limits.json in the plots tree (summary.limitsboard.compare_lines)."""
    from pnetviz.io import layout  # noqa: PLC0415
    from pnetviz.output.paths import plots_model_dir  # noqa: PLC0415
    from pnetviz.summary.limitsboard import compare_lines  # noqa: PLC0415

    def folds(kind: str, model: str | None, background: str | None, predictions: Path) -> Path:
        file = layout.ModelFile(kind, job.channel, job.signal, job.fold, predictions, model, background)
        return plots_model_dir(file, args.results_dir, common.plots_root(args), args.round) / "folds"

    binary = {b: (folds("binary", job.binary_models.get(b), b, job.binary_files[b]), job.binary_models.get(b) or "")
              for b in job.pairs}  # fmt: skip
    mc = (folds("multiclass", job.multiclass_model, None, job.multiclass_file), job.multiclass_model or "")
    return compare_lines(job.channel, job.signal, binary, mc, job.pairs)


def parser(prog: str | None = None):
    return common.evaluation_parser("compare", prog, DESCRIPTION, EXAMPLES)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = common.evaluation_request("compare", parser(prog).parse_args(argv))  # no --predictions: None in the request
    from pnetviz.jobs import comparesummary, comparison, driver, foldsummary  # noqa: PLC0415
    from pnetviz.output.atomic import check_target, transaction  # noqa: PLC0415
    from pnetviz.output import imageset  # noqa: PLC0415
    from pnetviz.output.rounds import check_same  # noqa: PLC0415

    todo, missing, summary = jobs(args)
    targets = [job.output for job in todo]
    inputs = [p for job in todo for p in (job.multiclass_file, *job.binary_files.values())]
    with_summary = len(todo) > 1 or foldsummary.touches_summary(targets, summary)
    meta = {**common.provenance("compare", argv), **common.rounds.round_meta(args)}
    if with_summary:
        check_target(summary, inputs)
        check_same(summary, meta)  # before the work: a summary of another round is never replaced
    for target in targets:
        check_same(target, meta)
    common.rounds.claim_round(args)
    per_fold, note = {}, ""
    with transaction(targets, inputs, args.wait, {**meta, **common.images_field(args)}) as stages:  # all folds and the summary, or nothing
        for i, job in enumerate(todo, start=1):
            out = comparison.run(replace(job, output=stages[job.output]))
            stages.marks[job.output] = imageset.marker_field(job.formats, job.images)  # a fold after the first: {}
            per_fold[job.fold] = out.extra["pairs"]
            if job.fold is not None:
                foldsummary.write_results(stages[job.output], comparesummary.RESULTS_KIND, job.fold, out.extra["pairs"])
            if not args.quiet:
                print(driver.set_line("compare", "" if job.fold is None else f"fold {job.fold}", i, len(todo),
                                      len(out.written), job.output), flush=True)  # fmt: skip
        if with_summary:
            note = comparesummary.publish_summary(stages, todo, summary, per_fold, missing)
    if note and not args.quiet:
        print(f"[pnetviz compare] {note}", flush=True)
    if with_summary and not args.quiet:  # several folds: the models' expected limits, if their fold summaries have them
        for line in limit_lines(args, todo[0]):
            print(f"[pnetviz compare] {line}", flush=True)
    if not args.quiet:
        print(driver.published_line("compare", len(targets), note), flush=True)
    return 0
