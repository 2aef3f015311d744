"""Matrices and maps: the 4:3 frameless canvas, TH2 matrices with numbers on the cells, class
labels fitted to the margins, and the palette (placed without a paint; its colours stored with the canvas).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence

import numpy as np

from pnetviz.rootenv import root
from pnetviz.draw import native
from pnetviz.draw.style import cmsstyle, unpainted
from pnetviz.draw.stored import PALETTE_NAME, palette_command
from pnetviz.draw.geometry import text_width, Figure, Frame, margins_of, unique, visible_length
from pnetviz.draw.figures import painted_frame


MATRIX_SIZE = (800, 600)  # every matrix and map: a fixed 4:3 canvas, whatever the class names ...
TALL_SIZE = (800, 800)  # ... but a matrix whose column labels leave a 4:3 frame under MIN_FRAME_CM: square, the same text in pixels
MIN_FRAME_CM = 4.0  # the figure linter's minimum for a 4:3 matrix frame at 8 cm width (5.0 for a square one)
MATRIX_LABEL_SIZE = 0.05  # cell numbers and axis titles: >= 7 pt (0.0412 of 600 px) when the figure is 8 cm wide
BIN_LABEL_SIZE = {"square": 0.05, "matrix": 0.068}  # ROOT draws bin labels at 2/3 of the label size (TGaxis)
CONTEXT_SIZE = {"square": 0.032, "matrix": 0.045}  # context lines: >= 7 pt at 8 cm (0.045: 27 px, where ROOT's PNG text leaves no gap before a Greek letter, as at 0.044)
MATRIX_MARGINS = (0.30, 0.17, 0.22, 0.075)  # left (class labels), right (palette), bottom (titles, 1 context line), top: a frame >= 4 cm at 8 cm


def matrix_figure(name: str, n_panels: int = 1, labels: Sequence[str] = ()) -> Figure:
    """One frameless 4:3 pad for a TH2 drawn with its own labelled axes (a matrix or a mass-grid
    map); the CMS label sits above the frame, one context line below it (context_line). `n_panels` is 1:
    one figure per file."""
    if n_panels != 1:
        raise ValueError("one figure per file: matrix_figure draws a single panel")
    ROOT = root()
    size, canvas = MATRIX_SIZE, None
    for size in (MATRIX_SIZE, TALL_SIZE):
        if canvas is not None:
            canvas.Close()
        canvas = ROOT.TCanvas(unique(name), "", *size)
        canvas.SetCanvasSize(*size)  # the image itself 800 x 600 (the constructor's size includes decorations)
        canvas.cd()
        if not labels:
            break
        _, bottom, top, *_ = class_layout(labels, labels, *size)  # long column labels stand vertical, and may leave on 4:3
        if (1 - top - bottom) * size[1] * 8.0 / size[0] >= MIN_FRAME_CM:  # a frame under MIN_FRAME_CM: square then
            break
    left, right, bottom, top = MATRIX_MARGINS
    scale = MATRIX_SIZE[1] / size[1]
    canvas.SetMargin(left, right, bottom * scale, top * scale)
    return Figure(name=name, canvas=canvas, pads=[canvas])


def matrix_scale(pad) -> float:
    """Text sizes and vertical NDC lengths on a matrix canvas relative to those of the 800 x 600
    one: 600 / its height (1 on 4:3), so that a square (TALL_SIZE) canvas keeps every text's size
    in pixels, and at 8 cm."""
    return MATRIX_SIZE[1] / pad.GetWh()


def context_line(fig: Figure, lines: Sequence[str]) -> None:
    """The first of `lines` (signal point, background, channel, fold) as the one context line
    under a matrix or map, in CONTEXT_BAND; the others go to the figure's caption (fig.caption)."""
    if lines:
        fig.pads[0].cd()
        latex = root().TLatex()
        latex.SetNDC()
        latex.SetTextFont(42)
        scale = matrix_scale(fig.pads[0])
        latex.SetTextSize(CONTEXT_SIZE["matrix"] * scale)
        latex.SetTextAlign(11)
        latex.DrawLatex(0.02, 0.03 * scale, lines[0])
        fig.extras.append(latex)
    fig.caption = list(lines[1:])


