"""Drawing helpers shared by every visualize script: data in, ROOT objects out.

A `Figure` owns a canvas and every object drawn on it (kept alive from Python: no
SetOwnership games), plus its legend entries. Generic helpers draw curves, histograms,
matrices and labels; the plot functions in `plots.py` compose them. Call inside
`style.cms_style(...)`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.rootenv import quiet_root, root
from pnetviz.draw.style import STYLE, cmsstyle, color


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
        self.canvas.Close()


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
    the left margin); `cms_pos` is cmsstyle's iPos: 11 inside the frame top left, 0 above it."""
    cms = cmsstyle()
    canvas = cms.cmsCanvas(unique(name), *frame.x, *frame.y, frame.xtitle, frame.ytitle, square=square, iPos=cms_pos,
                           extraSpace=extra_space, yTitOffset=y_title_offset)  # fmt: skip
    canvas.SetCanvasSize(600 if square else 800, 600)  # the image itself square or 4:3 (cmsCanvas's includes decorations)
    canvas.SetLogy(frame.logy)
    canvas.SetLogx(frame.logx)
    _unit_axis_ticks(cms.GetCmsCanvasHist(canvas), frame)
    if extra_space and cms_pos == 0:  # the CMS label moved right with the frame: the run text to the canvas edge
        for obj in canvas.GetListOfPrimitives():
            if obj.InheritsFrom("TLatex") and obj.GetTextAlign() == 31:
                obj.SetX(obj.GetX() + min(extra_space, canvas.GetRightMargin() - 0.015))
    return Figure(name=name, canvas=canvas, pads=[canvas])


def _unit_axis_ticks(hframe, frame: Frame) -> None:
    """An x axis from 0 to 1 labelled every 0.2: eleven labels at 0.1 touch at 8 cm."""
    if hframe and not frame.logx and frame.x == (0.0, 1.0):
        hframe.GetXaxis().SetNdivisions(505)


def header_figure(name: str, frame: Frame, header: float, physics: bool = True) -> Figure:
    """A 600 x 600 CMS figure whose top `header` (NDC) above the frame holds the CMS label and,
    below it, the legend and context (add_header_box): for plots whose data fill the frame, such
    as log-y score distributions whose axis ends at a physical limit. `physics` False: no CMS label
    (computing-resource plots)."""
    cms = cmsstyle()
    canvas, hframe = _framed_canvas(name, frame, (HEADER_LEFT, HEADER_RIGHT, 0.13, header), 1.45)
    if physics:
        canvas.SetTopMargin(0.07)  # the CMS label and the run text at cmsstyle's usual place, above the header
        cms.CMS_lumi(canvas, 0)
    canvas.SetTopMargin(header)
    return Figure(name=name, canvas=canvas, pads=[canvas], extras=[hframe])


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
    top, bottom = 0.915, 1 - header + 0.012  # under the CMS label, above the frame
    size, step = STYLE["legend_text_size"], 0.045
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
    p = fig.pads[pad]
    left, right, bottom, top = p.GetLeftMargin(), p.GetRightMargin(), p.GetBottomMargin(), p.GetTopMargin()

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


