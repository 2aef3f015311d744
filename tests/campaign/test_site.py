"""The campaign's web report: pages from a small campaign, served over HTTP on 127.0.0.1 and
opened in headless Chromium (Debian's `chromium`; the tests that need it are skipped with a
reason where it is absent). JSROOT is a local copy of the npm package (`npm pack jsroot@7.11.2`),
kept out of git in ~/.cache/pnetviz (or $PNETVIZ_JSROOT): fetched on first use when npm is there.
"""

from __future__ import annotations

import csv
import functools
import http.server
import os
import re
import shutil
import subprocess
import tarfile
import threading
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.campaign import site
from pnetviz.cli.common import run
from pnetviz.metrics import rounding

CHROMIUM = shutil.which("chromium")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def jsroot_package() -> Path | None:
    """The unpacked npm package of the pinned JSROOT, fetched once into the cache; None if impossible."""
    cache = Path(os.environ.get("PNETVIZ_JSROOT") or Path.home() / ".cache" / "pnetviz" / f"jsroot-{site.JSROOT_VERSION}")
    package = cache / "package"
    if (package / "modules" / "main.mjs").is_file():
        return package
    if not shutil.which("npm"):
        return None
    cache.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["npm", "pack", f"jsroot@{site.JSROOT_VERSION}"], cwd=cache, capture_output=True, text=True, timeout=300)
    tgz = cache / f"jsroot-{site.JSROOT_VERSION}.tgz"
    if done.returncode != 0 or not tgz.is_file():
        return None
    with tarfile.open(tgz) as tar:
        tar.extractall(cache, filter="data")
    return package if (package / "modules" / "main.mjs").is_file() else None


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A campaign over 2 signal points x 2 folds with the web report and a local JSROOT."""
    from pnetviz.demo.trainertree import write_trainer_fold

    jsroot = jsroot_package()
    if jsroot is None:
        pytest.skip("no local JSROOT (npm pack jsroot@7.11.2 failed or npm is absent)")
    base = tmp_path_factory.mktemp("site") / "results"
    for signal in ("MHc100_MA95", "MHc160_MA85"):
        for fold in (0, 1):
            write_trainer_fold(base, "Run1E2Mu", signal, fold, events=1200)
    out = tmp_path_factory.mktemp("site_plots")
    argv = ["--results-dir", str(base), "--plots-dir", str(out), "--workers", "0", "--bootstrap", "20", "-q",
            "--jsroot", str(jsroot)]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, argv) == 0
    return out


@pytest.fixture(scope="module")
def server(report):
    handler = functools.partial(QuietHandler, directory=str(report))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D102
        pass


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:  # noqa: D102
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


def pages(report: Path) -> list[Path]:
    return [report / "index.html", report / "view.html", *sorted((report / "campaign" / "site").glob("*.html"))]


def test_every_internal_link_resolves(report):
    checked = 0
    for page in pages(report):
        parser = Links()
        parser.feed(page.read_text())
        for link in parser.links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or url.netloc:
                pytest.fail(f"{page.name}: an external link {link}")
            if not url.path:
                continue
            target = (page.parent / urllib.parse.unquote(url.path)).resolve()
            assert target.is_file(), f"{page.relative_to(report)}: {link} -> {target} does not exist"
            if url.path.endswith("view.html"):
                params = urllib.parse.parse_qs(url.query)
                assert (report / params["file"][0]).is_file(), f"{page.name}: live view of a missing file: {link}"
            checked += 1
    assert checked > 200  # thumbnails, PNG/PDF/live links of every fold of every model


def test_every_model_and_fold_in_two_clicks(report):
    index = (report / "campaign" / "site" / "index.html").read_text()
    model_pages = set(re.findall(r'href="(model-[0-9a-f]{12}\.html)"', index))
    fold_dirs = {p.parent for p in (next(report.glob("*-results"))).rglob("plots.root") if p.parent.name.startswith("fold-")}
    linked = set()
    for name in model_pages:
        text = (report / "campaign" / "site" / name).read_text()
        linked |= {(report / urllib.parse.unquote(m)).parent.resolve() for m in re.findall(r'href="\.\./\.\./([^"]+?\.png)"', text)}
    assert {d.resolve() for d in fold_dirs} <= linked
    assert len(model_pages) == len({p.parent.parent for p in (next(report.glob("*-results"))).rglob("plots.root")})


def test_signal_pages_hold_the_working_point_table(report):
    """Each signal page lists its working points, the same numbers as campaign_working_points.csv."""
    rows = list(csv.DictReader((report / "campaign" / "campaign_working_points.csv").open()))
    mine = [r for r in rows if r["signal"] == "MHc100_MA95"]
    assert mine and {r["target_eps_s"] for r in mine} == {"0.5", "0.7", "0.9"}
    index = (report / "campaign" / "site" / "index.html").read_text()
    pages = set(re.findall(r'href="(signal-[0-9a-f]{12}\.html)"', index))
    texts = [(report / "campaign" / "site" / name).read_text() for name in pages]
    page = next(t for t in texts if "MHc100_MA95" in t.split("<h1>")[1].split("</h1>")[0])
    table = page.split('id="working-points"')[1].split("</table>")[0]
    assert table.count("<tr>") == len(mine) + 1  # header + one row per (kind, model, pair, target)
    threshold, std = float(mine[0]["threshold_mean"]), mine[0]["threshold_std"]
    assert rounding.pm(threshold, float(std) if std else None, "html") in table  # PDG digits (metrics.rounding)


def test_names_from_disk_are_text_never_markup():
    page = site.ModelPage("binary", "Run<i>3Mu", "MHc1\"30", "<script>alert(1)</script>", "ttZ", "results/x")
    text = site.model_page(page, Path("/nonexistent"), site.JSROOT_URL)
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "Run&lt;i&gt;3Mu" in text and "MHc1&quot;30" in text
    assert "https://root.cern" in site.csp(site.JSROOT_URL) and "root.cern" not in site.csp("./jsroot/")


def _chromium(url: str, *extra: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *CHROME_FLAGS, *extra, "--virtual-time-budget=20000", url], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})  # fmt: skip


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_live_view_draws_a_stored_canvas(server, report, tmp_path):
    root_file = next((next(report.glob("*-results"))).rglob("*binary-ttZ/fold-0/plots.root")).relative_to(report).as_posix()
    url = f"{server}/view.html?file={urllib.parse.quote(root_file)}&item=canvases/roc_curve"
    done = _chromium(url, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom")
    assert "<svg" in done.stdout, done.stdout[-2000:]
    assert 'id="error" class="failed"></p>' in done.stdout  # no error text


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_live_view_draws_the_axes_of_a_ratio_panel(server, report, tmp_path):
    """A ratio figure's lower frame is under 100 px high at its stored size: JSROOT's fast drawing
    would leave out its axes, and ROOT's MaxDigits kept in fNdivisions would give hundreds of
    ticks. The panel's own axis titles are drawn."""
    png = next((next(report.glob("*-results"))).rglob("comparison/*/*/fold-0/*_roc_comparison.png"))
    root_file = (png.parent / "plots.root").relative_to(report).as_posix()
    url = f"{server}/view.html?file={urllib.parse.quote(root_file)}&item=canvases/{urllib.parse.quote(png.stem)}"
    done = _chromium(url, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom")
    assert ">Ratio</text>" in done.stdout, done.stdout[-2000:]  # the lower panel's y title
    assert ">Background efficiency (FPR)</text>" in done.stdout  # its x title (the upper panel has none)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_pages_run_without_script_errors(server, report, tmp_path):
    model = next((report / "campaign" / "site").glob("model-*.html")).name
    for path in ("campaign/site/index.html", f"campaign/site/{model}"):
        done = _chromium(f"{server}/{path}", f"--user-data-dir={tmp_path / 'p'}", "--enable-logging=stderr", "--v=0", "--dump-dom")
        errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)]
        assert not errors, errors
        assert "</table>" in done.stdout or "<figure>" in done.stdout