def place_palette(hist, pad) -> None:
    """The CMS label above the frame and the palette of a COLZ `hist` beside the frame, its top
    end PALETTE_DROP below the frame's: its top label then stays clear of the run text. The
    palette is made here, where cmsstyle.UpdatePalettePosition would move it to (the top
    lowered), and the histogram painter uses it as it finds it: no paint of the pad needed."""
    cms_label_above(pad)
    pad.RedrawAxis()  # cmsstyle.GetPalette's UpdatePad
    xa, ya = hist.GetXaxis(), hist.GetYaxis()
    if not any(obj.InheritsFrom("TFrame") for obj in pad.GetListOfPrimitives()):
        painted_frame(pad, Frame((xa.GetXmin(), xa.GetXmax()), (ya.GetXmin(), ya.GetXmax()), "", ""))
    left, right, bottom, top = margins_of(pad)
    x1, x2, y1, y2 = 1 - right * 0.95, 1 - right * 0.70, bottom, 1 - top - PALETTE_DROP * matrix_scale(pad)
    # in the pad's coordinates (the histogram's axes: the pad is not painted yet), as the painter
    # reads them, then in NDC (TPave's setters of pad coordinates rewrite the NDC ones)
    to_x = lambda u: xa.GetXmin() + (u - left) / (1 - left - right) * (xa.GetXmax() - xa.GetXmin())  # noqa: E731
    to_y = lambda v: ya.GetXmin() + (v - bottom) / (1 - bottom - top) * (ya.GetXmax() - ya.GetXmin())  # noqa: E731
    compiled = native.kernels()
    if compiled is not None:  # the calls below in C++ (frame_canvas.h place_palette): no first-use wrappers
        compiled.place_palette(hist, pad, to_x(x1), to_x(x2), to_y(y1), to_y(y2), x1, x2, y1, y2)
        return
    functions = hist.GetListOfFunctions()
    palette = functions.FindObject("palette")
    if not palette:  # as THistPainter makes it: the z axis's attributes, first among the functions
        ROOT = root()
        palette = ROOT.TPaletteAxis(0.0, 0.0, 0.0, 0.0, hist)
        ROOT.SetOwnership(palette, False)  # the histogram deletes its functions
        functions.AddFirst(palette)
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
RUN_TEXT_MIN_SCALE = 0.935  # 7 pt at 8 cm: a longer run text ('138 fb^{-1} (13 TeV)', --lumi) no smaller


def cms_label_above(pad) -> None:
    """The CMS label above the frame (cmsstyle's iPos 0) with the run text right-aligned at the
    canvas edge, over the palette: above a narrow frame the two would otherwise collide (CMS_lumi
    places its texts from the pad's margins when called)."""
    right = pad.GetRightMargin()
    pad.SetRightMargin(0.02)
    cms = cmsstyle()
    run_text = f"{cms.cmsstyle.cms_lumi} ({cms.cmsstyle.cms_energy})"  # what CMS_lumi writes at the right
    with unpainted():  # a run text longer than 'Run 2 (13 TeV)' smaller, clear of the extra text (Run 3, 13.6 TeV)
        cms.CMS_lumi(pad, 0, min(1.0, max(RUN_TEXT_FITS / visible_length(run_text), RUN_TEXT_MIN_SCALE)))
    pad.SetRightMargin(right)


PALETTE_EXEC = re.compile(r"gStyle->SetPalette\((\d+)\);")  # the TExec a COLZ figure stores its palette with


def palette_exec(number: int) -> object:
    """The TExec that gives a COLZ canvas palette `number` while this process draws it (palette_set
    sets it for each paint, it never runs): a stored canvas carries the palette's colours
    instead (draw.rootfile.write_canvas leaves the TExec out)."""
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


UNDEFINED_CELL = -1.0  # below every matrix's minimum (fractions, counts, AUCs, p-values are >= 0)
CELL_DIGITS = 4  # significant digits of a stored cell: ROOT's "TEXT" option prints the content with %g


