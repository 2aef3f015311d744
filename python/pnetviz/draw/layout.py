"""Where legends and context go: the free-corner search (free_box) over what the data drew,
the header box above the frame, and boxed_figure, the one way a figure places them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.rootenv import root
from pnetviz.draw.style import STYLE, cmsstyle
from pnetviz.draw.geometry import Figure, Frame, Margins, margins_of, pad_scale, visible_length
from pnetviz.draw.sampling import drawn_items, drawn_points
from pnetviz.draw.figures import HEADER_LEFT, HEADER_RIGHT, header_figure, header_margins


HEADER_SPLIT = 0.46  # NDC width of the context column when context and legend share the header's rows


def header_layout(context: Sequence[str], labels: Sequence[str]) -> tuple[bool, int, int]:
    """(context and legend side by side?, legend columns, rows of text) of a header box: side by
    side when both fit their column; else the context over the whole width and the legend below
    it, in two columns when every entry fits half the width."""
    full = 1 - HEADER_LEFT - HEADER_RIGHT
    context_width = max((box_width([line], margin=0.0) for line in context), default=0.0)
    legend_width = max((box_width([label], margin=0.2) for label in labels), default=0.0)
    if context_width <= HEADER_SPLIT and legend_width <= full - HEADER_SPLIT and len(labels) <= 5:
        return True, 1, max(len(context), len(labels))
    columns = 2 if legend_width <= full / 2 else 1
    return False, columns, len(context) + -(-len(labels) // columns)


def short_context(context: Sequence[str]) -> list[str]:
    """The context joined on one line ("m(H^{+}) = 130 GeV, m(A) = 90 GeV, vs ttZ, 3mu, fold 0")
    when that line fits the width of a header box, else as given."""
    joined = ", ".join(context)
    return [joined] if len(context) > 1 and box_width([joined], margin=0.0) <= 1 - HEADER_LEFT - HEADER_RIGHT else list(context)


def header_height(context: Sequence[str], labels: Sequence[str]) -> float:
    """The top margin a header_figure needs for the CMS label and this header box."""
    return 0.15 + 0.045 * header_layout(context, labels)[2]


def add_header_box(fig: Figure, context: Sequence[str], header: float, pad: int = 0) -> None:
    """Context lines and the legend of every labelled object drawn so far in the header of a
    header_figure, between the CMS label and the frame, laid out by header_layout."""
    p = fig.pads[pad]
    left, right = p.GetLeftMargin(), p.GetRightMargin()
    s = pad_scale(fig, pad)  # `header` and these lengths are canvas NDC: scaled in a sub-pad (ratio_figure)
    top, bottom = 1 - 0.085 * s, 1 - (header - 0.012) * s  # under the CMS label, above the frame
    size, step = STYLE["legend_text_size"] * s, 0.045 * s
    cms = cmsstyle()
    p.cd()
    side, columns, _ = header_layout(context, [label for _, label, _ in fig.legend])
    for i, line in enumerate(context):
        latex = root().TLatex(left, top - (i + 0.8) * step, line)
        latex.SetNDC()
        latex.SetTextFont(42)
        latex.SetTextSize(size)
        latex.Draw()
        fig.extras.append(latex)
    if fig.legend:
        rows = -(-len(fig.legend) // columns)
        x1, y2 = (left + HEADER_SPLIT, top) if side else (left, top - len(context) * step - 0.005)
        leg = cms.cmsLeg(x1, max(bottom, y2 - (rows + 0.7) * step), 1 - right, y2, textSize=size, columns=columns)
        leg.SetMargin(0.2 if columns == 1 or side else 0.15)
        for obj, label, option in fig.legend:
            leg.AddEntry(obj, label, option)
        fig.extras.append(leg)
    fig.legend = []


LINE_HEIGHT = (0.045, 0.05)  # NDC per legend line: the tightest that keeps sub- and superscripts apart, and the comfortable one
CORNERS = ("lower right", "lower left", "upper right", "upper left")
BOX_INSET = 0.02  # NDC between a box and the frame
BOX_MAX_WIDTH = 0.80  # NDC: box_width's cap (a longer line does not fit a box in the frame)


def box_width(lines: Sequence[str], margin: float = 0.17) -> float:
    """NDC width a legend box needs for its longest line at the legend text size (a character of
    these labels is about 0.45 of the size wide, measured with the figure linter), sample column
    (`margin`) included."""
    chars = max((visible_length(line) for line in lines), default=10)
    return min(max(0.25, chars * 0.47 * STYLE["legend_text_size"] / (1 - margin) + 0.02), BOX_MAX_WIDTH)


@dataclass(frozen=True)
class Layout:
    """A pad's margins and text scale (pad_scale) with the items drawn in it (drawn_items)."""

    margins: Margins
    scale: float
    items: list


