"""Objects that draw well alone (issue 33 item 7): every histogram and graph stored in a binary, a
multi-class, a comparison, a GA plots.root and in campaign.root, drawn with `Draw()` in ROOT's
default canvas (TBrowser's double-click; a TH2 "colz text"), shows its axis titles inside the
canvas, clear of its labels, and no label or title cut at the edge (measured by their ink in a
plain ROOT process: tests/draw/alonecheck.py); the stored canvases keep the CMS sizes; matrix
cells hold at most 4 significant digits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pnetviz.cli.commands import run_command
from pnetviz.draw import standalone
from pnetviz.draw.matrices import cell_content
from pnetviz.rootenv import root

CHECKER = Path(__file__).with_name("alonecheck.py")


@pytest.fixture(scope="module")
def stored(demo_round, tmp_path_factory) -> list[Path]:
    """One plots.root of each kind from the session's demo round, a GA one, campaign.root."""
    from pnetviz.demo.ga import write_demo_run

    base = tmp_path_factory.mktemp("alone_ga")
    run_dir = write_demo_run(base / "results", "Run3Mu", "MHc130_MA90", events=300)
    assert run_command("ga", ["--ga-dir", str(run_dir), "--output", str(base / "ga"), "--formats", "none", "-q"]) == 0
    files = [next(iter(sorted(demo_round.plots.rglob(f"*/{kind}/*/*/fold-0/plots.root"))))
             for kind in ("binary", "multiclass", "comparison")]  # fmt: skip
    return [*files, base / "ga" / "plots.root", demo_round.plots / "campaign" / "campaign.root"]


def check(paths: list[Path]) -> dict:
    env = {name: value for name, value in os.environ.items() if name != "PYTHONSTARTUP"}
    proc = subprocess.run([sys.executable, str(CHECKER), *map(str, paths)], env=env, capture_output=True, text=True, timeout=900)
    marker = proc.stdout.rfind("ALONE-JSON:")
    assert proc.returncode == 0 and marker >= 0, proc.stderr[-2000:]
    return json.loads(proc.stdout[marker + len("ALONE-JSON:"):])


@pytest.mark.slow
def test_every_stored_object_draws_well_alone(stored):
    result = check(stored)
    assert result["checked"] >= 40  # every kind of object of five output sets (alike ones once per file)
    lines = [f"{Path(v['file']).parent.name}/{v['key']}: {v['what']}: {v['detail']}" for v in result["violations"]]
    assert not lines, "\n".join(lines[:40])


def test_stored_canvases_keep_the_cms_sizes(stored):
    """The objects alone carry ROOT's default sizes, the canvas copies the figure's."""
    ROOT = root()
    forced = ROOT.gROOT.GetForceStyle()
    ROOT.gROOT.ForceStyle(False)  # cmsstyle turns it on in this process: objects read as stored
    f = ROOT.TFile.Open(str(stored[0]))
    try:
        alone = f.Get("confusion/test_normalised")
        assert alone.GetXaxis().GetTitleSize() == pytest.approx(standalone.AXIS_SIZE) and alone.GetZaxis().GetTitle() == ""
        assert not alone.TestBit(ROOT.TH1.kNoTitle)
        drawn = next(p for p in f.Get("canvases/confusion_matrix").GetListOfPrimitives() if p.InheritsFrom("TH2"))
        assert drawn.GetXaxis().GetTitleSize() > 0.04 and drawn.GetZaxis().GetTitle() == "Fraction of true class"
        palette = drawn.GetListOfFunctions().FindObject("palette")
        assert palette.GetX1NDC() < 0.9  # the figure's palette, placed for its 800 x 600 canvas
    finally:
        f.Close()
        ROOT.gROOT.ForceStyle(forced)


def test_cell_contents_have_at_most_four_significant_digits():
    assert cell_content(0.817021) == 0.817 and cell_content(0.0418523) == 0.04185 and cell_content(0.99995) == 1.0
    assert cell_content(12345.0) == 12345.0  # counts whole
    assert f"{cell_content(0.182979):g}" == "0.183"  # what "TEXT" prints (%g)


def test_class_labels_fit_the_default_margin():
    ROOT = root()
    hist = ROOT.TH2D("labelled", "", 2, 0, 2, 3, 0, 3)
    for k, label in enumerate(("Signal", "nonprompt-TT", "t#bar{t}X")):
        hist.GetYaxis().SetBinLabel(k + 1, label)
    size, offset = standalone.labelled_y_axis(hist.GetYaxis())
    assert size < standalone.AXIS_SIZE and 1.2 < offset < 1.6  # "nonprompt-TT" shrunk, the title 5 px inside the canvas
    # the widest label's advance ends 3 px before the title: 69.6 px margin - 5 px edge - the title (0.9 x 16.5 px)
    # - the label offset (3.5 px) - 3 px
    assert standalone.text_width_px("nonprompt-TT", size * standalone.BIN_LABEL_SCALE) == pytest.approx(
        69.6 - 5 - 0.9 * 0.035 * 472 - 0.005 * 696 - 3, abs=0.3)
