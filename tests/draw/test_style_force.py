"""ROOT's ForceStyle after a CMS-styled figure: cmsstyle's setCMSStyle turns it on (every object read
afterwards takes the current style: a stored canvas loses its log y and colours and its frame gets a
statistics box), style.cms_style puts it back on leaving, and a stored canvas is read with it off
(output.render.read_canvases, which `pnetviz render` and the API's figures use)."""

from __future__ import annotations

import pytest

from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.output.render import read_canvases
from pnetviz.rootenv import root


@pytest.mark.parametrize("before", [False, True])
def test_cms_style_puts_force_style_back(before: bool) -> None:
    ROOT = root()
    ROOT.gROOT.ForceStyle(before)
    try:
        for _ in range(2):  # the first block creates cmsstyle's TStyle (setCMSStyle), the second reuses it
            with cms_style(StyleOptions()):
                assert ROOT.gROOT.GetForceStyle()  # inside: as setCMSStyle sets it
            assert bool(ROOT.gROOT.GetForceStyle()) is before
    finally:
        ROOT.gROOT.ForceStyle(False)


def test_a_canvas_read_while_a_style_is_forced_keeps_its_own(tmp_path) -> None:
    ROOT = root()
    canvas = ROOT.TCanvas("forced_style_canvas", "", 300, 300)
    hist = ROOT.TH1D("forced_style_hist", "", 4, 0.0, 1.0)
    hist.SetLineColor(ROOT.kRed + 1)
    hist.SetBinContent(2, 10.0)
    hist.SetStats(False)
    hist.Draw("hist")
    canvas.SetLogy(True)
    path = tmp_path / "stored.root"
    out = ROOT.TFile.Open(str(path), "RECREATE")
    out.mkdir("canvases").cd()
    canvas.Write("figure")
    out.Close()
    canvas.Close()
    ROOT.gROOT.ForceStyle(True)  # as cmsstyle leaves it
    try:
        tfile = ROOT.TFile.Open(str(path), "READ")
        [(_, read, _)] = read_canvases(tfile, ["figure"])
        tfile.Close()
        assert ROOT.gROOT.GetForceStyle()  # put back as it was
    finally:
        ROOT.gROOT.ForceStyle(False)
    drawn = read.GetListOfPrimitives().FindObject("forced_style_hist")
    assert read.GetLogy() == 1 and drawn.GetLineColor() == ROOT.kRed + 1 and drawn.TestBit(ROOT.TH1.kNoStats)
