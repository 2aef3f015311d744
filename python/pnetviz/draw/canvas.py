"""Drawing helpers shared by every visualize script: data in, ROOT objects out.

A `Figure` owns a canvas and every object drawn on it (kept alive from Python: no
SetOwnership games), plus its legend entries. Generic helpers draw curves, histograms,
matrices and labels; the plot functions in `plots.py` compose them. Call inside
`style.cms_style(...)`.
"""

from __future__ import annotations

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
    return Figure(name=name, canvas=canvas, pads=[canvas])


def header_figure(name: str, frame: Frame, header: float) -> Figure:
    """A 600 x 600 CMS figure whose top `header` (NDC) above the frame holds the CMS label and,
    below it, the legend and context (add_header_box): for plots whose data fill the frame, such
    as log-y score distributions whose axis ends at a physical limit."""
    cms = cmsstyle()
    canvas, hframe = _framed_canvas(name, frame, (0.16, 0.05, 0.12, header), 1.45)
    canvas.SetTopMargin(0.07)  # the CMS label and the run text at cmsstyle's usual place, above the header
    cms.CMS_lumi(canvas, 0)
    canvas.SetTopMargin(header)
    return Figure(name=name, canvas=canvas, pads=[canvas], extras=[hframe])


def _visible_length(text: str) -> int:
    return len(text.replace("#bar", "").replace("{", "").replace("}", "").replace("#", "").replace("_", "").replace("^", ""))


def header_layout(context: Sequence[str], entries: int) -> tuple[bool, int]:
    """(two columns below the context?, rows of text) of a header box: two columns when there are
    more than five entries or a context line too long to share the width with the legend."""
    wide = entries > 5 or any(_visible_length(line) > 34 for line in context)
    return wide, (len(context) + -(-entries // 2)) if wide else max(len(context), entries)


def header_height(context: Sequence[str], entries: int) -> float:
    """The top margin a header_figure needs for the CMS label and this header box."""
    return 0.13 + 0.045 * header_layout(context, entries)[1]


def add_header_box(fig: Figure, context: Sequence[str], header: float, pad: int = 0) -> None:
    """Context lines (left) and the legend of every labelled object drawn so far (right; two columns
    over the whole width below the context when there are more than five entries) in the header of a
    header_figure, between the CMS label and the frame."""
    p = fig.pads[pad]
    left, right = p.GetLeftMargin(), p.GetRightMargin()
    top, bottom = 0.915, 1 - header + 0.012  # under the CMS label, above the frame
    size, step = STYLE["legend_text_size"], 0.045
    cms = cmsstyle()
    p.cd()
    many = header_layout(context, len(fig.legend))[0]
    ctx_right = 1 - right if many else left + 0.46
    for i, line in enumerate(context):
        latex = root().TLatex(left, top - (i + 0.8) * step, line)
        latex.SetNDC()
        latex.SetTextFont(42)
        latex.SetTextSize(size)
        latex.Draw()
        fig.extras.append(latex)
    if many:
        y2 = top - len(context) * step - 0.005
        leg = cms.cmsLeg(left, bottom, 1 - right, y2, textSize=size, columns=2)
    else:
        leg = cms.cmsLeg(ctx_right, max(bottom, top - (len(fig.legend) + 0.3) * step), 1 - right, top, textSize=size)
    leg.SetMargin(0.2)
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


def add_legend_box(fig: Figure, frame: Frame, corner: str, header: Sequence[str] = (), width: float = 0.50,
                   below_diagonal: bool = False, pad: int = 0) -> None:  # fmt: skip
    """The legend of every labelled object drawn so far, `header` lines (the context) first, in a
    corner of the frame ("lower right", "lower left", "upper right") sized by its line count;
    `below_diagonal`: its top-left corner stays under y = x (ROC plots), lines tightened to fit."""
    p = fig.pads[pad]
    left, right, bottom, top = p.GetLeftMargin(), p.GetRightMargin(), p.GetBottomMargin(), p.GetTopMargin()
    n = len(header) + len(fig.legend)
    inset = 0.02
    if "center" in corner:
        x1 = left + (1 - left - right - width) / 2
    else:
        x1 = 1 - right - inset - width if "right" in corner else left + inset
    x2 = x1 + width
    height = (n + 0.3) * LINE_HEIGHT[1]  # + room for the last line's descenders and subscripts
    if below_diagonal:
        data_x = frame.x[0] + (x1 - left) / (1 - left - right) * (frame.x[1] - frame.x[0])
        room = to_ndc(fig, data_x, data_x, frame, pad)[1] - (bottom + inset) - 0.01
        height = min(height, max(room, (n + 0.3) * LINE_HEIGHT[0]))
    if corner.startswith("lower"):
        y1, y2 = bottom + inset, bottom + inset + height
    else:
        y2 = 1 - top - inset
        y1 = y2 - height
    cms = cmsstyle()
    p.cd()
    leg = cms.cmsLeg(x1, y1, x2, y2, textSize=STYLE["legend_text_size"])
    leg.SetMargin(0.17)
    for line in header:
        leg.AddEntry(root().nullptr, line, "")
    for obj, label, option in fig.legend:
        leg.AddEntry(obj, label, option)
    fig.extras.append(leg)
    fig.legend = []


def plain_figure(name: str, frame: Frame) -> Figure:
    """A single square pad with a frame and no CMS label (computing-resource plots are not physics
    results); same size and margins as `figure`."""
    canvas, hframe = _framed_canvas(name, frame, (0.13, 0.04, 0.11, 0.06), 1.25)
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
MATRIX_MARGINS = (0.24, 0.17, 0.25, 0.08)  # left (class labels), right (palette), bottom (titles, 2 context lines), top


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


def label_frame_bins(fig: Figure, labels: Sequence[str], pad: int = 0) -> None:
    """Give the frame of a [0, n] x-axis one labelled bin per category."""
    cms = cmsstyle()
    frame = cms.GetCmsCanvasHist(fig.pads[pad])
    axis = frame.GetXaxis()
    axis.Set(len(labels), 0.0, float(len(labels)))
    for k, label in enumerate(labels, start=1):
        axis.SetBinLabel(k, label)
    axis.SetLabelSize(BIN_LABEL_SIZE["square"])
    axis.LabelsOption("h")


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
    hist.GetXaxis().SetTitleOffset(1.1)
    hist.GetYaxis().SetTitleOffset(2.0)  # past the class labels
    hist.SetStats(False)
    pad_obj = fig.pads[pad]
    pad_obj.cd()
    hist.Draw("COLZ")
    palette = ROOT.TExec("palette", "gStyle->SetPalette(57);")  # kBird, stored with the canvas, painted before the cells
    pad_obj.GetListOfPrimitives().AddFirst(palette)
    fig.extras.append(palette)
    cms_label_above(pad_obj)
    pad_obj.Update()
    cms.UpdatePalettePosition(hist, pad_obj)
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