def drawn_points(fig: Figure, frame: Frame, pad: int = 0) -> np.ndarray:
    """(k, 2) NDC points along everything drawn so far in the frame of a pad: lines and band
    outlines of graphs sampled every SAMPLE_STEP, markers as their corners and centre, error bars,
    1-D histograms as steps or points, TLines; points outside the frame dropped."""
    p = fig.pads[pad]
    parts: list[np.ndarray] = []

    def sampled(x: np.ndarray, y: np.ndarray) -> None:
        X, Y = to_ndc(fig, x, y, frame, pad)
        ok = np.isfinite(X) & np.isfinite(Y)
        X, Y = X[ok], Y[ok]
        if X.size < 2:
            parts.append(np.c_[X, Y])
            return
        n = np.maximum(np.ceil(np.hypot(np.diff(X), np.diff(Y)) / SAMPLE_STEP).astype(int), 1)
        start = np.repeat(np.arange(n.size), n)
        t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
        parts.append(np.c_[X[start] + t * np.diff(X)[start], Y[start] + t * np.diff(Y)[start]])
        parts.append(np.c_[X[-1:], Y[-1:]])

    def markers(x: np.ndarray, y: np.ndarray, low: np.ndarray | None = None, high: np.ndarray | None = None) -> None:
        X, Y = to_ndc(fig, x, y, frame, pad)
        for dx, dy in ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
            parts.append(np.c_[X + dx * MARKER_HALF, Y + dy * MARKER_HALF])
        if low is not None and len(x):  # error bars: ERROR_SAMPLES points each (a box is >= 0.05 NDC tall)
            t = np.linspace(0.0, 1.0, ERROR_SAMPLES)
            ys = np.asarray(low, float)[:, None] + (np.asarray(high, float) - np.asarray(low, float))[:, None] * t[None, :]
            xs = np.repeat(np.asarray(x, float)[:, None], ERROR_SAMPLES, axis=1)
            EX, EY = to_ndc(fig, xs.ravel(), ys.ravel(), frame, pad)
            parts.append(np.c_[EX, EY])

    frame_hist = next((o for o in p.GetListOfPrimitives() if o.InheritsFrom("TH1")), None)
    with np.errstate(divide="ignore", invalid="ignore"):
        link = p.GetListOfPrimitives().FirstLink()
        while link:
            obj, option = link.GetObject(), (link.GetOption() or "").upper()
            link = link.Next()
            if obj.InheritsFrom("TGraph") and obj.GetN() > 0:
                n = obj.GetN()
                x = np.frombuffer(obj.GetX(), dtype=np.float64, count=n).copy()
                y = np.frombuffer(obj.GetY(), dtype=np.float64, count=n).copy()
                if "F" in option:
                    sampled(np.r_[x, x[:1]], np.r_[y, y[:1]])
                if "L" in option or "C" in option or not any(c in option for c in "FP"):
                    sampled(x, y)
                if "P" in option:
                    errors = obj.InheritsFrom("TGraphErrors") or obj.InheritsFrom("TGraphAsymmErrors")
                    el = np.array([obj.GetErrorYlow(i) for i in range(n)]) if errors else None
                    eh = np.array([obj.GetErrorYhigh(i) for i in range(n)]) if errors else None
                    markers(x, y, None if el is None else y - el, None if eh is None else y + eh)
            elif obj.InheritsFrom("TH1") and obj.GetDimension() == 1 and obj != frame_hist:
                ax, nb = obj.GetXaxis(), obj.GetNbinsX()
                edges = np.linspace(ax.GetXmin(), ax.GetXmax(), nb + 1) if not ax.IsVariableBinSize() else \
                    np.array([ax.GetBinLowEdge(i) for i in range(1, nb + 2)])  # fmt: skip
                c = np.array([obj.GetBinContent(i) for i in range(1, nb + 1)])
                if "B" in option:  # bars: filled rectangles, sampled as vertical lines across each
                    for lo_edge, hi_edge, value in zip(edges[:-1], edges[1:], c):
                        start = lo_edge + obj.GetBarOffset() * (hi_edge - lo_edge)
                        for x in np.linspace(start, start + obj.GetBarWidth() * (hi_edge - lo_edge), 12):
                            sampled(np.array([x, x]), np.array([min(0.0, value), max(0.0, value)]))
                elif "E" in option or "P" in option:
                    e = np.array([obj.GetBinError(i) for i in range(1, nb + 1)])
                    shown = c != 0
                    markers(0.5 * (edges[:-1] + edges[1:])[shown], c[shown], (c - e)[shown], (c + e)[shown])
                else:
                    sampled(np.repeat(edges, 2)[1:-1], np.repeat(c, 2))
            elif obj.InheritsFrom("TLine") and not obj.TestBit(root().TLine.kLineNDC):
                sampled(np.array([obj.GetX1(), obj.GetX2()]), np.array([obj.GetY1(), obj.GetY2()]))
    if not parts:
        return np.zeros((0, 2))
    points = np.concatenate(parts)
    left, right, bottom, top = p.GetLeftMargin(), p.GetRightMargin(), p.GetBottomMargin(), p.GetTopMargin()
    inside = (points[:, 0] >= left) & (points[:, 0] <= 1 - right) & (points[:, 1] >= bottom) & (points[:, 1] <= 1 - top)
    return points[inside & np.isfinite(points).all(axis=1)]


