"""draw.pdf: a canvas written by the compiled library (macros/pdf_write.h) is the file ROOT's
SaveAs writes, byte for byte but the creation and modification dates."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

from pnetviz.draw import native
from pnetviz.draw.pdf import save_pdf
from pnetviz.rootenv import quiet_root, root

DATES = re.compile(rb"/(CreationDate|ModDate) \(D:[^)]*\)")


def _canvas(ROOT, name: str, width: int, height: int):
    """Lines, markers, a translucent fill and text over log axes from 1e-7 to 1e7."""
    canvas = ROOT.TCanvas(name, "", width, height)
    canvas.SetLogx()
    canvas.SetLogy()
    x = np.ascontiguousarray(np.logspace(-7, 7, 57))
    y = np.ascontiguousarray(np.abs(np.sin(np.arange(57) * 0.7)) * 1e3 + 1e-6)
    graph = ROOT.TGraph(x.size, x, y)
    graph.SetTitle(";x_{1} [GeV];#sigma / #mu")
    graph.SetMarkerStyle(20)
    graph.SetFillColorAlpha(ROOT.kAzure + 1, 0.35)
    graph.Draw("AFLP")
    text = ROOT.TLatex(0.2, 0.85, "#sqrt{s} = 13 TeV, 1/3 = 0.333333")
    text.SetNDC()
    text.Draw()
    canvas.Modified()
    return canvas, [graph, text]


@pytest.mark.parametrize("width, height", [(600, 600), (800, 500)])  # portrait, landscape
def test_pdf_is_saveas_file(tmp_path, width, height):
    if native.kernels() is None:
        pytest.skip("no C++ compiler here: save_pdf calls SaveAs")
    ROOT = root()
    canvas, keep = _canvas(ROOT, f"pdf_same_{width}", width, height)
    (tmp_path / "root").mkdir()
    (tmp_path / "ours").mkdir()
    theirs, ours = tmp_path / "root" / "x.pdf", tmp_path / "ours" / "x.pdf"  # the path is the file's title
    with quiet_root(ROOT.kWarning):
        canvas.SaveAs(str(tmp_path / "first.pdf"))  # a first paint makes the frame (as a figure's PNG before its PDF)
        canvas.Modified()
        canvas.SaveAs(str(theirs))
    canvas.Modified()
    save_pdf(canvas, ours)
    canvas.Close()
    a, b = theirs.read_bytes(), ours.read_bytes()
    assert DATES.sub(b"", a).replace(b"/root/x.pdf", b"/ours/x.pdf") == DATES.sub(b"", b)
    content = max((zlib.decompress(m) for m in re.findall(rb"stream\r?\n(.*?)endstream", b, re.S)), key=len)
    assert len(re.findall(rb" -?\d+\.\d+", content)) > 500  # the coordinates WriteReal wrote
