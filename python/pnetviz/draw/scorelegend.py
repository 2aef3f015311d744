"""Legend entries of score figures: compact forms for many histograms (one entry per class, and
one per encoding: train/test, or a subset's line style), so the legend fits inside the frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pnetviz.rootenv import root

if TYPE_CHECKING:
    from pnetviz.draw import canvas
    from pnetviz.draw.specs import HistSpec


def grid_legend(fig: canvas.Figure, hists: Sequence[HistSpec]) -> list[tuple[object, str, str]]:
    """Legend entries of more than 4 line histograms labelled "<class>, <part>" on a complete class x
    part grid (the subset comparison: colour = class, line style = part): one entry per class (its
    first histogram) and one per part (a black line of the part's style, held by `fig`); [] for
    anything else (score_legend then)."""
    split = [h.label.partition(", ") for h in hists]
    classes, parts = dict.fromkeys(c for c, _, _ in split), dict.fromkeys(p for _, _, p in split)
    if len(hists) <= 4 or any(h.points for h in hists) or not all(sep for _, sep, _ in split) or \
            len({(c, p) for c, _, p in split}) != len(hists) or len(hists) != len(classes) * len(parts):  # fmt: skip
        return []
    entries = [(next(h.hist for h, (c, _, _) in zip(hists, split, strict=True) if c == cls), cls, "l") for cls in classes]
    for part in parts:
        h = next(h for h, (_, _, p) in zip(hists, split, strict=True) if p == part)
        line = root().TLine()
        line.SetLineStyle(h.line_style)
        line.SetLineWidth(h.hist.GetLineWidth())
        line.SetLineColor(1)
        fig.extras.append(line)
        entries.append((line, part if part[1:2] == " " else part[0].upper() + part[1:], "l"))  # "b jet" stays
    return entries


def score_legend(hists: Sequence[HistSpec]) -> list[tuple[object, str, str]]:
    """Legend entries of score histograms: one per histogram; with 4 or more that come as
    "<class> (train)" line and "<class> (test)" points pairs (or any one pair of words, the same for
    every class: "(trainer test)" lines, "(samples)" points), one per class (its points over its
    line) and two short text entries saying which is which (short: the legend goes in columns where
    the data leave no room), so a 4-class figure needs 6 short entries instead of 8 long ones."""
    entries = [(h.hist, h.label, "pe" if h.points else "l") for h in hists]
    pairs: dict[str, set] = {}
    for h in hists:
        base, _, split = h.label.rpartition(" (")
        pairs.setdefault(base, set()).add((split, h.points))
    kinds = {frozenset(v) for v in pairs.values()}
    kind = sorted(next(iter(kinds)), key=lambda part: part[1]) if len(kinds) == 1 else []
    if len(hists) < 4 or len(kind) != 2 or [points for _, points in kind] != [False, True] or \
            not all(split.endswith(")") for split, _ in kind):  # fmt: skip
        return entries
    tests = [h for h in hists if h.points]
    (line, _), (point, _) = kind
    return [*[(h.hist, h.label.rpartition(" (")[0], "lpe") for h in tests],
            (root().nullptr, f"Lines: {line[:-1]}", ""), (root().nullptr, f"Points: {point[:-1]}", "")]
