"""The web report's expected limits (web.limitssite): the overview's section and limits.html from
the fabricated round of conftest.limits_round, their numbers as the campaign's tables give them,
names from disk as text, and the pages served over HTTP and opened in headless Chromium (the
sortable tables built by site.js, no script error), as tests/web/test_site.py opens the report."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import threading
from html import unescape

import pytest

from conftest import LIMITS_HOSTILE, limits_round
from pnetviz.escape import html
from pnetviz.summary import limits
from pnetviz.web import limitssite, parts, site

CHROMIUM = shutil.which("chromium")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip


@pytest.fixture
def data(tmp_path):
    data = {"jobs": limits_round(tmp_path / "round")}
    data["limits"] = limits.section(data)
    return data


def row_of(text: str, table: str, first_cells: tuple[str, ...]) -> list[str]:
    """The cells (as text) of the first row of table `table` starting with `first_cells`."""
    body = text.split(f'<table id="{table}"', 1)[1].split("</table>", 1)[0]
    for tr in re.findall(r"<tr>(.*?)</tr>", body):
        cells = [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", tr)]
        if tuple(cells[: len(first_cells)]) == first_cells:
            return cells
    raise AssertionError(f"no row {first_cells} in {table}")


def test_section_names_the_best_and_the_better_kind(data):
    text = limitssite.section(data)
    assert 'href="limits.html"' in text and "1 models have no folds/limits.json" in text
    cells = row_of(text, "limits-answer", ("Run3Mu", "MHc130_MA100"))
    # best: the multi-class pair's mass-x-score 0.7 +- 0.1 (fold std), 0.7/1.1 of its score fit; MC/B = 0.7/0.827
    assert cells[2:] == ["PN-nNodes64-4grp-ttX-ttZ-nonprompt signal_vs_ttZ", "mass-x-score", "0.70 ± 0.10", "0.636",
                         "multi-class", "0.85 ± 0.07"]
    assert row_of(text, "limits-answer", ("Run3Mu", "MHc130_MA90"))[6] == "missing"  # no multi-class model there


def test_page_lists_every_row_and_the_leaderboard_with_names_as_text(data, tmp_path):
    text = limitssite.page(data, tmp_path, site.JSROOT_URL)
    first = row_of(text, "limits-rows", ("Run3Mu", "MHc130_MA90", "binary"))
    assert first[5:8] == ["score-fit", "ok", "2.00 ± 0.20"]  # 2.0 +- 0.2: two digits of the error (PDG)
    failed = row_of(text, "limits-rows", ("Run3Mu", "MHc130_MA90", "binary", "PN-nNodes64-binary-ttZ", "signal_vs_ttZ",
                                          "mass-x-score"))  # fmt: skip
    assert failed[6:8] == ["failed", ""] and failed[-1] == "HistFactory fit did not converge (status 4)"
    assert row_of(text, "limits-leaderboard", ("Run3Mu", "MHc130_MA100", "2"))[6] == "cut-and-mass"
    assert html(LIMITS_HOSTILE) in text and LIMITS_HOSTILE not in text  # & and " as entities, never markup
    assert '<a href="../campaign_limits.csv">' in text


def test_no_limits_no_section(data):
    assert limitssite.section({"jobs": [], "limits": {"rows": [], "leaderboard": [], "binary_vs_multiclass": []}}) == ""
    page = parts._page("t", "<h1>x</h1>", site.JSROOT_URL)
    assert limitssite.with_section(page, data).count('id="limits"') == 1


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D102
        pass


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_pages_open_in_chromium_with_sortable_tables_and_no_script_error(data, tmp_path):
    served = tmp_path / "plots"
    pages = served / "campaign" / parts.SITE_DIR
    pages.mkdir(parents=True)
    (served / "campaign" / "campaign_limits.csv").write_text(limits.files(data["limits"])["campaign_limits.csv"])
    (pages / "site.css").write_text(site.SITE_CSS)
    (pages / "site.js").write_text(site.SITE_JS)
    overview = parts._page("pnetviz campaign", "<h1>pnetviz campaign</h1>", site.JSROOT_URL, scripts=("site.js",))
    (pages / "index.html").write_text(limitssite.with_section(overview, data))
    (pages / limitssite.PAGE).write_text(limitssite.page(data, served / "campaign", site.JSROOT_URL))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(served)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        for name in ("index.html", limitssite.PAGE):
            done = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp_path / 'p'}", "--enable-logging=stderr",
                                   "--v=0", "--dump-dom", "--virtual-time-budget=20000",
                                   f"http://127.0.0.1:{httpd.server_address[1]}/campaign/site/{name}"],
                                  capture_output=True, text=True, timeout=90, env={**os.environ, "HOME": os.environ.get("HOME", "/tmp")})  # fmt: skip
            errors = [line for line in done.stderr.splitlines() if "CONSOLE" in line and ("Uncaught" in line or "Error" in line)
                      or "Refused to" in line]  # a script error, or the page's Content-Security-Policy refusing something
            assert not errors, errors
            assert 'id="limits-answer"' in done.stdout and "MHc130_MA100" in done.stdout, done.stdout[-2000:]
    finally:
        httpd.shutdown()
