"""The campaign's maps over the mass grid (x = m(H+), y = m(A), one bin per mass value): the
figure (COLZ with the value printed in each cell) and the histograms stored in campaign.root.

Stored, per map `<name>` under maps/: `<name>` (object name `<name>_values`), a TH2D whose trained cells hold the value
and, as bin error, the fold standard error of the mean (std/sqrt(k)); cells without a value
(no signal point, or an undefined difference) hold 0 with error 0, so GetBinContent, Integral()
and uproot read only what was measured; drawn with COLZ1 and the minimum set below the data, so
empty cells stay blank. An undefined difference (both rejections lower limits) is marked, not a
0 +- 0 "no difference": a grey box (UNDEFINED_FILL, a TBox without text) over the cell in the
TH2's list of functions, which the histogram painter draws with it (TBrowser, `h.Draw()`), the
title says "grey: undefined", and `<name>_undefined` holds 1 in those cells, 0 elsewhere (key
`<name>_undefined`). Difference maps are coloured by the pull (difference / its error,
PULL_RANGE either side of 0, the palette titled with the quantity: pull_title), not by the value.
Each cell prints its value +- the error by the PDG rule (metrics.rounding.pm) where it has one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pnetviz.summary.ranking import ALPHA
from pnetviz.draw import canvas
from pnetviz.draw.geometry import text_width
from pnetviz.draw.matrices import cell_content
from pnetviz.metrics.rounding import ROUNDOFF, pm
from pnetviz.names import name as quantity
from pnetviz.rootenv import root, set_title

SIGNIFICANCE = ALPHA  # difference-map cells marked "*" below this Holm-adjusted p-value
PULL_RANGE = 5.0  # difference maps: colour = difference / its error, from -5 to +5
X_TITLE, Y_TITLE = quantity("mhc"), quantity("ma")  # names.QUANTITIES
UNDEFINED_FILL = 920  # kGray: an undefined difference's cell (white: no signal point; the palettes hold no grey)
ZERO_COLOUR = 1e-9  # a drawn cell whose colour value is exactly 0 holds this fraction of the z range (COLZ1 leaves 0 blank)
MIN_CELL_TEXT = 0.0412  # cell numbers no smaller: 7 pt when the figure is 8 cm wide (draw.matrices.MATRIX_LABEL_SIZE)


@dataclass(frozen=True)
class MapSpec:
    name: str  # file stem
    title: str  # what the values are (the ROOT object's title)
    ztitle: str
    points: dict[tuple[int, int], float]  # (m_hc, m_a) -> value
    fmt: str
    diverging: bool = False
    bounds: dict[tuple[int, int], str] = field(default_factory=dict)  # cell -> ">" or "<": the value is a limit
    undefined: tuple[tuple[int, int], ...] = ()  # signal points with no value (a difference of two lower limits)
    significant: tuple[tuple[int, int], ...] = ()  # cells whose difference has Holm-adjusted p < SIGNIFICANCE
    short: str = ""  # the context line on the figure (short enough for 8 cm); the title otherwise
    errors: dict[tuple[int, int], float] = field(default_factory=dict)  # cell -> fold standard error of the value
    pull_title: str = ""  # diverging maps (required): the palette's title, the pull of the quantity ("#Delta AUC / #sigma_{#Delta}")
    group: str = ""  # maps of one quantity (binary and multi-class, every channel) share the group's z range (share_ranges)
    zrange: tuple[float, float] | None = None  # the colour range; None: fitted to this map's values
    star: str = ""  # the test behind `significant` ("corrected t"): the caption's "* Holm p < 0.05 (...)"


def value_range(values: Sequence[float]) -> tuple[float, float] | None:
    """The colour range of sequential map values: their span, widened by 2% on each side (so the
    extreme cells keep a colour); None without a finite value."""
    finite = [float(v) for v in values if math.isfinite(v)]
    if not finite:
        return None
    lo, hi = min(finite), max(finite)
    pad = 0.02 * (hi - lo or abs(hi) or 1.0)
    return lo - pad, hi + pad


def share_ranges(specs: Sequence[MapSpec]) -> list[MapSpec]:
    """`specs` with one z range per non-empty `group` of sequential maps (value_range of all their
    values): one colour means one value on the binary and the multi-class map of a background,
    and on every channel's. Diverging maps keep their fixed pull range."""
    groups: dict[str, list[float]] = {}
    for s in specs:
        if s.group and not s.diverging:
            groups.setdefault(s.group, []).extend(s.points.values())
    ranges = {g: value_range(v) for g, v in groups.items()}
    return [dataclasses.replace(s, zrange=ranges[s.group]) if s.group in ranges and not s.diverging else s for s in specs]


