"""Where legends and context go: the free-corner search (free_box) over what the data drew, and
boxed_figure, the one way a figure places them (inside the frame: never a header band above it).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.io.kernels import kernels
from pnetviz.rootenv import root
from pnetviz.draw.style import STYLE, cmsstyle
from pnetviz.draw.geometry import text_width, Figure, Frame, Margins, margins_of, pad_scale, visible_length
from pnetviz.draw.sampling import SAMPLE_STEP, PackedItems, doubles, drawn_items, items_occupancy, pack_items


LINE_HEIGHT = (0.045, 0.05)  # NDC per legend line: the tightest that keeps sub- and superscripts apart, and the comfortable one
CORNERS = ("lower right", "lower left", "upper right", "upper left")
BOX_INSET = 0.02  # NDC between a box and the frame
BOX_MAX_WIDTH = 0.80  # NDC: box_width's cap (a longer line does not fit a box in the frame)


def box_width(lines: Sequence[str], margin: float = 0.17, columns: int = 1) -> float:
    """NDC width a legend box needs for its longest line at the legend text size (a character of
    these labels is about 0.45 of the size wide, measured with the figure linter), sample column
    (`margin`) included; `columns` such columns side by side."""
    chars = max((visible_length(line) for line in lines), default=10)
    one = max(0.25, chars * 0.47 * STYLE["legend_text_size"] / (1 - margin) + 0.02)
    return min(one * columns if columns > 1 else one, BOX_MAX_WIDTH)


@dataclass(frozen=True)
class Layout:
    """A pad's margins and text scale (pad_scale) with the items drawn in it (drawn_items)."""

    margins: Margins
    scale: float
    items: list

    @functools.cached_property
    def packed(self) -> PackedItems:
        """The items packed for the occupancy kernel (once: the same in every frame)."""
        return pack_items(self.items)


Box = tuple[float, float, float, float]


def _corner_boxes(layout: Layout, lines: int, width: float, corners: Sequence[str]) -> tuple[Box, ...]:
    """The candidate NDC boxes for `lines` legend lines, comfortable line height first, then the
    tightest, each in `corners` order (an "upper center" box centred on the frame, "anywhere" a
    grid of GRID x GRID places over the frame, top left first)."""
    return _boxes(tuple(layout.margins), layout.scale, lines, width, tuple(corners))


@functools.lru_cache(maxsize=1024)
def _boxes(margins: tuple[float, ...], scale: float, lines: int, width: float, corners: tuple[str, ...]) -> tuple[Box, ...]:
    """_corner_boxes for a pad of these margins and text scale (cached: figures of one kind ask
    for the same boxes)."""
    left, right, bottom, top = margins
    boxes = []
    for line in LINE_HEIGHT[::-1]:
        height = (lines + 0.4) * line * scale  # + room for the last line's descenders and subscripts
        if height > 1 - top - bottom - 2 * BOX_INSET:
            continue
        for corner in corners:
            if corner == "anywhere":  # a grid of places over the frame, after the corners
                xs = np.linspace(left + BOX_INSET, 1 - right - BOX_INSET - width, GRID)
                ys = np.linspace(1 - top - BOX_INSET - height, bottom + BOX_INSET, GRID)
                boxes += [(float(x1), float(y1), float(x1 + width), float(y1 + height)) for y1 in ys for x1 in xs
                          if x1 >= left and x1 + width <= 1 - right + 1e-9]  # fmt: skip
                continue
            if "center" in corner:
                x1 = left + (1 - left - right - width) / 2
            else:
                x1 = 1 - right - BOX_INSET - width if "right" in corner else left + BOX_INSET
            y1 = bottom + BOX_INSET if corner.startswith("lower") else 1 - top - BOX_INSET - height
            if x1 >= left and x1 + width <= 1 - right + 1e-9:  # a box wider than the frame: over an axis (the
                boxes.append((x1, y1, x1 + width, y1 + height))  # y axis' samples, or past the right edge: figure lint)
    return tuple(boxes)


GRID = 9  # places per axis of an "anywhere" box


