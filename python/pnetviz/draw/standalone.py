"""Stored objects that draw well alone (issue 33 item 7): a histogram or graph of plots.root drawn
with `Draw()` in ROOT's default canvas (TBrowser's double-click, `obj.Draw()` in a plain session:
700 x 500, margins 0.1) shows its axis titles and labels uncut.

The objects are drawn on the figures with CMS sizes (labels 0.05, titles 0.06, offsets for a
600 px square canvas with wide margins); in a default canvas those titles fall off the pad. While
an object is written on its own (`drawn_alone`), its axes carry ROOT's default sizes instead
(titles and labels 0.035, the y title placed by ROOT beside its labels), a class matrix's labels
fitted to the default left margin, the palette beside the default frame (default_palette) and
its title box shown; afterwards the figure's attributes are back, so the stored
canvas (written after the objects) keeps the CMS look.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np

from pnetviz.draw import native
from pnetviz.rootenv import compiled, root

DEFAULT_CANVAS = (696, 472)  # TCanvas() in batch: 700 x 500 less the window decorations, margins 0.1
DEFAULT_MARGIN = 0.1
AXIS_SIZE, LABEL_OFFSET = 0.035, 0.005  # ROOT's default label and title size, label offset
X_TITLE_OFFSET = 1.0
AUTO_OFFSET = 0.0  # TGaxis places a y title with offset 0 just beyond its tick labels
BIN_LABEL_SCALE = 2 / 3  # ROOT draws alphanumeric bin labels at 2/3 of the label size
# a y title beside bin labels (placed here: TGaxis's automatic offset ignores alphanumeric
# labels): where ROOT puts it (draw.geometry's model, measured with the linter's ink rule)
Y_TITLE_STEP, Y_TITLE_DESCENT, Y_TITLE_THICK = 1.6, 0.45, 0.9
EDGE_PX, GAP_PX = 5, 3  # pixels between the y title and the canvas edge, between the labels and the title
SMALLEST_LABELS = 0.6  # class labels shrink to fit the margin down to this fraction of the default size


def _axes(obj) -> list:
    """The axes a drawn `obj` shows: a histogram's own, a graph's histogram's (made if missing)."""
    hist = obj
    if obj.InheritsFrom("TGraph"):
        hist = obj.GetHistogram()
    if not hist or not hist.InheritsFrom("TH1"):
        return []
    axes = [hist.GetXaxis(), hist.GetYaxis()]
    return axes + [hist.GetZaxis()] if hist.GetDimension() == 2 else axes


# Helvetica's advance widths (font 42), in thousandths of the text height, printable ASCII from ' '
HELVETICA = (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, *(556,) * 10, 278, 278, 584,
             584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778,
             722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278,
             556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334,
             260, 334, 584)  # fmt: skip


def text_width_px(text: str, size: float) -> float:
    """Advance width in pixels of a font-42 text of `size` in a default canvas (no pad needed:
    the output file is written where nothing may draw); a TLatex #command counts as one glyph."""
    shown = re.sub(r"#[a-zA-Z]+", "x", text).replace("{", "").replace("}", "").replace("_", "").replace("^", "")
    em = size * min(DEFAULT_CANVAS)
    return em * sum(HELVETICA[ord(ch) - 32] if 32 <= ord(ch) < 127 else 556 for ch in shown) / 1000.0


