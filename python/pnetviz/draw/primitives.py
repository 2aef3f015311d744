"""Drawing primitives: graphs, bands, points, histograms, bars, reference lines, legends and
text on a figure's pads, and saving the canvas.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.rootenv import quiet_root, root, set_title
from pnetviz.draw.style import STYLE, cmsstyle, color, unpainted
from pnetviz.draw.geometry import Figure, Frame, unique
from pnetviz.draw.simplify import canvas_values, drawn_points
from pnetviz.draw.matrices import BIN_LABEL_SIZE, palette_set
from pnetviz.draw.pdf import save_pdf
from pnetviz.draw.png import save_png
from pnetviz.metrics.roc import vertices


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
             band_color: int, alpha: float = 0.3, pad: int = 0, outline: bool = False, filled: bool = True,
             drawn_in: Frame | None = None) -> object | None:  # fmt: skip
    """Filled band between `low` and `high` (a closed TGraph polygon), semi-transparent; `outline`:
    its edge drawn as a thin line too, `filled` False: the edge alone (style.BAND_STYLES), so that
    bands that overlap stay told apart (hatches are not used: their spacing and line width are
    global style settings, which a redraw elsewhere does not have). `drawn_in`: the frame of a band
    drawn on the canvas only (the caller stores the exact one): its outline simplified within 1e-3
    of that frame (draw.simplify). None, nothing drawn, where fewer than two x have a finite band
    (e.g. a rejection band where no background is left at any signal efficiency: 1/0 everywhere)."""
    ROOT = root()
    ok = np.isfinite(low) & np.isfinite(high)
    if np.count_nonzero(ok) < 2:
        return None
    xs = np.ascontiguousarray(np.r_[x[ok], x[ok][::-1]], dtype=np.float64)
    ys = np.ascontiguousarray(np.r_[high[ok], low[ok][::-1]], dtype=np.float64)
    corners = vertices(xs, ys)  # the same outline (a band on a fine grid is mostly straight runs)
    if drawn_in is not None:
        corners = corners[drawn_points(xs[corners], ys[corners], drawn_in.x, drawn_in.y, drawn_in.logx, drawn_in.logy)]
        xs, ys = canvas_values(xs[corners]), canvas_values(ys[corners])
    else:
        xs, ys = np.ascontiguousarray(xs[corners]), np.ascontiguousarray(ys[corners])
    graph = ROOT.TGraph(xs.size, xs, ys)
    graph.SetFillColorAlpha(band_color, alpha)
    if not filled:
        graph.SetFillStyle(0)
    graph.SetLineColor(band_color)
    graph.SetLineWidth(1 if outline or not filled else 0)
    option = "L SAME" if not filled else "F L SAME" if outline else "F SAME"
    return _place(fig, key, graph, option, label, "f" if filled else "l", pad)


def unclipped_band(drawn, x: np.ndarray, low: np.ndarray, high: np.ndarray) -> object:
    """The band polygon (high forward, then low back) for the ROOT file, unclipped, as its
    vertices (metrics.roc.vertices: the same outline), styled and named as the `drawn` band."""
    ROOT = root()
    xs, ys = np.r_[x, x[::-1]].astype(np.float64), np.r_[high, low[::-1]].astype(np.float64)
    corners = vertices(xs, ys)
    stored = ROOT.TGraph(corners.size, np.ascontiguousarray(xs[corners]), np.ascontiguousarray(ys[corners]))
    stored.SetName(drawn.GetName())
    set_title(stored, drawn.GetTitle())
    for attributes in (ROOT.TAttLine, ROOT.TAttFill, ROOT.TAttMarker):
        attributes.Copy(drawn, stored)
    return stored


def add_points(fig: Figure, key: str, x: np.ndarray, y: np.ndarray, label: str | None, *, marker_color: int,
               marker: int = 20, pad: int = 0) -> object:  # fmt: skip
    """TGraph of markers (e.g. an operating point)."""
    ROOT = root()
    graph = ROOT.TGraph(len(x), np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
    graph.SetMarkerStyle(marker)
    graph.SetMarkerColor(marker_color)
    graph.SetMarkerSize(1.3)
    return _place(fig, key, graph, "P SAME", label, "p", pad)


def add_hist(fig: Figure, key: str, hist, label: str | None, *, hist_color: int, points: bool, pad: int = 0,
             line_style: int = 1) -> object:  # fmt: skip
    """Train-style (line) or test-style (points with error bars) histogram; `line_style` of a line."""
    cms = cmsstyle()
    fig.pads[pad].cd()
    if points:
        cms.cmsDraw(hist, "E1 P", marker=20, msize=STYLE["marker_size"], mcolor=hist_color, fstyle=0, lwidth=1)
    else:
        cms.cmsDraw(hist, "HIST", mcolor=hist_color, lwidth=STYLE["line_width"], fstyle=0, marker=0)
        hist.SetLineStyle(line_style)
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
                if fmt in ("png", "pdf"):  # SaveCanvas inside unpainted (RedrawAxis, Modified, SaveAs): ROOT's file, by draw.png/pdf
                    fig.canvas.RedrawAxis()
                    fig.canvas.Modified()
                    (save_png if fmt == "png" else save_pdf)(fig.canvas, path)
                else:
                    cms.SaveCanvas(fig.canvas, str(path), close=False)
            written.append(path)
    return written
