"""The campaign's web report: pages from a small campaign, served over HTTP on 127.0.0.1 and
opened in headless Chromium (Debian's `chromium`; the tests that need it are skipped with a
reason where it is absent). JSROOT is a local copy of the npm package (`npm pack jsroot@7.11.2`),
kept out of git in ~/.cache/pnetviz (or $PNETVIZ_JSROOT): fetched on first use when npm is there.
"""

from __future__ import annotations

import csv
import fcntl
import functools
import http.server
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import threading
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.web import site, sitepages
from pnetviz.cli.common import run
from pnetviz.metrics import rounding

pytestmark = pytest.mark.slow  # a campaign's web report, opened in Chromium

CHROMIUM = shutil.which("chromium")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


def jsroot_package() -> Path | None:
    """The unpacked npm package of the pinned JSROOT, fetched once into the cache; None if impossible.
    Fetched under a lock and unpacked beside the cache's package/, then renamed to it: another test
    process (./run.sh test runs two) or a campaign reading the cache never sees half a package."""
    cache = Path(os.environ.get("PNETVIZ_JSROOT") or Path.home() / ".cache" / "pnetviz" / f"jsroot-{site.JSROOT_VERSION}")
    package = cache / "package"
    if (package / "modules" / "main.mjs").is_file():
        return package
    if not shutil.which("npm"):
        return None
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be fetching it: wait for that fetch
        if (package / "modules" / "main.mjs").is_file():
            return package
        scratch = Path(tempfile.mkdtemp(prefix=".fetch-", dir=cache))
        try:
            done = subprocess.run(["npm", "pack", f"jsroot@{site.JSROOT_VERSION}"], cwd=scratch, capture_output=True,
                                  text=True, timeout=300)  # fmt: skip
            tgz = scratch / f"jsroot-{site.JSROOT_VERSION}.tgz"
            if done.returncode != 0 or not tgz.is_file():
                return None
            with tarfile.open(tgz) as tar:
                tar.extractall(scratch, filter="data")
            shutil.rmtree(package, ignore_errors=True)  # a half package an older, unlocked fetch left
            os.replace(scratch / "package", package)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return package if (package / "modules" / "main.mjs").is_file() else None