def labelled_y_axis(axis) -> tuple[float, float]:
    """(label size, title offset) of a y axis with bin labels (class names) in a default canvas:
    the title EDGE_PX inside the canvas edge, the labels shrunk to end GAP_PX before it (down to
    SMALLEST_LABELS of the default size)."""
    W, H = DEFAULT_CANVAS
    title = AXIS_SIZE * H  # the title's height in pixels: a text size is a fraction of the pad's smaller side
    step = Y_TITLE_STEP * AXIS_SIZE * W  # TGaxis steps a y title away from its axis by the pad's width
    offset = (DEFAULT_MARGIN * W - EDGE_PX - (Y_TITLE_THICK - Y_TITLE_DESCENT) * title) / step
    room = step * offset - Y_TITLE_DESCENT * title - LABEL_OFFSET * W - GAP_PX
    labels = [axis.GetBinLabel(i) for i in range(1, axis.GetNbins() + 1)]
    widest = max((text_width_px(t, AXIS_SIZE * BIN_LABEL_SCALE) for t in labels), default=0.0)
    scale = 1.0 if widest <= room else max(room / widest, SMALLEST_LABELS)
    return AXIS_SIZE * scale, offset


_SET_AXIS = r"""
#include "TAttAxis.h"
namespace pnetviz_standalone {
// TAttAxis's setters of _default_axis in one call (each a PyROOT call otherwise; ~600 axes a file)
inline void set_axis(TAttAxis* axis, float size, float label_offset, short font, float title_offset) {
   axis->SetLabelSize(size);
   axis->SetLabelOffset(label_offset);
   axis->SetTitleSize(size);
   axis->SetLabelFont(font);
   axis->SetTitleFont(font);
   axis->SetTitleOffset(title_offset);
}
}
"""


@functools.cache
def _set_axis():
    return compiled(_SET_AXIS, "pnetviz_standalone::set_axis").pnetviz_standalone.set_axis


def _default_axis(axis, name: str) -> None:
    """ROOT's default sizes on `axis` ("x", "y" or "z"), the title offsets that keep it on a
    default canvas."""
    _set_axis()(axis, AXIS_SIZE, LABEL_OFFSET, 42, X_TITLE_OFFSET if name == "x" else AUTO_OFFSET)
    if name == "y" and axis.GetLabels():
        size, offset = labelled_y_axis(axis)
        axis.SetLabelSize(size)
        axis.SetTitleOffset(offset)


@functools.cache
def _root_names() -> tuple:
    """(TAttAxis, TAttAxis.Copy, TH1.kNoTitle): looked up once (each ROOT.<name> costs a facade lookup)."""
    ROOT = root()
    return ROOT.TAttAxis, ROOT.TAttAxis.Copy, ROOT.TH1.kNoTitle


@contextlib.contextmanager
def drawn_alone(obj) -> Iterator[None]:
    """`obj` (a TH1, TH2 or TGraph) with the attributes that draw it well alone in a default
    canvas inside the block (see the module docstring), its own back after it."""
    att_axis, copy_axis, k_no_title = _root_names()
    axes = _axes(obj)
    saved = []
    for axis in axes:
        copy = att_axis()
        copy_axis(axis, copy)
        saved.append((axis, copy, axis.GetTitle()))
    hist = obj.GetHistogram() if obj.InheritsFrom("TGraph") else obj
    is_hist = bool(hist) and hist.InheritsFrom("TH1")
    no_title = is_hist and hist.TestBit(k_no_title)
    if is_hist:
        hist.ResetBit(k_no_title)  # the title box says what it is
    try:
        for axis, name in zip(axes, "xyz"):
            _default_axis(axis, name)
        if len(axes) == 3:  # no room right of the palette in a default canvas: the title says what z is
            axes[2].SetTitle("")
            axes[2].SetLabelSize(Z_LABEL_SIZE)
        with default_palette(hist) if len(axes) == 3 else contextlib.nullcontext():
            yield
    finally:
        for axis, copy, title in saved:
            copy_axis(copy, axis)
            axis.SetTitle(title)
        if no_title:
            hist.SetBit(k_no_title)


PALETTE_X = (0.905, 0.925)  # NDC of a palette beside the frame of a default canvas: room for 6-character labels
Z_LABEL_SIZE = 0.03