def free_box(fig: Figure, frame: Frame, lines: int, width: float, corners: Sequence[str] = CORNERS,
             pad: int = 0) -> tuple[float, float, float, float] | None:  # fmt: skip
    """NDC (x1, y1, x2, y2) of a box for `lines` legend lines in the first corner of the frame
    (comfortable line height first, then the tightest) that no drawn data enter; None if none."""
    p = fig.pads[pad]
    left, right, bottom, top = p.GetLeftMargin(), p.GetRightMargin(), p.GetBottomMargin(), p.GetTopMargin()
    points = drawn_points(fig, frame, pad)
    gap = 0.006
    for line in LINE_HEIGHT[::-1]:
        height = (lines + 0.4) * line  # + room for the last line's descenders and subscripts
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
    leg = cms.cmsLeg(*box, textSize=STYLE["legend_text_size"])
    leg.SetMargin(0.17)
    for line in header:
        leg.AddEntry(root().nullptr, line, "")
    for obj, label, option in fig.legend:
        leg.AddEntry(obj, label, option)
    fig.extras.append(leg)
    fig.legend = []


def boxed_figure(make, frames: Sequence[Frame], draw, context: Sequence[str], corners: Sequence[str] = CORNERS,
                 physics: bool = True) -> Figure:  # fmt: skip
    """A figure with the context lines and the legend where the data leave room, in this order:
    1. one box in the frame: for each frame in turn (e.g. more headroom), `make(frame)` builds the
       figure, `draw(fig, frame)` the data, and the box goes in the first free corner;
    2. the context above the frame (header_figure with frames[0]), the legend in a free corner;
    3. both above the frame. `physics` False: no CMS label in the header (resource plots)."""
    for frame in frames:
        fig = make(frame)
        draw(fig, frame)
        labels = [label for _, label, _ in fig.legend]
        box = free_box(fig, frame, len(context) + len(labels), box_width([*context, *labels]), corners)
        if box is not None:
            add_legend_box(fig, box, context)
            return fig
        fig.close()
    header = header_height(context, [])
    fig = header_figure(fig.name, frames[0], header, physics=physics)
    draw(fig, frames[0])
    box = free_box(fig, frames[0], len(labels), box_width(labels), corners)
    if box is not None:
        add_legend_box(fig, box)  # takes the legend entries: the header gets the context alone
        add_header_box(fig, context, header)
        return fig
    fig.close()
    header = header_height(context, labels)
    fig = header_figure(fig.name, frames[0], header, physics=physics)
    draw(fig, frames[0])
    add_header_box(fig, context, header)
    return fig


def plain_figure(name: str, frame: Frame) -> Figure:
    """A single square pad with a frame and no CMS label (computing-resource plots are not physics
    results); same size and margins as `figure`."""
    canvas, hframe = _framed_canvas(name, frame, (0.17, 0.04, 0.13, 0.06), 1.6)
    hframe.GetYaxis().SetMaxDigits(4)
    return Figure(name=name, canvas=canvas, pads=[canvas], extras=[hframe])


def _framed_canvas(name: str, frame: Frame, margins: tuple[float, float, float, float], y_offset: float):
    """A 600 x 600 canvas with `margins` (left, right, bottom, top) and its frame: titled axes, no
    title box; (canvas, frame histogram)."""
    ROOT = root()
    canvas = ROOT.TCanvas(unique(name), "", 600, 600)
    canvas.SetCanvasSize(600, 600)  # the image itself (the constructor's size includes decorations)
    canvas.SetMargin(*margins)
    canvas.SetLogy(frame.logy)
    hframe = canvas.DrawFrame(frame.x[0], frame.y[0], frame.x[1], frame.y[1])
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
        hframe.GetYaxis().SetTitleSize(max(0.05 * 0.95 * frame_px / need_px, 0.032))
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
        hframe = pad.DrawFrame(frame.x[0], frame.y[0], frame.x[1], frame.y[1])
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
CONTEXT_SIZE = {"square": 0.032, "matrix": 0.044}  # context lines: >= 7 pt at 8 cm
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
    end PALETTE_DROP below the frame's: its top label then stays clear of the run text."""
    cms_label_above(pad)
    pad.Update()
    cmsstyle().UpdatePalettePosition(hist, pad)
    palette = hist.GetListOfFunctions().FindObject("palette")
    if palette:
        palette.SetY2NDC(1 - pad.GetTopMargin() - PALETTE_DROP)
    pad.Modified()


