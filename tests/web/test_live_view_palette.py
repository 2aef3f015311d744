"""JSROOT (the site's live views) draws pnetviz's stored canvases with the colours written
(draw.rootfile.stored_colors): a canvas without a palette stores none and still draws its own
colours. A matrix stores its palette as colours (its TExec, which sets the palette while the
writer draws it, is not written): a kBird matrix's cells are filled in the colours ROOT paints them
(within 1/255), also when written with kLightTemperature (87, the campaign's difference maps')
current; a matrix whose TExec sets kLightTemperature stores that palette, also when written with
kBird current, and JSROOT fills its cells from it. Served on 127.0.0.1 and opened in
headless Chromium with the local JSROOT of test_site (skipped with a reason where absent)."""

from __future__ import annotations

import functools
import http.server
import re
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from pnetviz.draw import canvas, rootfile
from pnetviz.draw.style import StyleOptions, cms_style, color
from pnetviz.rootenv import root
from test_site import CHROMIUM, CHROME_FLAGS, QuietHandler, live_site

pytestmark = pytest.mark.slow  # a campaign's live views in Chromium

KLIGHTTEMPERATURE, KBIRD = 87, 57
CUSTOM = "#123456"  # no colour ROOT or JSROOT has built in


def _figures():
    """A frame with a line of a custom colour; a COLZ matrix (its TExec sets kBird in ROOT); one
    whose TExec sets kLightTemperature (as a campaign difference map's)."""
    x = np.linspace(0.0, 1.0, 11)
    with cms_style(StyleOptions()):
        lines = canvas.figure("lines", canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y"))
        canvas.add_graph(lines, "lines/custom", x, x, "custom", line_color=color(CUSTOM))
        matrix = canvas.matrix_figure("matrix", labels=("a", "b"))
        canvas.add_matrix(matrix, "matrix/auc", np.array([[0.9, 0.4], [0.2, 0.7]]), ("a", "b"), ".2f", 0, "AUC")
        light = canvas.matrix_figure("light", labels=("a", "b"))
        canvas.add_matrix(light, "light/auc", np.array([[0.9, 0.4], [0.2, 0.7]]), ("a", "b"), ".2f", 0, "AUC")
    texec = next(p for p in light.canvas.GetListOfPrimitives() if p.InheritsFrom("TExec"))
    texec.SetTitle(f"gStyle->SetPalette({KLIGHTTEMPERATURE});")
    return [lines, matrix, light]


def _cells(fig, png: Path) -> list[tuple[int, int, int]]:
    """RGB (0-255) of each cell of `fig`'s matrix as ROOT paints it (its PNG, at a point of each
    cell clear of its number)."""
    ROOT = root()
    canvas.paint(fig.canvas)
    fig.canvas.SaveAs(str(png))
    hist = next(p for p in fig.canvas.GetListOfPrimitives() if p.InheritsFrom("TH2"))
    image = ROOT.TASImage.Open(str(png))
    argb, width, cells = image.GetArgbArray(), image.GetWidth(), []
    for i in range(1, hist.GetNbinsX() + 1):
        for j in range(1, hist.GetNbinsY() + 1):
            x = hist.GetXaxis().GetBinLowEdge(i) + 0.15 * hist.GetXaxis().GetBinWidth(i)
            y = hist.GetYaxis().GetBinLowEdge(j) + 0.15 * hist.GetYaxis().GetBinWidth(j)
            value = argb[fig.canvas.YtoAbsPixel(y) * width + fig.canvas.XtoAbsPixel(x)]
            cells.append(((value >> 16) & 255, (value >> 8) & 255, value & 255))
    return cells


def _rgb(index: int) -> str:
    """JSROOT's text of colour `index` of this process: 'rgb(r, g, b)'."""
    c = root().gROOT.GetColor(index)
    return f"rgb({round(c.GetRed() * 255)}, {round(c.GetGreen() * 255)}, {round(c.GetBlue() * 255)})"


def _palette_rgbs(number: int) -> set[str]:
    ROOT = root()
    ROOT.gStyle.SetPalette(number)
    return {_rgb(ROOT.TColor.GetColorPalette(i)) for i in range(ROOT.TColor.GetNumberOfColors())}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(server URL, colours of kLightTemperature, of kBird, JSROOT's text of CUSTOM, ROOT's cell
    colours of the kBird and the kLightTemperature matrix): view.html with JSROOT at the root, a
    plots.root of _figures written with kLightTemperature current, a bird.root with kBird current."""
    out = live_site(tmp_path_factory, "palette")
    figures = _figures()
    bird = _palette_rgbs(KBIRD)
    try:
        light = _palette_rgbs(KLIGHTTEMPERATURE)
        cells = {"matrix": _cells(figures[1], out / "matrix.png"), "light": _cells(figures[2], out / "light.png")}
        root().gStyle.SetPalette(KLIGHTTEMPERATURE)
        rootfile.write_root_file(out / "plots.root", figures, context="palette test")
        root().gStyle.SetPalette(KBIRD)
        rootfile.write_root_file(out / "bird.root", figures, context="palette test")
        custom = _rgb(figures[0].objects["lines/custom"].GetLineColor())
    finally:
        root().gStyle.SetPalette(KBIRD)
        for fig in figures:
            fig.close()
    handler = functools.partial(QuietHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", light, bird, custom, cells
    httpd.shutdown()


def _draw(server: str, item: str, profile: Path, file: str = "plots.root") -> tuple[str, list[str]]:
    """(DOM, console errors) of the live view of `item` in headless Chromium."""
    done = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           "--virtual-time-budget=20000", "--dump-dom", f"{server}/view.html?file={file}&item={item}"],
                          capture_output=True, text=True, timeout=90)  # fmt: skip
    errors = [line for line in done.stderr.splitlines()
              if "CONSOLE" in line and any(w in line for w in ("Uncaught", "Error", "Fail", "Missing"))]  # fmt: skip
    return done.stdout, errors


def _fills(dom: str) -> set[tuple[int, int, int]]:
    return {tuple(map(int, rgb)) for rgb in re.findall(r'fill="rgb\((\d+), (\d+), (\d+)\)"', dom)}


def _near(cell: tuple[int, int, int], fills: set[tuple[int, int, int]]) -> bool:
    """`cell` among `fills` within 1/255 a channel (JSROOT's palette tables against ROOT's)."""
    return any(max(abs(a - b) for a, b in zip(cell, fill)) <= 1 for fill in fills)


def _as_tuples(rgbs: set[str]) -> set[tuple[int, int, int]]:
    return {tuple(map(int, re.findall(r"\d+", rgb))) for rgb in rgbs}


def test_jsroot_fills_a_kbird_matrix_as_root_paints_it(served, tmp_path):
    server, light, bird, _, cells = served
    dom, errors = _draw(server, "canvases/matrix", tmp_path / "profile")  # written with kLightTemperature current
    assert not errors, errors
    fills = _fills(dom)
    assert len(set(cells["matrix"])) == 4 and all(_near(cell, fills) for cell in cells["matrix"]), (cells, sorted(fills))
    assert all(_near(cell, _as_tuples(bird)) for cell in cells["matrix"])  # kBird's (stored with it)
    assert not fills & _as_tuples(light - bird), sorted(fills)  # none of kLightTemperature's


def test_jsroot_fills_a_matrix_with_its_stored_palette(served, tmp_path):
    server, light, bird, _, cells = served
    dom, errors = _draw(server, "canvases/light", tmp_path / "profile", "bird.root")  # written with kBird current
    assert not errors, errors
    fills = _fills(dom)
    assert len(fills & _as_tuples(light - bird)) >= 4, sorted(fills)  # cells and palette axis: kLightTemperature's colours
    assert not fills & _as_tuples(bird - light), sorted(fills & _as_tuples(bird))  # none of JSROOT's default palette
    assert all(_near(cell, fills) for cell in cells["light"]), (cells["light"], sorted(fills))  # as ROOT paints them


def test_jsroot_draws_a_canvas_without_palette_in_its_colours(served, tmp_path):
    server, _, _, custom, _ = served
    dom, errors = _draw(server, "canvases/lines", tmp_path / "profile")
    assert not errors, errors
    assert "<svg" in dom and f"stroke: {custom}" in dom, dom[-2000:]  # CUSTOM: a colour no reader has built in
    assert custom == "rgb(18, 52, 86)"