def _grid_hist(name: str, title: str, xs: list, ys: list, ztitle: str):
    """An empty TH2D with one labelled bin per mass value."""
    ROOT = root()
    hist = ROOT.TH2D(name, "", len(xs), 0, len(xs), len(ys), 0, len(ys))
    set_title(hist, title, X_TITLE, Y_TITLE, ztitle)  # whole, a ';' in a name too
    hist.SetStats(False)
    for i, x in enumerate(xs):
        hist.GetXaxis().SetBinLabel(i + 1, str(x))
    for j, y in enumerate(ys):
        hist.GetYaxis().SetBinLabel(j + 1, str(y))
    return hist


def colour_values(spec: MapSpec) -> dict[tuple[int, int], float]:
    """What each cell's colour shows: the value; for diverging maps the pull value/error, clipped
    inside +-PULL_RANGE (an error of 0: 0 for a difference of 0, else the palette's end; cells
    without an error, or bounds, get no colour)."""
    finite = {c: v for c, v in spec.points.items() if math.isfinite(v)}
    if not spec.diverging:
        return finite
    edge = PULL_RANGE * (1 - 1e-9)
    out = {}
    for c, v in finite.items():
        err = spec.errors.get(c)
        if c in spec.bounds or err is None or not math.isfinite(err) or err < 0:
            continue
        # an error of 0 (every fold the same difference): 0 +- 0 is no difference, anything else beyond the
        # palette; the error to floating-point round-off, the difference as the cell prints it (a difference
        # of 2e-17 +- 0 or of 4e-5 +- 0 printed "+0.000 +- 0" is 0 +- 0, not a saturated cell)
        zero = lambda x: abs(x) <= ROUNDOFF * max(1.0, abs(v))  # noqa: E731
        printed_zero = zero(v) or float(format(v, spec.fmt)) == 0.0
        out[c] = float(np.clip(v / err, -edge, edge)) if not zero(err) else 0.0 if printed_zero else math.copysign(edge, v)
    return out


def cell_label(spec: MapSpec, cell: tuple[int, int]) -> str:
    """What a cell prints (TLatex): value +- its error by the PDG rule where the cell has a
    finite error (metrics.rounding.pm: "+- 0" for an error of 0), the value alone in `spec.fmt`
    otherwise; "> X" / "< X" for a bound, "*" after a significant difference; "n/a" for a
    non-finite value."""
    v = spec.points[cell]
    if not math.isfinite(v):
        return "n/a"
    if cell in spec.bounds:
        label = f"{spec.bounds[cell]} {format(v, spec.fmt)}"
    else:
        err = spec.errors.get(cell)
        usable = err is not None and math.isfinite(err) and err >= 0  # 0: "+- 0" (every fold the same)
        label = pm(v, err if usable else None, "tlatex", fallback=spec.fmt.lstrip("+"), sign=spec.fmt.startswith("+"))
    return label + ("*" if cell in spec.significant else "")


def undefined_box(i: int, j: int):
    """The grey box over cell (i, j) (0-based) marking an undefined difference."""
    box = root().TBox(i, j, i + 1, j + 1)
    box.SetFillColor(UNDEFINED_FILL)
    box.SetFillStyle(1001)
    box.SetLineWidth(0)
    return box


