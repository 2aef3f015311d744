"""Which figures of an output set get images (issue 37, item 5: images on demand by default).

`--images all` (a single command's default): every figure in every --formats. `--images site` (what
the campaign passes its jobs by default, with --formats png): only the figures the web report
shows as images (web.sitepages.model_page), i.e. the key figures (ROC, rejection, score
distributions: KEY) of the FIRST fold set of a run (the lowest fold it evaluates; a single fold:
that one) and every figure of a fold summary (`folds/`). The run's other fold sets get no image
(NONE, per_fold): the site shows their figures as thumbnails drawn live from plots.root. Every
canvas is in plots.root either way, so `pnetviz render` (or a later `--images all`) writes the
rest, the PDFs for a note among them, from the same stored canvases.

The set marker's `images` field records what a set holds, separately from its physics: a mapping
format -> "all" | "site" (which figures have an image in that format); {} for none (also a fold
set after the first under --images site). A run that differs from an earlier one only by its
image options adds images; it changes no number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

ALL = "all"
SITE = "site"
CHOICES = (ALL, SITE)
NONE = "none"  # a set's value, not an option's: no figure gets an image (a fold set after the first under site)
# the web report's key figures of a fold set (web.sitepages shows these first, as images)
KEY = re.compile(r"(^|_)(roc_curve|rejection_curve|score_distributions?|lr_score_distribution)(_folds)?$")
FOLD_SUMMARY = "folds"  # the directory of a fold summary: all its figures are on the site


def key_figure(name: str) -> bool:
    """A figure the site shows first on a model page (and on the signal-point page)."""
    return bool(KEY.search(name)) and "bjet" not in name


def selection(images: str, fold_summary: bool = False) -> Callable[[str], bool] | None:
    """Which figures of a set get images: None for all, else a predicate on the figure name
    (`fold_summary`: the set is a fold summary, whose figures all get images)."""
    if images == ALL or fold_summary:
        return None
    if images == SITE:
        return key_figure
    if images == NONE:
        return _no_figure
    raise ValueError(f"images {images!r}: choose from {', '.join(CHOICES)}")


def _no_figure(name: str) -> bool:
    """NONE's selection: no figure gets an image."""
    return False


def per_fold(images: str, folds: Sequence[int | None]) -> list[str]:
    """The images value of each fold set of a run evaluating `folds` (in that order) with
    `images`: under SITE only the first (the lowest fold; the pilot or a fold of unknown number
    after every fold, as the site orders them: web.site._set_dirs) keeps SITE, the others get
    NONE; any other value unchanged."""
    if images != SITE or not folds:
        return [images] * len(folds)
    first = min(range(len(folds)), key=lambda i: (folds[i] is None, folds[i] or 0))
    return [SITE if i == first else NONE for i in range(len(folds))]


J = TypeVar("J")


def fold_jobs(jobs: Sequence[J], images: str) -> list[J]:
    """The per-fold jobs (dataclasses with `fold` and `images`) of one run, each with its fold
    set's images value (per_fold)."""
    values = per_fold(images, [job.fold for job in jobs])
    return [replace(job, images=value) for job, value in zip(jobs, values, strict=True)]


def marker_field(formats: Sequence[str], images: str = ALL) -> dict[str, dict[str, str]]:
    """The marker's {"images": {format: "all" | "site"}} of the sets written with these options
    ("site": the figures the web report shows, in a fold summary all of them; NONE: {}; plots.root
    and .C macros are no images: left out)."""
    selection(images)  # a bad value: ValueError here too
    if images == NONE:
        return {"images": {}}
    return {"images": {fmt: images for fmt in formats if fmt not in ("root", "c")}}


def rendered(held: object, formats: Sequence[str]) -> dict[str, str]:
    """The marker's `images` after `pnetviz render` wrote every figure in `formats` into a set
    that held `held` (its earlier field; anything else counts as unknown, i.e. nothing)."""
    out = {str(k): str(v) for k, v in held.items()} if isinstance(held, dict) else {}
    out.update({fmt: ALL for fmt in formats if fmt not in ("root", "c")})
    return out