def free_box(fig: Figure | None, frame: Frame, lines: int, width: float, corners: Sequence[str] = CORNERS,
             pad: int = 0, layout: Layout | None = None) -> tuple[float, float, float, float] | None:  # fmt: skip
    """NDC (x1, y1, x2, y2) of a box for `lines` legend lines in the first corner of the frame
    (comfortable line height first, then the tightest) that no drawn data enter; None if none.
    `layout`: the same for a pad of that layout holding those items, without building it."""
    if layout is None:
        layout = Layout(margins_of(fig.pads[pad]), pad_scale(fig, pad), drawn_items(fig, pad))
    left, right, bottom, top = layout.margins
    points = drawn_points(None, frame, items=layout.items, margins=layout.margins)
    gap = 0.006
    scale = layout.scale
    for line in LINE_HEIGHT[::-1]:
        height = (lines + 0.4) * line * scale  # + room for the last line's descenders and subscripts
        if height > 1 - top - bottom - 2 * BOX_INSET:
            continue
        for corner in corners:
            if "center" in corner:
                x1 = left + (1 - left - right - width) / 2
            else:
                x1 = 1 - right - BOX_INSET - width if "right" in corner else left + BOX_INSET
            y1 = bottom + BOX_INSET if corner.startswith("lower") else 1 - top - BOX_INSET - height
            box = (x1, y1, x1 + width, y1 + height)
            inside = ((points[:, 0] > box[0] - gap) & (points[:, 0] < box[2] + gap)
                      & (points[:, 1] > box[1] - gap) & (points[:, 1] < box[3] + gap))  # fmt: skip
            if not inside.any():
                return box
    return None


def add_legend_box(fig: Figure, box: tuple[float, float, float, float], header: Sequence[str] = (), pad: int = 0) -> None:
    """The legend of every labelled object drawn so far, `header` lines (the context) first, in the
    NDC `box` (from free_box)."""
    cms = cmsstyle()
    fig.pads[pad].cd()
    leg = cms.cmsLeg(*box, textSize=STYLE["legend_text_size"] * pad_scale(fig, pad))
    leg.SetMargin(0.17)
    for line in header:
        leg.AddEntry(root().nullptr, line, "")
    for obj, label, option in fig.legend:
        leg.AddEntry(obj, label, option)
    fig.extras.append(leg)
    fig.legend = []


def boxed_figure(make, frames: Sequence[Frame], draw, context: Sequence[str], corners: Sequence[str] = CORNERS,
                 physics: bool = True, make_header=None, header_geometry=None) -> Figure:  # fmt: skip
    """A figure with the context lines and the legend where the data leave room, in this order:
    1. one box in the frame: for each frame in turn (e.g. more headroom), `make(frame)` builds the
       figure, `draw(fig, frame)` the data, and the box goes in the first free corner (the context
       as given, else joined on one line: a lower box);
    2. the context above the frame (header_figure with frames[0]), the legend in a free corner;
    3. both above the frame. `physics` False: no CMS label in the header (resource plots).
    `make_header(frame, header)` builds the figures of 2 and 3 (default header_figure; a ratio
    figure keeps its lower panel), `header_geometry(header)` gives the (margins, scale) of the
    pad its legend goes in (default header_figure's): 2 or 3 is chosen from what frames[0]'s
    figure drew, and only the chosen figure is built."""
    if make_header is None:
        make_header = lambda fr, header: header_figure(fig.name, fr, header, physics=physics)  # noqa: E731
        header_geometry = lambda header: (header_margins(header), 1.0)  # noqa: E731
    elif header_geometry is None:
        raise ValueError("boxed_figure: a make_header needs its header_geometry")
    joined = ", ".join(context)  # the context on one line: a lower box, where the line fits one (box_width < its cap)
    shorter = [joined] if len(context) > 1 and box_width([joined]) < BOX_MAX_WIDTH else None
    for frame in frames:
        fig = make(frame)
        draw(fig, frame)
        labels = [label for _, label, _ in fig.legend]
        items = drawn_items(fig)
        if frame is frames[0]:
            first = items
        layout = Layout(margins_of(fig.pads[0]), pad_scale(fig, 0), items)
        for lines in (context, shorter) if shorter else (context,):
            box = free_box(fig, frame, len(lines) + len(labels), box_width([*lines, *labels]), corners, layout=layout)
            if box is not None:
                add_legend_box(fig, box, lines)
                return fig
        fig.close()
    context = short_context(context)  # a header as low as it can be: the context on one line where it fits
    header = header_height(context, [])
    margins, scale = header_geometry(header)
    margins = tuple(float(np.float32(m)) for m in margins)  # as a pad keeps them (TAttPad: Float_t)
    box = free_box(None, frames[0], len(labels), box_width(labels), corners, layout=Layout(margins, scale, first))
    if box is None:
        header = header_height(context, labels)
    fig = make_header(frames[0], header)
    draw(fig, frames[0])
    if box is not None:
        add_legend_box(fig, box)  # takes the legend entries: the header gets the context alone
    add_header_box(fig, context, header)
    return fig
