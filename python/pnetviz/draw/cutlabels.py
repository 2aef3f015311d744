"""The targets of working-point lines on score plots, written beside each line where they fit."""

from __future__ import annotations

from collections.abc import Sequence

from pnetviz.draw import canvas
from pnetviz.draw.style import STYLE
from pnetviz.rootenv import set_title


def placements(cuts: Sequence[float], frame: canvas.Frame, texts: Sequence[str], left: float, right: float):
    """[(x NDC, side +-1, text)] of each line's target beside it, in a gap between lines (or the
    frame's edges, at `left` and `right` in NDC) that the text fits and no other text takes; None
    when one does not fit."""
    size = STYLE["label_text_size"]
    xs = [left + (c - frame.x[0]) / (frame.x[1] - frame.x[0]) * (right - left) for c in cuts]
    edges = sorted([left, right, *xs])
    taken, places = set(), []
    for x, text in zip(xs, texts, strict=False):
        need = 0.65 * size * len(text) + 0.02  # its width and a gap each side
        k = edges.index(x)
        sides = [(k, 1), (k - 1, -1)] if x - left < right - x else [(k - 1, -1), (k, 1)]  # the roomier side first
        place = next(((g, d) for g, d in sides if 0 <= g < len(edges) - 1 and g not in taken and edges[g + 1] - edges[g] >= need), None)
        if place is None:
            return None
        taken.add(place[0])
        places.append((x, place[1], text))
    return places


def label_cuts(fig: canvas.Figure, lines: Sequence, cuts: Sequence[float], frame: canvas.Frame, texts: Sequence[str]) -> bool:
    """Each working-point line's target: its title ("WP 90%: cut 0.23") and `texts` written at its
    top inside the frame where they fit (placements); False (nothing written) when one does not."""
    pad = fig.pads[0]
    for line, cut, text in zip(lines, cuts, texts, strict=False):
        set_title(line, f"WP {text}: cut {cut:.3g}")
    places = placements(cuts, frame, texts, pad.GetLeftMargin(), 1.0 - pad.GetRightMargin())
    for x, side, text in places or []:
        canvas.add_text(fig, [text], x + 0.006 * side, 1.0 - pad.GetTopMargin() - 0.012, align=13 if side > 0 else 33,
                        size=STYLE["label_text_size"])  # fmt: skip
    return places is not None