def live_site(tmp_path_factory, name: str) -> Path:
    """A new directory `name` with view.html, view.js and the pinned JSROOT at its root, for the
    Chromium tests of live views; the test skipped without Chromium or a local JSROOT."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    jsroot = jsroot_package()
    if jsroot is None:
        pytest.skip("no local JSROOT (npm pack jsroot@7.11.2 failed or npm is absent)")
    out = tmp_path_factory.mktemp(name)
    site.publish_root_files(out, jsroot)
    return out


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
    return [report / "index.html", report / "view.html", *sorted((report / "campaign" / "site").rglob("*.html"))]


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


def _hrefs(page: Path) -> list[Path]:
    """The files a page links to (resolved)."""
    parser = Links()
    parser.feed(page.read_text())
    return [(page.parent / urllib.parse.unquote(urllib.parse.urlsplit(link).path)).resolve() for link in parser.links
            if not urllib.parse.urlsplit(link).scheme and urllib.parse.urlsplit(link).path]  # fmt: skip


def test_every_model_and_fold_in_two_clicks(report):
    site_dir = (report / "campaign" / "site").resolve()
    model_pages = {p for p in _hrefs(site_dir / "index.html")
                   if p.suffix == ".html" and p.is_relative_to(site_dir) and len(p.relative_to(site_dir).parts) == 4}
    fold_dirs = {p.parent for p in (report / "results").rglob("plots.root") if p.parent.name.startswith("fold-")}
    linked = set()
    for page in model_pages:  # a fold's images, or the live views of its canvases (--images site writes no PNG of some)
        linked |= {p.parent for p in _hrefs(page) if p.suffix == ".png"}
        parser = Links()
        parser.feed(page.read_text())
        linked |= {(report / urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["file"][0]).parent.resolve()
                   for link in parser.links if urllib.parse.urlsplit(link).path.endswith("view.html")
                   and "file" in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)}  # fmt: skip
    assert {d.resolve() for d in fold_dirs} <= linked
    assert len(model_pages) == len({p.parent.parent for p in (report / "results").rglob("plots.root")})


def test_signal_pages_hold_the_working_point_table(report):
    """Each signal page lists its working points, the same numbers as campaign_working_points.csv."""
    rows = list(csv.DictReader((report / "campaign" / "campaign_working_points.csv").open()))
    mine = [r for r in rows if r["signal"] == "MHc100_MA95"]
    assert mine and {r["target_eps_s"] for r in mine} == {"0.5", "0.7", "0.9"}
    page = (report / "campaign" / "site" / "Run1E2Mu" / "MHc100_MA95" / "index.html").read_text()
    assert "MHc100_MA95" in page.split("<h1>")[1].split("</h1>")[0]
    table = page.split('id="working-points"')[1].split("</table>")[0]
    assert table.count("<tr>") == len(mine) + 1  # header + one row per (kind, model, pair, target)
    threshold, std = float(mine[0]["threshold_mean"]), mine[0]["threshold_std"]
    assert rounding.pm(threshold, float(std) if std else None, "html") in table  # PDG digits (metrics.rounding)


def test_the_expected_limits_section_and_page_hold_the_campaigns_rows(report):
    """The overview links limits.html, whose table has one row per line of campaign_limits.csv."""
    rows = list(csv.DictReader((report / "campaign" / "campaign_limits.csv").open()))
    assert rows and {r["signal"] for r in rows} == {"MHc100_MA95", "MHc160_MA85"}
    site_dir = report / "campaign" / "site"
    assert 'id="limits"' in (site_dir / "index.html").read_text() and 'href="limits.html"' in (site_dir / "index.html").read_text()
    table = (site_dir / "limits.html").read_text().split('id="limits-rows"')[1].split("</table>")[0]
    assert table.count("<tr>") == len(rows) + 1  # header + one row per model, pair and strategy


def test_names_from_disk_are_text_never_markup():
    page = site.ModelPage("binary", "Run<i>3Mu", "MHc1\"30", "<script>alert(1)</script>", "ttZ", "results/x")
    text = sitepages.model_page(page, Path("/nonexistent"), site.JSROOT_URL)
    assert "<script>alert" not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "Run&lt;i&gt;3Mu" in text and "MHc1&quot;30" in text
    assert page.page == "Run%3Ci%3E3Mu/MHc1%2230/binary/%3Cscript%3Ealert%281%29%3C%2Fscript%3E.html"
    point = sitepages.signal_page("Run<i>3Mu", "MHc1\"30", [page], [], site.JSROOT_URL, [], Path("/nonexistent"))
    assert "<script>alert" not in point and "&lt;script&gt;alert(1)&lt;/script&gt;" in point
    assert '/binary/%253Cscript%253Ealert%25281%2529%253C%252Fscript%253E.html"' in point  # quoted once more
    assert "https://root.cern" in site.csp(site.JSROOT_URL) and "root.cern" not in site.csp("./jsroot/")


def _chromium(url: str, *extra: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *CHROME_FLAGS, *extra, "--virtual-time-budget=20000", url], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})  # fmt: skip


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_live_view_draws_a_stored_canvas(server, report, tmp_path):
    root_file = next((report / "results").rglob("*binary-ttZ/fold-0/plots.root")).relative_to(report).as_posix()
    url = f"{server}/view.html?file={urllib.parse.quote(root_file)}&item=canvases/roc_curve"
    done = _chromium(url, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom")
    assert "<svg" in done.stdout, done.stdout[-2000:]
    assert 'id="error" class="failed"></p>' in done.stdout  # no error text


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_live_view_draws_the_axes_of_a_ratio_panel(server, report, tmp_path):
    """A ratio figure's lower frame is under 100 px high at its stored size: JSROOT's fast drawing
    would leave out its axes, and ROOT's MaxDigits kept in fNdivisions would give hundreds of
    ticks. The panel's own axis titles are drawn."""
    from pnetviz.output.render import canvas_names

    stored = next((report / "results").rglob("comparison/*/*/fold-0/plots.root"))  # no PNG of it: --images site
    name = next(n for n in canvas_names(stored) if n.endswith("_roc_comparison"))
    root_file = stored.relative_to(report).as_posix()
    url = f"{server}/view.html?file={urllib.parse.quote(root_file)}&item=canvases/{urllib.parse.quote(name)}"
    done = _chromium(url, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom")
    assert ">Ratio</text>" in done.stdout, done.stdout[-2000:]  # the lower panel's y title
    assert ">Background efficiency (FPR)</text>" in done.stdout  # its x title (the upper panel has none)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_later_folds_thumbnail_is_its_live_view(server, report, tmp_path):
    """--images site writes no PNG into fold-1: its ROC thumbnail on the model page is a box linking
    to the live view (never an <img> of a missing file), which draws the stored canvas."""
    page = next((report / "campaign" / "site").glob("*/*/binary/*.html"))
    parser = Links()
    parser.feed(page.read_text())
    thumbs = [link for link in parser.links if "/fold-1/plots.root" in urllib.parse.unquote(link)
              and urllib.parse.unquote(link).endswith("canvases/roc_curve")]  # fmt: skip
    assert len(thumbs) == 2, thumbs  # the box and its "live" link
    assert 'class="noimage"' in page.read_text() and "fold-1/roc_curve.png" not in page.read_text()
    url = urllib.parse.urljoin(f"{server}/{page.relative_to(report).as_posix()}", thumbs[0].replace("&amp;", "&"))
    done = _chromium(url, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom")
    assert "<svg" in done.stdout and 'id="error" class="failed"></p>' in done.stdout, done.stdout[-2000:]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_pages_run_without_script_errors(server, report, tmp_path):
    model = next((report / "campaign" / "site").glob("*/*/binary/*.html")).relative_to(report).as_posix()
    for path in ("campaign/site/index.html", urllib.parse.quote(model), "campaign/site/Run1E2Mu/MHc100_MA95/index.html",
                 overlay_url(report, 2)):
        done = _chromium(f"{server}/{path}", f"--user-data-dir={tmp_path / 'p'}", "--enable-logging=stderr", "--v=0", "--dump-dom")
        errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)]
        assert not errors, errors
        assert "</table>" in done.stdout or "<figure>" in done.stdout or 'data-curves="2"' in done.stdout


