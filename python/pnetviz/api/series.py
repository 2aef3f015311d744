"""One curve of an overlay: a model's (or an evaluation's) per-fold curves of one pair and split."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pnetviz.errors import InputError
from pnetviz.escape import check_tlatex, text_line
from pnetviz.metrics.folds import FoldCurves

SPLITS = ("train", "test")


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


def checked_tlatex(text: str, what: str) -> str:
    """A label the user wrote in TLatex, checked (escape.check_tlatex): InputError if ROOT cannot draw it."""
    try:
        return check_tlatex(text, what)
    except ValueError as err:
        raise InputError(f"{err}. Fix: write TLatex as in --labels (t#bar{{t}}X), no backslash.") from None


def check_split(split: object, what: str) -> str:
    """`split` if it is one of SPLITS; InputError (TypeError for a non-string) naming it else."""
    if not isinstance(split, str):
        raise TypeError(f"{what}: split= takes a string, {' or '.join(map(repr, SPLITS))}, not a {type(split).__name__}")
    if split not in SPLITS:
        raise InputError(f"{what}: split={text_line(split)!r}. Fix: choose {' or '.join(map(repr, SPLITS))}.")
    return split


def checked_label(label: object, what: str) -> str | None:
    """A legend label given to `series(label=...)`: None, or a string of TLatex ROOT can draw
    (checked_tlatex); TypeError naming `what` for anything but a string."""
    if label is None:
        return None
    if not isinstance(label, str):
        raise TypeError(f"{what}: label= takes a string, not a {type(label).__name__}")
    return checked_tlatex(label, f"{what}: label")
