"""Figures built without cmsstyle's pad paints (style.unpainted, canvas.paint): the stored canvas is
the one the painting code stores, and the sampled data points are where the data are drawn.

Canvases are compared as ROOT's JSON of the whole canvas, with the random name suffixes and the
values every paint recomputes before use (TLatex fOriginSize, a histogram's default contour
levels, the pad's pixel conversions, user range and modified flag) left out."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from pnetviz.draw import canvas, matrices
from pnetviz.draw.style import StyleOptions, cms_style, cmsstyle, unpainted
from pnetviz.rootenv import root

FRAME = canvas.Frame((0.0, 2.0), (0.0, 1.05), "Signal efficiency", "Background efficiency")  # x not 0-1: default ticks
PAD_RANGE = ("fX1", "fY1", "fX2", "fY2")


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


def _stored(pad) -> object:
    """The canvas as ROOT streams it (JSON), unique suffixes and paint scratch values removed."""
    text = re.sub(r"_[0-9a-f]{8}(?![0-9a-f])", "_X", str(root().TBufferJSON.ConvertToJSON(pad, 0)))

    def scratch(node: dict, key: str) -> bool:
        pad = node.get("_typename") in ("TCanvas", "TPad")
        return key in ("fOriginSize", "fContour") or "Pixel" in key or (pad and (key in PAD_RANGE or key == "fModified"))

    def clean(node):
        if isinstance(node, dict):
            keep = {k: clean(v) for k, v in node.items() if not scratch(node, k)}
            return {k: v for k, v in keep.items() if not (k == "fName" and str(v).startswith("Color"))}
        if isinstance(node, float):
            return round(node, 6)  # float32 margins: what ROOT computes from them agrees to ~1e-8
        return [clean(v) for v in node] if isinstance(node, list) else node

    return clean(json.loads(text))


def test_unpainted_keeps_the_painting_and_restores_it():
    import cmsstyle.cmsstyle as module

    painting = module.UpdatePad
    pad = root().TCanvas("t_unpainted", "", 600, 600)
    pad.cd()
    with unpainted():
        assert module.UpdatePad is not painting
        module.UpdatePad(pad)
    assert module.UpdatePad is painting
    names = [obj.GetName() for obj in pad.GetListOfPrimitives()]
    assert names == []  # RedrawAxis of an empty pad adds nothing, and nothing was painted
    pad.Close()


def test_figure_stores_the_canvas_cmscanvas_paints():
    """canvas.figure builds cmsstyle's canvas without its two paints, the TFrame set as they set it."""
    fig = canvas.figure("t_frame", FRAME, cms_pos=0)
    painted = cmsstyle().cmsCanvas(canvas.unique("t_frame"), *FRAME.x, *FRAME.y, FRAME.xtitle, FRAME.ytitle, iPos=0)
    painted.SetCanvasSize(600, 600)
    primitives = [(o.ClassName(), link_option) for o, link_option in _links(fig.canvas)]
    assert primitives == [(o.ClassName(), opt) for o, opt in _links(painted)]
    assert primitives[0][0] == "TFrame" and primitives[-1][0] == "TFrame"  # first (the paint) and last (cmsCanvas)
    tframe = fig.canvas.GetFrame()
    assert (tframe.GetX1(), tframe.GetY1(), tframe.GetX2(), tframe.GetY2()) == (0.0, 0.0, 2.0, 1.05)
    assert _stored(fig.canvas) == _stored(painted)
    fig.close()
    painted.Close()


def _links(pad):
    link = pad.GetListOfPrimitives().FirstLink()
    while link:
        yield link.GetObject(), link.GetOption()
        link = link.Next()