def overlay_url(report: Path, count: int) -> str:
    """The overlay page of the first fold of `count` binary models of MHc100_MA95 and, as the
    third, the multi-class model's ttX pair."""
    binaries = sorted((report / "results" / "Run1E2Mu" / "binary" / "MHc100_MA95").glob("*/fold-0/plots.root"))
    multi = next((report / "results" / "Run1E2Mu" / "multiclass" / "MHc100_MA95").glob("*/fold-0/plots.root"))
    specs = [p.relative_to(report).as_posix() for p in binaries[: min(count, 2)]]
    specs += [multi.relative_to(report).as_posix() + "!ttX"] if count > 2 else []
    return "campaign/site/overlay.html?" + urllib.parse.urlencode([("curve", "rejection"), *(("m", s) for s in specs)])


def test_addresses_are_readable_stable_and_collision_free(report):
    from pnetviz.web.siteaddress import component, model_address

    names = ["a/b", "a%2Fb", "..", ".", "", "%", "a b", "<b>x</b>", "Mü", "x" * 300, "x" * 299 + "y", "a\udcffb", "a%FFb"]
    encoded = [component(n) for n in names]
    assert len(set(encoded)) == len(names)  # injective: no two names share a file
    assert all("/" not in e and not e.startswith(".") and len(e) <= 200 for e in encoded)
    assert component("..") == "%2E." and component("<b>x</b>") == "%3Cb%3Ex%3C%2Fb%3E"
    assert model_address("Run1E2Mu", "MHc100_MA95", "binary", "m-1") == "Run1E2Mu/MHc100_MA95/binary/m-1.html"
    site_dir = report / "campaign" / "site"
    assert (site_dir / "Run1E2Mu" / "MHc100_MA95" / "index.html").is_file()
    models = {p.parent.name for p in (report / "results" / "Run1E2Mu" / "binary" / "MHc100_MA95").glob("*/fold-0")}
    assert models and {p.stem for p in (site_dir / "Run1E2Mu" / "MHc100_MA95" / "binary").glob("*.html")} == models
    pages = site.models(__import__("json").loads((report / "campaign" / "campaign_summary.json").read_text()), report)
    twin = site.ModelPage(pages[0].kind, pages[0].channel, pages[0].signal, pages[0].model, "", "results/elsewhere")
    sitepages.model_addresses([*pages, twin])
    assert len({p.page for p in [*pages, twin]}) == len(pages) + 1  # same names, other directory: another page
    assert pages[0].page == model_address(pages[0].channel, pages[0].signal, pages[0].kind, pages[0].model)


