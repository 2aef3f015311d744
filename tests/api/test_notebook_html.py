"""The executed example notebook exported to HTML (nbconvert) and opened in headless Chromium with
a local JSROOT (the round's plots/jsroot/, as `pnetviz campaign --jsroot` puts it): every figure
output draws an <svg>, without a console error."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the notebook's HTML opened in Chromium

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
nbconvert = pytest.importorskip("nbconvert")
pytest.importorskip("ipykernel")

CHROMIUM = shutil.which("chromium")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]
NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "round.ipynb"
# after class="pnetviz-figure" (Chromium's serialisation puts class first): the div's other attributes, then JSROOT's drawing
FIGURE = re.compile(r'[^>]*id="(pnetviz-[0-9a-f]+)"[^>]*>(.*)', re.S)

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")


def jsroot_package() -> Path | None:
    """The unpacked npm package of the pinned JSROOT, as tests/web/test_site.py fetches it."""
    from pnetviz.web import site  # noqa: PLC0415

    cache = Path(os.environ.get("PNETVIZ_JSROOT") or Path.home() / ".cache" / "pnetviz" / f"jsroot-{site.JSROOT_VERSION}")
    package = cache / "package"
    return package if (package / "modules" / "main.mjs").is_file() else None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D102
        pass


@pytest.fixture(scope="module")
def page(demo_round, tmp_path_factory):
    """<site>/round.html: the notebook run with <site> as its working directory, the round as
    <site>/plots (its jsroot/ the local copy), exported with nbconvert's basic template."""
    jsroot = jsroot_package()
    if jsroot is None:
        pytest.skip("no local JSROOT (run tests/web/test_site.py once with npm available)")
    site = tmp_path_factory.mktemp("notebook_site")
    plots = site / "plots"
    shutil.copytree(demo_round.plots, plots, symlinks=True)
    shutil.copytree(jsroot / "modules", plots / "jsroot" / "modules", dirs_exist_ok=True)  # the campaign may have copied it
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PNETVIZ_ROUND", "plots")
        patch.setenv("PNETVIZ_RESULTS", str(demo_round.results))
        nb = nbformat.read(NOTEBOOK, as_version=4)
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(site)}}).execute()
    body, _ = nbconvert.HTMLExporter(template_name="basic").from_notebook_node(nb)
    (site / "round.html").write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{body}</body></html>")
    return site


@pytest.fixture(scope="module")
def server(page):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(page)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_every_figure_output_draws_an_svg_with_the_local_jsroot(page, server, tmp_path):
    html = (page / "round.html").read_text()
    assert html.count('class="pnetviz-figure"') == 3 and 'import("./plots/jsroot/modules/main.mjs")' in html
    assert "root.cern" not in html  # every figure takes the local copy
    done = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
                           "--v=0", "--virtual-time-budget=30000", "--dump-dom", f"{server}/round.html"],
                          capture_output=True, text=True, timeout=180, env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})  # fmt: skip
    drawn = [FIGURE.match(part) for part in done.stdout.split('class="pnetviz-figure"')[1:]]  # each up to the next
    assert len(drawn) == 3, done.stdout[-2000:]
    assert all(d and d.group(2).startswith('<svg class="jsroot root_canvas"') for d in drawn), done.stdout[-2000:]
    errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)]
    assert not errors, errors
