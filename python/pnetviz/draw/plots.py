"""The plots of the spec, composed from the generic helpers in `canvas.py`.

Each function takes plain data (curves, histograms, matrices, histories) and returns a
`canvas.Figure`; saving and writing to the ROOT file are done by the caller.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from pnetviz.draw import canvas
from pnetviz.rootenv import root, set_title
from pnetviz.metrics.roc import decimate, vertices
from pnetviz.draw.simplify import canvas_values, drawn_points
from pnetviz.draw.sampling import bin_contents
from pnetviz.draw.ratiopanel import RATIO_STEPS, RatioPanel, RatioSpec, draw_ratios, frame_titles, ratio_range  # noqa: F401 (callers use plots.*)
from pnetviz.draw.style import ENCODINGS, STYLE, color, cycle_color, line_style
from pnetviz.names import name as quantity
from pnetviz.draw.scorelegend import grid_legend, score_legend
from pnetviz.draw.specs import CurveSpec, HistSpec  # noqa: F401 (callers use plots.*)
from pnetviz.draw.classplots import bar_figure, confusion_figures, pairwise_auc_figure  # noqa: F401 (callers use plots.*)


def split_style(split: str) -> int:
    """The line style of a split or model (style.ENCODINGS): train solid, test dashed, binary solid,
    multi-class long dashes; anything else as test."""
    return line_style(split if split in ENCODINGS else "test")


def curve_figure(name: str, frame: canvas.Frame | Sequence[canvas.Frame], curves: Sequence[CurveSpec],
                 context: Sequence[str], diagonal: bool = False, corners: Sequence[str] = canvas.CORNERS, extra=None,
                 underlay=None, ratio: RatioPanel | None = None, reframe=None) -> canvas.Figure:  # fmt: skip
    """Lines (train solid, test dashed by the caller's CurveSpec), optional y = x, and one box
    holding the context lines and the legend in the first corner (`corners`) the curves, bands and
    diagonal leave empty; with several frames (e.g. more headroom on a log axis) each is tried in
    turn (canvas.boxed_figure: the context shortened or left to the caption where none has room
    for it). The CMS label above the frame. The canvas draws each curve within 1e-3 of its frame
    (draw.simplify), the file keeps the exact one. `underlay(fig)`
    draws under the curves (bands), `extra(fig)` over them (a hull). `ratio`: a lower panel
    (canvas.ratio_figure) with each curve's ratio to the reference, named in the context.
    `reframe(fig, old, new)`: moves a figure without a ratio panel to a frame with a taller log y
    range (canvas.boxed_figure; figures.reframe and what the caller's underlay needs)."""
    frames = [frame] if isinstance(frame, canvas.Frame) else list(frame)
    if diagonal:  # then the same frame without the chance line: a box in the frame rather than above it
        frames.append(dataclasses.replace(frames[0]))
    if ratio is not None:
        note = f"ratio to {ratio.reference}"  # joined to the last context line when both fit 8 cm, else a line of its own
        joined = f"{context[-1]}, {note}" if context else ""
        fits = context and canvas.box_width([joined]) <= 0.75
        context = [*context[:-1], joined] if fits else [*context, note[0].upper() + note[1:]]
        window = ratio.window or frames[0].x
        rframe = canvas.Frame(frames[0].x, ratio_range(ratio.specs, window), frames[0].xtitle, ratio.ytitle())

    kept: dict[tuple[int, canvas.Frame], np.ndarray] = {}  # each curve's drawn points per frame (drawn up to 3 times)
    finest = _finest(frames)  # frames differing in their ranges only: the same points in each

    def draw(fig: canvas.Figure, fr: canvas.Frame) -> None:
        if underlay is not None:
            underlay(fig)
        if diagonal and fr is frames[0]:
            canvas.add_line(fig, fr.x[0], fr.x[0], fr.x[1], fr.x[1])  # the chance line, unlabelled as usual
            fig.optional.append(fig.extras[-1])  # the second frame's figure: this one without it (boxed_figure)
        for i, c in enumerate(curves):
            room = finest or fr
            if (i, room) not in kept:
                corners = vertices(c.x, c.y)  # the same line: simplified from its vertices only
                kept[i, room] = corners[drawn_points(c.x[corners], c.y[corners], room.x, room.y, room.logx, room.logy)]
            keep = kept[i, room]
            x, y = canvas_values(c.x[keep]), canvas_values(c.y[keep])
            drawn = canvas.add_graph(fig, c.key, x, y, c.label, line_color=c.color, line_style=c.line_style)
            if keep.size < c.x.size or not (np.array_equal(x, c.x) and np.array_equal(y, c.y)):
                fig.extras.append(drawn)  # the file keeps the exact curve (up to MAX_STORED_POINTS), the canvas the drawn one
                fig.keep(c.key, stored_graph(c, keep, drawn, fr), c.label)
        if extra is not None:
            extra(fig)
        if ratio is not None:
            draw_ratios(fig, ratio, rframe)

    def space(fr: canvas.Frame) -> float:  # log axes: wider tick labels (10^{3}), a wider left margin
        return 0.03 if fr.logy else 0.0

    def make(fr: canvas.Frame) -> canvas.Figure:
        if ratio is not None:
            return canvas.ratio_figure(name, fr, rframe, extra_space=space(fr))
        return canvas.figure(name, fr, cms_pos=0, extra_space=space(fr))

    return canvas.boxed_figure(make, frames, draw, context, corners, reframe=reframe if ratio is None else None)


def _finest(frames: Sequence[canvas.Frame]) -> canvas.Frame | None:
    """For frames on the same kind of axes (log or not), a frame with the narrowest x range and the
    narrowest y range among them: a line within the tolerance of it (draw.simplify, in its
    fractions) is within it of each, so a curve is simplified once and drawn the same in every
    frame (a figure moved to another frame, figures.reframe, is the one drawn there anew). None
    for frames on different kinds of axes."""
    if any((f.logx, f.logy) != (frames[0].logx, frames[0].logy) for f in frames):
        return None

    def span(limits: tuple[float, float], log: bool) -> float:
        return math.log10(limits[1] / limits[0]) if log else limits[1] - limits[0]

    x = min((f.x for f in frames), key=lambda v: span(v, frames[0].logx))
    y = min((f.y for f in frames), key=lambda v: span(v, frames[0].logy))
    return dataclasses.replace(frames[0], x=x, y=y)


MAX_STORED_POINTS = 100_000  # curves up to this size are stored exactly in the ROOT file


def stored_graph(c: CurveSpec, keep: np.ndarray, drawn, frame: canvas.Frame) -> object:
    """The curve for the ROOT file: up to MAX_STORED_POINTS points the exact curve (its vertices:
    metrics.roc.vertices, the same line), else the drawn (decimated) points; the title says which."""
    exact = c.x.size <= MAX_STORED_POINTS
    corners = vertices(c.x, c.y) if exact else keep
    x, y = c.x[corners], c.y[corners]
    graph = root().TGraph(x.size, np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
    graph.SetLineColor(drawn.GetLineColor())
    graph.SetLineStyle(drawn.GetLineStyle())
    graph.SetLineWidth(drawn.GetLineWidth())
    graph.SetMarkerStyle(1)
    note = f"exact curve, {x.size} vertices" if exact else f"decimated to {x.size} of {c.x.size} points (within 1e-3)"
    set_title(graph, f"{c.label} ({note})", frame.xtitle, frame.ytitle)  # whole, a ';' in the label too
    return graph


def store_curves(fig: canvas.Figure, curves: Sequence[CurveSpec], xtitle: str, ytitle: str) -> None:
    """Curves for the figure's ROOT file only (not drawn on its canvas), styled as if drawn."""
    for c in curves:
        keep = vertices(c.x, c.y) if c.x.size <= MAX_STORED_POINTS else decimate(c.x, c.y)
        graph = root().TGraph(keep.size, np.ascontiguousarray(c.x[keep], dtype=np.float64),
                              np.ascontiguousarray(c.y[keep], dtype=np.float64))  # fmt: skip
        graph.SetName(c.key.replace("/", "_"))
        set_title(graph, f"{c.label} (not drawn on the canvas)", xtitle, ytitle)  # whole, a ';' in the label too
        graph.SetLineColor(c.color)
        graph.SetLineStyle(c.line_style)
        graph.SetLineWidth(STYLE["line_width"])
        graph.SetMarkerStyle(1)
        fig.keep(c.key, graph, c.label)


def roc_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str], hull=None,
               underlay=None, ratio: RatioPanel | None = None) -> canvas.Figure:  # fmt: skip
    """ROC; `hull` = (key, fpr, tpr, (fpr, tpr[, prevalence, accuracy]) of the iso-accuracy optimum
    or None[, label]), or a list of them, draws convex hulls (with the prevalence and accuracy: the
    iso-accuracy line through the optimum, seed 002);
    `underlay(fig)` draws under the curves (e.g. +-1 sigma bands)."""
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.02), quantity("background_efficiency"), quantity("signal_efficiency"))

    overlays = [hull] if isinstance(hull, tuple) else list(hull or [])

    def draw_hull(fig: canvas.Figure) -> None:
        for i, (key, fpr, tpr, best, *label) in enumerate(overlays):
            canvas.add_graph(fig, f"{key}_hull", fpr, tpr, label[0] if label else "Convex hull (test)",
                             line_color=cycle_color(5 + i), line_style=1, width=1)  # fmt: skip
            if best is not None:
                canvas.add_points(fig, f"{key}_optimum", [best[0]], [best[1]], "Iso-accuracy optimum", marker_color=cycle_color(5))
                if len(best) == 4 and (segment := iso_accuracy_segment(*best, frame)) is not None:
                    (x1, y1), (x2, y2) = segment
                    canvas.add_line(fig, x1, y1, x2, y2, f"Iso-accuracy line, A = {best[3]:.3f}",
                                    line_color=cycle_color(5), line_style=7)  # fmt: skip

    return curve_figure(name, frame, curves, context, diagonal=True, corners=("lower right",),
                        extra=draw_hull if hull else None, underlay=underlay, ratio=ratio)  # fmt: skip