def test_matrix_palette_made_without_a_paint_stores_the_painted_canvas(monkeypatch):
    """add_matrix makes the palette where the painter would leave it, without painting the pad: the
    stored canvas is the one that a paint by ROOT (its TExec run by the interpreter) stores."""
    values = np.array([[0.7, 0.3], [0.2, 0.8]])
    fig = canvas.matrix_figure("t_matrix")
    canvas.add_matrix(fig, "m", values, ["Signal", "Background"], ".2f", 0, "Fraction")
    kinds = [o.ClassName() for o in fig.canvas.GetListOfPrimitives()]
    assert kinds[:3] == ["TFrame", "TExec", "TH2D"]  # as a paint with the TExec leaves them
    palette = fig.objects["m"].GetListOfFunctions().FindObject("palette")
    right = fig.canvas.GetRightMargin()
    assert (palette.GetX1NDC(), palette.GetX2NDC()) == pytest.approx((1 - 0.95 * right, 1 - 0.70 * right))
    assert palette.GetY2NDC() == pytest.approx(1 - fig.canvas.GetTopMargin() - canvas.PALETTE_DROP)
    # the same figure painted by ROOT (its TExec run by the interpreter), which makes the palette,
    # then the palette moved to the same place: what add_matrix did before it made the palette itself
    def painted_by_root(hist, pad):
        canvas.cms_label_above(pad)
        pad.Modified()
        pad.Update()
        pad.RedrawAxis()
        pad.Modified()
        pad.Update()
        palette = hist.GetListOfFunctions().FindObject("palette")
        right = pad.GetRightMargin()
        palette.SetX1NDC(1 - right * 0.95)
        palette.SetX2NDC(1 - right * 0.70)
        palette.SetY1NDC(pad.GetBottomMargin())
        palette.SetY2NDC(1 - pad.GetTopMargin() - canvas.PALETTE_DROP)
        pad.Modified()

    reference = canvas.matrix_figure("t_matrix")
    monkeypatch.setattr(matrices, "place_palette", painted_by_root)  # where add_matrix looks it up
    canvas.add_matrix(reference, "m", values, ["Signal", "Background"], ".2f", 0, "Fraction")
    for pad in (fig.canvas, reference.canvas):
        pad.Modified()
        pad.Update()  # the palette's and the pad's ranges in pad coordinates: what every paint recomputes
    assert _stored(fig.canvas) == _stored(reference.canvas)
    fig.close()
    reference.close()


def test_bars_are_sampled_along_their_whole_height():
    """One bar of height 0.5 over [0.25, 0.75] of the x axis: 12 vertical lines across it, each
    sampled from y = 0 to its top every SAMPLE_STEP or closer."""
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y")
    fig = canvas.figure("t_bars", frame, cms_pos=0)
    canvas.add_bars(fig, "bars", np.array([0.5]), ["A"], "A", bar_color=2, offset=0.25, width=0.5)
    points = canvas.drawn_points(fig, frame)
    p = fig.canvas
    left, right, bottom, top = p.GetLeftMargin(), p.GetRightMargin(), p.GetBottomMargin(), p.GetTopMargin()
    xs = np.unique(np.round(points[:, 0], 12))
    expected = left + np.linspace(0.25, 0.75, 12) * (1 - left - right)
    assert xs == pytest.approx(expected)
    height = 0.5 * (1 - bottom - top)
    for x in expected:
        ys = np.sort(points[np.isclose(points[:, 0], x), 1])
        assert ys[0] == pytest.approx(bottom) and ys[-1] == pytest.approx(bottom + height)
        assert np.diff(ys).max() <= canvas.SAMPLE_STEP + 1e-12
        assert ys.size == int(np.ceil(height / canvas.SAMPLE_STEP)) + 1
    fig.close()


def test_error_bars_come_from_the_histogram_errors():
    """Points with errors (E1 P): each marker's corners and its error bar from content - error to
    content + error, the errors of the histogram's sum of weights squared."""
    frame = canvas.Frame((0.0, 4.0), (0.0, 10.0), "x", "y")
    fig = canvas.figure("t_errors", frame, cms_pos=0)
    hist = root().TH1D(canvas.unique("h"), "", 4, 0.0, 4.0)
    hist.Sumw2()
    for x, w in ((0.5, 2.0), (0.5, 2.0), (2.5, 3.0)):
        hist.Fill(x, w)
    canvas.add_hist(fig, "h", hist, "Test", hist_color=1, points=True)
    points = canvas.drawn_points(fig, frame)
    p = fig.canvas
    bottom, top = p.GetBottomMargin(), p.GetTopMargin()
    ndc_y = lambda v: bottom + v / 10.0 * (1 - bottom - top)  # noqa: E731
    first = points[np.isclose(points[:, 0], canvas.to_ndc(fig, 0.5, 0.0, frame)[0])]
    assert first[:, 1].min() == pytest.approx(ndc_y(4.0 - np.sqrt(8.0)))  # content 4, error sqrt(2^2 + 2^2)
    assert first[:, 1].max() == pytest.approx(ndc_y(4.0 + np.sqrt(8.0)))
    third = points[np.isclose(points[:, 0], canvas.to_ndc(fig, 2.5, 0.0, frame)[0])]
    assert third[:, 1].min() == pytest.approx(ndc_y(0.0)) and third[:, 1].max() == pytest.approx(ndc_y(6.0))
    assert not np.isclose(points[:, 0], canvas.to_ndc(fig, 1.5, 0.0, frame)[0]).any()  # empty bins: no marker
    fig.close()
