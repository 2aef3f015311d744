"""The lower panel of a curve comparison: each curve's ratio to the reference (metrics.folds.
CurveRatio) as a line over its band, on a physical range holding 1; the canvas draws them within
1e-3 of the panel's frame (draw.simplify), the ROOT file keeps the exact ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.rootenv import root, set_title
from pnetviz.metrics.folds import CurveRatio
from pnetviz.draw.geometry import Figure, Frame
from pnetviz.draw.primitives import add_band, add_graph, unclipped_band
from pnetviz.draw.simplify import canvas_values, drawn_points
from pnetviz.draw.style import BAND_ALPHA, BAND_STYLES


@dataclass(frozen=True)
class RatioSpec:
    """One curve of a ratio panel (metrics.folds.CurveRatio: ratio and band on a grid); the
    reference draws its band alone, around the line at 1."""

    key: str  # object name in the ROOT file, e.g. "signal_vs_ttZ/roc_ratio_multiclass"
    ratio: CurveRatio
    color: int
    line_style: int = 1
    reference: bool = False


@dataclass(frozen=True)
class RatioPanel:
    """The lower panel of a curve comparison: `specs` over the curve labelled `reference`."""

    reference: str  # named in the context: "Ratio to <reference>", and in the panel's y title
    specs: Sequence[RatioSpec]
    window: tuple[float, float] | None = None  # the x range the panel's y range holds (None: the frame's)

    def ytitle(self) -> str:
        """The panel's y title: 'Ratio' (the context names the reference: 'ratio to test'). Not
        'Ratio to test': longer than the 1.5 cm panel, it is shrunk, and ratio.ratio_figure gives
        both pads' y titles the smaller size, so the main title would shrink with it."""
        return "Ratio"


READ_FROM_EPS_S = 0.4  # a rejection ratio's y range from here (below, one background event makes it 4-20)


def ratio_range(specs: Sequence[RatioSpec], x: tuple[float, float]) -> tuple[float, float]:
    """A physical range for ratios (never below 0) holding 1, the ratio lines and the reference
    band within `x` (1st to 99th percentile: a few points of a nearly empty bin do not squash the
    rest), with 10 % margins (of at least 0.1), its ends then rounded out to a round step
    (0.01 ... 10) that divides it in at most RATIO_STEPS: ROOT labels such ends with round
    numbers. A range wider than 40 is left as it is."""
    values = [np.array([1.0])]
    even = np.linspace(x[0], x[1], 401)  # as drawn: evenly along the axis, not where the grid is dense
    for spec in specs:
        r = spec.ratio
        for y in ((r.low, r.high) if spec.reference else (r.ratio,)):
            ok = np.isfinite(y)
            if ok.sum() > 1:
                inside = (even >= r.x[ok].min()) & (even <= r.x[ok].max())
                values.append(np.interp(even[inside], r.x[ok], y[ok]))
    v = np.concatenate(values)
    lo, hi = min(float(np.percentile(v, 1)), 1.0), max(float(np.percentile(v, 99)), 1.0)
    span = max(hi - lo, 0.1)
    lo, hi = max(lo - 0.1 * span, 0.0), hi + 0.1 * span
    # ends on a round step, at most RATIO_STEPS of them: ROOT then labels round values (an
    # unroundable range such as 0.601-1.41 gets labels 0.601, 0.803, ... 1.41)
    step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, math.inf) if (hi - lo) / s <= RATIO_STEPS)
    if not math.isfinite(step):
        return lo, hi
    return max(round(math.floor(lo / step + 1e-9) * step, 10), 0.0), round(math.ceil(hi / step - 1e-9) * step, 10)


RATIO_STEPS = 4  # labelled steps at most on a ratio panel's axis (its 504 divisions)


def frame_titles(obj, pad) -> None:
    """`obj` (a graph kept for the ROOT file only) with the axis titles of the frame of `pad`."""
    frame = next((p for p in pad.GetListOfPrimitives() if p.InheritsFrom("TH1")), None)
    if frame is not None:
        obj.GetXaxis().SetTitle(frame.GetXaxis().GetTitle())
        obj.GetYaxis().SetTitle(frame.GetYaxis().GetTitle())


def draw_ratios(fig: Figure, panel: RatioPanel, frame: Frame) -> None:
    """The ratio panel's bands under its lines, in pad 1 of a ratio_figure: the drawn band clipped
    to the frame, the stored one (`<key>_band`, a polygon high forward then low back) unclipped.
    Bands that may overlap stay told apart: the reference's transparent with its outline, the
    others as their outline alone."""
    lo, hi = frame.y
    for spec in panel.specs:
        r = spec.ratio
        ok = np.isfinite(r.low) & np.isfinite(r.high)
        if ok.sum() > 1:
            drawn = add_band(fig, f"{spec.key}_band", r.x[ok], np.clip(r.low[ok], lo, hi), np.clip(r.high[ok], lo, hi),
                                    None, band_color=spec.color, alpha=BAND_ALPHA, pad=1, drawn_in=frame,
                                    **BAND_STYLES["compared" if len(panel.specs) > 1 and not spec.reference else "reference"])  # fmt: skip
            fig.extras.append(drawn)  # kept alive: the stored band below replaces it under its key (a deleted graph leaves the pad)
            stored = unclipped_band(drawn, r.x[ok], r.low[ok], r.high[ok])
            frame_titles(stored, fig.pads[1])  # drawn on no pad: the ratio panel's titles given here
            fig.keep(f"{spec.key}_band", stored)
    for spec in panel.specs:
        r = spec.ratio
        ok = np.isfinite(r.ratio)
        if not spec.reference and ok.sum() > 1:
            x, y = r.x[ok], r.ratio[ok]
            keep = drawn_points(x, y, frame.x, frame.y)
            drawn = add_graph(fig, spec.key, canvas_values(x[keep]), canvas_values(y[keep]), None,
                                     line_color=spec.color, line_style=spec.line_style, pad=1)  # fmt: skip
            set_title(drawn, f"ratio to {panel.reference}")
            fig.extras.append(drawn)  # the canvas draws the simplified line, the file keeps the exact one
            stored = root().TGraph(x.size, np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))
            stored.SetName(drawn.GetName())
            for attributes in (root().TAttLine, root().TAttMarker):
                attributes.Copy(drawn, stored)
            set_title(stored, f"ratio to {panel.reference}")
            frame_titles(stored, fig.pads[1])
            fig.keep(spec.key, stored)
