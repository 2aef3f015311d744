"""The live view draws a stored canvas as ROOT's own images show it (issue 33, item 7): the CMS
label's three texts apart (JSROOT drew every text 7% larger than ROOT, whose TTF renders at
0.934 of the size: "CMS" ran into "Simulation Preliminary"), log axes labelled 1, 10, 10^2 (JSROOT
wrote "100" on a log axis within 0.3-300), and no TLatex command shown literally (this JSROOT's
TLatex lacks #minus). Served on 127.0.0.1 and opened in headless Chromium with the local JSROOT
of test_site; the text boxes are measured by a probe script in the page."""

from __future__ import annotations

import functools
import html
import http.server
import json
import re
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold
from pnetviz.rootenv import root
from test_site import CHROMIUM, CHROME_FLAGS, QuietHandler, live_site

pytestmark = pytest.mark.slow  # a campaign's live views in Chromium

MINUS = "#DeltaAUC (B #minus A)"

# Writes the boxes (left, right, top, bottom) of the CMS label's texts into <pre id="boxes"> once drawn.
PROBE_JS = """const wanted = [t => t === 'CMS', t => t.startsWith('Simulation'), t => t.includes('TeV')];
const out = document.createElement('pre');
out.id = 'boxes';
document.body.appendChild(out);
const find = () => { const texts = Array.from(document.querySelectorAll('#drawing svg text'));
                     return wanted.map(w => texts.find(t => w(t.textContent))); };
for (let i = 0; i < 300 && !find().every(Boolean); ++i) await new Promise(r => setTimeout(r, 100));
await new Promise(r => setTimeout(r, 500));
out.textContent = JSON.stringify(find().map(t => { const b = t?.getBoundingClientRect(); return b ? [b.left, b.right, b.top, b.bottom] : null; }));
"""


def _synthetic(path: Path) -> None:
    """plots.root with canvases/logy (a log-y frame from 1 to 150, as a rejection figure's) and
    canvases/minus (a TLatex and a legend entry holding #minus)."""
    ROOT = root()
    out = ROOT.TFile.Open(str(path), "RECREATE")
    out.mkdir("canvases").cd()
    logy = ROOT.TCanvas("logy", "logy", 600, 600)
    logy.SetLogy()
    frame = logy.DrawFrame(0.0, 1.0, 1.0, 150.0)
    frame.GetYaxis().SetTitle("Background rejection")
    logy.Write()
    minus = ROOT.TCanvas("minus", "minus", 600, 600)
    latex = ROOT.TLatex(0.2, 0.5, MINUS)
    latex.SetNDC()
    latex.Draw()
    legend = ROOT.TLegend(0.2, 0.7, 0.8, 0.8)
    legend.AddEntry(latex, "B #minus A", "")
    legend.Draw()
    minus.Write()
    out.Close()
    for canvas in (logy, minus):
        canvas.Close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(URL, output root): view.html, a probe page, the synthetic plots.root and a binary
    evaluation's plots.root (its rejection_curve carries the CMS label above the frame)."""
    out = live_site(tmp_path_factory, "asroot")
    (out / "probe.js").write_text(PROBE_JS)
    view = (out / "view.html").read_text()
    (out / "probe.html").write_text(view.replace("</head>", '<script type="module" src="probe.js"></script></head>', 1))
    _synthetic(out / "plots.root")
    results = tmp_path_factory.mktemp("tree") / "results"
    write_trainer_fold(results, "Run1E2Mu", "MHc130_MA90", 0, events=1200)
    argv = ["--results-dir", str(results), "--signal", "MHc130_MA90", "--background", "ttZ", "--output",
            str(out / "binary"), "--formats", "none", "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    handler = functools.partial(QuietHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", out
    httpd.shutdown()


def _dom(url: str, profile: Path) -> str:
    done = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=20000",
                           "--dump-dom", url], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert 'id="error" class="failed"></p>' in done.stdout, done.stdout[-1500:]  # drawn, no error text
    return done.stdout


def test_a_log_axis_has_exponent_labels(served, tmp_path):
    url, _ = served
    dom = _dom(f"{url}/view.html?file=plots.root&item=canvases/logy", tmp_path / "p")
    labels = dom.split('class="axis_labels"')[2].split("</g></g>")[0]  # the y axis's labels (the x axis's first)
    texts = re.findall(r'<text[^>]*?(?:font-size="(\d+)")?[^>]*>([^<]*)</text>', labels)
    assert [t for _, t in texts if re.fullmatch(r"10+", t) and len(t) > 2] == []  # no "100"
    exponent = re.search(r'>10</text><text[^>]*font-size="(\d+)"[^>]*>2</text>', labels)
    assert exponent, labels  # 10 with a smaller 2 beside it: 10^2
    assert [t for _, t in texts].count("1") == 1 and "10" in [t for _, t in texts]


def test_no_tlatex_command_is_shown_literally(served, tmp_path):
    url, _ = served
    dom = _dom(f"{url}/view.html?file=plots.root&item=canvases/minus", tmp_path / "p")
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", dom)
    assert not [t for t in texts if "#" in t], texts
    assert "AUC (B \u2212 A)" in "".join(texts) and "B \u2212 A" in texts  # the TLatex and the legend entry


def test_the_cms_label_texts_do_not_touch(served, tmp_path):
    url, out = served
    root_file = next((out / "binary").rglob("plots.root")).relative_to(out).as_posix()
    dom = _dom(f"{url}/probe.html?file={root_file}&item=canvases/rejection_curve", tmp_path / "p")
    boxes = json.loads(re.search(r'<pre id="boxes">([^<]*)</pre>', dom).group(1))
    assert None not in boxes, boxes
    cms, extra, run_text = boxes
    assert cms[3] > extra[2] and extra[3] > run_text[2]  # on one line
    assert extra[0] - cms[1] >= 0.5, boxes  # "CMS" ends before "Simulation Preliminary" starts
    assert run_text[0] - extra[1] >= 10, boxes  # and that before the run text


def test_a_live_view_shows_the_figures_caption(served, tmp_path):
    url, out = served
    report = next((out / "binary").rglob("summary_report.json"))
    name, caption = next(iter(json.loads(report.read_text())["figure_captions"].items()))
    root_file = report.with_name("plots.root").relative_to(out).as_posix()
    dom = _dom(f"{url}/view.html?file={root_file}&item=canvases/{name}", tmp_path / "p")
    shown = re.search(r'<p id="caption">([^<]*)</p>', dom)
    assert shown and html.unescape(shown.group(1)) == caption, dom[-1500:]
    framed = _dom(f"{url}/view.html?file={root_file}&item=canvases/{name}&fit=1", tmp_path / "p")
    assert 'id="caption"' not in framed  # in a page's frame the page shows it under the frame
