"""The overlay page (issue 54): hand-made plots.root files of two models, the page served on
127.0.0.1 and opened in headless Chromium with the local JSROOT of test_site; the tests read the
drawn SVG and the page's DOM. Model A: rejection 40 on eps_s 0.2-0.5, 10 to 0.8, 2 to 1; model
B: 20 on 0.2-0.6, 10 to 1. So B/A is 0.5, 2, 1 and 5 on those four intervals, as steps."""

from __future__ import annotations

import base64
import functools
import html
import http.server
import json
import re
import threading
import urllib.parse

import numpy as np
import pytest

from pnetviz.draw.ratio import RATIO_TEXT
from pnetviz.rootenv import root
from pnetviz.web import site
from test_site import CHROMIUM, QuietHandler, _chromium, live_site

pytestmark = pytest.mark.slow  # pages drawn in Chromium

A = ([0.2, 0.5, 0.5, 0.8, 0.8, 1.0, 1.0], [40, 40, 10, 10, 2, 2, 1])
B = ([0.2, 0.6, 0.6, 1.0], [20, 20, 10, 10])
ROOT_TEXT_SCALE = 0.93376068  # ROOT draws every text at this share of its size (siteassets.AS_ROOT_DRAWS_JS)


def _graph(x, y):
    g = root().TGraph(len(x), np.asarray(x, float), np.asarray(y, float))
    return g


def _write_set(path, rejection, label: bool, folds=None):
    """plots.root of one set: rejection/test and roc/test (a fold), or folds/rejection_mean_test
    and its band (the folds set, `folds` its summary's list); with `label` a stored rejection
    figure carrying the CMS label as cmsstyle writes it."""
    ROOT = root()
    path.mkdir(parents=True)
    out = ROOT.TFile.Open(str(path / "plots.root"), "RECREATE")
    x, y = rejection
    if folds is None:
        out.mkdir("rejection").cd()
        _graph(x, y).Write("test")
        _graph([0.0, x[0]], [60.0, 60.0]).Write("test_lower_limit")  # no background event below eps_s = x[0]
        out.mkdir("roc").cd()
        _graph([0.0, 0.1, 0.1, 1.0], [0.5, 0.5, 1.0, 1.0]).Write("test")
    else:
        out.mkdir("folds").cd()
        _graph(x, y).Write("rejection_mean_test")
        _graph(x + x[::-1], [v * 1.2 for v in y] + [v * 0.8 for v in y[::-1]]).Write("rejection_band_test")
        (path / "summary_report.json").write_text(json.dumps({"folds": folds}))
    out.mkdir("canvases").cd()
    canvas = ROOT.TCanvas("rejection_curve", "", 600, 600)
    if label:
        for text, font, size, align, xpos in (("CMS", 61, 0.0525, 11, 0.145), ("Simulation Preliminary", 52, 0.0399, 11, 0.2577),
                                              ("138 fb^{-1} (13 TeV)", 42, 0.042, 31, 0.95)):  # fmt: skip
            latex = ROOT.TLatex(xpos, 0.944, text)
            latex.SetNDC()
            latex.SetTextFont(font)
            latex.SetTextSize(size)
            latex.SetTextAlign(align)
            latex.Draw()
            ROOT.SetOwnership(latex, False)
    canvas.Write()
    out.Close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    out = live_site(tmp_path_factory, "overlay")
    for model, curve in (("A", A), ("B", B)):
        for fold in (0, 1):
            _write_set(out / "results" / model / f"fold-{fold}", curve, label=model == "A")
        _write_set(out / "results" / model / "folds", curve, label=model == "A", folds=[0, 1])
    pages = out / "campaign" / "site"
    pages.mkdir(parents=True)
    for name, text in site.overlay_files("./jsroot/", "JSROOT: the local copy in jsroot/.").items():
        (pages / name).write_text(text)
    (pages / "site.css").write_text(site.SITE_CSS)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", out
    httpd.shutdown()


def _page(served, tmp_path, *sets: str, curve: str = "rejection") -> str:
    query = urllib.parse.urlencode([("curve", curve), *(("m", f"results/{s}/plots.root") for s in sets)])
    done = _chromium(f"{served[0]}/campaign/site/overlay.html?{query}", f"--user-data-dir={tmp_path / 'p'}", "--dump-dom")
    assert 'id="error" class="failed"></p>' in done.stdout, done.stdout[-3000:]
    return done.stdout