GRID_CELLS = 500  # cells per NDC unit of the occupancy grid (a box is tested on 1/500 NDC, conservatively)
GRID_WORDS = -(-GRID_CELLS // 64)  # 64-bit words per row of the grid


@functools.cache
def _occupancy_kernel():
    """(occupancy_fill, first_empty) of macros/occupancy.h (compiled once per process)."""
    found = kernels()
    return found.occupancy_fill, found.first_empty


def _grid(segments: Sequence[np.ndarray], xs: np.ndarray, ys: np.ndarray, bounds: Sequence[float]) -> np.ndarray:
    """The occupancy grid of `segments` (x0, y0, x1, y1: sampled every SAMPLE_STEP) and points
    (xs, ys), NDC, those inside `bounds` (xlow, xhigh, ylow, yhigh) and finite (macros/occupancy.h)."""
    fill, _ = _occupancy_kernel()
    grid = np.zeros((GRID_CELLS, GRID_WORDS), dtype=np.uint64)
    nseg, npts = len(segments[0]), len(xs)
    x0, y0, x1, y1 = (doubles(v) for v in segments)
    fill(x0, y0, x1, y1, nseg, SAMPLE_STEP, doubles(xs), doubles(ys), npts, *bounds, GRID_CELLS, GRID_WORDS, grid)
    return grid


def occupancy(points: np.ndarray) -> np.ndarray:
    """The NDC `points` (k, 2) on the GRID_CELLS x GRID_CELLS occupancy grid (a cell is set where
    a point falls in it, a point off the grid in the nearest cell); a box is tested on the cells
    it touches (_first_empty). A bit grid filled and searched in C++ (macros/occupancy.h): the
    numpy grid sliced per box cost 0.3 ms a search, the sampling of the lines as much."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    empty = np.zeros(0)
    return _grid((empty, empty, empty, empty), points[:, 0], points[:, 1], (-math.inf, math.inf, -math.inf, math.inf))


def drawn_occupancy(layout: Layout, frame: Frame) -> np.ndarray:
    """The occupancy grid of `layout`'s items drawn in `frame`: the grid of
    occupancy(drawn_points(None, frame, items=..., margins=...)), without making the points (in
    C++, sampling.items_occupancy; the numpy form: tests/draw/test_sampling_kernel.py)."""
    grid = np.zeros((GRID_CELLS, GRID_WORDS), dtype=np.uint64)
    items_occupancy(layout.packed, frame, layout.margins, grid)
    return grid


def _first_empty(grid: np.ndarray, boxes: Sequence[Box], gap: float = 0.006) -> Box | None:
    """The first of `boxes` in which the occupancy `grid` has no point, each box widened by `gap`
    (the cells it touches included); None if every box holds one."""
    if not boxes:
        return None
    _, first = _occupancy_kernel()
    b = np.ascontiguousarray(boxes, dtype=np.float64)
    index = int(first(grid, GRID_CELLS, GRID_WORDS, b, len(boxes), gap))
    return None if index < 0 else boxes[index]


def free_box(fig: Figure | None, frame: Frame, lines: int, width: float, corners: Sequence[str] = CORNERS,
             pad: int = 0, layout: Layout | None = None, table: np.ndarray | None = None) -> Box | None:  # fmt: skip
    """NDC (x1, y1, x2, y2) of a box for `lines` legend lines in the first corner of the frame
    (comfortable line height first, then the tightest) that no drawn data enter; None if none.
    `layout`: the same for a pad of that layout holding those items, without building it;
    `table`: its points' occupancy, when known."""
    if layout is None:
        layout = Layout(margins_of(fig.pads[pad]), pad_scale(fig, pad), drawn_items(fig, pad))
    if table is None:
        table = drawn_occupancy(layout, frame)
    return _first_empty(table, _corner_boxes(layout, lines, width, corners))


def add_legend_box(fig: Figure, box: Box, header: Sequence[str] = (), pad: int = 0, columns: int = 1) -> None:
    """The legend of every labelled object drawn so far, `header` lines (the context) first, in the
    NDC `box` (from free_box), in `columns` columns."""
    cms = cmsstyle()
    fig.pads[pad].cd()
    leg = cms.cmsLeg(*box, textSize=STYLE["legend_text_size"] * pad_scale(fig, pad), columns=columns)
    leg.SetMargin(0.17 if columns == 1 else 0.12)
    for line in header:
        leg.AddEntry(root().nullptr, line, "")
    for obj, label, option in fig.legend:
        leg.AddEntry(obj, label, option)
    fig.extras.append(leg)
    fig.legend = []


def boxed_figure(make, frames: Sequence[Frame], draw, context: Sequence[str], corners: Sequence[str] = CORNERS,
                 physics: bool = True, more: Sequence[Frame] = (), reframe=None) -> Figure:  # fmt: skip
    """The frame first: above the frame only the CMS label line (`make` builds the canvas; `physics`
    False: no CMS label, resource plots), the legend and the context in one box inside the frame
    where the data leave room. For each frame in turn (e.g. more headroom) `make(frame)` builds
    the figure and `draw(fig, frame)` the data; the box goes in the first free corner (`corners`):
    1. in the first frame that has room, the context as given, else joined on one line;
    2. else the legend alone (the context is the caption's: fig.caption), in one column, then two,
       in the first frame that has room, in a corner or anywhere in the frame the data leave free;
       then in each of `more` in turn (e.g. more decades of headroom on a log axis, for the legend
       alone: never for context that the caption can hold);
    3. else (data in every place of every frame) the legend alone in columns right above the last
       frame (legend_above): never the context, the frame lowered by the legend's rows only.
    A frame after the first is built only where the first figure's drawing, seen in it, leaves
    room (_predicted): the figure chosen is the one the frames built in turn would give. A frame
    equal to the first asks for the same frame drawn without the first figure's optional objects
    (fig.optional: a ROC curve's chance line): predicted exactly from the first drawing, and where
    it has room the first figure with those objects removed, not drawn again. `reframe(fig, old,
    new)` (figures.reframe), for a drawing that does not depend on the frame's y range: a frame
    predicted to have room gets the first figure moved to it rather than a figure drawn anew (where
    it returns False, a figure drawn anew)."""
    joined = ", ".join(context)  # the context on one line, where the line fits one (box_width < its cap)
    variants = [list(context)] + ([[joined]] if len(context) > 1 and box_width([joined]) < BOX_MAX_WIDTH else [])
    tried: list[_Tried] = []  # each frame's figure (None: not built, its drawing predicted), kept open until one is chosen
    labels: list[str] = []

    def build(frame: Frame) -> _Tried:
        fig = make(frame)
        draw(fig, frame)
        layout = Layout(margins_of(fig.pads[0]), pad_scale(fig, 0), drawn_items(fig))
        return _Tried(fig, frame, layout, drawn_occupancy(layout, frame))

    def fits(entry: _Tried, lines: Sequence[str], rows: int, width: float, where: Sequence[str]) -> Box | None:
        return free_box(None, entry.frame, rows, width, where, layout=entry.layout, table=entry.table)

    def made(guess: _Tried) -> _Tried:
        """The figure of a frame predicted from the first figure's drawing (the prediction exact
        in both cases below): the first figure without its optional objects for the same frame
        drawn without them, the first figure moved to it for another frame (`reframe`: the same
        drawing); else one built anew."""
        first = tried[0]
        if first.fig is None or guess is first:
            return build(guess.frame)
        if guess.frame == first.frame and first.fig.optional:
            _remove_optional(first.fig)
        elif not (reframe is not None and guess.layout is first.layout and reframe(first.fig, first.frame, guess.frame)):
            return build(guess.frame)  # (reframe False: the canvas would decide otherwise from the new range)
        tried[0] = _Tried(None, first.frame, first.layout, first.table)  # changed: drawn anew if asked for again
        return _Tried(first.fig, guess.frame, guess.layout, guess.table)

    for frame in frames:
        if not tried:
            entry = build(frame)
        else:  # the first figure's drawing seen in this frame (without its optional objects in a frame equal to its own)
            optional = frame == tried[0].frame and tried[0].fig is not None and tried[0].fig.optional
            guess = _without_optional(tried[0], frame) if optional else _predicted(tried[0], frame)
            if frame != tried[0].frame or optional:
                if not any(fits(guess, lines, len(lines) + len(labels), box_width([*lines, *labels]), corners) for lines in variants):
                    tried.append(guess)  # no room there, none in the figure itself
                    continue
                entry = made(guess)
            else:
                entry = build(frame)
        labels = [label for _, label, _ in entry.fig.legend]
        for lines in variants:
            box = fits(entry, lines, len(lines) + len(labels), box_width([*lines, *labels]), corners)
            if box is not None:
                add_legend_box(entry.fig, box, lines)
                return _keep_only(entry.fig, tried)
        tried.append(entry)
    fig, columns, box = _legend_alone(tried, 0, labels, corners, made)
    for frame in more if labels and box is None else ():
        tried.append(_predicted(tried[0], frame) if frame != tried[0].frame else build(frame))
        fig, columns, box = _legend_alone(tried, len(tried) - 1, labels, corners, made)
        if box is not None:
            break
    if box is not None:
        fig.caption = list(context)
        add_legend_box(fig, box, (), columns=columns)
    elif labels:  # no free place in any frame: the legend's rows right above the last of `frames`
        last = frames[-1]
        built = next((e.fig for e in tried if e.fig is not None and e.frame is last), None)
        fig = built or make(last)  # the figure drawn in it already: its margin moved (legend_above)
        legend_above(fig, labels, (lambda: None) if built else (lambda: draw(fig, last)))
        fig.caption = list(context)
    else:
        if tried[-1].fig is None:
            tried[-1] = build(tried[-1].frame)
        fig = tried[-1].fig
        fig.caption = list(context)
    return _keep_only(fig, tried)


@dataclass
class _Tried:
    """A frame boxed_figure tried: its figure (None: not built), the layout and occupancy of its
    drawing (predicted from another frame's drawing when not built)."""

    fig: Figure | None
    frame: Frame
    layout: Layout
    table: np.ndarray


def _predicted(built: _Tried, frame: Frame) -> _Tried:
    """What `built`'s drawing would occupy in `frame` (its items, margins and scale): an item
    whose data coordinates follow the frame (a line across it) covers no more of a larger frame
    than of its own, so a box this rejects is rejected by the real drawing too."""
    layout = built.layout
    return _Tried(None, frame, layout, drawn_occupancy(layout, frame))


def _without_optional(built: _Tried, frame: Frame) -> _Tried:
    """`built`'s figure drawn again in `frame` (equal to its own: the frame object its draw is
    given, which tells it to leave its optional objects out) without its optional objects
    (fig.optional), as predicted from what it drew (exactly: the same items but those); not built."""
    skip = frozenset(str(obj.GetName()) for obj in built.fig.optional)
    layout = Layout(built.layout.margins, built.layout.scale, drawn_items(built.fig, skip=skip))
    return _Tried(None, frame, layout, drawn_occupancy(layout, frame))


def _remove_optional(fig: Figure) -> None:
    """Take fig.optional's objects (unlabelled extras) off its pads: the figure its draw makes in a
    frame equal to its own."""
    for obj in fig.optional:
        for pad in fig.pads:
            pad.GetListOfPrimitives().Remove(obj)
        fig.extras = [extra for extra in fig.extras if extra is not obj]
    fig.optional = []


def _legend_alone(tried: list[_Tried], start: int, labels: Sequence[str], corners: Sequence[str],
                  made) -> tuple[Figure | None, int, Box | None]:  # fmt: skip
    """(figure, columns, box) of the first of `tried[start:]` with room for the legend `labels`
    alone, in one column, then two, in a corner or anywhere the data leave free; (None, 1, None)
    where none has room. An entry not built yet is made (`made(entry)`, replacing it in `tried`)
    only where its predicted drawing leaves room."""
    for columns in (1, 2) if labels else ():
        rows, width = -(-len(labels) // columns), box_width(labels, columns=columns)
        where = (*corners, "anywhere")
        for i in range(start, len(tried)):
            entry = tried[i]
            if entry.fig is None:
                if free_box(None, entry.frame, rows, width, where, layout=entry.layout, table=entry.table) is None:
                    continue
                tried[i] = entry = made(entry)
            box = free_box(None, entry.frame, rows, width, where, layout=entry.layout, table=entry.table)
            if box is not None:
                return entry.fig, columns, box
    return None, 1, None


def _keep_only(fig: Figure, tried: list) -> Figure:
    """`fig`, the other figures boxed_figure built closed."""
    for entry in tried:
        if entry.fig is not None and entry.fig is not fig:
            entry.fig.close()
    return fig


def legend_above(fig: Figure, labels: Sequence[str], draw) -> None:
    """The last resort, for data that fill every part of every frame tried (a cut scan's
    efficiencies and significances on [0, 1]): the legend alone, in as many columns as its
    measured labels fit across the frame (at most 3), in a band between the CMS label line and the
    frame, the frame's top lowered by the band's height only (no context: that is the caption's),
    its rows closer (to ABOVE_LINE_MIN) rather than the frame below MIN_FRAME_PX; the y title
    smaller if longer than the frame. `fig` as made, before `draw()` draws its data, or with its
    data drawn (`draw` then does nothing): the same canvas, as the data are in the frame's
    coordinates (tests/draw/test_placement.py)."""
    p = fig.pads[0]
    left, right, top = p.GetLeftMargin(), p.GetRightMargin(), p.GetTopMargin()
    p.cd()
    scale = pad_scale(fig, 0)
    size = STYLE["legend_text_size"] * scale
    widths = [text_width(label, size) / p.GetWw() for label in labels]  # NDC of the pad's width
    span = 1 - left - right

    def across(c: int) -> float:
        """The legend's width in `c` columns: TLegend sizes its columns by their widest labels (entries
        row by row), each with its sample (ABOVE_MARGIN of the legend's width shared by the columns)."""
        return sum(max(widths[i::c]) for i in range(c)) / (1 - ABOVE_MARGIN) + ABOVE_GAP * c

    columns = max(c for c in (1, 2, 3) if c == 1 or (c <= len(labels) and across(c) <= span))
    rows = -(-len(labels) // columns)
    room = 1 - top - p.GetBottomMargin() - MIN_FRAME_PX / p.GetWh() - BOX_INSET / 2  # NDC the frame can give
    line = max(min(LINE_HEIGHT[0], room / ((rows + 0.3) * scale)), ABOVE_LINE_MIN)
    height = (rows + 0.3) * line * scale
    p.SetTopMargin(top + height + BOX_INSET / 2)
    p.Modified()
    p.Update()  # the frame box painted at the new margin (the saved image and a redraw of the stored canvas alike)
    _fit_y_title(p)
    draw()
    p.cd()  # draw() may end in another pad (a ratio figure's panel): the legend belongs to the main one
    cms = cmsstyle()
    leg = cms.cmsLeg(left, 1 - top - height, min(left + across(columns), 1 - right), 1 - top, textSize=size, columns=columns)
    leg.SetMargin(ABOVE_MARGIN)
    leg.SetBorderSize(0)  # no box: drawn alike when the stored canvas is redrawn
    leg.SetFillStyle(0)
    for obj, label, option in fig.legend:
        leg.AddEntry(obj, label, option)
    fig.extras.append(leg)
    fig.legend = []


MIN_FRAME_PX = 380  # of a 600 px high figure: 5.07 cm at 8 cm width (the figure linter's minimum is 5.0)
ABOVE_LINE_MIN = 0.037  # NDC per legend line at the least: 22 px for 19 px text (0.034 lets tbar X rows overlap)


def _fit_y_title(pad) -> None:
    """The y title of the pad's frame smaller (at the same distance from the axis) where it is
    longer than the frame, down to 7 pt at 8 cm."""
    hframe = next((o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TH1")), None)
    if hframe is None:
        return
    axis = hframe.GetYaxis()
    frame_px = (1 - pad.GetTopMargin() - pad.GetBottomMargin()) * pad.GetWh()
    size = axis.GetTitleSize()
    need = visible_length(axis.GetTitle()) * 0.55 * size * pad.GetWh()
    if need > 0.85 * frame_px:
        new = max(size * 0.85 * frame_px / need, 0.032)
        axis.SetTitleSize(new)
        axis.SetTitleOffset(axis.GetTitleOffset() * size / new)


ABOVE_GAP = 0.025  # NDC of free space a column of legend_above's legend adds (before the next column's sample)
ABOVE_MARGIN = 0.25  # of a column of legend_above's legend: its line or marker sample
