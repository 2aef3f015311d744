"""One curve of an overlay: a model's (or an evaluation's) per-fold curves of one pair and split."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pnetviz.errors import InputError
from pnetviz.escape import text_line
from pnetviz.metrics.folds import FoldCurves


@dataclass(frozen=True)
class Series:
    """`label` (the legend's text, TLatex), the curves of each fold (metrics.folds.FoldCurves),
    and the channel and signal point they belong to ('' when unknown)."""

    label: str
    curves: list[FoldCurves]
    channel: str = ""
    signal: str = ""


def background(pair: str) -> str:
    """The background of a pair name: "MHc130_MA90 vs diboson (LR)" -> "diboson"."""
    return re.sub(r" \([^()]*\)$", "", pair.rsplit(" vs ", 1)[-1])


def pick_pair(pairs: Mapping[str, object], pair: str | None, what: str) -> str:
    """The pair of `pairs` meant by `pair`: its full name ("MHc130_MA90 vs diboson"), the
    background alone ("diboson", also for "... vs diboson (LR)"), or None when there is only one;
    InputError listing them else."""
    names = list(pairs)
    if pair is None and len(names) == 1:
        return names[0]
    if pair is not None:
        found = [n for n in names if n == pair] or [n for n in names if background(n) == pair]
        if len(found) == 1:
            return found[0]
    given = "no pair" if pair is None else f"pair {text_line(pair)!r}"
    raise InputError(f"{what}: {given} does not name one of its pairs. Fix: give pair= one of "
                     f"{', '.join(map(text_line, names)) or '(none: no curves were stored)'}.")  # fmt: skip