def _pad(dom: str, name: str) -> str:
    return dom.split(f'class="__root_pad_{name}"')[1].split("__root_pad_")[0]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_overlay_carries_the_cms_label_of_the_stored_figures(served, tmp_path):
    main = _pad(_page(served, tmp_path, "A/fold-0", "B/fold-0"), "main")
    texts = re.findall(r"<text[^>]*>([^<]+)</text>", main)
    assert "CMS" in texts and "Simulation Preliminary" in texts, texts
    assert any(t.startswith("138 fb") for t in texts) and "(13 TeV)" in "".join(texts), texts
    cms = re.search(r'<g[^>]*font-weight="bold"[^>]*>(?:(?!</g>).)*?>CMS</text>', main, re.S)
    assert cms is not None  # the bold CMS (font 61)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_ratio_is_drawn_as_steps_on_the_common_grid(served, tmp_path):
    dom = _page(served, tmp_path, "A/fold-0", "B/fold-0")
    paths = re.findall(r'<path d="(M[^"]+)" style="[^"]*stroke: red; stroke-width: 2;', _pad(dom, "ratio"))
    assert paths and all(re.fullmatch(r"M[\d.]+,[\d.]+([hv]-?[\d.]+)+", p) for p in paths), paths  # no sloped segment
    limits = re.findall(r'<path d="M0,([\d.]+)h([\d.]+)" style="[^"]*stroke: (\w+); stroke-width: 1; stroke-dasharray', _pad(dom, "main"))
    assert [c for _, _, c in limits] == ["black", "red"]  # the lower limits, dotted, as the static figures draw them
    assert limits[0][:2] == limits[1][:2]  # both at 60, from eps_s = 0 to 0.2
    steps = json.loads(html.unescape(re.search(r'data-ratio-steps="([^"]+)"', dom).group(1)))
    assert len(steps) == 1
    points = steps[0]
    assert all(p[0] == q[0] or p[1] == q[1] for p, q in zip(points, points[1:]))  # horizontal or vertical
    at = {x: next(y for (x0, y), (x1, _) in zip(points, points[1:]) if x0 < x < x1) for x in (0.305, 0.555, 0.705, 0.905)}
    assert at == {0.305: pytest.approx(0.5), 0.555: pytest.approx(2.0), 0.705: pytest.approx(1.0), 0.905: pytest.approx(5.0)}
    assert points[0][0] == pytest.approx(0.2) and points[-1][0] == pytest.approx(1.0)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_label_sizes_and_x_range_are_the_static_figures(served, tmp_path):
    """Axis labels at the static ratio figure's printed size (RATIO_TEXT['label'] of its 600 px
    width, drawn as ROOT draws text) in both pads; both frames on one x range and one width."""
    dom = _page(served, tmp_path, "A/fold-0", "B/fold-0")
    sizes = {name: {int(s) for s in re.findall(r'<g class="axis_labels"[^>]*font-size="(\d+)"', _pad(dom, name))} for name in ("main", "ratio")}
    expected = round(RATIO_TEXT["label"] * 600 * ROOT_TEXT_SCALE)
    assert sizes == {"main": {expected}, "ratio": {expected}}, sizes
    ranges = json.loads(html.unescape(re.search(r'data-x-ranges="([^"]+)"', dom).group(1)))
    assert ranges == {"main": [0, 1], "ratio": [0, 1]}
    widths = re.findall(r'<svg class="main_layer" x="(\d+)" y="\d+" overflow="hidden" width="(\d+)"', dom)
    assert len(widths) == 2 and widths[0] == widths[1], widths


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_every_fold_and_the_fold_mean_are_selectable(served, tmp_path):
    dom = _page(served, tmp_path, "A/folds", "B/fold-1")
    selects = re.findall(r'<select class="fold">(.*?)</select>', dom, re.S)
    assert len(selects) == 2
    options = [re.findall(r'<option value="([^"]+)"( selected="")?>([^<]+)</option>', s) for s in selects]
    assert [o[2] for o in options[0]] == ["mean over folds (band: std)", "fold 0", "fold 1"]
    assert [o[0] for o in options[1]] == [f"results/B/{s}/plots.root" for s in ("folds", "fold-0", "fold-1")]
    assert [o[2] for o in options[0] if o[1]] == ["mean over folds (band: std)"] and [o[2] for o in options[1] if o[1]] == ["fold 1"]
    main = _pad(dom, "main")
    assert len(re.findall(r'stroke-width: 2; fill: none;', main)) == 2  # the two lines
    assert re.search(r'<path d="M[^"]+" style="[^"]*fill: url\((&quot;)?#pat_3004', main)  # A's band, hatched


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_overlay_downloads_as_pdf_and_svg(served, tmp_path):
    dom = _page(served, tmp_path, "A/fold-0", "B/fold-0")
    links = {kind: html.unescape(re.search(rf'id="download-{kind}" href="([^"]+)"', dom).group(1)) for kind in ("pdf", "svg")}
    pdf = base64.b64decode(links["pdf"].removeprefix("data:application/pdf;base64,"))
    svg = base64.b64decode(links["svg"].removeprefix("data:image/svg+xml;base64,")).decode()
    assert pdf.startswith(b"%PDF-") and b"(CMS)" in pdf and b"(Ratio)" in pdf
    assert svg.startswith("<svg") and ">CMS</text>" in svg and 'viewBox="0 0 600 750"' in svg
    if (served[1] / "fonts").is_dir():  # ROOT's fonts published beside view.html: inlined, the SVG draws in them anywhere
        assert svg.count('src: url("data:font/otf;base64,') == len(site.font_faces().splitlines())
    assert len(re.findall(r"stroke-width: 2; fill: none;", svg)) == 3  # the two curves and the ratio