def roc_logx_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str]) -> canvas.Figure:
    """The ROC with the background efficiency on a log x axis (the HEP view of the tight cuts,
    where eps_b is 1e-3..1e-1 and a linear axis packs them against 0): from the decade below the
    smallest non-zero eps_b of `curves` (1e-4 at the least) to 1; points at eps_b = 0 are not on
    a log axis (the rejection curve shows that region); the chance line y = x."""
    positive = [float(np.min(c.x[c.x > 0])) for c in curves if np.any(c.x > 0)]
    low = max(10.0 ** math.floor(math.log10(min(positive))), 1e-4) if positive else 1e-4
    shown = [dataclasses.replace(c, key="{0}_logx/{2}".format(*c.key.partition("/")), x=c.x[keep], y=c.y[keep])
             for c in curves if (keep := c.x >= low).sum() > 1]  # fmt: skip
    frame = canvas.Frame((low, 1.0), (0.0, 1.02), quantity("background_efficiency"), quantity("signal_efficiency"), logx=True)
    return curve_figure(name, frame, shown, context, diagonal=True, corners=("upper left", "lower right"))


def iso_accuracy_segment(fpr: float, tpr: float, prevalence: float, accuracy: float,
                         frame: canvas.Frame) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The iso-accuracy line through the optimum (fpr, tpr) (seed 002: TPR = (N/P) FPR + (A(P+N) - N)/P,
    slope N/P = (1 - prevalence)/prevalence; `accuracy` names it) within `frame`: its two ends,
    None without a prevalence in (0, 1) or a point outside the frame."""
    if not (0.0 < prevalence < 1.0 and math.isfinite(fpr) and math.isfinite(tpr)):
        return None
    slope = (1.0 - prevalence) / prevalence
    (x0, x1), (y0, y1) = frame.x, frame.y
    # the line x(t) = fpr + t, y(t) = tpr + slope t, clipped to the frame (Liang-Barsky on t)
    lo = max(x0 - fpr, (y0 - tpr) / slope)
    hi = min(x1 - fpr, (y1 - tpr) / slope)
    if not lo < hi:
        return None
    return (fpr + lo, tpr + slope * lo), (fpr + hi, tpr + slope * hi)


def rejection_top(curves: Sequence[CurveSpec]) -> float:
    """The highest rejection of `curves` (10 without any): what rejection_figure's frame holds."""
    return max((float(np.max(c.y)) for c in curves if c.y.size), default=10.0)


