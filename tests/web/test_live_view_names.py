"""The live view (view.html) draws the plots.root of a directory whatever its safe name (issue 41,
item 8): `#`, `?`, `\\`, a tab, a valid `%XX`, `..` inside a name, a space, `&` and unicode. The
link the site writes (site.view_link) carries the path; view.js fetches it with each component
percent-encoded; `..` is refused only as a whole component. Served on 127.0.0.1 and opened in
headless Chromium with the local JSROOT of test_site (skipped with a reason where absent)."""

from __future__ import annotations

import functools
import html
import http.server
import re
import shutil
import subprocess
import threading
import urllib.parse
from pathlib import Path

import pytest

from pnetviz.web import site
from pnetviz.rootenv import root
from test_site import CHROMIUM, CHROME_FLAGS, QuietHandler, live_site

pytestmark = pytest.mark.slow  # a campaign's live views in Chromium

NAMES = ("a#b", "a?b", "a\\b", "a\tb", "a%41b", "a..b", "a b", "a&b", "Mü€ß")
ITEM = "canvases/live"


def _write_plots_root(path: Path) -> None:
    """A plots.root holding one stored canvas with a graph (canvases/live), as pnetviz writes them
    (at a plain path: ROOT reads a '#' in a file name as an archive member)."""
    ROOT = root()
    out = ROOT.TFile.Open(str(path), "RECREATE")
    out.mkdir("canvases").cd()
    canvas = ROOT.TCanvas("live", "live", 400, 300)
    graph = ROOT.TGraph(3)
    for i, (x, y) in enumerate(((0.0, 0.0), (0.5, 0.8), (1.0, 1.0))):
        graph.SetPoint(i, x, y)
    graph.Draw("AL")
    canvas.Write()
    out.Close()
    canvas.Close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(server URL, output root): view.html, view.js and JSROOT at the root, a plots.root under
    results/<name>/fold-0/ for every name."""
    out = live_site(tmp_path_factory, "live")
    _write_plots_root(out / "plots.root")
    for name in NAMES:
        (out / "results" / name / "fold-0").mkdir(parents=True)
        shutil.copyfile(out / "plots.root", out / "results" / name / "fold-0" / "plots.root")
    handler = functools.partial(QuietHandler, directory=str(out))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", out
    httpd.shutdown()


def _open(url: str, profile: Path) -> tuple[str, list[str], str]:
    """(DOM, console errors, the page's error text) of `url` in headless Chromium."""
    done = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           "--virtual-time-budget=20000", "--dump-dom", url], capture_output=True, text=True, timeout=90)  # fmt: skip
    errors = [line for line in done.stderr.splitlines()
              if "CONSOLE" in line and any(w in line for w in ("Uncaught", "Error", "Fail"))]  # fmt: skip
    shown = re.search(r'<p id="error" class="failed">([^<]*)</p>', done.stdout)
    return done.stdout, errors, shown.group(1) if shown else "(no error element)"


@pytest.mark.parametrize("name", NAMES)
def test_the_link_carries_the_path_unchanged(name):
    path = f"results/{name}/fold-0/plots.root"
    link = html.unescape(site.view_link("", path, ITEM))
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["file"] == [path]


@pytest.mark.parametrize("name", NAMES)
def test_live_view_draws_every_safe_name(served, name, tmp_path):
    server, _ = served
    link = html.unescape(site.view_link("", f"results/{name}/fold-0/plots.root", ITEM))
    dom, errors, shown = _open(f"{server}/{link}", tmp_path / "profile")
    assert shown == "", shown
    assert not errors, errors
    assert "<svg" in dom, dom[-2000:]


def test_browsing_a_file_under_a_hostile_name(served, tmp_path):
    server, _ = served
    link = html.unescape(site.view_link("", "results/a#b/fold-0/plots.root", ""))
    dom, errors, shown = _open(f"{server}/{link}", tmp_path / "profile")
    assert shown == "" and not errors, (shown, errors)
    assert 'item="plots.root/canvases;1"' in dom  # the file's directory listed by JSROOT's browser


@pytest.mark.parametrize("path", ["results/../results/a b/fold-0/plots.root", "/etc/x.root", "http://example.org/x.root",
                                  "results/a b/fold-0/.."])
def test_parent_components_absolute_paths_and_urls_are_refused(served, path, tmp_path):
    server, _ = served
    dom, _, shown = _open(f"{server}/view.html?file={urllib.parse.quote(path, safe='')}&item={ITEM}", tmp_path / "profile")
    assert shown.startswith("give ?file=") and "<svg" not in dom