def cell_content(value: float) -> float:
    """A matrix cell as stored: whole numbers (counts) as they are, others to CELL_DIGITS
    significant digits, so that the object drawn alone with "colz text" prints 2-4 digits (the
    full values are in the output set's JSON)."""
    return value if value == int(value) else float(f"{value:.{CELL_DIGITS}g}")


def add_matrix(fig: Figure, key: str, matrix: np.ndarray, labels: Sequence[str], fmt: str, pad: int,
               ztitle: str, title: str = "", zmax: float | None = None, columns: Sequence[str] | None = None) -> object:  # fmt: skip
    """TH2D of an n x m matrix: true class on y (first class at the top), predicted on x, numbers on
    cells; `title` says what it is (shown in TBrowser, not on the canvas). Undefined (non-finite)
    cells are left blank: no number, content UNDEFINED_CELL below the palette (not painted).
    `zmax`: a fixed top of the z range (1 for fractions: one colour, one fraction in every model).
    `columns`: the x labels when they differ from the rows' `labels` (a triangle's)."""
    ROOT, cms = root(), cmsstyle()
    columns = tuple(labels if columns is None else columns)
    n, m = len(labels), len(columns)
    matrix = np.asarray(matrix, dtype=float)
    defined = np.isfinite(matrix)
    hist = ROOT.TH2D(unique(key.replace("/", "_")), title, m, 0, m, n, 0, n)
    for i in range(n):  # n <= a handful of classes: cells, not events
        for j in range(m):
            hist.SetBinContent(j + 1, n - i, cell_content(float(matrix[i, j])) if defined[i, j] else UNDEFINED_CELL)
    for k, label in enumerate(columns):
        hist.GetXaxis().SetBinLabel(k + 1, label)
    for k, label in enumerate(labels):
        hist.GetYaxis().SetBinLabel(n - k, label)
    pad_obj = fig.pads[pad]
    scale = matrix_scale(pad_obj)
    # by position, not `axis != hist.GetZaxis()`: comparing two proxies has cppyy look for a C++
    # operator!= (~14 ms of CPU at its first use in a process)
    sizes = (BIN_LABEL_SIZE["matrix"], BIN_LABEL_SIZE["matrix"], MATRIX_LABEL_SIZE)  # x, y (the class names), z
    for axis, label_size in zip((hist.GetXaxis(), hist.GetYaxis(), hist.GetZaxis()), sizes):
        axis.SetLabelSize(label_size * scale)
        axis.SetTitleSize(MATRIX_LABEL_SIZE * scale)
    hist.SetBit(ROOT.TH1.kNoTitle)  # the title is for TBrowser: no title box when the canvas is redrawn
    hist.GetXaxis().SetTitle("Predicted class")
    hist.GetYaxis().SetTitle("True class")
    hist.GetZaxis().SetTitle(ztitle)
    hist.GetZaxis().SetTitleOffset(1.15 / scale)  # from the title size: the same distance in pixels on a square canvas
    hist.SetMinimum(0.0)
    if zmax is not None:
        hist.SetMaximum(zmax)
    hist.GetXaxis().SetTitleOffset(1.45)  # below rotated class labels
    hist.GetYaxis().SetTitleOffset(2.6)  # past the class labels
    hist.SetStats(False)
    pad_obj.cd()
    fit_class_labels(pad_obj, hist, labels, columns)
    hist.Draw("COLZ")
    palette = palette_exec(57)  # kBird, set for the paints here, its colours stored with the canvas
    pad_obj.GetListOfPrimitives().AddFirst(palette)
    fig.extras.append(palette)
    place_palette(hist, pad_obj)
    top = zmax if zmax is not None else float(np.max(matrix[defined])) if defined.any() else 0.0
    for i in range(n):
        for j in range(m):
            if not defined[i, j]:
                continue
            text = ROOT.TLatex(j + 0.5, n - i - 0.5, format(float(matrix[i, j]), fmt))
            text.SetTextAlign(22)
            text.SetTextFont(42)
            text.SetTextSize(MATRIX_LABEL_SIZE * scale)
            # white on the dark low end of the palette; black on a cell of 0, which COLZ leaves unpainted (white)
            text.SetTextColor(ROOT.kWhite if top > 0 and 0 < matrix[i, j] < 0.5 * top else ROOT.kBlack)
            text.Draw()
            fig.extras.append(text)
    return fig.keep(key, hist)