def rejection_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str], underlay=None,
                     ratio: RatioPanel | None = None, reframe=None) -> canvas.Figure:  # fmt: skip
    """The jet-tagging convention: eps_s on x, background rejection 1/eps_b on a log y axis fitted
    to the data; the box where the curves leave room, with a decade of headroom above them if
    needed (at most a decade: the figure linter's rule), else above the frame. A figure that needs
    the headroom is the first one moved to it (`reframe`: canvas.reframe without an underlay; an
    underlay that follows the frame's top brings its own)."""
    reframe = reframe or (canvas.reframe if underlay is None else None)
    top = rejection_top(curves)
    frames = [canvas.Frame((0.0, 1.0), (1.0, max(top, 2.0) * room), quantity("signal_efficiency"), quantity("rejection"), logy=True)
              for room in (2.5, 10.0)]  # fmt: skip
    return curve_figure(name, frames, curves, context, corners=("lower left", "upper right", "lower right"), underlay=underlay,
                        ratio=ratio, reframe=reframe)  # fmt: skip


def pr_figure(name: str, curves: Sequence[CurveSpec], context: Sequence[str]) -> canvas.Figure:
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.05), "Recall (signal efficiency)", "Precision (weighted purity)")
    return curve_figure(name, frame, curves, context, corners=("lower left", "lower right"))


