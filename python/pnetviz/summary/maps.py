"""The campaign's maps over the mass grid (x = m(H+), y = m(A), one bin per mass value): the
figure (COLZ with the value printed in each cell) and the histograms stored in campaign.root.

Stored, per map `<name>` under maps/: `<name>` (object name `<name>_values`), a TH2D whose trained cells hold the value
and, as bin error, the fold standard error of the mean (std/sqrt(k)); cells without a value
(no signal point, or an undefined difference) hold 0 with error 0, so GetBinContent, Integral()
and uproot read only what was measured; drawn with COLZ1 and the minimum set below the data, so
empty cells stay blank. Difference maps also store `<name>_undefined`, 1 in the cells where
the difference is undefined (both rejections lower limits), 0 elsewhere (key `<name>_undefined`). Difference maps are
coloured by the pull (difference / its error, PULL_RANGE either side of 0), not by the value.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pnetviz.summary.ranking import ALPHA
from pnetviz.draw import canvas
from pnetviz.draw.matrices import cell_content
from pnetviz.names import name as quantity
from pnetviz.rootenv import root, set_title

SIGNIFICANCE = ALPHA  # difference-map cells marked "*" below this Holm-adjusted p-value
PULL_RANGE = 5.0  # difference maps: colour = difference / its error, from -5 to +5
X_TITLE, Y_TITLE = quantity("mhc"), quantity("ma")  # names.QUANTITIES


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
    pull_title: str = ""  # diverging maps: the palette's title for the pull (colour = value / error)
    group: str = ""  # maps of one quantity (binary and multi-class, every channel) share the group's z range (share_ranges)
    zrange: tuple[float, float] | None = None  # the colour range; None: fitted to this map's values


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
    inside +-PULL_RANGE (cells without an error, or bounds, get no colour)."""
    finite = {c: v for c, v in spec.points.items() if math.isfinite(v)}
    if not spec.diverging:
        return finite
    edge = PULL_RANGE * (1 - 1e-9)
    return {c: float(np.clip(v / spec.errors[c], -edge, edge)) for c, v in finite.items()
            if c not in spec.bounds and (spec.errors.get(c) or 0) > 0 and math.isfinite(spec.errors[c])}  # fmt: skip


def stored_hists(spec: MapSpec, xs: list, ys: list) -> dict:
    """The honest histograms for campaign.root: `<name>_values` (value, error = fold standard
    error; 0 and 0 where there is none) and, for difference maps, `<name>_undefined` (mask)."""
    short = spec.short or spec.title
    values = _grid_hist(f"{spec.name}_values", f"{short} (blank: no signal point)", xs, ys, spec.ztitle)
    for (x, y), v in spec.points.items():
        if math.isfinite(v):
            b = values.GetBin(xs.index(x) + 1, ys.index(y) + 1)
            values.SetBinContent(b, cell_content(v))  # 4 significant digits: drawn "colz text" alone, short numbers
            err = spec.errors.get((x, y))
            values.SetBinError(b, err if err is not None and math.isfinite(err) else 0.0)
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


def map_figure(spec: MapSpec) -> canvas.Figure:
    """COLZ map over the mass grid, one bin per mass value, the value printed in each cell;
    difference maps coloured by the pull on a fixed symmetric palette."""
    ROOT = root()
    cells = {*spec.points, *spec.undefined}
    xs = sorted({m[0] for m in cells})
    ys = sorted({m[1] for m in cells})
    fig = canvas.matrix_figure(spec.name, 1, [str(y) for y in ys])
    ztitle = spec.pull_title or spec.ztitle if spec.diverging else spec.ztitle
    hist = _grid_hist(spec.name, spec.title, xs, ys, ztitle)
    colours = colour_values(spec)
    if spec.diverging:
        lo, hi = -PULL_RANGE, PULL_RANGE
    else:  # the group's shared range (share_ranges), else this map's own
        lo, hi = spec.zrange or value_range(list(colours.values())) or (0.0, 1.0)
    hist.SetMinimum(lo)
    hist.SetMaximum(hi)
    for (x, y), v in colours.items():  # cells without a colour hold 0: COLZ1 leaves them blank
        hist.SetBinContent(xs.index(x) + 1, ys.index(y) + 1, v)
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
    hist.GetZaxis().SetNdivisions(505)
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
    for (x, y), v in spec.points.items():
        label = format(v, spec.fmt) if math.isfinite(v) else "n/a"
        if (x, y) in spec.bounds:
            label = f"{spec.bounds[(x, y)]} {label}"
        if (x, y) in spec.significant:
            label += "*"
        text = ROOT.TLatex(xs.index(x) + 0.5, ys.index(y) + 0.5, label)
        text.SetTextAlign(22)
        text.SetTextFont(42)
        text.SetTextSize(canvas.MATRIX_LABEL_SIZE)
        # white on the palettes' dark ends: both ends of the diverging one, the low end of the sequential one
        c = colours.get((x, y))
        where = (c - lo) / (hi - lo) if hi > lo and c is not None else 0.5
        dark = abs(where - 0.5) > 0.35 if spec.diverging else where < 0.3
        text.SetTextColor(ROOT.kWhite if dark else ROOT.kBlack)
        text.Draw()
        fig.extras.append(text)
    for x, y in spec.undefined:  # both sides lower limits: no difference to state
        text = ROOT.TLatex(xs.index(x) + 0.5, ys.index(y) + 0.5, "both limits")
        text.SetTextAlign(22)
        text.SetTextFont(42)
        text.SetTextSize(canvas.CONTEXT_SIZE["matrix"])
        text.Draw()
        fig.extras.append(text)
    lines = [spec.short or spec.title]
    if spec.diverging:
        star = f", * Holm p < {SIGNIFICANCE:g} (corrected t)" if "AUC" in spec.title else ""
        lines.append(f"colour: difference / error{star}")
    canvas.context_line(fig, lines)
    fig.extras.append(hist)
    for key, stored in stored_hists(spec, xs, ys).items():
        fig.keep(key, stored)
    return fig