def test_signal_page_shows_figures_of_every_background_first(report):
    page = (report / "campaign" / "site" / "Run1E2Mu" / "MHc100_MA95" / "index.html").read_text()
    sections = page.split('<h2 id="bkg-')[1:]
    assert [s.split('"')[0] for s in sections] == ["diboson", "nonprompt", "ttZ"]
    for section in sections:
        assert section.split("<h2")[0].count("<img") == 4, section[:300]  # ROC, rejection, binary and LR scores
    assert page.index("<img") < page.index("<table") and "<h2>ga</h2>" not in page and "<h3>ga</h3>" not in page
    overview = (report / "campaign" / "site" / "index.html").read_text()
    assert overview.split('id="headline"')[1].split("</table>")[0].count("<tr>") == 1 + 6  # header + 2 points x 3 bkgs
    assert overview.index('id="headline"') < overview.index('id="leaderboard"') < overview.index("map_auc_test_binary")
    assert 'class="verdict"' in overview.split('id="headline"')[0]  # the one-sentence answer above the table


def test_model_page_lists_every_fold_as_in_its_report(report):
    import json

    model_dir = next((report / "results" / "Run1E2Mu" / "binary" / "MHc100_MA95").glob("*-ttZ"))
    page = (report / "campaign" / "site" / "Run1E2Mu" / "MHc100_MA95" / "binary" / f"{model_dir.name}.html").read_text()
    rows = page.split('id="folds"')[1].split("</tbody>")[0].split("<tr>")[2:]
    folds = sorted(model_dir.glob("fold-*"))
    assert len(rows) == len(folds) == 2
    for row, fold in zip(rows, folds):
        test = json.loads((fold / "summary_report.json").read_text())["hep_metrics"]["test"]
        cells = [c.split("</td>")[0] for c in row.split("<td>")[1:]]
        assert cells[0] == fold.name.removeprefix("fold-") and cells[1] == "ttZ"
        assert cells[2] == rounding.pm(test["auc"], test["auc_error"], "html")
        assert cells[7] == format(test["fip2_hull"], ".3f")
    assert page.index("<img") < page.index('id="folds"') < page.index("<h2>All figures</h2>") < page.index("Provenance")
    assert str(report) not in page.split("Provenance")[1]  # paths relative to the output directory