PALETTE_DROP = 0.04


def cms_label_above(pad) -> None:
    """The CMS label above the frame (cmsstyle's iPos 0) with the run text right-aligned at the
    canvas edge, over the palette: above a narrow frame the two would otherwise collide."""
    right = pad.GetRightMargin()
    pad.SetRightMargin(0.02)
    cmsstyle().CMS_lumi(pad, 0)
    pad.SetRightMargin(right)


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
    graph.SetTitle(label or key)
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
    hist = ROOT.TH1D(unique(key.replace("/", "_")), f"{label or key} (no statistical error)", n, 0.0, float(n))
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


def add_line(fig: Figure, x1: float, y1: float, x2: float, y2: float, label: str | None = None, pad: int = 0,
             line_color: int | None = None, line_style: int = 3) -> None:  # fmt: skip
    """A reference line in data coordinates (dotted grey by default: the random classifier)."""
    ROOT = root()
    line = ROOT.TLine(x1, y1, x2, y2)
    line.SetLineColor(color("diagonal") if line_color is None else line_color)
    line.SetLineStyle(line_style)
    line.SetLineWidth(2)
    fig.pads[pad].cd()
    line.Draw()
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


def add_matrix(fig: Figure, key: str, matrix: np.ndarray, labels: Sequence[str], fmt: str, pad: int,
               ztitle: str, title: str = "") -> object:  # fmt: skip
    """TH2D of an n x n matrix: true class on y (first class at the top), predicted on x, numbers on
    cells; `title` says what it is (shown in TBrowser, not on the canvas)."""
    ROOT, cms = root(), cmsstyle()
    n = len(labels)
    hist = ROOT.TH2D(unique(key.replace("/", "_")), title, n, 0, n, n, 0, n)
    for i in range(n):  # n <= a handful of classes: cells, not events
        for j in range(n):
            hist.SetBinContent(j + 1, n - i, float(matrix[i, j]))
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
    hist.Draw("COLZ")
    palette = ROOT.TExec("palette", "gStyle->SetPalette(57);")  # kBird, stored with the canvas, painted before the cells
    pad_obj.GetListOfPrimitives().AddFirst(palette)
    fig.extras.append(palette)
    place_palette(hist, pad_obj)
    top = float(np.max(matrix)) if matrix.size else 0.0
    for i in range(n):
        for j in range(n):
            text = ROOT.TLatex(j + 0.5, n - i - 0.5, format(float(matrix[i, j]), fmt))
            text.SetTextAlign(22)
            text.SetTextFont(42)
            text.SetTextSize(MATRIX_LABEL_SIZE)
            text.SetTextColor(ROOT.kWhite if top > 0 and matrix[i, j] < 0.5 * top else ROOT.kBlack)
            text.Draw()
            fig.extras.append(text)
    return fig.keep(key, hist)


def save(fig: Figure, directory: Path, formats: Sequence[str]) -> list[Path]:
    """Write the canvas as <directory>/<fig.name>.<fmt> for each format; the canvas stays open."""
    cms = cmsstyle()
    written = []
    for pad in fig.pads:
        pad.RedrawAxis()
    with quiet_root(root().kWarning):  # no "Info in <TCanvas::Print>" per file
        for fmt in formats:
            path = Path(directory) / f"{fig.name}.{fmt}"
            cms.SaveCanvas(fig.canvas, str(path), close=False)
            written.append(path)
    return written
