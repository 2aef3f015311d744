"""The campaign's --images: which images its jobs and its summary write (issue 37, item 5).

site (the default): PNG of the figures the web report shows as images (the ROC, rejection and score
plots of each model's first fold set, every fold-summary plot, the summary's maps and graphs;
output.imageset.per_fold); all: every figure in --formats;
summary: the summary's maps and graphs only; none: no image. Every canvas is in the plots.root
files whatever the choice; `pnetviz render` writes the rest later (docs/note-figures.md).
"""

from __future__ import annotations

import argparse
import dataclasses

from pnetviz.cli import common

CHOICES = ("site", "all", "summary", "none")
DEFAULT = "site"
SITE_FORMATS = "png"  # the web report's images
HELP = ("which PNG/PDF to write: site (default: PNG of the figures the web report shows as images: the ROC, "
        "rejection and score plots of each model's first fold, every fold-summary plot, the summary's maps and "
        "graphs), all (every figure in --formats: the PDFs for a note), summary (the campaign's maps and graphs "
        "only, in --formats) or none; every canvas is in the plots.root files either way (the web report's live "
        "views), and `pnetviz render` writes the rest "
        "later, byte for byte the figures --images all would have written (docs/note-figures.md)")  # fmt: skip


def job_args(args: argparse.Namespace) -> argparse.Namespace:
    """The campaign's options as its jobs see them: --formats (and --images) per --images."""
    if args.images == "all":
        return args
    formats = SITE_FORMATS if args.images == "site" else "none"
    if dataclasses.is_dataclass(args):  # the campaign's request: a new one, never changed
        return dataclasses.replace(args, formats=formats)
    return argparse.Namespace(**{**vars(args), "formats": formats})


def job_extra(args: argparse.Namespace, kind: str) -> tuple[str, ...]:
    """The argv a `kind` job gets beyond the shared options: --images site in site mode (GA
    runs write their few figures whole)."""
    return ("--images", "site") if args.images == "site" and kind in common.EVAL_KINDS else ()


def summary_formats(args: argparse.Namespace) -> list[str]:
    """The formats of the campaign summary's own figures (maps, AUC-vs-m(A) graphs)."""
    if args.images == "none":
        return []
    return [SITE_FORMATS] if args.images == "site" else common.parse_formats(args.formats)


def summary_field(args: argparse.Namespace) -> dict:
    """The campaign set marker's `images` (output.imageset): its figures are all on the site."""
    from pnetviz.output.imageset import marker_field  # noqa: PLC0415

    return marker_field(summary_formats(args))


def bare_sets(args: argparse.Namespace, jobs: list) -> list:
    """The existing fold sets this campaign rewrites without any image (remember.bare_sets: under
    --images site each evaluation's fold sets after its first) of the jobs it runs (not up to
    date, or --force): their images count as removed (remember.check_removals)."""
    from pnetviz.campaign import plan  # noqa: PLC0415
    from pnetviz.cli import remember  # noqa: PLC0415

    out = []
    for job in jobs:
        evaluation = job.kind in ("binary", "multiclass", "comparison")
        sets = remember.bare_sets(args.images, job.outputs, job.folds) if evaluation else []
        if sets and (args.force or not plan.up_to_date(job, tidy=False)):
            out += sets
    return out
