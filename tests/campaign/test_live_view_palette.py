"""JSROOT (the site's live views) draws pnetviz's stored canvases with the colours written
(draw.rootfile.stored_colors): a canvas without a palette stores none and still draws its own
colours; a COLZ matrix stores the palette it was written with and JSROOT fills its cells from it,
not from its own default (kBird). Written here with kLightTemperature (87) as the current palette,
the one the campaign's difference maps use. Served on 127.0.0.1 and opened in headless Chromium
with the local JSROOT of test_site (skipped with a reason where absent). JSROOT ignores the
matrix's palette TExec (ROOT runs it): the stored palette is what it has."""

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

KLIGHTTEMPERATURE, KBIRD = 87, 57
CUSTOM = "#123456"  # no colour ROOT or JSROOT has built in


def _figures():
    """A frame with a line of a custom colour; a COLZ matrix (its TExec sets kBird in ROOT)."""
    x = np.linspace(0.0, 1.0, 11)
    with cms_style(StyleOptions()):
        lines = canvas.figure("lines", canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y"))
        canvas.add_graph(lines, "lines/custom", x, x, "custom", line_color=color(CUSTOM))
        matrix = canvas.matrix_figure("matrix", labels=("a", "b"))
        canvas.add_matrix(matrix, "matrix/auc", np.array([[0.9, 0.4], [0.2, 0.7]]), ("a", "b"), ".2f", 0, "AUC")
    return [lines, matrix]


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
    """(server URL, colours of kLightTemperature, of kBird, JSROOT's text of CUSTOM): view.html with
    JSROOT at the root, a plots.root of _figures written with kLightTemperature current."""
    out = live_site(tmp_path_factory, "palette")
    figures = _figures()
    bird = _palette_rgbs(KBIRD)
    try:
        light = _palette_rgbs(KLIGHTTEMPERATURE)
        rootfile.write_root_file(out / "plots.root", figures, context="palette test")
        custom = _rgb(figures[0].objects["lines/custom"].GetLineColor())
    finally:
        root().gStyle.SetPalette(KBIRD)
        for fig in figures:
            fig.close()
    handler = functools.partial(QuietHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", light, bird, custom
    httpd.shutdown()


def _draw(server: str, item: str, profile: Path) -> tuple[str, list[str]]:
    """(DOM, console errors) of the live view of `item` in headless Chromium."""
    done = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           "--virtual-time-budget=20000", "--dump-dom", f"{server}/view.html?file=plots.root&item={item}"],
                          capture_output=True, text=True, timeout=90)  # fmt: skip
    errors = [line for line in done.stderr.splitlines()
              if "CONSOLE" in line and any(w in line for w in ("Uncaught", "Error", "Fail", "Missing"))]  # fmt: skip
    return done.stdout, errors


def test_jsroot_fills_a_matrix_with_its_stored_palette(served, tmp_path):
    server, light, bird, _ = served
    dom, errors = _draw(server, "canvases/matrix", tmp_path / "profile")
    assert not errors, errors
    fills = set(re.findall(r'fill="(rgb\(\d+, \d+, \d+\))"', dom))
    assert len(fills & (light - bird)) >= 4, sorted(fills)  # cells and palette axis: kLightTemperature's colours
    assert not fills & (bird - light), sorted(fills & bird)  # none of JSROOT's default palette


def test_jsroot_draws_a_canvas_without_palette_in_its_colours(served, tmp_path):
    server, _, _, custom = served
    dom, errors = _draw(server, "canvases/lines", tmp_path / "profile")
    assert not errors, errors
    assert "<svg" in dom and f"stroke: {custom}" in dom, dom[-2000:]  # CUSTOM: a colour no reader has built in
    assert custom == "rgb(18, 52, 86)"
