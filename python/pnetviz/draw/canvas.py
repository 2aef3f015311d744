"""Drawing helpers shared by every visualize script: data in, ROOT objects out.

A `Figure` owns a canvas and every object drawn on it (kept alive from Python: no
SetOwnership games), plus its legend entries. Generic helpers draw curves, histograms,
matrices and labels; the plot functions in `plots.py` compose them. Call inside
`style.cms_style(...)`.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import re
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.rootenv import quiet_root, root, set_title
from pnetviz.draw.style import STYLE, cmsstyle, color, unpainted
from pnetviz.draw.stored import PALETTE_NAME, palette_command


def unique(name: str) -> str:
    """ROOT object names are global: make one unique while keeping it readable."""
    return f"{name}_{uuid.uuid4().hex[:8]}"


@dataclass
class Figure:
    """A canvas, the objects drawn on it (by key for the ROOT file) and its legend entries."""

    name: str  # output file stem, e.g. "roc_curve"
    canvas: object
    pads: list = field(default_factory=list)
    objects: dict[str, object] = field(default_factory=dict)
    legend: list[tuple[object, str, str]] = field(default_factory=list)
    extras: list = field(default_factory=list)  # legends, texts, lines: kept alive, not written
    labels: dict[str, str] = field(default_factory=dict)  # key -> legend label (titles in the ROOT file)

    def keep(self, key: str, obj: object, label: str | None = None) -> object:
        self.objects[key] = obj
        if label:
            self.labels[key] = label
        return obj

    def close(self) -> None:
        """Close the canvas and hand it to Python to delete: ROOT owns a TCanvas (PyROOT leaves it
        to gROOT's list of canvases), and Close() only takes it off that list, so every closed
        figure stayed in memory (a warm worker grew by ~0.3 MB per multi-class evaluation; ~0.1 MB
        with this, measured over 35 evaluations)."""
        self.canvas.Close()
        root().SetOwnership(self.canvas, True)


Margins = tuple[float, float, float, float]  # left, right, bottom, top of a pad (NDC)


@dataclass(frozen=True)
class Frame:
    """Axis ranges and titles of one pad."""

    x: tuple[float, float]
    y: tuple[float, float]
    xtitle: str
    ytitle: str
    logy: bool = False
    logx: bool = False


def figure(name: str, frame: Frame, square: bool = True, extra_space: float = 0.0,
           y_title_offset: float | None = None, cms_pos: int = 11) -> Figure:  # fmt: skip
    """A single-pad CMS canvas (600 x 600, or 800 x 600) with its frame drawn (extra_space widens
    the left margin); `cms_pos` is cmsstyle's iPos: 11 inside the frame top left, 0 above it.
    Call inside style.cms_style. On a square canvas the y title keeps clear of long tick labels of a
    narrow linear range ("0.915"): labels every 0.01 (505 divisions) when they would need more
    than 4 characters, the title offset fitted to the widest (fit_y_title_offset), the left margin
    widened if the title would otherwise leave the canvas."""
    cms = cmsstyle()
    style = root().gStyle  # cmsstyle's: the sizes cmsCanvas's frame takes
    offset = (1.2 if square else 0.78) if y_title_offset is None else y_title_offset  # cmsCanvas's default
    ndivisions, fitted = style.GetNdivisions("Y"), offset
    if square and not frame.logy:  # (the pixel model below is measured on a 600 px wide canvas)
        title_px = style.GetTitleSize("Y") * 600
        if any("." in text and len(text) > 4 for text in tick_labels(*frame.y, ndivisions)):
            ndivisions = 505  # a narrow range ("0.915"): labels every 0.01, not 0.005
        fitted = fit_y_title_offset(frame, offset, title_px, style.GetLabelSize("Y") * 600,
                                    style.GetLabelOffset("Y") * 600, ndivisions)  # fmt: skip
        if fitted > offset:  # the title further out; the margin wider if it would leave the canvas
            left_px = (_cms_left_margin(fitted, 600) + extra_space) * 600
            extra_space += max(0.0, y_title_far_px(fitted, title_px) + TITLE_EDGE_PX - left_px) / 600
    with unpainted():
        canvas = cms.cmsCanvas(unique(name), *frame.x, *frame.y, frame.xtitle, frame.ytitle, square=square,
                               iPos=cms_pos, extraSpace=extra_space, yTitOffset=fitted)  # fmt: skip
    _painted_frame(canvas, frame)
    canvas.SetCanvasSize(600 if square else 800, 600)  # the image itself square or 4:3 (cmsCanvas's includes decorations)
    canvas.SetLogy(frame.logy)
    canvas.SetLogx(frame.logx)
    _unit_axis_ticks(cms.GetCmsCanvasHist(canvas), frame)
    if ndivisions != style.GetNdivisions("Y"):
        cms.GetCmsCanvasHist(canvas).GetYaxis().SetNdivisions(ndivisions)
    if extra_space and cms_pos == 0:  # the CMS label moved right with the frame: the run text to the canvas edge
        for obj in canvas.GetListOfPrimitives():
            if obj.InheritsFrom("TLatex") and obj.GetTextAlign() == 31:
                obj.SetX(obj.GetX() + min(extra_space, canvas.GetRightMargin() - 0.015))
    return Figure(name=name, canvas=canvas, pads=[canvas])


def _cms_left_margin(y_offset: float, width: int) -> float:
    """The left margin (NDC) cmsstyle's cmsCanvas gives a canvas `width` px wide for this y title
    offset (its own formula), before extraSpace."""
    left = 0.145 * 600
    if y_offset < 1.5:
        left += y_offset * 50 - 60
    elif y_offset < 1.8:
        left += (y_offset - 1.4) * 35 + 25
    return left / width


def _painted_frame(canvas, frame: Frame) -> None:
    """What a paint does to the pad's TFrame (left out: style.unpainted, place_palette): the
    frame's range, and first among the pad's primitives (cmsCanvas draws it last too)."""
    tframe = canvas.GetFrame()
    tframe.SetX1(frame.x[0])
    tframe.SetY1(frame.y[0])
    tframe.SetX2(frame.x[1])
    tframe.SetY2(frame.y[1])
    tframe.SetBit(root().TObject.kMustCleanup)
    canvas.GetListOfPrimitives().AddFirst(tframe)


def _unit_axis_ticks(hframe, frame: Frame) -> None:
    """An x axis from 0 to 1 labelled every 0.2: eleven labels at 0.1 touch at 8 cm."""
    if hframe and not frame.logx and frame.x == (0.0, 1.0):
        hframe.GetXaxis().SetNdivisions(505)


# Where ROOT puts a y-axis title, font 42 (measured with the figure linter's ink rule on this ROOT):
# its near edge Y_TITLE_STEP x offset x T - Y_TITLE_DESCENT x T from the axis, its far edge
# Y_TITLE_THICK x T further, T the title's height in pixels (a pad's T scaled back to the canvas).
Y_TITLE_STEP, Y_TITLE_DESCENT, Y_TITLE_THICK = 1.6, 0.45, 0.9
Y_TITLE_GAP = 3  # pixels between the widest tick label's advance box and the y title (the ink has more)
TITLE_EDGE_PX = 4  # pixels at least between a y title and the canvas's left edge
GLYPH_WIDTH = {".": 0.278, "-": 0.584}  # of the text height, Helvetica (font 42); digits 0.556


def tick_labels(lo: float, hi: float, ndivisions: int, max_digits: int = 5) -> list[str]:
    """The labels TGaxis writes on a linear axis from lo to hi with `ndivisions` (its primary
    divisions optimised by THLimitsFinder, as TGaxis does): one step's decimals, trailing zeros
    dropped ("0.91", "0.915", "1"); values needing more than `max_digits` digits (TGaxis's
    MaxDigits), or as many decimals, are written as TGaxis does, divided by a power of ten (a
    multiple of 3) shown once beside the axis: "2" ... "12" for 2000 ... 12000, "0.02" ... "0.1"
    for 0.00002 ... 0.0001. Empty for a range without divisions (NaN, reversed, empty)."""
    low, high, n, step = ctypes.c_double(), ctypes.c_double(), ctypes.c_int(), ctypes.c_double()
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        return []
    root().THLimitsFinder.Optimize(lo, hi, max(abs(ndivisions) % 100, 1), low, high, n, step, "")
    if not step.value > 0:
        return []
    tol = 1e-9 * (hi - lo)
    values = np.array([low.value + k * step.value for k in range(n.value + 1)])
    values = values[(values >= lo - tol) & (values <= hi + tol)]
    def decimals_of(step_value: float) -> int:
        return next((d for d in range(12) if abs(round(step_value, d) - step_value) < 1e-9 * max(1.0, abs(step_value))), 12)

    top = float(np.max(np.abs(values))) if values.size else 0.0
    step_value = step.value
    if top >= 10.0**max_digits:  # TGaxis's exponent (a multiple of 3): 2000 ... 12000 -> 2 ... 12 x10^3
        scale = 10.0 ** (3 * math.floor(math.log10(top) / 3))
        values, step_value = values / scale, step_value / scale
    elif top > 0 and decimals_of(step_value) >= max_digits:  # 0.00002 ... 0.0001 -> 0.02 ... 0.1 x10^-3
        scale = 10.0 ** (3 * math.ceil(math.log10(top) / 3))
        values, step_value = values / scale, step_value / scale
    decimals = decimals_of(step_value)
    labels = [f"{v:.{decimals}f}" for v in values]
    labels = [text.rstrip("0").rstrip(".") if "." in text else text for text in labels]
    return ["0" if text in ("-0", "") else text for text in labels]


def label_width_px(labels: Sequence[str], height_px: float) -> float:
    """Width in pixels of the widest of `labels` (digits, '.', '-') at a text height of `height_px`."""
    return max((height_px * sum(GLYPH_WIDTH.get(ch, 0.556) for ch in text) for text in labels), default=0.0)


def fit_y_title_offset(frame: Frame, offset: float, title_px: float, label_px: float, label_offset_px: float,
                       ndivisions: int = 510, max_digits: int = 5) -> float:  # fmt: skip
    """The y title offset (ROOT's, in title sizes) on a 600 px wide pad: `offset`, or more where
    the widest tick label of a linear axis would reach within Y_TITLE_GAP of the title."""
    if frame.logy or title_px <= 0:
        return offset
    need = label_width_px(tick_labels(*frame.y, ndivisions, max_digits), label_px) + label_offset_px + Y_TITLE_GAP
    return max(offset, (need + Y_TITLE_DESCENT * title_px) / (Y_TITLE_STEP * title_px))


def y_title_far_px(offset: float, title_px: float) -> float:
    """Pixels from the axis to the far edge of a y title at this offset."""
    return (Y_TITLE_STEP * offset - Y_TITLE_DESCENT + Y_TITLE_THICK) * title_px


def header_figure(name: str, frame: Frame, header: float, physics: bool = True) -> Figure:
    """A 600 x 600 CMS figure whose top `header` (NDC) above the frame holds the CMS label and,
    below it, the legend and context (add_header_box): for plots whose data fill the frame, such
    as log-y score distributions whose axis ends at a physical limit. `physics` False: no CMS label
    (computing-resource plots)."""
    cms = cmsstyle()
    canvas, hframe = _framed_canvas(name, frame, header_margins(header), 1.45)
    if physics:
        canvas.SetTopMargin(0.07)  # the CMS label and the run text at cmsstyle's usual place, above the header
        with unpainted():
            cms.CMS_lumi(canvas, 0)
    canvas.SetTopMargin(header)
    return Figure(name=name, canvas=canvas, pads=[canvas], extras=[hframe])


def header_margins(header: float) -> Margins:
    """The margins of a header_figure with `header` above its frame."""
    return HEADER_LEFT, HEADER_RIGHT, 0.13, header


def _visible_length(text: str) -> int:
    """Characters a TLatex line shows: a #command (#pm, #mu, #varepsilon) is one glyph, braces,
    sub- and superscript marks none."""
    return len(re.sub(r"#[a-zA-Z]+", "x", text).replace("{", "").replace("}", "").replace("_", "").replace("^", ""))


HEADER_LEFT, HEADER_RIGHT = 0.16, 0.05  # margins of a header_figure
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


def to_ndc(fig: Figure, x: float, y: float, frame: Frame, pad: int = 0) -> tuple[float, float]:
    """Data coordinates of `frame` (linear or log axes) to the pad's NDC."""
    return _to_ndc(margins_of(fig.pads[pad]), x, y, frame)


def margins_of(pad) -> Margins:
    return pad.GetLeftMargin(), pad.GetRightMargin(), pad.GetBottomMargin(), pad.GetTopMargin()


def _to_ndc(margins: Margins, x, y, frame: Frame):
    left, right, bottom, top = margins

    def frac(v: float, lo: float, hi: float, log: bool) -> float:
        return (np.log10(v / lo) / np.log10(hi / lo)) if log else (v - lo) / (hi - lo)

    return (left + frac(x, *frame.x, frame.logx) * (1 - left - right),
            bottom + frac(y, *frame.y, frame.logy) * (1 - bottom - top))  # fmt: skip


LINE_HEIGHT = (0.045, 0.05)  # NDC per legend line: the tightest that keeps sub- and superscripts apart, and the comfortable one
CORNERS = ("lower right", "lower left", "upper right", "upper left")
BOX_INSET = 0.02  # NDC between a box and the frame
SAMPLE_STEP = 0.004  # NDC between the sampled points of a drawn line
MARKER_HALF = 0.012  # NDC half-size of a marker (size ~1.2)
ERROR_SAMPLES = 40  # points along an error bar: at most 0.02 NDC apart


def box_width(lines: Sequence[str], margin: float = 0.17) -> float:
    """NDC width a legend box needs for its longest line at the legend text size (a character of
    these labels is about 0.45 of the size wide, measured with the figure linter), sample column
    (`margin`) included."""
    chars = max((_visible_length(line) for line in lines), default=10)
    return min(max(0.25, chars * 0.47 * STYLE["legend_text_size"] / (1 - margin) + 0.02), 0.80)


def drawn_items(fig: Figure, pad: int = 0) -> list[tuple]:
    """What drawn_points samples, read once from the primitives of a pad, in data coordinates:
    ("line", x, y) polylines (graph lines and band outlines, histogram steps, TLines), ("markers",
    x, y, low, high) markers with their error bars (low/high None without), ("bars", x, low,
    high) vertical lines across the bars of a bar chart (the frame, and its copies RedrawAxis draws
    with option "sameaxis", are axes, not data). The same items give the points of any
    layout of the same frame (drawn_points with other margins), without drawing again."""
    p = fig.pads[pad]
    items: list[tuple] = []
    frame_hist = next((o for o in p.GetListOfPrimitives() if o.InheritsFrom("TH1")), None)
    link = p.GetListOfPrimitives().FirstLink()
    while link:
        obj, option = link.GetObject(), (link.GetOption() or "").upper()
        link = link.Next()
        if obj.InheritsFrom("TGraph") and obj.GetN() > 0:
            n = obj.GetN()
            x = np.frombuffer(obj.GetX(), dtype=np.float64, count=n).copy()
            y = np.frombuffer(obj.GetY(), dtype=np.float64, count=n).copy()
            if "F" in option:
                items.append(("line", np.r_[x, x[:1]], np.r_[y, y[:1]]))
            if "L" in option or "C" in option or not any(c in option for c in "FP"):
                items.append(("line", x, y))
            if "P" in option:
                low, high = _graph_y_errors(obj, n)
                items.append(("markers", x, y, None if low is None else y - low, None if high is None else y + high))
        elif obj.InheritsFrom("TH1") and obj.GetDimension() == 1 and obj != frame_hist and "AXIS" not in option:
            ax, nb = obj.GetXaxis(), obj.GetNbinsX()
            edges = np.linspace(ax.GetXmin(), ax.GetXmax(), nb + 1) if not ax.IsVariableBinSize() else \
                np.frombuffer(ax.GetXbins().GetArray(), dtype=np.float64, count=nb + 1).copy()  # fmt: skip
            c = _bin_contents(obj, nb)
            if "B" in option:  # bars: filled rectangles, sampled as 12 vertical lines across each
                start = edges[:-1] + obj.GetBarOffset() * (edges[1:] - edges[:-1])
                across = np.linspace(start, start + obj.GetBarWidth() * (edges[1:] - edges[:-1]), 12, axis=1).ravel()
                items.append(("bars", across, np.repeat(np.minimum(0.0, c), 12), np.repeat(np.maximum(0.0, c), 12)))
            elif "E" in option or "P" in option:
                e = _bin_errors(obj, nb)
                shown = c != 0
                items.append(("markers", 0.5 * (edges[:-1] + edges[1:])[shown], c[shown], (c - e)[shown], (c + e)[shown]))
            else:
                items.append(("line", np.repeat(edges, 2)[1:-1], np.repeat(c, 2)))
        elif obj.InheritsFrom("TLine") and not obj.TestBit(root().TLine.kLineNDC):
            items.append(("line", np.array([obj.GetX1(), obj.GetX2()]), np.array([obj.GetY1(), obj.GetY2()])))
    return items


def drawn_points(fig: Figure | None, frame: Frame, pad: int = 0, items: list[tuple] | None = None,
                 margins: Margins | None = None) -> np.ndarray:  # fmt: skip
    """(k, 2) NDC points along everything drawn so far in the frame of a pad: lines and band
    outlines of graphs sampled every SAMPLE_STEP, markers as their corners and centre, error bars,
    1-D histograms as steps or points, TLines; points outside the frame dropped. `items`
    (drawn_items) and `margins`: the same for a pad of these margins holding those items."""
    margins = margins_of(fig.pads[pad]) if margins is None else margins
    items = drawn_items(fig, pad) if items is None else items
    xs: list[np.ndarray] = []  # points
    ys: list[np.ndarray] = []
    ends: list[list[np.ndarray]] = [[], [], [], []]  # segments (x0, y0, x1, y1), sampled together at the end

    def ndc(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _to_ndc(margins, x, y, frame)

    def segments(*xy: np.ndarray) -> None:
        for store, values in zip(ends, xy):
            store.append(values)

    def sampled(x: np.ndarray, y: np.ndarray) -> None:
        """A polyline in data coordinates, sampled, its last point included."""
        X, Y = ndc(x, y)
        ok = np.isfinite(X) & np.isfinite(Y)
        X, Y = X[ok], Y[ok]
        if X.size >= 2:
            segments(X[:-1], Y[:-1], X[1:], Y[1:])
            X, Y = X[-1:], Y[-1:]
        xs.append(X)
        ys.append(Y)

    def markers(x: np.ndarray, y: np.ndarray, low: np.ndarray | None = None, high: np.ndarray | None = None) -> None:
        X, Y = ndc(x, y)
        for dx, dy in ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
            xs.append(X + dx * MARKER_HALF)
            ys.append(Y + dy * MARKER_HALF)
        if low is not None and len(x):  # error bars: ERROR_SAMPLES points each (a box is >= 0.05 NDC tall)
            t = np.linspace(0.0, 1.0, ERROR_SAMPLES)
            bars = np.asarray(low, float)[:, None] + (np.asarray(high, float) - np.asarray(low, float))[:, None] * t[None, :]
            EX, EY = ndc(np.repeat(np.asarray(x, float)[:, None], ERROR_SAMPLES, axis=1).ravel(), bars.ravel())
            xs.append(EX)
            ys.append(EY)

    def bars(across: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        X0, Y0 = ndc(across, low)
        X1, Y1 = ndc(across, high)
        ok0, ok1 = np.isfinite(X0) & np.isfinite(Y0), np.isfinite(X1) & np.isfinite(Y1)
        segments(X0[ok0 & ok1], Y0[ok0 & ok1], X1[ok0 & ok1], Y1[ok0 & ok1])
        xs.extend([X1[ok1], X0[ok0 & ~ok1]])  # an end off a log axis: the other end alone
        ys.extend([Y1[ok1], Y0[ok0 & ~ok1]])

    with np.errstate(divide="ignore", invalid="ignore"):
        for kind, *arrays in items:
            {"line": sampled, "markers": markers, "bars": bars}[kind](*arrays)
    if ends[0]:  # every segment sampled every SAMPLE_STEP from its start (its end excluded)
        X0, Y0, X1, Y1 = (np.concatenate(v) for v in ends)
        n = np.maximum(np.ceil(np.hypot(X1 - X0, Y1 - Y0) / SAMPLE_STEP).astype(int), 1)
        start = np.repeat(np.arange(n.size), n)
        t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
        xs.append(X0[start] + t * (X1 - X0)[start])
        ys.append(Y0[start] + t * (Y1 - Y0)[start])
    if not xs:
        return np.zeros((0, 2))
    points = np.column_stack((np.concatenate(xs), np.concatenate(ys)))
    left, right, bottom, top = margins
    inside = (points[:, 0] >= left) & (points[:, 0] <= 1 - right) & (points[:, 1] >= bottom) & (points[:, 1] <= 1 - top)
    return points[inside & np.isfinite(points).all(axis=1)]


def _graph_y_errors(graph, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(low, high) y errors of a TGraphErrors or TGraphAsymmErrors, (None, None) for a TGraph."""
    if graph.InheritsFrom("TGraphAsymmErrors"):
        low, high = graph.GetEYlow(), graph.GetEYhigh()
    elif graph.InheritsFrom("TGraphErrors"):
        low = high = graph.GetEY()
    else:
        return None, None
    return np.frombuffer(low, dtype=np.float64, count=n).copy(), np.frombuffer(high, dtype=np.float64, count=n).copy()


_BIN_TYPES = {"TH1D": np.float64, "TH1F": np.float32, "TH1I": np.int32, "TH1S": np.int16, "TH1C": np.int8}


def _bin_contents(hist, nb: int) -> np.ndarray:
    """Contents of bins 1..nb as float64 (from the histogram's array where its type is known)."""
    dtype = _BIN_TYPES.get(hist.ClassName())
    if dtype is None or hist.GetBuffer():
        return np.array([hist.GetBinContent(i) for i in range(1, nb + 1)])
    return np.frombuffer(hist.GetArray(), dtype=dtype, count=nb + 2)[1:-1].astype(np.float64)


def _bin_errors(hist, nb: int) -> np.ndarray:
    """Errors of bins 1..nb, as TH1::GetBinError: sqrt(sum of w^2), else sqrt(|content|)."""
    if hist.ClassName() not in _BIN_TYPES or hist.GetBinErrorOption() != root().TH1.kNormal or hist.GetBuffer():
        return np.array([hist.GetBinError(i) for i in range(1, nb + 1)])
    sumw2 = hist.GetSumw2()
    if sumw2.fN:
        return np.sqrt(np.frombuffer(sumw2.GetArray(), dtype=np.float64, count=nb + 2)[1:-1])
    return np.sqrt(np.abs(_bin_contents(hist, nb)))


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
       figure, `draw(fig, frame)` the data, and the box goes in the first free corner;
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
    for frame in frames:
        fig = make(frame)
        draw(fig, frame)
        labels = [label for _, label, _ in fig.legend]
        items = drawn_items(fig)
        if frame is frames[0]:
            first = items
        layout = Layout(margins_of(fig.pads[0]), pad_scale(fig, 0), items)
        box = free_box(fig, frame, len(context) + len(labels), box_width([*context, *labels]), corners, layout=layout)
        if box is not None:
            add_legend_box(fig, box, context)
            return fig
        fig.close()
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


def plain_figure(name: str, frame: Frame) -> Figure:
    """A single square pad with a frame and no CMS label (computing-resource plots are not physics
    results); same size and margins as `figure`."""
    canvas, hframe = _framed_canvas(name, frame, (0.17, 0.04, 0.13, 0.06), 1.6)
    hframe.GetYaxis().SetMaxDigits(4)
    return Figure(name=name, canvas=canvas, pads=[canvas], extras=[hframe])


FRAME_BINS = 1000  # TPad::DrawFrame's


def draw_frame(pad, xmin: float, ymin: float, xmax: float, ymax: float, title: str = ""):
    """TPad::DrawFrame without the Update() it ends with (a paint of the whole pad: 0.2 ms of a
    header figure's 0.3, 0.7 ms of a ratio figure's 1.2): the same "hframe" histogram
    (FRAME_BINS bins, spaced evenly in log x on a log x axis), drawn in `pad`, which it returns
    to. The paint that exports the figure, or draws the stored canvas, sets the pad's ranges and
    frame from it as DrawFrame's paint would have (the same pixels: checked on every figure of
    the demo). cmsstyle's cmsCanvas keeps its own DrawFrame: without that paint, its TFrame
    (GetFrame().Draw()) is drawn as a stray box on figures that relabel their frame's axis."""
    ROOT = root()
    if pad.GetLogx() and 0 < xmin < xmax:
        edges = np.exp(np.log(xmin) + np.arange(FRAME_BINS + 1) * ((np.log(xmax) - np.log(xmin)) / FRAME_BINS))
        edges[0] = xmin
        hframe = ROOT.TH1F("hframe", title, FRAME_BINS, edges)
    else:
        hframe = ROOT.TH1F("hframe", title, FRAME_BINS, xmin, xmax)
    hframe.SetBit(ROOT.TH1.kNoStats)
    hframe.SetBit(ROOT.TObject.kCanDelete)  # the pad deletes it, as DrawFrame's
    ROOT.SetOwnership(hframe, False)
    hframe.SetMinimum(ymin)
    hframe.SetMaximum(ymax)
    hframe.GetYaxis().SetLimits(ymin, ymax)
    hframe.SetDirectory(ROOT.nullptr)
    pad.cd()
    hframe.Draw(" ")
    pad.cd()
    return hframe


def _framed_canvas(name: str, frame: Frame, margins: tuple[float, float, float, float], y_offset: float):
    """A 600 x 600 canvas with `margins` (left, right, bottom, top) and its frame: titled axes, no
    title box; (canvas, frame histogram)."""
    ROOT = root()
    canvas = ROOT.TCanvas(unique(name), "", 600, 600)
    canvas.SetCanvasSize(600, 600)  # the image itself (the constructor's size includes decorations)
    canvas.SetMargin(*margins)
    canvas.SetLogy(frame.logy)
    hframe = draw_frame(canvas, frame.x[0], frame.y[0], frame.x[1], frame.y[1])
    hframe.SetTitle("")
    hframe.SetBit(ROOT.TH1.kNoTitle)
    for axis, title in ((hframe.GetXaxis(), frame.xtitle), (hframe.GetYaxis(), frame.ytitle)):
        axis.SetTitle(title)
        axis.SetTitleSize(0.05)
        axis.SetLabelSize(0.045)
        axis.SetTitleFont(42)
        axis.SetLabelFont(42)
    hframe.GetYaxis().SetTitleOffset(y_offset)
    _unit_axis_ticks(hframe, frame)
    # a y title longer than a short frame (under a tall header) would run off the canvas: smaller,
    # down to the 7 pt floor (0.031 of 600 px at 8 cm)
    frame_px = (1 - margins[2] - margins[3]) * 600
    need_px = max(_visible_length(frame.ytitle), 1) * 0.5 * 0.05 * 600
    if need_px > 0.95 * frame_px:
        size = max(0.05 * 0.95 * frame_px / need_px, 0.032)
        hframe.GetYaxis().SetTitleSize(size)
        hframe.GetYaxis().SetTitleOffset(y_offset * 0.05 / size)  # ROOT's offset is in title sizes: same place
    return canvas, hframe


def panel_figure(name: str, frames: Sequence[Frame], right_margin: float = 0.05, cms_pos: int = 11) -> Figure:
    """Side-by-side pads (600 px each), each with a CMS frame and CMS label (cms_pos 0: above the frame)."""
    ROOT, cms = root(), cmsstyle()
    canvas = ROOT.TCanvas(unique(name), name, 600 * len(frames), 600)
    canvas.Divide(len(frames), 1, 0.001, 0.001)
    fig = Figure(name=name, canvas=canvas)
    for i, frame in enumerate(frames, start=1):
        pad = canvas.cd(i)
        pad.SetMargin(0.16, right_margin, 0.13, 0.08)
        pad.SetLogy(frame.logy)
        hframe = draw_frame(pad, frame.x[0], frame.y[0], frame.x[1], frame.y[1])
        hframe.GetXaxis().SetTitle(frame.xtitle)
        hframe.GetYaxis().SetTitle(frame.ytitle)
        hframe.GetYaxis().SetTitleOffset(1.35)
        hframe.GetYaxis().SetMaxDigits(4)
        cms.CMS_lumi(pad, cms_pos)
        fig.pads.append(pad)
    return fig


MATRIX_SIZE = (800, 600)  # every matrix and map: a fixed 4:3 canvas, whatever the class names
MATRIX_LABEL_SIZE = 0.05  # cell numbers and axis titles: >= 7 pt (0.0412 of 600 px) when the figure is 8 cm wide
BIN_LABEL_SIZE = {"square": 0.05, "matrix": 0.068}  # ROOT draws bin labels at 2/3 of the label size (TGaxis)
CONTEXT_SIZE = {"square": 0.032, "matrix": 0.045}  # context lines: >= 7 pt at 8 cm (0.045: 27 px, where ROOT's PNG text leaves no gap before a Greek letter, as at 0.044)
MATRIX_MARGINS = (0.30, 0.17, 0.31, 0.08)  # left (class labels), right (palette), bottom (titles, 2 context lines), top


def matrix_figure(name: str, n_panels: int = 1, labels: Sequence[str] = ()) -> Figure:
    """One frameless 4:3 pad for a TH2 drawn with its own labelled axes (a matrix or a mass-grid
    map); the CMS label sits above the frame, context goes below it (add_text). `n_panels` is 1:
    one figure per file."""
    if n_panels != 1:
        raise ValueError("one figure per file: matrix_figure draws a single panel")
    ROOT = root()
    canvas = ROOT.TCanvas(unique(name), "", *MATRIX_SIZE)
    canvas.SetCanvasSize(*MATRIX_SIZE)  # the image itself 800 x 600 (the constructor's size includes decorations)
    canvas.SetMargin(*MATRIX_MARGINS)
    return Figure(name=name, canvas=canvas, pads=[canvas])


def place_palette(hist, pad) -> None:
    """The CMS label above the frame and the palette of a COLZ `hist` beside the frame, its top
    end PALETTE_DROP below the frame's: its top label then stays clear of the run text. The
    palette is made here, where cmsstyle.UpdatePalettePosition would move it to (the top
    lowered), and the histogram painter uses it as it finds it: no paint of the pad needed."""
    cms_label_above(pad)
    pad.RedrawAxis()  # cmsstyle.GetPalette's UpdatePad
    xa, ya = hist.GetXaxis(), hist.GetYaxis()
    if not any(obj.InheritsFrom("TFrame") for obj in pad.GetListOfPrimitives()):
        _painted_frame(pad, Frame((xa.GetXmin(), xa.GetXmax()), (ya.GetXmin(), ya.GetXmax()), "", ""))
    functions = hist.GetListOfFunctions()
    palette = functions.FindObject("palette")
    if not palette:  # as THistPainter makes it: the z axis's attributes, first among the functions
        ROOT = root()
        palette = ROOT.TPaletteAxis(0.0, 0.0, 0.0, 0.0, hist)
        ROOT.SetOwnership(palette, False)  # the histogram deletes its functions
        functions.AddFirst(palette)
    left, right, bottom, top = margins_of(pad)
    x1, x2, y1, y2 = 1 - right * 0.95, 1 - right * 0.70, bottom, 1 - top - PALETTE_DROP
    # in the pad's coordinates (the histogram's axes: the pad is not painted yet), as the painter
    # reads them, then in NDC (TPave's setters of pad coordinates rewrite the NDC ones)
    to_x = lambda u: xa.GetXmin() + (u - left) / (1 - left - right) * (xa.GetXmax() - xa.GetXmin())  # noqa: E731
    to_y = lambda v: ya.GetXmin() + (v - bottom) / (1 - bottom - top) * (ya.GetXmax() - ya.GetXmin())  # noqa: E731
    palette.SetX1(to_x(x1))
    palette.SetX2(to_x(x2))
    palette.SetY1(to_y(y1))
    palette.SetY2(to_y(y2))
    palette.SetX1NDC(x1)
    palette.SetX2NDC(x2)
    palette.SetY1NDC(y1)
    palette.SetY2NDC(y2)
    pad.Modified()


PALETTE_DROP = 0.04
RUN_TEXT_FITS = 14  # characters of run text beside 'CMS Simulation Preliminary' above a matrix frame


def cms_label_above(pad) -> None:
    """The CMS label above the frame (cmsstyle's iPos 0) with the run text right-aligned at the
    canvas edge, over the palette: above a narrow frame the two would otherwise collide (CMS_lumi
    places its texts from the pad's margins when called)."""
    right = pad.GetRightMargin()
    pad.SetRightMargin(0.02)
    cms = cmsstyle()
    run_text = f"{cms.cmsstyle.cms_lumi} ({cms.cmsstyle.cms_energy})"  # what CMS_lumi writes at the right
    with unpainted():  # a run text longer than 'Run 2 (13 TeV)' smaller, clear of the extra text (Run 3, 13.6 TeV)
        cms.CMS_lumi(pad, 0, min(1.0, RUN_TEXT_FITS / _visible_length(run_text)))
    pad.SetRightMargin(right)


PALETTE_EXEC = re.compile(r"gStyle->SetPalette\((\d+)\);")  # the TExec a COLZ figure stores its palette with


def palette_exec(number: int) -> object:
    """The TExec storing palette `number` with a COLZ canvas: the one executable primitive a
    stored canvas may carry (draw.stored allows exactly these commands)."""
    return root().TExec(PALETTE_NAME, palette_command(number))


def paint(pad) -> None:
    """Modified() and Update() of `pad`, without the cost of its palette TExec (palette_set)."""
    with palette_set(pad):
        pad.Modified()
        pad.Update()


@contextlib.contextmanager
def palette_set(pad) -> Iterator[None]:
    """`pad` without its palette TExec (PALETTE_EXEC) inside the block, that palette set directly
    instead: ROOT's interpreter compiles a TExec's line at each paint (3 ms), for the same paint."""
    primitives = pad.GetListOfPrimitives()
    palette = next((obj for obj in primitives if obj.InheritsFrom("TExec") and PALETTE_EXEC.fullmatch(obj.GetTitle())), None)
    if palette is None:
        yield
        return
    following = primitives.After(palette)
    primitives.Remove(palette)
    root().gStyle.SetPalette(int(PALETTE_EXEC.fullmatch(palette.GetTitle()).group(1)))
    try:
        yield
    finally:  # back in its place (a first paint puts the TFrame before it)
        if following:
            primitives.AddBefore(following, palette)
        else:
            primitives.Add(palette)


def _place(fig: Figure, key: str, obj: object, option: str, label: str | None, legend_option: str, pad: int) -> object:
    """Name `obj` after its key, draw it on the pad, register its legend entry, keep it alive."""
    obj.SetName(key.replace("/", "_"))
    fig.pads[pad].cd()
    obj.Draw(option)
    if label:
        fig.legend.append((obj, label, legend_option))
    return fig.keep(key, obj, label)


def add_graph(fig: Figure, key: str, x: np.ndarray, y: np.ndarray, label: str | None, *, line_color: int,
              line_style: int = 1, width: int | None = None, pad: int = 0) -> object:  # fmt: skip
    """TGraph(n, x, y) from arrays, drawn as a line."""
    ROOT = root()
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    graph = ROOT.TGraph(x.size, x, y)
    set_title(graph, label or key)  # whole: TGraph's SetTitle would cut a label at ';'
    graph.SetLineColor(line_color)
    graph.SetLineStyle(line_style)
    graph.SetLineWidth(width or STYLE["line_width"])
    graph.SetMarkerColor(line_color)
    graph.SetMarkerStyle(1)  # a line alone in TBrowser too, not the style's fat markers
    return _place(fig, key, graph, "L SAME", label, "l", pad)


def add_error_points(fig: Figure, key: str, x: np.ndarray, y: np.ndarray, ey: np.ndarray, label: str | None, *,
                     marker_color: int, marker: int = 20, pad: int = 0) -> object:  # fmt: skip
    """TGraphErrors of markers with vertical error bars (NaN errors drawn as 0)."""
    ROOT = root()
    n = len(x)
    as_c = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    graph = ROOT.TGraphErrors(n, as_c(x), as_c(y), as_c(np.zeros(n)), as_c(np.nan_to_num(ey)))
    graph.SetMarkerStyle(marker)
    graph.SetMarkerColor(marker_color)
    graph.SetLineColor(marker_color)
    graph.SetMarkerSize(1.2)
    return _place(fig, key, graph, "P SAME", label, "pe", pad)


def add_band(fig: Figure, key: str, x: np.ndarray, low: np.ndarray, high: np.ndarray, label: str | None, *,
             band_color: int, alpha: float = 0.3, pad: int = 0) -> object:  # fmt: skip
    """Filled band between `low` and `high` (a closed TGraph polygon), semi-transparent."""
    ROOT = root()
    ok = np.isfinite(low) & np.isfinite(high)
    xs = np.ascontiguousarray(np.r_[x[ok], x[ok][::-1]], dtype=np.float64)
    ys = np.ascontiguousarray(np.r_[high[ok], low[ok][::-1]], dtype=np.float64)
    graph = ROOT.TGraph(xs.size, xs, ys)
    graph.SetFillColorAlpha(band_color, alpha)
    graph.SetLineWidth(0)
    return _place(fig, key, graph, "F SAME", label, "f", pad)


def add_points(fig: Figure, key: str, x: np.ndarray, y: np.ndarray, label: str | None, *, marker_color: int,
               marker: int = 20, pad: int = 0) -> object:  # fmt: skip
    """TGraph of markers (e.g. an operating point)."""
    ROOT = root()
    graph = ROOT.TGraph(len(x), np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
    graph.SetMarkerStyle(marker)
    graph.SetMarkerColor(marker_color)
    graph.SetMarkerSize(1.3)
    return _place(fig, key, graph, "P SAME", label, "p", pad)


def add_hist(fig: Figure, key: str, hist, label: str | None, *, hist_color: int, points: bool, pad: int = 0) -> object:
    """Train-style (line) or test-style (points with error bars) histogram."""
    cms = cmsstyle()
    fig.pads[pad].cd()
    if points:
        cms.cmsDraw(hist, "E1 P", marker=20, msize=STYLE["marker_size"], mcolor=hist_color, fstyle=0, lwidth=1)
    else:
        cms.cmsDraw(hist, "HIST", mcolor=hist_color, lwidth=STYLE["line_width"], fstyle=0, marker=0)
    if label:
        fig.legend.append((hist, label, "pe" if points else "l"))
    return fig.keep(key, hist, label)


def label_frame_bins(fig: Figure, labels: Sequence[str], pad: int = 0, size: float | None = None, ticks: bool = True) -> None:
    """Give the frame of a [0, n] x-axis one labelled bin per category (`size`: the label size,
    drawn at 2/3 of it; `ticks` False: no tick marks, e.g. for fold numbers)."""
    cms = cmsstyle()
    frame = cms.GetCmsCanvasHist(fig.pads[pad])
    axis = frame.GetXaxis()
    axis.Set(len(labels), 0.0, float(len(labels)))
    for k, label in enumerate(labels, start=1):
        axis.SetBinLabel(k, label)
    axis.SetLabelSize(size or BIN_LABEL_SIZE["square"])
    axis.LabelsOption("h")
    if not ticks:
        axis.SetTickLength(0.0)


def add_bars(fig: Figure, key: str, values: np.ndarray, labels: Sequence[str], label: str | None, *,
             bar_color: int, offset: float, width: float, pad: int = 0) -> object:  # fmt: skip
    """A bar per category (bin k <-> labels[k]) at the given offset/width within each bin."""
    ROOT = root()
    n = len(labels)
    hist = ROOT.TH1D(unique(key.replace("/", "_")), "", n, 0.0, float(n))
    set_title(hist, f"{label or key} (no statistical error)")  # whole: the constructor would cut at ';'
    hist.Sumw2()  # explicit errors: zero, said in the title (a derived quantity, not a count)
    hist.GetXaxis().SetTitle("Class")
    for k in range(n):  # one bar per class, not per event
        hist.SetBinContent(k + 1, float(values[k]))
        hist.GetXaxis().SetBinLabel(k + 1, labels[k])
    hist.SetFillColor(bar_color)
    hist.SetLineColor(bar_color)
    hist.SetBarOffset(offset)
    hist.SetBarWidth(width)
    fig.pads[pad].cd()
    hist.Draw("BAR SAME")
    if label:
        fig.legend.append((hist, label, "f"))
    return fig.keep(key, hist, label)


LINE_PIECES = 10  # straight pieces of a reference line (add_line)


def add_line(fig: Figure, x1: float, y1: float, x2: float, y2: float, label: str | None = None, pad: int = 0,
             line_color: int | None = None, line_style: int = 3) -> None:  # fmt: skip
    """A reference line in data coordinates (dotted grey by default: the random classifier), drawn
    as LINE_PIECES straight pieces (a TGraph, points spaced evenly as drawn, log axes included):
    ROOT's PNG painter loses stretches of a long dotted TLine in a sub-pad (ratio figures), a
    piece restarts the pattern."""
    ROOT = root()
    p = fig.pads[pad]
    t = np.linspace(0.0, 1.0, LINE_PIECES + 1)

    def along(a: float, b: float, log: bool) -> np.ndarray:
        return a * (b / a) ** t if log and a > 0 and b > 0 else a + (b - a) * t

    xs = np.ascontiguousarray(along(x1, x2, bool(p.GetLogx())), dtype=np.float64)
    ys = np.ascontiguousarray(along(y1, y2, bool(p.GetLogy())), dtype=np.float64)
    line = ROOT.TGraph(xs.size, xs, ys)
    line.SetName(unique("reference_line"))
    set_title(line, label or "reference line")
    line.SetLineColor(color("diagonal") if line_color is None else line_color)
    line.SetLineStyle(line_style)
    line.SetLineWidth(2)
    p.cd()
    line.Draw("L SAME")
    fig.extras.append(line)
    if label:
        fig.legend.append((line, label, "l"))


def add_legend(fig: Figure, x1: float, y1: float, x2: float, y2: float, pad: int = 0, columns: int | None = None,
               margin: float | None = None) -> None:  # fmt: skip
    """Legend of every labelled object drawn so far (NDC coordinates); `margin`: fraction of the
    box width taken by the line/marker samples (ROOT's TLegend margin)."""
    cms = cmsstyle()
    fig.pads[pad].cd()
    leg = cms.cmsLeg(x1, y1, x2, y2, textSize=STYLE["legend_text_size"], columns=columns)
    if margin is not None:
        leg.SetMargin(margin)
    for obj, label, option in fig.legend:
        leg.AddEntry(obj, label, option)
    fig.extras.append(leg)
    fig.legend = []


def add_text(fig: Figure, lines: Sequence[str], x: float, y: float, pad: int = 0, align: int = 11,
             size: float | None = None) -> None:  # fmt: skip
    """Context lines (channel, fold, subset, ...) in NDC, top line at y."""
    ROOT = root()
    fig.pads[pad].cd()
    for i, text in enumerate(lines):
        latex = ROOT.TLatex()
        latex.SetNDC()
        latex.SetTextFont(42)
        latex.SetTextSize(size or STYLE["label_text_size"])
        latex.SetTextAlign(align)
        latex.DrawLatex(x, y - i * 1.45 * (size or STYLE["label_text_size"]), text)  # room for sub- and superscripts
        fig.extras.append(latex)


UNDEFINED_CELL = -1.0  # below every matrix's minimum (fractions, counts, AUCs, p-values are >= 0)


def add_matrix(fig: Figure, key: str, matrix: np.ndarray, labels: Sequence[str], fmt: str, pad: int,
               ztitle: str, title: str = "") -> object:  # fmt: skip
    """TH2D of an n x n matrix: true class on y (first class at the top), predicted on x, numbers on
    cells; `title` says what it is (shown in TBrowser, not on the canvas). Undefined (non-finite)
    cells are left blank: no number, content UNDEFINED_CELL below the palette (not painted)."""
    ROOT, cms = root(), cmsstyle()
    n = len(labels)
    matrix = np.asarray(matrix, dtype=float)
    defined = np.isfinite(matrix)
    hist = ROOT.TH2D(unique(key.replace("/", "_")), title, n, 0, n, n, 0, n)
    for i in range(n):  # n <= a handful of classes: cells, not events
        for j in range(n):
            hist.SetBinContent(j + 1, n - i, float(matrix[i, j]) if defined[i, j] else UNDEFINED_CELL)
    for k, label in enumerate(labels):
        hist.GetXaxis().SetBinLabel(k + 1, label)
        hist.GetYaxis().SetBinLabel(n - k, label)
    for axis in (hist.GetXaxis(), hist.GetYaxis(), hist.GetZaxis()):
        axis.SetLabelSize(BIN_LABEL_SIZE["matrix"] if axis != hist.GetZaxis() else MATRIX_LABEL_SIZE)
        axis.SetTitleSize(MATRIX_LABEL_SIZE)
    hist.SetBit(ROOT.TH1.kNoTitle)  # the title is for TBrowser: no title box when the canvas is redrawn
    hist.GetXaxis().SetTitle("Predicted class")
    hist.GetYaxis().SetTitle("True class")
    hist.GetZaxis().SetTitle(ztitle)
    hist.GetZaxis().SetTitleOffset(1.15)
    hist.SetMinimum(0.0)
    hist.GetXaxis().SetTitleOffset(1.45)  # below rotated class labels
    hist.GetYaxis().SetTitleOffset(2.6)  # past the class labels
    hist.SetStats(False)
    pad_obj = fig.pads[pad]
    pad_obj.cd()
    fit_class_labels(pad_obj, hist, labels)
    hist.Draw("COLZ")
    palette = palette_exec(57)  # kBird, stored with the canvas, painted before the cells
    pad_obj.GetListOfPrimitives().AddFirst(palette)
    fig.extras.append(palette)
    place_palette(hist, pad_obj)
    top = float(np.max(matrix[defined])) if defined.any() else 0.0
    for i in range(n):
        for j in range(n):
            if not defined[i, j]:
                continue
            text = ROOT.TLatex(j + 0.5, n - i - 0.5, format(float(matrix[i, j]), fmt))
            text.SetTextAlign(22)
            text.SetTextFont(42)
            text.SetTextSize(MATRIX_LABEL_SIZE)
            text.SetTextColor(ROOT.kWhite if top > 0 and matrix[i, j] < 0.5 * top else ROOT.kBlack)
            text.Draw()
            fig.extras.append(text)
    return fig.keep(key, hist)


def _text_width(text: str, size: float) -> float:
    """Width in pixels of a font-42 TLatex of `size` in the current pad."""
    latex = root().TLatex(0, 0, text)
    latex.SetTextFont(42)
    latex.SetTextSize(size)
    w, h = ctypes.c_uint(0), ctypes.c_uint(0)
    latex.GetBoundingBox(w, h)
    return float(w.value)


# where ROOT puts an axis title (measured on this ROOT, font 42): its near edge is 1.6 x size x
# (pad width for y, pad height for x) x offset from the axis, less DESCENT x size x pad height;
# the title is TITLE_HEIGHT x size x pad height thick
TITLE_STEP, TITLE_DESCENT, TITLE_HEIGHT = 1.6, 0.37, 0.72
LABEL_GAP = 12  # pixels between class labels and the axis title
TILT_LIMIT = 1.2  # class labels up to this many columns wide are drawn tilted, wider ones vertical


def fit_class_labels(pad, hist, labels: Sequence[str]) -> None:
    """Margins and title offsets of a class matrix from its labels' measured widths, so that long
    class names ("nonprompt-TT") never run into the axis titles: the y title left of the longest
    label (a wider left margin when needed), x labels vertical when one does not fit its column,
    the x title below them. Short names keep the standard layout (MATRIX_MARGINS, offsets)."""
    W, H = MATRIX_SIZE
    n = max(len(labels), 1)
    size = BIN_LABEL_SIZE["matrix"] * 2 / 3  # ROOT draws bin labels at 2/3 of the label size
    title = MATRIX_LABEL_SIZE
    widest = max((_text_width(label, size) for label in labels), default=0.0)
    x_axis, y_axis = hist.GetXaxis(), hist.GetYaxis()
    left, right, bottom, top = MATRIX_MARGINS
    # y: the title's near edge LABEL_GAP past the labels; its far edge inside the canvas
    near = widest + 0.005 * W + LABEL_GAP
    left = min(max(left, (near + TITLE_HEIGHT * title * H + 6) / W), 0.45)
    offset = (near + TITLE_DESCENT * title * H) / (TITLE_STEP * title * W)
    y_axis.SetTitleOffset(max(y_axis.GetTitleOffset(), offset))
    column = (1 - left - right) * W / n
    height = TITLE_HEIGHT * size * H
    if widest > TILT_LIMIT * column:  # even tilted, neighbours would run into each other: vertical
        x_axis.LabelsOption("v")
        drop = widest
    elif widest > column:  # ROOT tilts labels wider than their column by about 23 degrees
        drop = widest * np.sin(np.radians(25)) + height * np.cos(np.radians(25))
    else:
        drop = height
    near = drop + 0.005 * H + LABEL_GAP
    offset = (near + TITLE_DESCENT * title * H) / (TITLE_STEP * title * H)
    x_axis.SetTitleOffset(max(x_axis.GetTitleOffset(), offset))
    below = (TITLE_STEP * x_axis.GetTitleOffset() - TITLE_DESCENT + TITLE_HEIGHT) * title * H
    bottom = min(max(bottom, (below + 6) / H + CONTEXT_BAND), 0.6)
    pad.SetMargin(left, right, bottom, top)


CONTEXT_BAND = 0.15  # the two context lines under a matrix (add_text at 0.03 + 1.45 x CONTEXT_SIZE)


def save(fig: Figure, directory: Path, formats: Sequence[str]) -> list[Path]:
    """Write the canvas as <directory>/<fig.name>.<fmt> for each format; the canvas stays open."""
    cms = cmsstyle()
    written = []
    for pad in fig.pads:
        pad.RedrawAxis()
    with quiet_root(root().kWarning), palette_set(fig.canvas):  # no "Info in <TCanvas::Print>" per file
        for fmt in formats:
            path = Path(directory) / f"{fig.name}.{fmt}"
            with unpainted():  # SaveAs paints the canvas into the file: the paint cmsstyle adds before it is left out
                cms.SaveCanvas(fig.canvas, str(path), close=False)
            written.append(path)
    return written


# --- a main frame over a ratio panel (the lower panel of every curve comparison) ---

RATIO_HEIGHT = 0.3  # canvas NDC of the lower pad (the figure linter allows < 0.4)
RATIO_GAP = 0.015  # canvas NDC between the two frames
RATIO_MARGINS = (HEADER_LEFT, HEADER_RIGHT, 0.13, 0.07)  # left, right, bottom, top in canvas NDC: header_figure's
RATIO_TEXT = {"title": 0.05, "label": 0.045, "y_offset": 1.45, "floor": 0.032}  # canvas sizes, as _framed_canvas
RATIO_MAX_DIGITS = 4  # TGaxis's MaxDigits on both panels' y axes


def pad_scale(fig: Figure, pad: int = 0) -> float:
    """Texts and vertical NDC lengths sized for the whole canvas, times this in pad `pad`: ROOT
    sizes a pad's texts on its smaller side, so a pad lower than the canvas needs larger values
    for the same printed size (1 for the canvas itself)."""
    p = fig.pads[pad]
    if p.InheritsFrom("TCanvas"):
        return 1.0
    W, H = fig.canvas.GetWw(), fig.canvas.GetWh()
    return min(W, H) / max(min(p.GetAbsWNDC() * W, p.GetAbsHNDC() * H), 1.0)


def _pad_axes(pad, frame: Frame, scale: float, show_x: bool) -> object:
    """Draw `frame` in `pad` with the axis texts of a header_figure times `scale` (printed at the
    same size); a y title longer than the frame smaller, down to the 7 pt floor (ratio_figure then
    gives both panels the smaller size and one offset); `show_x` False: no x labels or title and
    no lowest y label (the panel below has them)."""
    ROOT = root()
    pad.cd()
    pad.SetLogy(frame.logy)
    pad.SetLogx(frame.logx)
    hframe = draw_frame(pad, frame.x[0], frame.y[0], frame.x[1], frame.y[1])
    hframe.SetTitle("")
    hframe.SetBit(ROOT.TH1.kNoTitle)
    style = ROOT.gStyle
    for axis, title, name in ((hframe.GetXaxis(), frame.xtitle if show_x else "", "X"), (hframe.GetYaxis(), frame.ytitle, "Y")):
        axis.SetTitle(title)
        axis.SetTitleSize(RATIO_TEXT["title"] * scale)
        axis.SetLabelSize(RATIO_TEXT["label"] * scale if show_x or name == "Y" else 0.0)
        # an x label offset is a fraction of the pad's height (scaled), a y one of its width (as the canvas's)
        axis.SetLabelOffset(style.GetLabelOffset(name) * (scale if name == "X" else 1.0))
        axis.SetTitleFont(42)
        axis.SetLabelFont(42)
    yaxis = hframe.GetYaxis()
    frame_px = (1 - pad.GetTopMargin() - pad.GetBottomMargin()) * pad.GetAbsHNDC() * 600
    need_px = max(_visible_length(frame.ytitle), 1) * 0.55 * RATIO_TEXT["title"] * 600  # ROOT shrinks a title longer than its axis
    short = re.sub(r"\s*\([^()]*\)$", "", frame.ytitle)  # "Signal efficiency (TPR)" -> "Signal efficiency"
    if need_px * RATIO_TEXT["floor"] / RATIO_TEXT["title"] > 0.95 * frame_px and short:  # too long even at the floor
        yaxis.SetTitle(short)
        need_px = max(_visible_length(short), 1) * 0.55 * RATIO_TEXT["title"] * 600
    size = RATIO_TEXT["title"] * min(1.0, max(0.95 * frame_px / need_px, RATIO_TEXT["floor"] / RATIO_TEXT["title"]))
    yaxis.SetTitleSize(size * scale)  # its offset: ratio_figure's, the same in both panels
    hframe.GetXaxis().SetTitleOffset(1.1)
    hframe.GetXaxis().SetTickLength(style.GetTickLength("X") * scale)
    yaxis.SetMaxDigits(RATIO_MAX_DIGITS)
    if show_x:
        yaxis.SetNdivisions(504)  # a low panel: three to five labels
    else:
        yaxis.ChangeLabel(1, -1, 0.0)  # its lowest label would touch the top label of the panel below
    _unit_axis_ticks(hframe, frame)
    return hframe


def ratio_pad_margins(pad: int, header: float = RATIO_MARGINS[3], extra_space: float = 0.0) -> Margins:
    """The margins of ratio_figure's upper (0) or lower (1) pad, in the pad's NDC."""
    left, right, bottom, _ = RATIO_MARGINS
    y1, y2, top_margin, bottom_margin = (RATIO_HEIGHT, 1.0, header, RATIO_GAP / 2) if pad == 0 else \
        (0.0, RATIO_HEIGHT, RATIO_GAP / 2, bottom)  # fmt: skip
    return left + extra_space, right, bottom_margin / (y2 - y1), top_margin / (y2 - y1)


def ratio_header_geometry(header: float, extra_space: float = 0.0) -> tuple[Margins, float]:
    """(margins, pad_scale) of the upper pad of a 600 x 600 ratio_figure: boxed_figure's
    header_geometry for ratio figures."""
    return ratio_pad_margins(0, header, extra_space), 600 / max(min(1.0 * 600, (1.0 - RATIO_HEIGHT) * 600), 1.0)


def ratio_figure(name: str, frame: Frame, ratio: Frame, header: float = RATIO_MARGINS[3], extra_space: float = 0.0,
                 reference_line: bool = True) -> Figure:  # fmt: skip
    """A 600 x 600 figure: `frame` in the upper pad (pads[0]) over the ratio panel `ratio`
    (pads[1], RATIO_HEIGHT of the canvas) sharing its x axis, with a dashed line at 1; texts at
    the sizes of `figure` when printed; the CMS label above the upper frame. `header`: the canvas
    NDC above the upper frame (the label alone, or a header box: boxed_figure's make_header)."""
    ROOT, cms = root(), cmsstyle()
    if not (ratio.x == frame.x and ratio.logx == frame.logx):
        raise ValueError("a ratio panel shares the x axis of the frame above it")
    canvas = ROOT.TCanvas(unique(name), "", 600, 600)
    canvas.SetCanvasSize(600, 600)  # the image itself (the constructor's size includes decorations)
    left, right, bottom, top = RATIO_MARGINS
    fig = Figure(name=name, canvas=canvas)
    for key, (y1, y2), margins in (("main", (RATIO_HEIGHT, 1.0), ratio_pad_margins(0, header, extra_space)),
                                   ("ratio", (0.0, RATIO_HEIGHT), ratio_pad_margins(1, header, extra_space))):  # fmt: skip
        canvas.cd()
        pad = ROOT.TPad(unique(f"{name}_{key}"), "", 0.0, y1, 1.0, y2)
        pad.SetMargin(*margins)
        pad.Draw()
        fig.pads.append(pad)
    scales = [pad_scale(fig, index) for index in (0, 1)]
    frames = [_pad_axes(fig.pads[index], fr, scales[index], show_x)
              for index, (fr, show_x) in enumerate(((frame, False), (ratio, True)))]  # fmt: skip
    # one y-title size in both panels (printed), the smaller: a short upper frame shrinks its title,
    # and "Ratio" at full size would crowd the panel's tick labels; the same distance from the axis
    # (tick labels of a narrow ratio range, "0.95", further out; smaller, to the 7 pt floor, if the
    # margin has no room for it)
    size = min(hf.GetYaxis().GetTitleSize() / sc for hf, sc in zip(frames, scales))
    label_px, label_offset_px, left_px = RATIO_TEXT["label"] * 600, ROOT.gStyle.GetLabelOffset("Y") * 600, (left + extra_space) * 600
    while True:
        offset = RATIO_TEXT["y_offset"] * RATIO_TEXT["title"] / size  # in canvas title sizes: the same place as on a canvas
        offset = max(fit_y_title_offset(fr, offset, size * 600, label_px, label_offset_px, hf.GetYaxis().GetNdivisions(),
                                        max_digits=RATIO_MAX_DIGITS) for fr, hf in zip((frame, ratio), frames))  # fmt: skip
        if y_title_far_px(offset, size * 600) + TITLE_EDGE_PX <= left_px or size <= RATIO_TEXT["floor"]:
            break
        size = max(size - 0.002, RATIO_TEXT["floor"])
    # at the floor and still too far out: on the canvas, close to the labels, rather than cut off
    title_px = size * 600
    most = (left_px - TITLE_EDGE_PX + (Y_TITLE_DESCENT - Y_TITLE_THICK) * title_px) / (Y_TITLE_STEP * title_px)
    offset = min(offset, most)
    for hf, sc in zip(frames, scales):
        hf.GetYaxis().SetTitleSize(size * sc)
        hf.GetYaxis().SetTitleOffset(offset / sc)
    fig.extras += frames
    main = fig.pads[0]
    main.SetTopMargin(top / (1.0 - RATIO_HEIGHT))  # the CMS label at its usual place, above a header box too
    with unpainted():
        cms.CMS_lumi(main, 0)
    if extra_space:  # the CMS label moved right with the frame: the run text to the canvas edge (as `figure`)
        for obj in main.GetListOfPrimitives():
            if obj.InheritsFrom("TLatex") and obj.GetTextAlign() == 31:
                obj.SetX(obj.GetX() + min(extra_space, right - 0.015))
    main.SetTopMargin(header / (1.0 - RATIO_HEIGHT))
    if reference_line:
        add_line(fig, ratio.x[0], 1.0, ratio.x[1], 1.0, pad=1, line_color=color("reference"), line_style=2)
    return fig
