"""Performance versus an observer and the sculpting check (metrics.observers), as figures.

Each figure has the legend and the context in one box inside the frame where the points leave
room (canvas.boxed_figure, as the calibration and ROC figures), else above the frame. Errors
are the per-bin binomial errors of metrics.observers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.names import name
from pnetviz.draw import canvas
from pnetviz.draw.style import color, cycle_color
from pnetviz.escape import tlatex
from pnetviz.metrics.observers import Sculpting, VarVsEff
from pnetviz.rootenv import root

REJECTION_TITLE = name("rejection")  # names.py: one name per quantity
LABELS = {"m_mumu": "m_{#mu#mu} [GeV]", "pt_lead": "p_{T}^{lead} [GeV]"}  # the demo's observers; --labels NAME=TEXT wins


def axis_title(observer: str, overrides: dict[str, str]) -> str:
    """The x title of an observer: --labels first, then LABELS, else the branch name drawn literally."""
    return overrides.get(observer) or LABELS.get(observer) or tlatex(observer)


def _make(name: str, extra_space: float = 0.0):
    """The figure builder for boxed_figure: a CMS canvas whose x axis has at most 5 labelled
    divisions (an observer's range, 0 to a few hundred GeV, has wide tick labels)."""

    def make(fr: canvas.Frame) -> canvas.Figure:
        fig = canvas.figure(name, fr, cms_pos=0, extra_space=extra_space)
        frame = next((p for p in fig.pads[0].GetListOfPrimitives() if p.InheritsFrom("TH1")), None)
        if frame is not None:
            frame.GetXaxis().SetNdivisions(505)
        return fig

    return make


def _centres(edges: np.ndarray) -> np.ndarray:
    return 0.5 * (edges[:-1] + edges[1:])


def _x_range(edges: np.ndarray) -> tuple[float, float]:
    return float(edges[0]), float(edges[-1])


def efficiency_figure(name: str, key: str, v: VarVsEff, title: str, context: Sequence[str]) -> canvas.Figure:
    """Signal efficiency per bin of the observer at the global cut (points with errors) and the
    inclusive efficiency as a dashed line."""
    ok = np.isfinite(v.eps_s)
    frames = [canvas.Frame(_x_range(v.edges), (0.0, 1.1), title, "Signal efficiency")]
    wp = f"#varepsilon_{{s}} = {v.target:.0%} (inclusive, test)"

    def draw(fig: canvas.Figure, fr: canvas.Frame) -> None:
        canvas.add_line(fig, fr.x[0], v.inclusive_eps_s, fr.x[1], v.inclusive_eps_s, wp, line_color=color("reference"), line_style=9)
        canvas.add_error_points(fig, f"{key}/eps_s", _centres(v.edges)[ok], v.eps_s[ok], v.eps_s_error[ok], "Signal, per bin",
                                marker_color=color("signal"))  # fmt: skip

    return canvas.boxed_figure(_make(name), frames, draw, context,
                               corners=("lower left", "lower right", "upper left", "upper right"))  # fmt: skip


def rejection_figure(name: str, key: str, v: VarVsEff, title: str, context: Sequence[str]) -> canvas.Figure:
    """Background rejection per bin of the observer at the global cut, on a log axis fitted to the
    points and their errors (headroom of up to a decade for the box)."""
    ok = np.isfinite(v.rejection) & (v.rejection > 0)
    r, e = v.rejection[ok], np.nan_to_num(v.rejection_error[ok])
    # within a decade of the points (the figure linter's rule), error bars clipped at the frame
    lo = max(float(np.min(r)) / 3.0, 0.5) if r.size else 1.0
    hi = float(np.max(r)) * 1.5 if r.size else 10.0
    frames = [canvas.Frame(_x_range(v.edges), (lo, hi * room), title, REJECTION_TITLE, logy=True) for room in (2.5, 6.0)]
    label = f"Background, #varepsilon_{{s}} = {v.target:.0%}"

    def draw(fig: canvas.Figure, fr: canvas.Frame) -> None:  # noqa: ARG001 - boxed_figure's signature
        if r.size:
            canvas.add_error_points(fig, f"{key}/rejection", _centres(v.edges)[ok], r, e, label, marker_color=color("background"))

    return canvas.boxed_figure(_make(name, 0.03), frames, draw, context,
                               corners=("upper left", "upper right", "lower left", "lower right"))  # fmt: skip


def _hist(key: str, edges: np.ndarray, values: np.ndarray, title: str) -> object:
    h = root().TH1D(key.replace("/", "_"), "", edges.size - 1, np.ascontiguousarray(edges, dtype=np.float64))
    h.SetDirectory(0)
    for i, value in enumerate(values, start=1):  # a normalised shape: no sqrt(content) error bars
        h.SetBinContent(i, float(value))
        h.SetBinError(i, 0.0)
    h.GetXaxis().SetTitle(title)
    h.GetYaxis().SetTitle("Fraction of background events")
    return h


def sculpting_figure(name: str, key: str, s: Sculpting, title: str, context: Sequence[str]) -> canvas.Figure:
    """The background's normalised observer shape, inclusive (black line) and passing each cut
    (coloured lines), each cut's Jensen-Shannon divergence to the inclusive shape in its label."""
    top = float(max(np.max(s.inclusive, initial=0.0), np.max(s.passing, initial=0.0))) or 1.0
    frames = [canvas.Frame(_x_range(s.edges), (0.0, min(top * room, 1.1)), title, "Fraction of background events")
              for room in (1.4, 2.2, 3.0)]  # fmt: skip

    def draw(fig: canvas.Figure, fr: canvas.Frame) -> None:  # noqa: ARG001 - boxed_figure's signature
        canvas.add_hist(fig, f"{key}/inclusive", _hist(f"{key}/inclusive", s.edges, s.inclusive, title), "Background, all",
                        hist_color=color("reference"), points=False)  # fmt: skip
        for i, (t, jsd) in enumerate(zip(s.targets, s.jsd, strict=True)):
            text = f"#varepsilon_{{s}} = {t:.0%}: JSD = {jsd:.3g}" if np.isfinite(jsd) else f"#varepsilon_{{s}} = {t:.0%}: none pass"
            tag = f"{key}/passing_eps_s_{round(100 * t)}"
            canvas.add_hist(fig, tag, _hist(tag, s.edges, s.passing[i], title), text, hist_color=cycle_color(i), points=False)

    return canvas.boxed_figure(_make(name), frames, draw, context,
                               corners=("upper right", "upper left"))  # fmt: skip


def figures(observer: str, v: VarVsEff, s: Sculpting, context: Sequence[str], labels: dict[str, str]) -> list[canvas.Figure]:
    """The three figures of one observer: `observer_<name>_{signal_efficiency,rejection,sculpting}`
    (`labels`: --labels, for the x title)."""
    base, key, title = f"observer_{observer}", f"observers/{observer}", axis_title(observer, labels)
    return [efficiency_figure(f"{base}_signal_efficiency", key, v, title, context),
            rejection_figure(f"{base}_rejection", key, v, title, context),
            sculpting_figure(f"{base}_sculpting", key, s, title, [*context, "test background events"])]  # fmt: skip