def stored_hists(spec: MapSpec, xs: list, ys: list) -> dict:
    """The honest histograms for campaign.root: `<name>_values` (value, error = fold standard
    error; 0 and 0 where there is none; undefined differences marked by a grey box in its list
    of functions) and, for difference maps, `<name>_undefined` (mask)."""
    short = spec.short or spec.title
    blank = "blank: no signal point" + (", grey: undefined (both lower limits)" if spec.undefined else "")
    values = _grid_hist(f"{spec.name}_values", f"{short} ({blank})", xs, ys, spec.ztitle)
    for (x, y), v in spec.points.items():
        if math.isfinite(v):
            b = values.GetBin(xs.index(x) + 1, ys.index(y) + 1)
            values.SetBinContent(b, cell_content(v))  # 4 significant digits: drawn "colz text" alone, short numbers
            err = spec.errors.get((x, y))
            values.SetBinError(b, err if err is not None and math.isfinite(err) else 0.0)
    for x, y in spec.undefined:  # painted with the histogram (THistPainter draws its functions), stored with it
        box = undefined_box(xs.index(x), ys.index(y))
        root().SetOwnership(box, False)  # the histogram deletes its functions
        values.GetListOfFunctions().Add(box)
    zrange = spec.zrange or value_range(list(spec.points.values()))
    if zrange:  # COLZ1 and a minimum below the data: empty cells (0) are not painted
        values.SetMinimum(zrange[0])
        values.SetMaximum(zrange[1])
    values.SetOption("COLZ1")
    out = {f"maps/{spec.name}": values}
    if spec.diverging:
        mask = _grid_hist(f"{spec.name}_undefined", f"{short}: 1 where the difference is undefined (both lower limits)",
                          xs, ys, "undefined")  # fmt: skip
        for x, y in spec.undefined:
            mask.SetBinContent(xs.index(x) + 1, ys.index(y) + 1, 1.0)
        mask.SetOption("COLZ1")
        out[f"maps/{spec.name}_undefined"] = mask
    return out


def cell_texts(labels: dict, pad, nx: int, ny: int) -> tuple[dict, float]:
    """The TLatex texts of a map's cell labels and their one size (one size on the whole map): on
    one line at the cell-number size if every label fits its cell, else value and error on two
    lines (#splitline), else the smaller of the two down to MIN_CELL_TEXT."""
    width = pad.GetWw() * (1 - pad.GetLeftMargin() - pad.GetRightMargin()) / nx * 0.92
    height = pad.GetWh() * (1 - pad.GetTopMargin() - pad.GetBottomMargin()) / ny * 0.92
    split = {c: tuple(t.split(" #pm ", 1)) for c, t in labels.items()}
    split = {c: (p[0], f"#pm {p[1]}") if len(p) == 2 else p for c, p in split.items()}

    def fits(size: float, lines: int) -> bool:
        parts = [(t,) for t in labels.values()] if lines == 1 else list(split.values())
        tall = max(len(p) for p in parts) if parts else 1
        return (tall * 1.2 * size * pad.GetWh() <= height
                and all(text_width(t, size) <= width for p in parts for t in p))  # fmt: skip

    size = canvas.MATRIX_LABEL_SIZE
    lines = 1 if fits(size, 1) else 2
    while size > MIN_CELL_TEXT and not fits(size, lines):
        size = max(MIN_CELL_TEXT, size * 0.95)
    if lines == 2 and fits(size, 1):
        lines = 1
    if lines == 1:
        return dict(labels), size
    return {c: f"#splitline{{{p[0]}}}{{{p[1]}}}" if len(p) == 2 else p[0] for c, p in split.items()}, size