@functools.cache
def _writer():
    """macros/root_store.h's Writer with this module's sizes (compiled at the first use)."""
    sizes = (AXIS_SIZE, LABEL_OFFSET, X_TITLE_OFFSET, AUTO_OFFSET, Z_LABEL_SIZE, 42, DEFAULT_MARGIN, *PALETTE_X)
    built = native.kernels()
    if built is not None:  # the compiled library's Writer (draw.native): its store() with the writer first
        return SimpleNamespace(store=functools.partial(built.store, built.store_writer(*sizes)))
    return compiled('#include "root_store.h"', "root_store.h").pnetviz_store.Writer(*sizes)


def pad_vector(pads: list) -> object:
    """`pads` as write_alone takes them (a figure's pads, made once a file): their addresses (a
    uint64 array) for the compiled library's C interface (draw.native), a std::vector<TPad*> for
    cling's kernel."""
    if native.kernels() is not None:
        return np.array([root().addressof(pad) for pad in pads], dtype=np.uint64)
    vector = root().std.vector["TPad*"]()
    for pad in pads:
        vector.push_back(pad)
    return vector


def write_alone(directory, path: str, obj, name: str, title: str, pads) -> bool:
    """A TH1 or TGraph `obj` described as draw.rootfile.describe does (name, `title`, axis titles
    from the frame of the pad in `pads` it is drawn on, no stats, Sumw2) and written as `name`
    into `directory`'s sub-directory `path` (made if missing) as drawn_alone would: one C++ call
    (macros/root_store.h; the per-object PyROOT calls were ~1/2 of writing plots.root). False,
    and nothing done, for any other object: the caller describes and writes it."""
    writer = _writer()
    result = writer.store(directory, path, obj, name, title, pads, True, -1.0, 0.0)
    if result == 2:  # kLabels: described; its y axis's class labels are sized here, then it is written
        size, offset = labelled_y_axis(_axes(obj)[1])
        result = writer.store(directory, path, obj, name, title, pads, False, size, offset)
    return result == 0


@contextlib.contextmanager
def default_palette(hist) -> Iterator[None]:
    """The palette of a COLZ `hist` placed for a default canvas inside the block (the figure's
    own palette moved there and back, or one made for the block): narrow, beside the frame,
    its labels inside the canvas (ROOT's own, made when none is stored, leaves them 5 px)."""
    ROOT = root()
    functions = hist.GetListOfFunctions()
    palette = functions.FindObject("palette")
    made = not palette
    if made:
        palette = ROOT.TPaletteAxis(0.0, 0.0, 0.0, 0.0, hist)
        functions.AddFirst(palette)
    saved = [palette.GetX1(), palette.GetX2(), palette.GetY1(), palette.GetY2(),
             palette.GetX1NDC(), palette.GetX2NDC(), palette.GetY1NDC(), palette.GetY2NDC()]  # fmt: skip
    xa, ya = hist.GetXaxis(), hist.GetYaxis()
    inner = 1 - 2 * DEFAULT_MARGIN
    x1, x2 = (xa.GetXmin() + (u - DEFAULT_MARGIN) / inner * (xa.GetXmax() - xa.GetXmin()) for u in PALETTE_X)
    try:  # the pad's coordinates (as the painter reads them), then NDC (as in draw.matrices.place_palette)
        for setter, value in zip(("SetX1", "SetX2", "SetY1", "SetY2", "SetX1NDC", "SetX2NDC", "SetY1NDC", "SetY2NDC"),
                                 (x1, x2, ya.GetXmin(), ya.GetXmax(), *PALETTE_X, DEFAULT_MARGIN, 1 - DEFAULT_MARGIN)):  # fmt: skip
            getattr(palette, setter)(value)
        yield
    finally:
        if made:
            functions.Remove(palette)
        else:
            for setter, value in zip(("SetX1", "SetX2", "SetY1", "SetY2", "SetX1NDC", "SetX2NDC", "SetY1NDC", "SetY2NDC"), saved):
                getattr(palette, setter)(value)
