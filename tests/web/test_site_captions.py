"""Figure captions on the web report (issue 33, items 1 and 7): the context a figure's frame had
no room for is recorded in its set's summary_report.json (output.publish.with_captions) and shown,
as HTML text, under the figure's image, live view and thumbnail on the site's pages."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_script
from pnetviz.web import parts, site, sitepages
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold
from pnetviz.output.publish import CAPTIONS

CAPTION = "m(H\u00b1) = 130 GeV, m(A) = 90 GeV; vs ttZ, 3\u03bc, fold 0; <b>x</b> & y"
SHOWN = "m(H\u00b1) = 130 GeV, m(A) = 90 GeV; vs ttZ, 3\u03bc, fold 0; &lt;b&gt;x&lt;/b&gt; &amp; y"


def _set(where: Path, png: bool) -> Path:
    """An output set fold-0/ with a rejection_curve (PNG or only its canvas) and its caption."""
    fold = where / "results" / "m" / "fold-0"
    fold.mkdir(parents=True)
    (fold / "summary_report.json").write_text(json.dumps({CAPTIONS: {"rejection_curve": CAPTION}}))
    if png:
        (fold / "rejection_curve.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return fold


def test_a_key_figure_shows_its_caption(tmp_path):
    _set(tmp_path, png=True)
    shown = sitepages.figure("results/m/fold-0", "rejection_curve", tmp_path, "../", caption="fold-0: rejection_curve")
    caption = shown.split("<figcaption>")[1].split("</figcaption>")[0]
    assert caption.startswith("fold-0: rejection_curve") and SHOWN in caption  # escaped: no markup from a name
    assert "<b>x" not in shown
    (tmp_path / "results" / "m" / "fold-0" / "summary_report.json").write_text("{not json")  # then unreadable: none
    assert "<figcaption>rejection_curve</figcaption>" in sitepages.figure("results/m/fold-0", "rejection_curve", tmp_path, "../")


def test_a_thumbnail_shows_its_caption(tmp_path):
    fold = _set(tmp_path, png=True)
    thumbs = site._thumbs(["rejection_curve", "roc_curve"], "results/m/fold-0", "../", None, fold)
    first, second = thumbs.split("</figure>")[:2]
    assert SHOWN in first and "GeV" not in second  # a figure without a caption shows none


def test_a_live_view_shows_its_caption(tmp_path, monkeypatch):
    fold = _set(tmp_path, png=False)
    (fold / "plots.root").write_bytes(b"")
    monkeypatch.setattr(parts, "_figures", lambda directory: ["rejection_curve"])  # its canvas, as plots.root lists it (web.parts)
    shown = sitepages.figure("results/m/fold-0", "rejection_curve", tmp_path, "../")
    assert "<iframe" in shown and SHOWN in shown


def test_the_evaluation_records_its_captions(tmp_path):
    results = tmp_path / "results"
    write_trainer_fold(results, "Run1E2Mu", "MHc130_MA90", 0, events=600)
    argv = ["--results-dir", str(results), "--signal", "MHc130_MA90", "--background", "ttZ", "--output",
            str(tmp_path / "out"), "--formats", "none", "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    report = next((tmp_path / "out").rglob("summary_report.json"))
    captions = json.loads(report.read_text())[CAPTIONS]
    assert captions and all(isinstance(v, str) and v for v in captions.values())
    assert not [v for v in captions.values() if "#" in v or "{" in v]  # plain text, not TLatex
    assert any("m(H\u00b1) = 130 GeV" in v for v in captions.values()), captions
    text = (report.parent / "summary_report.txt").read_text()
    assert f"{CAPTIONS}:" in text
