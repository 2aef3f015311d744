"""The rejection curve of one pair (1/eps_b vs eps_s, the HEP view of its ROC) with its
low-statistics region shown as such: where no background MC event passes the cut, 1/eps_b is not
measured; there each split gets a 95% CL lower limit (hep.eps_b_limit of its effective background
events, dotted) and the test split's region is greyed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.draw.plots import CurveSpec
from pnetviz.draw.style import color, cycle_color
from pnetviz.rootenv import root, set_title
from pnetviz.metrics.hep import REJECTION_CL, eps_b_limit
from pnetviz.metrics.roc import BinaryCurve

# One name for a lower limit on every rejection figure (the dotted lines of each split and of
# the fold means, the grey region where no background event passes): one legend entry at most
LOWER_LIMIT = f"Lower limit ({100 * REJECTION_CL:g}% CL)"
NO_BACKGROUND = LOWER_LIMIT  # the grey band's legend entry (the dotted limits inside it then have none)
LIMIT_LINE = 3  # dotted: a lower limit, not a measurement (as the fold summaries' limits)


def no_background_edge(curve: BinaryCurve) -> float:
    """The signal efficiency up to which no background event passes: that of the tightest cut
    selecting no background, i.e. the signal weight above the highest background score over all
    signal; 0 when a background event has the highest score (or no background passes: 1)."""
    passing = curve.fps > 0
    if not passing.any():
        return 1.0
    first = int(np.argmax(passing))  # the first point passing background (no index array, no rate arrays)
    return curve.rates_at(first - 1)[0] if first > 0 else 0.0


def rejection_specs(prefix: str, results: Mapping, background_n_eff: Mapping[str, float] | None = None,
                    color_index: int = 0, label_limits: bool = True) -> list[CurveSpec]:  # fmt: skip
    """Background rejection 1/eps_b vs eps_s per split (points with eps_b > 0), and with
    `background_n_eff` (split -> effective background events) each split's lower limit where no
    background passes: a dotted line from eps_s = 0 to no_background_edge at 1/eps_b_limit
    (`label_limits` False: no legend entry, the grey band of `greyed` names them)."""
    specs, limits = [], []
    for split, r in results.items():
        fpr = r.curve.fpr  # once: a curve's rates may be computed at each use (BinaryCurve.release_rates)
        ok = fpr > 0
        specs.append(CurveSpec(f"{prefix}/{split}", r.curve.tpr[ok], 1.0 / fpr[ok], split.capitalize(),
                               cycle_color(color_index), plots.split_style(split)))  # fmt: skip
        edge = no_background_edge(r.curve)
        n_eff = (background_n_eff or {}).get(split)
        if n_eff and edge > 0:
            limit = 1.0 / eps_b_limit(n_eff)
            limits.append(CurveSpec(f"{prefix}/{split}_lower_limit", np.array([0.0, edge]), np.array([limit, limit]),
                                    LOWER_LIMIT,
                                    cycle_color(color_index), LIMIT_LINE))  # fmt: skip
    if len(limits) > 1 or not label_limits:  # one legend entry (or the grey band's) says what dotted means
        text = LOWER_LIMIT if label_limits else ""
        limits = [replace(c, label=text if i == 0 else "") for i, c in enumerate(limits)]
    return specs + limits


def greyed(key: str, edge: float, top: float):
    """An underlay for rejection_figure: a grey region over eps_s in [0, edge] (no background
    event of the test split passes there), from 1 to `top` (the frame's top at most): a shaded
    region drawn as a TBox, as an exclusion region is, that a legend may sit on (the dotted
    limits in it are data, which the legend avoids); the ROOT file keeps it as a TGraph."""

    def draw(fig: canvas.Figure) -> None:
        if edge <= 0:
            return
        pad = fig.pads[0]
        hframe = next(o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TH1"))  # the chosen frame: the box ends at its top
        x, low, high = np.array([0.0, edge]), np.ones(2), np.full(2, top)
        band = canvas.add_band(fig, f"{key}/no_background", x, low, high, None, band_color=color("reference"), alpha=0.2)
        pad.GetListOfPrimitives().Remove(band)  # in the file, not on the canvas: its titles then set here
        set_title(band, NO_BACKGROUND, hframe.GetXaxis().GetTitle(), hframe.GetYaxis().GetTitle())
        box = root().TBox(0.0, max(1.0, hframe.GetMinimum()), edge, min(top, hframe.GetMaximum()))
        box.SetFillColorAlpha(color("reference"), 0.2)
        box.SetLineWidth(0)
        pad.cd()
        box.Draw()
        fig.extras.append(box)
        fig.legend.append((box, NO_BACKGROUND, "f"))

    return draw


def moved_greyed(top: float):
    """The `reframe` of a rejection figure with `greyed`'s region: the figure moved to the taller
    frame (canvas.reframe) and the region's box, drawn up to the frame's top, raised with it."""

    def move(fig: canvas.Figure, old: canvas.Frame, new: canvas.Frame) -> bool:
        if not canvas.reframe(fig, old, new):
            return False
        for obj in fig.extras:
            if obj.InheritsFrom("TBox") and not obj.InheritsFrom("TPave") and obj.GetY2() == min(top, old.y[1]):
                obj.SetY2(min(top, new.y[1]))
        return True

    return move


def figure(name: str, prefix: str, results: Mapping, metrics: Mapping, context: Sequence[str]) -> canvas.Figure:
    """The rejection curve of a pair's splits (`metrics`: pairmetrics per split, for the effective
    background events), the test split's region without background greyed."""
    n_eff = {s: metrics[s]["effective_events"]["background"] for s in results if s in metrics}
    edge = no_background_edge(results["test"].curve) if "test" in results else 0.0
    specs = rejection_specs(prefix, results, n_eff, label_limits=edge <= 0)
    top = max(plots.rejection_top(specs), 2.0) * 10.0  # the taller of the frames rejection_figure tries: clipped to the chosen one
    return plots.rejection_figure(name, specs, context, underlay=greyed(prefix, edge, top), reframe=moved_greyed(top))