# where ROOT puts an axis title (measured on this ROOT, font 42): its near edge is 1.6 x size x
# (pad width for y, pad height for x) x offset from the axis, less DESCENT x size x pad height;
# the title is TITLE_HEIGHT x size x pad height thick
TITLE_STEP, TITLE_DESCENT, TITLE_HEIGHT = 1.6, 0.37, 0.72
LABEL_GAP = 12  # pixels between class labels and the axis title
TILT_LIMIT = 1.2  # class labels up to this many columns wide are drawn tilted, wider ones vertical


def class_layout(labels: Sequence[str], columns: Sequence[str], W: int, H: int
                 ) -> tuple[float, float, float, float, float, bool]:  # fmt: skip
    """(left, bottom, top margin, x title offset, y title offset, vertical x labels) of a class
    matrix on a W x H canvas from its labels' widths (text sizes scaled as matrix_scale says,
    measured in the current pad: a W x H canvas), so that long class names ("nonprompt-TT")
    never run into the axis titles: the y title left of the longest label (a wider left margin
    when needed), x labels vertical when one does not fit its column, the x title below them.
    Short names keep MATRIX_MARGINS."""
    scale = MATRIX_SIZE[1] / H
    n = max(len(columns), 1)
    size = BIN_LABEL_SIZE["matrix"] * 2 / 3 * scale  # ROOT draws bin labels at 2/3 of the label size
    title = MATRIX_LABEL_SIZE * scale
    widest = max((text_width(label, size) for label in labels), default=0.0)
    left, right, bottom, top = MATRIX_MARGINS
    bottom, top = bottom * scale, top * scale
    # y: the title's near edge LABEL_GAP past the labels; its far edge inside the canvas
    near = widest + 0.005 * W + LABEL_GAP
    left = min(max(left, (near + TITLE_HEIGHT * title * H + 6) / W), 0.45)
    y_offset = (near + TITLE_DESCENT * title * H) / (TITLE_STEP * title * W)
    column = (1 - left - right) * W / n
    widest = max((text_width(label, size) for label in columns), default=0.0)
    height = TITLE_HEIGHT * size * H
    vertical = widest > TILT_LIMIT * column  # even tilted, neighbours would run into each other
    if vertical:
        drop = widest
    elif widest > column:  # ROOT tilts labels wider than their column by about 23 degrees
        drop = widest * np.sin(np.radians(25)) + height * np.cos(np.radians(25))
    else:
        drop = height
    near = drop + 0.005 * H + LABEL_GAP
    x_offset = (near + TITLE_DESCENT * title * H) / (TITLE_STEP * title * H)
    below = (TITLE_STEP * x_offset - TITLE_DESCENT + TITLE_HEIGHT) * title * H
    bottom = min(max(bottom, (below + 6) / H + CONTEXT_BAND * scale), 0.6)
    return left, bottom, top, x_offset, y_offset, vertical


def fit_class_labels(pad, hist, labels: Sequence[str], columns: Sequence[str] | None = None) -> None:
    """Margins and title offsets of a class matrix in `pad` (class_layout), its x labels vertical
    where they do not fit their columns."""
    x_axis, y_axis = hist.GetXaxis(), hist.GetYaxis()
    left, bottom, top, x_offset, y_offset, vertical = class_layout(labels, labels if columns is None else columns,
                                                                   pad.GetWw(), pad.GetWh())  # fmt: skip
    if vertical:
        x_axis.LabelsOption("v")
    y_axis.SetTitleOffset(max(y_axis.GetTitleOffset(), y_offset))
    x_axis.SetTitleOffset(max(x_axis.GetTitleOffset(), x_offset))
    pad.SetMargin(left, MATRIX_MARGINS[1], bottom, top)


CONTEXT_BAND = 0.068  # the one context line under a matrix (context_line); more context goes to the caption
