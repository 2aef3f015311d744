"""The live view draws a stored canvas as ROOT does (issue 33 item 7): framed in a page (fit=1) it
keeps the canvas's own aspect (JSROOT stretches a canvas to its element: a 600 x 750 ratio figure
in a square frame stacked the ratio panel's labels and ran the two y titles together), and its
text is in ROOT's own font (TeX Gyre Heros for JSROOT's "Arial", copied beside view.html: a browser
without Arial fell back to a 15% wider font and "Simulation Preliminary" ran into the run text).
Served on 127.0.0.1 and opened in headless Chromium with the local JSROOT of test_site."""

from __future__ import annotations

import functools
import http.server
import re
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from pnetviz.web import site
from pnetviz.web.siteassets import ROOT_FONTS
from pnetviz.rootenv import root
from test_site import CHROMIUM, CHROME_FLAGS, QuietHandler, jsroot_package

pytestmark = pytest.mark.slow  # a campaign's live views in Chromium

SIZE = (600, 750)  # a ratio figure's canvas


def _write_canvas(path: Path) -> None:
    """plots.root with canvases/tall: a 600 x 750 canvas filled red (its drawn area is the red one)."""
    ROOT = root()
    out = ROOT.TFile.Open(str(path), "RECREATE")
    out.mkdir("canvases").cd()
    canvas = ROOT.TCanvas("tall", "tall", *SIZE)
    canvas.SetCanvasSize(*SIZE)
    canvas.SetFillColor(ROOT.kRed)
    canvas.Write()
    out.Close()
    canvas.Close()


def test_the_view_page_uses_roots_fonts(tmp_path):
    site.publish_root_files(tmp_path, None)
    view = (tmp_path / "view.html").read_text()
    for name in ROOT_FONTS.values():
        assert f'src: url("fonts/{name}")' in view
        assert (tmp_path / "fonts" / name).read_bytes() == (Path(str(root().TROOT.GetTTFFontDir())) / name).read_bytes()
    assert re.search(r'font-family: "Arial"; font-weight: bold; font-style: oblique', view)  # JSROOT's font 72


def test_a_framed_canvas_keeps_its_aspect(tmp_path):
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    jsroot = jsroot_package()
    if jsroot is None:
        pytest.skip("no local JSROOT (npm pack jsroot@7.11.2 failed or npm is absent)")
    site.publish_root_files(tmp_path, jsroot)
    _write_canvas(tmp_path / "plots.root")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(tmp_path)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    shot = tmp_path / "shot.png"
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/view.html?file=plots.root&item=canvases/tall&fit=1"
        subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
                        "--window-size=500,500", "--virtual-time-budget=15000", f"--screenshot={shot}", url],
                       capture_output=True, timeout=90)  # fmt: skip
    finally:
        httpd.shutdown()
    image = root().TASImage.Open(str(shot))
    w, h = int(image.GetWidth()), int(image.GetHeight())
    argb = np.frombuffer(image.GetArgbArray(), dtype=np.uint32, count=w * h).reshape(h, w)
    red = (((argb >> 16) & 255) > 200) & (((argb >> 8) & 255) < 60) & ((argb & 255) < 60)
    rows, cols = np.nonzero(red)
    assert rows.size > 1000, "the canvas was not drawn"
    height, width = rows.max() - rows.min() + 1, cols.max() - cols.min() + 1
    assert height / width == pytest.approx(SIZE[1] / SIZE[0], rel=0.03)  # 1.25, not the frame's 1
