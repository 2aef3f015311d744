"""The live view (view.js) draws nothing pnetviz never writes. JSROOT turns a TF1's formula text
into JavaScript (`new Function`, modules/base/func.mjs) to evaluate it; the page's
Content-Security-Policy (no 'unsafe-eval') already keeps the browser from compiling it, and the
view now also refuses the object before JSROOT sees it, as `pnetviz render` and the notebook
refuse such files (draw.stored): one error naming the class, nothing drawn. The classes are those
of draw.stored.ALLOWED_CLASSES (a TExec only as an older set's palette command). Served on
127.0.0.1 and opened in headless Chromium (skipped with a reason where absent)."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading

import pytest

from test_live_view_palette import _draw
from test_site import QuietHandler, live_site


# written in a process of its own: this one then holds no canvas, histogram, TF1 or TExec to tear down
WRITER = """
import sys
import ROOT
from pnetviz.draw.stored import PALETTE_NAME, palette_command
ROOT.gROOT.SetBatch(True)
tfile = ROOT.TFile(sys.argv[1], "RECREATE")
directory = tfile.mkdir("canvases")
extras = {"plain": None, "tf1": ROOT.TF1("f", "x", 0.0, 1.0), "texec": ROOT.TExec("x", 'gSystem->Exec("true");'),
          "palette": ROOT.TExec(PALETTE_NAME, palette_command(57))}
for name, extra in extras.items():
    canvas = ROOT.TCanvas(name, name, 400, 300)
    hist = ROOT.TH1D(name + "_h", "", 4, 0.0, 1.0)
    hist.Fill(0.3)
    canvas.GetListOfPrimitives().Add(hist, "HIST")
    if extra is not None:
        (hist.GetListOfFunctions() if extra.InheritsFrom("TF1") else canvas.GetListOfPrimitives()).Add(extra)
    directory.WriteTObject(canvas, name)
tfile.Close()
ROOT.gSystem.Exit(0)  # no teardown of the objects above
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    out = live_site(tmp_path_factory, "refuses")
    subprocess.run([sys.executable, "-c", WRITER, str(out / "plots.root")], check=True, capture_output=True, timeout=300)
    handler = functools.partial(QuietHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.mark.parametrize(("item", "cls"), [("canvases/tf1", "TF1"), ("canvases/texec", "TExec")])
def test_a_foreign_class_is_not_drawn(server, tmp_path, item, cls):
    dom, _ = _draw(server, item, tmp_path / "profile")
    assert f"holds a {cls}, which pnetviz never writes" in dom and "not drawn" in dom, dom[-2000:]
    assert "<svg" not in dom


@pytest.mark.parametrize("item", ["canvases/plain", "canvases/palette"])
def test_what_pnetviz_writes_is_drawn(server, tmp_path, item):
    dom, errors = _draw(server, item, tmp_path / "profile")
    assert not errors, errors
    assert "<svg" in dom and 'id="error" class="failed"></p>' in dom, dom[-2000:]
