"""Which figures of an output set get images (issue 37, item 5: images on demand by default).

`--images all` (a single command's default): every figure in every --formats. `--images site` (what
the campaign passes its jobs by default, with --formats png): only the figures the web report
shows as images, i.e. the key figures of a fold set (ROC, rejection, score distributions: KEY)
and every figure of a fold summary (`folds/`). Every canvas is in plots.root either way, so
`pnetviz render` (or a later `--images all`) writes the rest, the PDFs for a note among them,
from the same stored canvases.

The set marker's `images` field records what a set holds, separately from its physics: a mapping
format -> "all" | "site" (which figures have an image in that format); {} for none. A run that
differs from an earlier one only by its image options adds images; it changes no number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

ALL = "all"
SITE = "site"
CHOICES = (ALL, SITE)
# the web report's key figures of a fold set (campaign.sitepages shows these first, as images)
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
    raise ValueError(f"images {images!r}: choose from {', '.join(CHOICES)}")


def marker_field(formats: Sequence[str], images: str = ALL) -> dict[str, dict[str, str]]:
    """The marker's {"images": {format: "all" | "site"}} of the sets written with these options
    ("site": the figures the web report shows, in a fold summary all of them; plots.root and .C
    macros are no images: left out)."""
    selection(images)  # a bad value: ValueError here too
    return {"images": {fmt: images for fmt in formats if fmt not in ("root", "c")}}


def rendered(held: object, formats: Sequence[str]) -> dict[str, str]:
    """The marker's `images` after `pnetviz render` wrote every figure in `formats` into a set
    that held `held` (its earlier field; anything else counts as unknown, i.e. nothing)."""
    out = {str(k): str(v) for k, v in held.items()} if isinstance(held, dict) else {}
    out.update({fmt: ALL for fmt in formats if fmt not in ("root", "c")})
    return out