def score_figure(name: str, hists: Sequence[HistSpec], xtitle: str, context: Sequence[str],
                 extra_lines: Sequence[str] = (), wide_legend: bool = False, cuts: Sequence[float] = (),
                 cut_label: str = "", cut_texts: Sequence[str] = (), bins: int | str | None = None) -> canvas.Figure:  # fmt: skip
    """Score distributions normalised to unit area (each histogram sums to 1) on a log y axis fitted
    to the data, its maximum raised by a decade for the legend (as CMS figures do; by 2-3 for the
    legend alone where the data fill the top decade: the linter counts the legend's decades), which
    goes where the data leave room (canvas.boxed_figure: inside the frame, the context on one line
    or in the caption); train as lines, test as points. `cuts`: score cuts (working points) drawn
    as dashed vertical lines up to the top of the data, labelled `cut_label`; with `cut_texts` (e.g.
    "90%") each line's title names its target and the one legend entry lists the targets left to
    right ("WP eps_s: 90,70,50%"). `bins` (--score-bins): each histogram drawn (and stored) with
    that many bins, merged from its own (a divisor of them), sums of weights and of their squares;
    "auto": as many as auto_score_bins allows."""
    hists = [rebinned(h, auto_score_bins(hists) if bins == "auto" else bins) for h in hists]
    contents = np.concatenate([draw_contents(h.hist) for h in hists])
    positive = contents[contents > 0]
    lo, peak = (max(float(positive.min()) * 0.5, 1e-7), float(positive.max())) if positive.size else (1e-4, 0.5)
    frames, more = ([canvas.Frame((0.0, 1.0), (lo, peak * room), xtitle, SCORE_TITLE, logy=True) for room in rooms]
                    for rooms in ((3.0, 10.0), (1e2, 1e3)))  # more: decades for the legend alone where the data fill the top one

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        for h in sorted(hists, key=lambda spec: spec.points):  # lines first, points on top
            canvas.add_hist(fig, h.key, h.hist, None, hist_color=h.color, points=h.points, line_style=h.line_style)
        fig.legend.extend(grid_legend(fig, hists) or score_legend(hists))
        label = cut_label
        if cut_texts:  # the targets in the legend entry, left to right (texts beside the lines collided with the legend)
            targets = [t for _, t in sorted(zip(cuts, cut_texts, strict=False))]
            label = f"WP #varepsilon_{{s}}: {','.join(t.rstrip('%') for t in targets[:-1])},{targets[-1]}"  # short: in columns
        for k, cut in enumerate(cuts):  # working points: dashed vertical lines, one legend entry for all, each its title
            canvas.add_line(fig, cut, frame.y[0], cut, peak * 1.5, label if k == 0 else None, line_color=color("reference"),
                            line_style=9)  # fmt: skip
            if cut_texts:
                set_title(fig.extras[-1], f"WP {cut_texts[k]}: cut {cut:.3g}")

    make = lambda fr: canvas.figure(name, fr, cms_pos=0, extra_space=0.03, y_title_offset=1.45)  # noqa: E731
    return canvas.boxed_figure(make, frames, draw, [*context, *extra_lines], corners=SCORE_CORNERS, more=more,
                               reframe=canvas.reframe)  # the drawing is the same in every frame: moved, not drawn again