def map_figure(spec: MapSpec) -> canvas.Figure:
    """COLZ map over the mass grid, one bin per mass value, the value printed in each cell;
    difference maps coloured by the pull on a fixed symmetric palette."""
    ROOT = root()
    cells = {*spec.points, *spec.undefined}
    xs = sorted({m[0] for m in cells})
    ys = sorted({m[1] for m in cells})
    fig = canvas.matrix_figure(spec.name, 1, [str(y) for y in ys])
    if spec.diverging and not spec.pull_title:
        raise ValueError(f"{spec.name}: a difference map's palette needs pull_title, the quantity's pull")
    ztitle = spec.pull_title if spec.diverging else spec.ztitle
    hist = _grid_hist(spec.name, spec.title, xs, ys, ztitle)
    colours = colour_values(spec)
    if spec.diverging:
        lo, hi = -PULL_RANGE, PULL_RANGE
    else:  # the group's shared range (share_ranges), else this map's own
        lo, hi = spec.zrange or value_range(list(colours.values())) or (0.0, 1.0)
    hist.SetMinimum(lo)
    hist.SetMaximum(hi)
    for (x, y), v in colours.items():  # cells without a colour hold 0: COLZ1 leaves them blank ...
        hist.SetBinContent(xs.index(x) + 1, ys.index(y) + 1, v or ZERO_COLOUR * (hi - lo))  # ... a value of 0 is coloured
    for axis, title in ((hist.GetXaxis(), X_TITLE), (hist.GetYaxis(), Y_TITLE)):
        axis.SetTitle(title)
        axis.SetLabelSize(canvas.BIN_LABEL_SIZE["matrix"])
        axis.SetTitleSize(canvas.MATRIX_LABEL_SIZE)
    hist.SetBit(ROOT.TH1.kNoTitle)
    hist.GetXaxis().SetTitleOffset(1.3)
    hist.GetYaxis().SetTitleOffset(1.6)
    hist.GetZaxis().SetTitle(ztitle)
    hist.GetZaxis().SetTitleOffset(1.55)
    hist.GetZaxis().SetTitleSize(canvas.MATRIX_LABEL_SIZE)
    hist.GetZaxis().SetLabelSize(canvas.MATRIX_LABEL_SIZE)
    hist.GetZaxis().SetNoExponent(True)  # no "x10^-3" over the run text
    hist.GetZaxis().SetNdivisions(*((502, False) if spec.diverging else (505, True)))  # the pull palette: -5, 0, 5 labelled
    pad_obj = fig.pads[0]
    pad_obj.cd()
    pad_obj.SetRightMargin(0.25)  # the palette, its labels (up to 6 characters) and the z title
    # the palette travels with the canvas (a TExec while drawn here, its colours in the file: draw.rootfile):
    # a diverging one centred on zero for differences, a sequential one otherwise
    palette = canvas.palette_exec(87 if spec.diverging else 57)  # kLightTemperature, kBird
    hist.Draw("COLZ1")  # cells holding 0 (no colour) are not painted
    pad_obj.GetListOfPrimitives().AddFirst(palette)  # painted before the cells
    fig.extras.append(palette)
    canvas.place_palette(hist, pad_obj)
    for x, y in spec.undefined:  # both sides lower limits: no difference to state, a grey "n/a" cell
        box = undefined_box(xs.index(x), ys.index(y))
        box.Draw()
        fig.extras.append(box)
        text = ROOT.TLatex(xs.index(x) + 0.5, ys.index(y) + 0.5, "n/a")
        text.SetTextAlign(22)
        text.SetTextFont(42)
        text.SetTextSize(canvas.MATRIX_LABEL_SIZE)
        text.Draw()
        fig.extras.append(text)
    labels, size = cell_texts({c: cell_label(spec, c) for c in spec.points}, pad_obj, len(xs), len(ys))
    for (x, y), label in labels.items():
        text = ROOT.TLatex(xs.index(x) + 0.5, ys.index(y) + 0.5, label)
        text.SetTextAlign(22)
        text.SetTextFont(42)
        text.SetTextSize(size)
        # white on the palettes' dark ends: both ends of the diverging one, the low end of the sequential one
        c = colours.get((x, y))
        where = (c - lo) / (hi - lo) if hi > lo and c is not None else 0.5
        dark = abs(where - 0.5) > 0.35 if spec.diverging else where < 0.3
        text.SetTextColor(ROOT.kWhite if dark else ROOT.kBlack)
        text.Draw()
        fig.extras.append(text)
    lines = [spec.short or spec.title]
    if spec.diverging:
        star = f", * Holm p < {SIGNIFICANCE:g} ({spec.star})" if spec.star else ""
        lines.append(f"colour: {spec.pull_title}{star}" + (", grey n/a: undefined (both lower limits)" if spec.undefined else ""))
    canvas.context_line(fig, lines)
    fig.extras.append(hist)
    for key, stored in stored_hists(spec, xs, ys).items():
        fig.keep(key, stored)
    return fig
