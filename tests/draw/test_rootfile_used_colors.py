"""A stored canvas carries exactly the non-built-in colours its objects draw with
(draw.canvascolors.used_colors, draw.rootfile.StoredColors.attach): checked against ROOT's own
account of them, every `f...Color` member TBufferJSON writes of the canvas (lines, fills,
markers, texts, axes, pad frames, legend entries, pave text lines, a palette axis's labels, a
sub-pad, a stack, a multigraph), each object here in a colour of its own; colours defined but
not used (a custom one, the 255 of a palette made before) are not stored."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pnetviz.draw import rootfile
from pnetviz.draw.canvascolors import used_colors
from pnetviz.rootenv import root

UNUSED = "#0a0b0c"  # defined, not drawn with


def _colour_members(value) -> set[int]:
    """Every colour index a TBufferJSON dump names (members `f...Color`), nested objects too."""
    found = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key.startswith("f") and key.endswith("Color") and isinstance(item, int):
                found.add(item)
            else:
                found |= _colour_members(item)
    elif isinstance(value, list):
        for item in value:
            found |= _colour_members(item)
    return found


@pytest.fixture
def crowded():
    """A canvas with one object of each kind walked, each in a new colour (ROOT's GetColor of a
    hex it has no colour for); kept alive with the canvas, deleted after."""
    ROOT = root()
    hexes = iter(f"#{i:02x}{255 - i:02x}{(37 * i) % 256:02x}" for i in range(7, 200, 3))
    new = lambda: ROOT.TColor.GetColor(next(hexes))  # noqa: E731
    keep = []
    c = ROOT.TCanvas("crowded_colors", "", 400, 300)
    c.SetFillColor(new())
    c.SetFrameLineColor(new())
    h = ROOT.TH2D("crowded_h2", "", 3, 0, 3, 3, 0, 3)
    h.Fill(1, 1)
    h.GetXaxis().SetLabelColor(new())
    h.GetYaxis().SetTitleColor(new())
    h.GetZaxis().SetAxisColor(new())
    h.SetMarkerColor(new())
    h.Draw("COLZ TEXT")
    c.Update()  # makes the palette axis
    palette = h.GetListOfFunctions().FindObject("palette")
    palette.GetAxis().SetLabelColor(new())
    g = ROOT.TGraph(3, np.array([0.5, 1.5, 2.5]), np.array([0.5, 1.5, 2.5]))
    g.SetLineColor(new())
    g.GetHistogram().GetXaxis().SetTitleColor(new())  # its frame histogram
    g.Draw("L")
    legend = ROOT.TLegend(0.1, 0.1, 0.3, 0.3)
    legend.AddEntry(g, "g", "l").SetTextColor(new())
    legend.SetFillColor(new())
    legend.Draw()
    text = ROOT.TPaveText(0.5, 0.5, 0.7, 0.7, "NDC")
    text.AddText("t").SetTextColor(new())
    text.Draw()
    pad = ROOT.TPad("crowded_pad", "", 0.7, 0.7, 0.95, 0.95)
    pad.SetFrameFillColor(new())
    pad.Draw()
    pad.cd()
    stack, multi = ROOT.THStack("crowded_stack", ""), ROOT.TMultiGraph()
    member = ROOT.TH1D("crowded_h1", "", 2, 0, 1)
    member.SetFillColor(new())
    stack.Add(member)
    stack.Draw()
    inner = ROOT.TGraph(2, np.array([0.0, 1.0]), np.array([0.0, 1.0]))
    inner.SetMarkerColor(new())
    multi.Add(inner)
    multi.Draw("P")
    axis = ROOT.TGaxis(0.1, 0.1, 0.9, 0.1, 0.0, 1.0)
    axis.SetLabelColor(new())
    axis.Draw()
    ROOT.TColor.GetColor(UNUSED)
    keep += [h, g, legend, text, pad, stack, multi, member, inner, axis]
    c.cd()
    yield c
    c.Close()


def test_stored_colours_are_those_the_canvas_names(crowded):
    ROOT = root()
    ROOT.gStyle.SetPalette(87)  # 255 colours made (the campaign's difference maps), not used here
    try:
        light = {ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())}
        named = _colour_members(json.loads(str(ROOT.TBufferJSON.ToJSON(crowded))))
        with rootfile.stored_colors() as colors:
            added = colors.attach(crowded)
            for array in added:
                crowded.GetListOfPrimitives().Remove(array)
        stored = {array.GetName(): [array.At(i).GetNumber() for i in range(array.GetEntries())] for array in added}
    finally:
        ROOT.gStyle.SetPalette(57)
    custom = {i for i in named if i not in rootfile.BUILT_IN_COLORS}
    assert len(custom) >= 16  # each object's own colour, and the palette axis's
    assert set(used_colors(crowded)) >= named
    # the TH2's palette is another than kBird here (no TExec: the current one, kLightTemperature)
    assert set(stored) == {"ListOfColors", "CurrentColorPalette"} and set(stored["CurrentColorPalette"]) == light
    assert set(stored["ListOfColors"]) == custom | light
    assert ROOT.TColor.GetColor(UNUSED) not in stored["ListOfColors"]


def test_a_canvas_of_many_colours_has_them_all():
    ROOT = root()
    c = ROOT.TCanvas("many_colors", "", 200, 200)
    lines = []
    for i in range(300):  # more than used_colors' first buffer (256)
        line = ROOT.TLine(0, 0, 1, 1)
        line.SetLineColor(2000 + i)
        line.Draw()
        lines.append(line)
    try:
        assert set(range(2000, 2300)) <= set(used_colors(c)) and len(used_colors(c)) == 303  # and the pad's 0, 1, 2
    finally:
        c.Close()