SCORE_BIN_COUNTS = (50, 25, 10, 5)  # --score-bins: the filled 50 or a merge of them
MAX_EMPTY_FRACTION = 0.05  # auto_score_bins: empty bins allowed inside a histogram's filled range


def empty_fraction(contents: np.ndarray) -> float:
    """Of the bins from a histogram's first to its last filled bin (what a log y axis shows of it),
    the fraction that are empty (drawn down to the frame's floor); 0 for fewer than two filled."""
    filled = np.flatnonzero(contents > 0)
    if filled.size < 2:
        return 0.0
    inside = contents[filled[0]:filled[-1] + 1]
    return float(np.count_nonzero(inside <= 0)) / inside.size


def auto_score_bins(hists: Sequence[HistSpec]) -> int:
    """The default bin count of a score figure (--score-bins auto): the most of SCORE_BIN_COUNTS
    (those dividing every histogram's own count) at which no histogram has more than
    MAX_EMPTY_FRACTION of the bins between its first and last filled one empty; the fewest
    otherwise. A well-filled distribution keeps its 50 bins; a sparse one (a b-jet subset, a
    small test split) is merged until it is no 'barcode' of empty bins."""
    counts = [h.hist.GetNbinsX() for h in hists]
    choices = [b for b in SCORE_BIN_COUNTS if all(n % b == 0 and b <= n for n in counts)] or [min(counts, default=50)]
    for bins in choices:
        merged = [draw_contents(h.hist).reshape(bins, -1).sum(axis=1) for h in hists]
        if all(empty_fraction(c) <= MAX_EMPTY_FRACTION for c in merged):
            return bins
    return choices[-1]


def rebinned(spec: HistSpec, bins: int | None) -> HistSpec:
    """`spec` with its histogram merged to `bins` equal bins (a copy; TH1::Rebin sums the contents
    and, with Sumw2, the squared weights), itself where `bins` is None, its own count or no divisor of it."""
    n = spec.hist.GetNbinsX()
    if not bins or bins >= n or n % bins:
        return spec
    merged = spec.hist.Rebin(n // bins, f"{spec.hist.GetName()}_{bins}bins")
    merged.SetDirectory(0)
    return dataclasses.replace(spec, hist=merged)


SCORE_TITLE = "Normalised to unit area"  # not "Fraction of events": the axis runs past 1 to make room for the legend
SCORE_CORNERS = ("upper center", "upper right", "upper left")


def draw_contents(hist) -> np.ndarray:
    """Contents of bins 1..n of a 1-D histogram as float64, from its array in one call where its
    type is known (GetBinContent's values: ~30k calls of it an evaluation otherwise)."""
    return bin_contents(hist, hist.ClassName(), hist.GetNbinsX())


# --- working points, cut scan, calibration and the pairwise AUC matrix (issue 25) ---


def cut_scan_figure(name: str, key: str, scan: dict, xtitle: str, context: Sequence[str], yields_kind: str) -> canvas.Figure:
    """eps_s, eps_b, purity and the significances S/sqrt(S+B) and Asimov, each divided by its
    maximum (said in the y title; the maximum in the legend), against the cut s >= t (`scan`:
    metrics.workingpoints.cut_scan of the test split); the Asimov optimum (over the cuts with
    enough background, the rest greyed: _empty_band) as a dotted vertical line. `yields_kind`: "expected" or "relative" (named in the context). With relative yields no
    significance value is shown: S/sqrt(S+B) / its maximum (its shape and optimum do not depend on
    the normalisation) and its optimum; Asimov (whose shape does) is left out."""
    s, best = scan["scan"], scan["optimum"]
    t = np.asarray(s["threshold"], float)
    inside = (t >= 0.0) & (t <= 1.0)
    pick = slice(None) if inside.all() else inside  # every cut inside [0, 1]: views, not a copy per curve
    curves = [CurveSpec(f"{key}/eps_s", t[pick], s["eps_s"][pick], "#varepsilon_{s}", color("signal")),
              CurveSpec(f"{key}/eps_b", t[pick], s["eps_b"][pick], "#varepsilon_{b}", color("background")),
              CurveSpec(f"{key}/purity", t[pick], s["purity"][pick], "Purity", color("all_events"))]  # fmt: skip
    expected = yields_kind == "expected"
    use_asimov = expected and np.isfinite(best["asimov"]["value"])
    optimum = best["asimov"] if use_asimov else best["s_over_sqrt_s_plus_b"]
    cut = optimum["threshold"]
    marked = np.isfinite(cut) and 0.0 <= cut <= 1.0
    for name_z, label, col, style in (("s_over_sqrt_s_plus_b", "S/#sqrt{S+B}", color("with_flag"), 2),
                                      ("asimov", "Z_{A}", color("without_flag"), 7)):  # fmt: skip
        peak = best[name_z]["value"]
        if not np.isfinite(peak) or peak <= 0 or (name_z == "asimov" and not expected):
            continue  # relative yields: Z_A's shape and optimum depend on their normalisation
        z = np.asarray(s[name_z], float)[pick] / peak
        ok = np.isfinite(z) & np.isfinite(np.asarray(s["purity"], float)[pick])
        # the optimum's dotted line is named in its curve's entry (one legend row fewer: the legend
        # above the frame then leaves the frame its 5 cm at 8 cm)
        at = f" at {cut:.3g}" if marked and best[name_z] is optimum else ""
        text = f"{label} (max {peak:.3g}{at})" if expected else f"{label}, max{at}" if at else label
        ok = slice(None) if ok.all() else ok
        curves.append(CurveSpec(f"{key}/{name_z}", t[pick][ok], z[ok], text, col, style))
    curves = [c for c in curves if c.x.size > 1]
    # Z named in the legend (S/#sqrt{S+B} alone with relative yields)
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.1), xtitle, "#varepsilon, purity or Z / max Z")  # no subscript: a rotated Z_{max} reached the image edge

    def mark(fig: canvas.Figure) -> None:
        if marked:
            canvas.add_line(fig, cut, 0.0, cut, 1.1, None, line_color=color("reference"), line_style=3)

    ctx = [*context, "test events, " + ("expected yields" if yields_kind == "expected" else "relative yields (training weights)")]
    return curve_figure(name, frame, curves, ctx, extra=mark, underlay=lambda fig: _empty_band(fig, key, scan, t, inside))


