"""The canvases of single-frame figures: cmsstyle's square or 4:3 figure, the plain figure (no CMS
label), side-by-side panels.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from pnetviz.rootenv import root
from pnetviz.draw import native
from pnetviz.draw.style import cmsstyle, unpainted
from pnetviz.draw.geometry import Figure, Frame, Margins, TITLE_EDGE_PX, fit_y_title_offset, tick_labels, unique, visible_length, y_title_far_px


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
    fit = functools.partial(_y_axis_fit, square=square, extra_space=extra_space, y_title_offset=y_title_offset)
    ndivisions, fitted, extra_space = fit(frame)
    canvas = cms_canvas(unique(name), frame, square, cms_pos, extra_space, fitted)
    painted_frame(canvas, frame)
    compiled = native.kernels()
    if compiled is not None:  # the same three calls, compiled (frame_canvas.h canvas_shape)
        compiled.canvas_shape(canvas, 600 if square else 800, frame.logy, frame.logx)
    else:
        canvas.SetCanvasSize(600 if square else 800, 600)  # the image itself square or 4:3 (cmsCanvas's includes decorations)
        canvas.SetLogy(frame.logy)
        canvas.SetLogx(frame.logx)
    unit_axis_ticks(cms.GetCmsCanvasHist(canvas), frame)
    fit_x_title(cms.GetCmsCanvasHist(canvas).GetXaxis(), canvas, frame.xtitle)
    if ndivisions != style.GetNdivisions("Y"):
        cms.GetCmsCanvasHist(canvas).GetYaxis().SetNdivisions(ndivisions)
    if extra_space and cms_pos == 0:  # the CMS label moved right with the frame: the run text to the canvas edge
        for obj in canvas.GetListOfPrimitives():
            if obj.InheritsFrom("TLatex") and obj.GetTextAlign() == 31:
                obj.SetX(obj.GetX() + min(extra_space, canvas.GetRightMargin() - 0.015))
    return Figure(name=name, canvas=canvas, pads=[canvas], axis_fit=fit)


def cms_canvas(name: str, frame: Frame, square: bool, cms_pos: int, extra_space: float, y_offset: float):
    """cmsstyle's cmsCanvas(name, *frame.x, *frame.y, frame.xtitle, frame.ytitle, square, cms_pos,
    extra_space, yTitOffset=y_offset) inside style.unpainted, without the paint of its DrawFrame
    (0.4 ms of its 0.7): the same canvas, object for object (tests/draw/test_cms_canvas.py compares
    ROOT's JSON of both). That paint's traces are the pad's ranges, set here as it sets them (a
    linear frame: the canvas's log flags come after); the TFrame it makes is deleted by cmsCanvas's
    h.Draw("AXIS") (which clears the pad), the hframe drawn once with that option here. With the
    compiled drawing kernels (draw.native) the ROOT calls before and after the CMS label are made
    in C++ (macros/frame_canvas.h: the same calls in the same order), which spares their first-use
    wrappers in cling (~40, ~5 ms each)."""
    ROOT, cms = root(), cmsstyle()
    width, left = (600 if square else 800), _cms_left_px(y_offset)
    (xmin, xmax), (ymin, ymax) = frame.x, frame.y
    compiled = native.kernels()
    if compiled is not None:
        margins = (left / width + extra_space, 0.05 * 600 / width, 0.07 * 600 / 600, 0.125 * 600 / 600 + 0.02)
        canvas = ROOT.bind_object(compiled.cms_canvas_start(name, width, *margins, xmin, ymin, xmax, ymax, frame.xtitle,
                                                            frame.ytitle, y_offset), "TCanvas")  # fmt: skip
        with unpainted():
            cms.CMS_lumi(canvas, cms_pos, scaleLumi=1)
        compiled.cms_canvas_finish(canvas)  # cmsCanvas's UpdatePad, unpainted
        return canvas
    canvas = ROOT.TCanvas(name, name, 50, 50, width, 600)
    canvas.SetFillColor(0)
    canvas.SetBorderMode(0)
    canvas.SetFrameFillStyle(0)
    canvas.SetFrameBorderMode(0)
    canvas.SetLeftMargin(left / width + extra_space)
    canvas.SetRightMargin(0.05 * 600 / width)
    canvas.SetTopMargin(0.07 * 600 / 600)
    canvas.SetBottomMargin(0.125 * 600 / 600 + 0.02)
    hframe = frame_histogram(xmin, ymin, xmax, ymax)
    canvas.cd()
    hframe.GetYaxis().SetTitleOffset(y_offset)
    hframe.GetXaxis().SetTitleOffset(1.05)
    hframe.GetXaxis().SetTitle(frame.xtitle)
    hframe.GetYaxis().SetTitle(frame.ytitle)
    hframe.Draw("AXIS")
    axis = hframe.GetXaxis()  # the paint's x range: the frame's bin edges (xmax as the last bin's up edge)
    _paint_ranges(canvas, axis.GetBinLowEdge(1), ymin, axis.GetBinUpEdge(FRAME_BINS), ymax)
    with unpainted():
        cms.CMS_lumi(canvas, cms_pos, scaleLumi=1)
    canvas.RedrawAxis()  # cmsCanvas's UpdatePad, unpainted
    canvas.Modified()
    canvas.RedrawAxis()
    canvas.GetFrame().Draw()
    return canvas


def _paint_ranges(pad, xmin: float, ymin: float, xmax: float, ymax: float) -> None:
    """The pad's ranges as a paint of its linear frame [xmin, xmax] x [ymin, ymax] sets them
    (TPad::Range and RangeAxis; TPad's margins are Float_t, 1 - left - right computed in float)."""
    f = np.float32
    dx = (xmax - xmin) / float(f(1) - f(pad.GetLeftMargin()) - f(pad.GetRightMargin()))
    dy = (ymax - ymin) / float(f(1) - f(pad.GetBottomMargin()) - f(pad.GetTopMargin()))
    pad.Range(xmin - dx * pad.GetLeftMargin(), ymin - dy * pad.GetBottomMargin(), xmax + dx * pad.GetRightMargin(),
              ymax + dy * pad.GetTopMargin())  # fmt: skip
    pad.RangeAxis(xmin, ymin, xmax, ymax)


def _y_axis_fit(frame: Frame, square: bool, extra_space: float, y_title_offset: float | None) -> tuple[int, float, float]:
    """What `figure` decides from the frame's y range: (y divisions, y title offset, extra_space).
    On a square canvas with a linear y axis the y title keeps clear of long tick labels of a narrow
    range ("0.915"): labels every 0.01 (505 divisions) when they would need more than 4 characters,
    the title offset fitted to the widest (fit_y_title_offset), the left margin widened if the
    title would otherwise leave the canvas; on a log y axis the same for its decades' labels
    ("10^{3}"); nothing on a 4:3 canvas."""
    style = root().gStyle  # cmsstyle's: the sizes cmsCanvas's frame takes
    offset = (1.2 if square else 0.78) if y_title_offset is None else y_title_offset  # cmsCanvas's default
    ndivisions, fitted = style.GetNdivisions("Y"), offset
    if square:  # (the pixel model below is measured on a 600 px wide canvas)
        title_px = style.GetTitleSize("Y") * 600
        if not frame.logy and any("." in text and len(text) > 4 for text in tick_labels(*frame.y, ndivisions)):
            ndivisions = 505  # a narrow range ("0.915"): labels every 0.01, not 0.005
        fitted = fit_y_title_offset(frame, offset, title_px, style.GetLabelSize("Y") * 600,
                                    style.GetLabelOffset("Y") * 600, ndivisions)  # fmt: skip
        if fitted > offset:  # the title further out; the margin wider if it would leave the canvas
            left_px = (_cms_left_margin(fitted, 600) + extra_space) * 600
            extra_space += max(0.0, y_title_far_px(fitted, title_px) + TITLE_EDGE_PX - left_px) / 600
    return ndivisions, fitted, extra_space


X_TITLE_FLOOR = 0.032  # the smallest x title size (7 pt when a 600 px figure is printed 8 cm wide)


def reframe(fig: Figure, old: Frame, new: Frame) -> bool:
    """A `figure` or `plain_figure` made for the frame `old` moved to `new`, which differs from it
    in the top of the y range only: what `figure(name, new, ...)` makes, the drawing on it
    unchanged (the caller's drawing must not depend on the y range); True when moved. Where the
    figure's decisions from the y range (_y_axis_fit: tick labels of a linear axis on a square
    canvas; none on a log axis) differ between the two frames, it is not moved: False. Otherwise
    the canvas differs only in the frame histogram and its axis copies, the TFrame and the pad's
    range: set here as TPad::DrawFrame's paint sets them (its arithmetic: the margins are floats),
    the same canvas as ROOT's JSON and the same pixels (tests/draw/test_reframe.py). ValueError
    for frames that differ otherwise."""
    if not (old.logy == new.logy and old.x == new.x and old.logx == new.logx and old.xtitle == new.xtitle
            and old.ytitle == new.ytitle and new.y[0] == old.y[0]):  # fmt: skip
        raise ValueError(f"reframe moves a figure's top only, not {old} to {new}")
    if fig.axis_fit is None or fig.axis_fit(old) != fig.axis_fit(new):
        return False
    pad = fig.pads[0]
    ymin, ymax = new.y
    compiled = native.kernels()
    if compiled is not None:  # the calls below in C++ (frame_canvas.h reframe_top)
        compiled.reframe_top(pad, ymin, ymax)
        return True
    for obj in pad.GetListOfPrimitives():
        if obj.InheritsFrom("TH1") and obj.GetName() in ("hframe", "hframe_copy"):
            obj.SetMaximum(ymax)
            obj.GetYaxis().SetLimits(ymin, ymax)
    tframe = pad.GetListOfPrimitives().FindObject("TFrame")
    if not tframe:  # a plain_figure: its pad's ranges are the paint's (draw_frame sets none)
        return True
    tframe.SetY2(ymax)
    xmin, xmax = pad.GetUxmin(), pad.GetUxmax()
    f = np.float32  # TPad's margins are Float_t, and 1 - left - right is computed in float
    dx = (xmax - xmin) / float(f(1) - f(pad.GetLeftMargin()) - f(pad.GetRightMargin()))
    dy = (ymax - ymin) / float(f(1) - f(pad.GetBottomMargin()) - f(pad.GetTopMargin()))
    pad.Range(xmin - dx * pad.GetLeftMargin(), ymin - dy * pad.GetBottomMargin(), xmax + dx * pad.GetRightMargin(),
              ymax + dy * pad.GetTopMargin())  # fmt: skip
    pad.RangeAxis(xmin, ymin, xmax, ymax)
    return True


def fit_x_title(axis, pad, title: str) -> None:
    """An x title longer than its frame and half the left margin (it ends at the frame's right
    end) made smaller, down to X_TITLE_FLOOR ("Cut on P(Signal) / (P(Signal) + P(Diboson))")."""
    width = pad.GetWw() or 600
    room = (1 - 0.5 * pad.GetLeftMargin() - pad.GetRightMargin()) * width
    need = visible_length(title) * 0.47 * axis.GetTitleSize() * min(width, pad.GetWh() or 600)
    if need > room:  # smaller, at the same distance from the axis (ROOT's offset is in title sizes)
        size = max(axis.GetTitleSize() * room / need, X_TITLE_FLOOR)
        axis.SetTitleOffset(axis.GetTitleOffset() * axis.GetTitleSize() / size)
        axis.SetTitleSize(size)


def _cms_left_margin(y_offset: float, width: int) -> float:
    """The left margin (NDC) cmsstyle's cmsCanvas gives a canvas `width` px wide for this y title
    offset (its own formula), before extraSpace."""
    return _cms_left_px(y_offset) / width


def _cms_left_px(y_offset: float) -> float:
    """cmsCanvas's left margin in px for this y title offset (its formula, its arithmetic)."""
    left = 0.145 * 600
    if y_offset < 1.5:
        left += y_offset * 50 - 60
    elif y_offset < 1.8:
        left += (y_offset - 1.4) * 35 + 25
    return left


def painted_frame(canvas, frame: Frame) -> None:
    """What a paint does to the pad's TFrame (left out: style.unpainted, place_palette): the
    frame's range, and first among the pad's primitives (cmsCanvas draws it last too)."""
    compiled = native.kernels()
    if compiled is not None:  # the same calls, compiled (frame_canvas.h)
        compiled.painted_frame(canvas, frame.x[0], frame.y[0], frame.x[1], frame.y[1])
        return
    tframe = canvas.GetFrame()
    tframe.SetX1(frame.x[0])
    tframe.SetY1(frame.y[0])
    tframe.SetX2(frame.x[1])
    tframe.SetY2(frame.y[1])
    tframe.SetBit(root().TObject.kMustCleanup)
    canvas.GetListOfPrimitives().AddFirst(tframe)


def unit_axis_ticks(hframe, frame: Frame) -> None:
    """An x axis from 0 to 1 labelled every 0.2: eleven labels at 0.1 touch at 8 cm."""
    if hframe and not frame.logx and frame.x == (0.0, 1.0):
        hframe.GetXaxis().SetNdivisions(505)


HEADER_LEFT, HEADER_RIGHT = 0.16, 0.05  # left and right margins of a plain figure's frame (and a ratio figure's)


def plain_figure(name: str, frame: Frame) -> Figure:
    """A single square pad with a frame and no CMS label (computing-resource plots are not physics
    results); same size and margins as `figure`."""
    canvas, hframe = _framed_canvas(name, frame, (0.17, 0.04, 0.13, 0.06), 1.6)
    hframe.GetYaxis().SetMaxDigits(4)
    return Figure(name=name, canvas=canvas, pads=[canvas], extras=[hframe], axis_fit=lambda frame: ())  # nothing from the y range


FRAME_BINS = 1000  # TPad::DrawFrame's


def draw_frame(pad, xmin: float, ymin: float, xmax: float, ymax: float, title: str = ""):
    """TPad::DrawFrame without the Update() it ends with (a paint of the whole pad: 0.2 ms of a
    header figure's 0.3, 0.7 ms of a ratio figure's 1.2): the same "hframe" histogram
    (FRAME_BINS bins, spaced evenly in log x on a log x axis), drawn in `pad`, which it returns
    to. The paint that exports the figure, or draws the stored canvas, sets the pad's ranges and
    frame from it as DrawFrame's paint would have (the same pixels: checked on every figure of
    the demo). cms_canvas sets the pad's ranges as that paint does (without them, its TFrame,
    GetFrame().Draw(), is drawn as a stray box on figures that relabel their frame's axis)."""
    hframe = frame_histogram(xmin, ymin, xmax, ymax, title, logx=bool(pad.GetLogx()))
    pad.cd()
    hframe.Draw(" ")
    pad.cd()
    return hframe


def frame_histogram(xmin: float, ymin: float, xmax: float, ymax: float, title: str = "", logx: bool = False):
    """TPad::DrawFrame's "hframe", not drawn: FRAME_BINS bins (spaced evenly in log x where `logx`
    and 0 < xmin < xmax), the y range as its minimum, maximum and axis limits, no statistics box,
    owned by the pad it is drawn in (kCanDelete), in no directory."""
    ROOT = root()
    edges = None
    if logx and 0 < xmin < xmax:
        edges = np.exp(np.log(xmin) + np.arange(FRAME_BINS + 1) * ((np.log(xmax) - np.log(xmin)) / FRAME_BINS))
        edges[0] = xmin
    compiled = native.kernels()
    if compiled is not None:  # the same calls, compiled (frame_canvas.h)
        return ROOT.bind_object(compiled.frame_histogram(xmin, ymin, xmax, ymax, title, edges), "TH1F")
    if edges is not None:
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
    unit_axis_ticks(hframe, frame)
    # a y title longer than a short frame (under a tall header) would run off the canvas: smaller,
    # down to the 7 pt floor (0.031 of 600 px at 8 cm)
    frame_px = (1 - margins[2] - margins[3]) * 600
    need_px = max(visible_length(frame.ytitle), 1) * 0.5 * 0.05 * 600
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
