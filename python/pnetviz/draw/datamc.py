"""The data/MC figure of one region and score: stacked simulation by process, the MC statistical
(+) systematic band, data with Garwood intervals, the signal point as a line, and the ratio panel
(data / MC over the band's relative size around 1), at the ratio figure's size (draw.ratio,
600 x 750 px, 8 cm wide printed) in CMS style, the legend and context inside the frame
(draw.layout.boxed_figure).

Blinding: the data graphs (main and ratio) hold the unmasked bins only; no object, title or text
of the figure carries a masked bin's count. Stored in plots.root for TBrowser: `<key>/stack_<process>`
(each process' histogram, TH1D), `<key>/mc_total` (the total, errors: the band), `<key>/data` and
`<key>/ratio` (TGraphAsymmErrors), `<key>/ratio_band` (TH1D at 1, errors: band / MC) and
`<key>/pulls` (TH1D, 0 in masked bins), where `<key>` names the region and score.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pnetviz.draw import canvas
from pnetviz.draw.style import STYLE, color
from pnetviz.metrics.datamc import Comparison
from pnetviz.rootenv import root, set_title

HEADROOM = (1.5, 2.2, 3.0, 3.8)  # the upper frame's y range over the highest point: tried in turn for the box
BAND_COLOR = "#717581"
# the processes' fill colours: the style's cycle without the signal's blue and the band's grey
PROCESS_COLORS = tuple(c for c in STYLE["colors"]["cycle"] if c not in (STYLE["colors"]["signal"], "#9c9ca1"))


def _hist(key: str, edges: np.ndarray, values: np.ndarray, errors: np.ndarray | None = None) -> object:
    ROOT = root()
    hist = ROOT.TH1D(canvas.unique(key.replace("/", "_")), "", edges.size - 1, np.ascontiguousarray(edges, dtype=np.float64))
    hist.SetDirectory(0)
    hist.Sumw2()
    for i, v in enumerate(values, start=1):
        hist.SetBinContent(i, float(v))
        hist.SetBinError(i, float(errors[i - 1]) if errors is not None else 0.0)
    return hist


def _asym(points: Sequence[int], edges: np.ndarray, y: np.ndarray, low: np.ndarray, high: np.ndarray) -> object:
    """TGraphAsymmErrors at the centres of bins `points` (no x errors)."""
    ROOT = root()
    centres = 0.5 * (edges[:-1] + edges[1:])
    idx = np.asarray(points, dtype=int)
    as_c = lambda a: np.ascontiguousarray(a, dtype=np.float64)  # noqa: E731
    zeros = np.zeros(idx.size)
    graph = ROOT.TGraphAsymmErrors(idx.size, as_c(centres[idx]), as_c(y[idx]), as_c(zeros), as_c(zeros),
                                   as_c(low[idx]), as_c(high[idx]))  # fmt: skip
    return graph


def _place(fig: canvas.Figure, key: str, obj: object, option: str, label: str | None, legend: str, pad: int) -> object:
    obj.SetName(key.replace("/", "_"))
    fig.pads[pad].cd()
    obj.Draw(option)
    if label:
        fig.legend.append((obj, label, legend))
    return fig.keep(key, obj, label)


def ratio_limits(comp: Comparison) -> tuple[float, float]:
    """A ratio panel range holding 1, the band and the unmasked ratio points with their errors,
    at least 0.5-1.5, at most 0-3, ends on multiples of 0.25."""
    r, low, high = comp.ratio()
    rel = comp.relative_band()
    values = [1.0 - rel.max(initial=0.0), 1.0 + rel.max(initial=0.0), 0.5, 1.5]
    ok = np.isfinite(r)
    if ok.any():
        values += [float(np.min((r - low)[ok])), float(np.max((r + high)[ok]))]
    lo, hi = max(0.0, min(values)), min(3.0, max(values))
    return math.floor(lo * 4) / 4, math.ceil(hi * 4) / 4


def datamc_figure(name: str, key: str, comp: Comparison, labels: dict[str, str], signal: tuple[str, np.ndarray] | None,
                  xtitle: str, context: Sequence[str]) -> canvas.Figure:  # fmt: skip
    """The figure `name` (objects under `key/`) of the comparison `comp`: processes stacked in
    `comp.mc` order (`labels`: process -> legend text), `signal` (label, per-bin yield) as a line."""
    edges = comp.edges
    total, band = comp.total, comp.band
    shown = np.flatnonzero(~comp.masked)
    top = float(max(np.max(total + band, initial=0.0), np.max(comp.data_high[shown], initial=0.0),
                    np.max(signal[1], initial=0.0) if signal else 0.0)) or 1.0  # fmt: skip
    x = (float(edges[0]), float(edges[-1]))
    frames = [canvas.Frame(x, (0.0, top * k), xtitle, "Events / bin") for k in HEADROOM]
    rframe = canvas.Frame(x, ratio_limits(comp), xtitle, "Data / MC")
    r, r_low, r_high = comp.ratio()
    rel = comp.relative_band()
    pulls = np.nan_to_num(comp.pulls(), nan=0.0)

    def draw(fig: canvas.Figure, fr: canvas.Frame) -> None:  # noqa: ARG001 - the same drawing in every frame
        processes = list(comp.mc)
        cumulative = np.cumsum([comp.mc[p] for p in processes], axis=0) if processes else np.zeros((0, edges.size - 1))
        for i in reversed(range(len(processes))):  # the full stack first, each lower sum drawn over it
            hist = _hist(f"{key}/stack_{processes[i]}", edges, cumulative[i])
            fill = color(PROCESS_COLORS[i % len(PROCESS_COLORS)])
            hist.SetFillColor(fill)
            hist.SetLineColor(fill)
            hist.SetLineWidth(1)
            set_title(hist, f"{labels.get(processes[i], processes[i])} (stacked: this and the processes below it)")
            _place(fig, f"{key}/stack_{processes[i]}", hist, "HIST SAME", labels.get(processes[i], processes[i]), "f", 0)
        mc = _hist(f"{key}/mc_total", edges, total, band)
        mc.SetFillColorAlpha(color(BAND_COLOR), 0.45)
        mc.SetMarkerSize(0)
        mc.SetLineWidth(0)
        set_title(mc, "Simulation: total, errors MC stat. (+) syst.")
        _place(fig, f"{key}/mc_total", mc, "E2 SAME", "Stat. #oplus syst.", "f", 0)
        if signal is not None:
            sig = _hist(f"{key}/signal", edges, signal[1])
            sig.SetLineColor(color("signal"))
            sig.SetLineStyle(2)
            sig.SetLineWidth(STYLE["line_width"])
            sig.SetFillStyle(0)
            _place(fig, f"{key}/signal", sig, "HIST SAME", signal[0], "l", 0)
        if shown.size:
            data = _asym(shown, edges, comp.data.astype(float), comp.data - comp.data_low, comp.data_high - comp.data)
            data.SetMarkerStyle(20)
            data.SetMarkerSize(1.0)
            set_title(data, "Data (Garwood 68% intervals; blinded bins left out)")
            _place(fig, f"{key}/data", data, "P SAME", _data_label(context), "pe", 0)
        rband = _hist(f"{key}/ratio_band", edges, np.ones(edges.size - 1), rel)
        rband.SetFillColorAlpha(color(BAND_COLOR), 0.45)
        rband.SetMarkerSize(0)
        rband.SetLineWidth(0)
        set_title(rband, "MC stat. (+) syst. relative to the simulation")
        _place(fig, f"{key}/ratio_band", rband, "E2 SAME", None, "f", 1)
        points = np.flatnonzero(np.isfinite(r))
        if points.size:
            ratio = _asym(points, edges, r, r_low, r_high)
            ratio.SetMarkerStyle(20)
            ratio.SetMarkerSize(1.0)
            set_title(ratio, "Data / MC (Garwood intervals / MC)")
            _place(fig, f"{key}/ratio", ratio, "P SAME", None, "pe", 1)
        stored = _hist(f"{key}/pulls", edges, pulls)
        set_title(stored, "Pull (data - MC) / sqrt(V_ii); 0 in blinded bins")
        fig.keep(f"{key}/pulls", stored)  # in the file, not drawn

    def make(fr: canvas.Frame) -> canvas.Figure:
        return canvas.ratio_figure(name, fr, rframe)

    return canvas.boxed_figure(make, frames, draw, context)


def _data_label(context: Sequence[str]) -> str:
    """The data's legend entry carries the blinding state, so it stays on the figure whatever room
    the frame leaves the context lines: "Data, blinded in 9 of 10 bins", "Data, UNBLINDED"."""
    for line in context:
        if line.startswith("UNBLINDED"):
            return "Data, UNBLINDED"
        if line.startswith("data blinded"):
            return "Data, " + line[len("data "):]
    return "Data"