def test_live_views_name_the_offline_fix():
    """Without a local JSROOT a live view that cannot load it names --jsroot."""
    assert "--jsroot DIR" in site.root_files(site.JSROOT_URL)["view.js"]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_overlay_of_three_models_draws_three_curves(server, report, tmp_path):
    done = _chromium(f"{server}/{overlay_url(report, 3)}", f"--user-data-dir={tmp_path / 'p'}", "--dump-dom")
    drawing = done.stdout.split('class="__root_pad_main"')[1].split('class="__root_pad_ratio"')[0]
    curves = re.findall(r'<path d="M[^"]+" style="[^"]*stroke-width: 2;[^"]*fill: none;', drawing)
    assert len(curves) == 3, done.stdout[-3000:]
    assert 'data-curves="3"' in done.stdout and 'id="error" class="failed"></p>' in done.stdout
    ratios = re.findall(r'stroke: (\w+); stroke-width: 2;', done.stdout.split('class="__root_pad_ratio"')[1])
    assert set(ratios) == {"red", "blue"}  # the ratios of the second and third


def test_the_jsroot_cache_is_found_without_the_option(tmp_path, monkeypatch):
    """The cache the README documents is used without --jsroot when it holds the package."""
    from pnetviz.web.siteassets import cached_jsroot

    monkeypatch.setenv("PNETVIZ_JSROOT", str(tmp_path))
    assert cached_jsroot() is None
    (tmp_path / "package" / "modules").mkdir(parents=True)
    (tmp_path / "package" / "modules" / "main.mjs").write_text("export {};\n")
    assert cached_jsroot() == tmp_path / "package"


def test_default_images_are_the_sites_own(report):
    """The campaign's default (--images site): PNG of the figures the pages show as images (the key
    figures of each model's first fold set, every fold-summary figure), no PDF; every other canvas
    only in plots.root (pnetviz render writes it for a note)."""
    import json

    from pnetviz.output import imageset
    from pnetviz.output.render import canvas_names, figure_name

    assert not list(report.rglob("*.pdf"))
    fold_sets = [p.parent for p in (report / "results").rglob("plots.root") if p.parent.name.startswith("fold-")]
    assert len(fold_sets) > 10 and {f.name for f in fold_sets} == {"fold-0", "fold-1"}
    for fold in fold_sets:
        figures = {figure_name(k) for k in canvas_names(fold / "plots.root")}
        first = fold.name == "fold-0"
        assert {p.stem for p in fold.glob("*.png")} == {f for f in figures if first and imageset.key_figure(f)}, fold
        assert json.loads((fold / ".pnetviz-set.json").read_text())["images"] == ({"png": "site"} if first else {})
    summaries = [p.parent for p in (report / "results").rglob("folds/plots.root")]
    assert summaries and all({p.stem for p in s.glob("*.png")} == {figure_name(k) for k in canvas_names(s / "plots.root")}
                             for s in summaries)  # fmt: skip
    assert json.loads((report / "campaign" / ".pnetviz-set.json").read_text())["images"] == {"png": "all"}
    images = [link for page in pages(report) for link in _hrefs(page) if link.suffix == ".png"]
    assert len(images) > 50 and all(p.is_file() for p in images)  # every image a page shows is on disk


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_a_model_named_with_html_shows_as_text(server, report, tmp_path):
    name = '<b id="bold">x</b><img id="injected" src=x onerror="document.title=1">'
    page = site.ModelPage("binary", "Run1E2Mu", "MHc100_MA95", name, "ttZ", "results/none")
    sitepages.model_addresses([page])
    target = report / "campaign" / "site" / page.page
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(sitepages.model_page(page, report, "./jsroot/"))
    try:
        done = _chromium(f"{server}/campaign/site/{urllib.parse.quote(page.page)}", f"--user-data-dir={tmp_path / 'p'}",
                         "--dump-dom")  # fmt: skip
    finally:
        target.unlink()
    heading = done.stdout.split("<h1>")[1].split("</h1>")[0]
    assert heading == '&lt;b id="bold"&gt;x&lt;/b&gt;&lt;img id="injected" src=x onerror="document.title=1"&gt;', heading
    assert 'id="bold"' not in done.stdout.replace(heading, "") and "<img id=" not in done.stdout
