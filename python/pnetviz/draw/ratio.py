"""A main frame over a ratio panel (the lower panel of every curve comparison): pads, axis
texts printed at the size of a single figure, the shared y-title placement.
"""

from __future__ import annotations

import ctypes
import math
import re

from pnetviz.rootenv import root
from pnetviz.draw.style import cmsstyle, color, unpainted
from pnetviz.draw.geometry import Figure, Frame, Margins, TITLE_EDGE_PX, Y_TITLE_DESCENT, Y_TITLE_STEP, Y_TITLE_THICK, fit_y_title_offset, pad_scale, unique, visible_length, y_title_far_px
from pnetviz.draw.figures import HEADER_LEFT, HEADER_RIGHT, draw_frame, unit_axis_ticks
from pnetviz.draw.primitives import add_line


# --- a main frame over a ratio panel (the lower panel of every curve comparison) ---

RATIO_SIZE = (600, 750)  # a taller canvas: the main frame keeps a square figure's height, the panel room for its labels
RATIO_HEIGHT = 0.3  # canvas NDC of the lower pad (the figure linter allows < 0.4)
# lengths below (gap, margins, header, label room) are NDC of a 600 px canvas, as on a square figure (px / 600)
RATIO_GAP = 0.015  # between the two frames
RATIO_LABEL_ROOM = 0.025  # above the panel's frame: half its top tick label ("1.2") and a gap, inside its pad
RATIO_MARGINS = (HEADER_LEFT, HEADER_RIGHT, 0.13, 0.07)  # left, right (canvas NDC), bottom, top (px / 600): a square figure's
RATIO_TEXT = {"title": 0.05, "label": 0.045, "y_offset": 1.45, "floor": 0.032}  # canvas sizes, as _framed_canvas
RATIO_MAX_DIGITS = 4  # TGaxis's MaxDigits on both panels' y axes


def _pad_axes(pad, frame: Frame, scale: float, show_x: bool) -> object:
    """Draw `frame` in `pad` with the axis texts of a square figure times `scale` (printed at the
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
    frame_px = (1 - pad.GetTopMargin() - pad.GetBottomMargin()) * pad.GetAbsHNDC() * RATIO_SIZE[1]
    need_px = max(visible_length(frame.ytitle), 1) * 0.55 * RATIO_TEXT["title"] * 600  # ROOT shrinks a title longer than its axis
    short = re.sub(r"\s*\([^()]*\)$", "", frame.ytitle)  # "Signal efficiency (TPR)" -> "Signal efficiency"
    if need_px * RATIO_TEXT["floor"] / RATIO_TEXT["title"] > 0.95 * frame_px and short:  # too long even at the floor
        yaxis.SetTitle(short)
        need_px = max(visible_length(short), 1) * 0.55 * RATIO_TEXT["title"] * 600
    size = RATIO_TEXT["title"] * min(1.0, max(0.95 * frame_px / need_px, RATIO_TEXT["floor"] / RATIO_TEXT["title"]))
    yaxis.SetTitleSize(size * scale)  # its offset: ratio_figure's, the same in both panels
    hframe.GetXaxis().SetTitleOffset(1.1)
    hframe.GetXaxis().SetTickLength(style.GetTickLength("X") * scale)
    yaxis.SetMaxDigits(RATIO_MAX_DIGITS)
    if show_x:
        yaxis.SetNdivisions(504)  # a low panel: three to five labels
    elif lowest_label_height(frame, yaxis.GetNdivisions()) * frame_px < RATIO_TEXT["label"] * 600:
        yaxis.ChangeLabel(1, -1, 0.0)  # its lowest label would touch the top label of the panel below
    unit_axis_ticks(hframe, frame)
    return hframe


def lowest_label_height(frame: Frame, ndivisions: int) -> float:
    """Where the lowest y label of `frame` sits, as a fraction of the frame's height above its
    bottom (1 without a label): a label a label's height or more above the bottom stays clear of
    the panel below and is kept (hiding it left the lower part of a loss axis unlabelled)."""
    lo, hi = frame.y
    if frame.logy:
        if not 0 < lo < hi:
            return 1.0
        first = 10.0 ** math.ceil(math.log10(lo) - 1e-9)
        return math.log10(first / lo) / math.log10(hi / lo)
    low, high, n, step = ctypes.c_double(), ctypes.c_double(), ctypes.c_int(), ctypes.c_double()
    root().THLimitsFinder.Optimize(lo, hi, max(abs(ndivisions) % 100, 1), low, high, n, step, "")
    if not step.value > 0:
        return 1.0
    first = low.value + step.value * math.ceil((lo - low.value) / step.value - 1e-9)
    return (first - lo) / (hi - lo)


def ratio_pad_margins(pad: int, header: float = RATIO_MARGINS[3], extra_space: float = 0.0) -> Margins:
    """The margins of ratio_figure's upper (0) or lower (1) pad, in the pad's NDC (`header`: px / 600)."""
    left, right, bottom, _ = RATIO_MARGINS
    y1, y2, top_margin, bottom_margin = (RATIO_HEIGHT, 1.0, header, RATIO_GAP / 2) if pad == 0 else \
        (0.0, RATIO_HEIGHT, RATIO_GAP / 2 + RATIO_LABEL_ROOM, bottom)  # fmt: skip
    per = RATIO_SIZE[0] / ((y2 - y1) * RATIO_SIZE[1])  # pad NDC per (px / 600)
    return left + extra_space, right, bottom_margin * per, top_margin * per


def ratio_figure(name: str, frame: Frame, ratio: Frame, header: float = RATIO_MARGINS[3], extra_space: float = 0.0,
                 reference_line: bool = True, cms_label: bool = True) -> Figure:  # fmt: skip
    """A RATIO_SIZE (600 x 750) figure: `frame` in the upper pad (pads[0]) over the ratio panel `ratio`
    (pads[1], RATIO_HEIGHT of the canvas) sharing its x axis, with a dashed line at 1; texts at
    the sizes of `figure` when printed; the CMS label above the upper frame. `header`: the canvas
    NDC above the upper frame (the label alone, or a header box: boxed_figure's make_header)."""
    ROOT, cms = root(), cmsstyle()
    if not (ratio.x == frame.x and ratio.logx == frame.logx):
        raise ValueError("a ratio panel shares the x axis of the frame above it")
    canvas = ROOT.TCanvas(unique(name), "", *RATIO_SIZE)
    canvas.SetCanvasSize(*RATIO_SIZE)  # the image itself (the constructor's size includes decorations)
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
    main.SetTopMargin(ratio_pad_margins(0, top)[3])  # the CMS label at its usual place, above a header box too
    if cms_label:  # False: a computing-resource figure (no CMS physics label)
        with unpainted():
            cms.CMS_lumi(main, 0)
    if extra_space:  # the CMS label moved right with the frame: the run text to the canvas edge (as `figure`)
        for obj in main.GetListOfPrimitives():
            if obj.InheritsFrom("TLatex") and obj.GetTextAlign() == 31:
                obj.SetX(obj.GetX() + min(extra_space, right - 0.015))
    main.SetTopMargin(ratio_pad_margins(0, header)[3])
    if reference_line:
        add_line(fig, ratio.x[0], 1.0, ratio.x[1], 1.0, pad=1, line_color=color("reference"), line_style=2)
    return fig