def _empty_band(fig: canvas.Figure, key: str, scan: dict, t: np.ndarray, inside: np.ndarray) -> None:
    """Grey band over the cuts whose passing background has N_eff below the scan's minimum
    (metrics.workingpoints.cut_scan's constraint): statistically empty, no optimum there."""
    limit = scan.get("constraint", {}).get("min_background_n_eff")
    n_eff = np.asarray(scan["scan"].get("background_n_eff", []), float)
    if limit is None or n_eff.size != t.size:
        return
    empty = inside & (n_eff < limit)
    if empty.any():
        edge = float(t[empty].min())
        canvas.add_band(fig, f"{key}/statistically_empty", np.array([edge, 1.0]), np.zeros(2), np.full(2, 1.1),
                        f"N_{{eff}}(B) < {limit:g}", band_color=color("reference"), alpha=0.2)  # fmt: skip


def calibration_figure(name: str, series: Sequence[tuple], xtitle: str, ytitle: str,
                       context: Sequence[str]) -> canvas.Figure:  # fmt: skip
    """Reliability diagram: the observed fraction against the mean predicted probability per bin
    (metrics.calibration.Reliability), the diagonal for a perfectly calibrated model. `series` =
    [(key, reliability, label, colour, points)]: points with sum-w^2 errors (test) or a line (train)."""
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.05), xtitle, ytitle)

    def draw(fig: canvas.Figure, fr: canvas.Frame) -> None:
        canvas.add_line(fig, 0.0, 0.0, 1.0, 1.0, "Perfect calibration")
        for key, rel, label, col, points in series:
            ok = rel.filled & np.isfinite(rel.fraction)
            x, y = rel.mean_predicted[ok], np.clip(rel.fraction[ok], fr.y[0], fr.y[1])
            if points:
                canvas.add_error_points(fig, key, x, y, rel.fraction_error[ok], label, marker_color=col)
            elif x.size > 1:
                canvas.add_graph(fig, key, x, y, label, line_color=col, line_style=split_style("train"))

    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, cms_pos=0), [frame], draw, context,
                               corners=("upper left", "lower right"))  # fmt: skip
