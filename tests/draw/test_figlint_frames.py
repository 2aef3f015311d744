"""The frame rules of the figure linter (tests/draw/figlint_frames.py) on synthetic canvases, one
defect each: a main frame too short at 8 cm (curve 5.0 cm, 4:3 matrix 4.0 cm), a ratio panel too
short, the top tick label of a ratio panel cut by its pad, a fraction matrix on [0, 0.9]; a
600 x 750 main-over-ratio figure passes, a single 600 x 750 pad does not (aspect); a legend in the
frame's height reaching past the frame's right edge (inside its pad) fails, one inside passes."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import figlint
from pnetviz.rootenv import root
from test_figure_lint import _canvas, _curve, _frame, _legend

pytestmark = pytest.mark.slow  # every test reads the linted frames of a module fixture (several seconds)


def _ratio_canvas(ROOT, keep: list, name: str, h: int, split: float, ratio_top: float):
    """A main pad over a ratio panel (lower pad `split` of the canvas, top margin `ratio_top`)."""
    c = _canvas(ROOT, name, 600, h)
    keep.append(c)
    top = ROOT.TPad(f"{name}_top", "", 0.0, split, 1.0, 1.0)
    bottom = ROOT.TPad(f"{name}_bottom", "", 0.0, 0.0, 1.0, split)
    for pad in (top, bottom):
        pad.SetMargin(0.15, 0.05, 0.03 if pad is top else 0.35, 0.07 if pad is top else ratio_top)
        c.cd()
        pad.Draw()
        keep.append(pad)
    top.cd()
    main = _frame(ROOT, top)
    main.GetXaxis().SetLabelSize(0.0)
    main.GetYaxis().ChangeLabel(1, -1, 0.0)  # the lowest label would touch the panel below
    keep.append(main)
    _curve(ROOT, keep)
    bottom.cd()
    ratio = _frame(ROOT, bottom, y_max=1.2, y_min=0.8, ytitle="Ratio")
    scale = 1.0 / split
    for axis in (ratio.GetXaxis(), ratio.GetYaxis()):
        axis.SetLabelSize(0.045 * scale)
        axis.SetTitleSize(0.05 * scale)
    ratio.GetYaxis().SetNdivisions(504)
    keep.append(ratio)
    return c


def _matrix(ROOT, keep: list, name: str, top_margin: float, zmax: float):
    c = _canvas(ROOT, name, 800, 600)
    c.SetMargin(0.15, 0.17, 0.13, top_margin)
    keep.append(c)
    hist = ROOT.TH2D(f"{name}_h", "", 2, 0, 2, 2, 0, 2)
    hist.SetBit(ROOT.TH1.kNoTitle)
    hist.SetStats(False)
    for i, v in enumerate((0.9, 0.1, 0.2, 0.8)):
        hist.SetBinContent(i // 2 + 1, i % 2 + 1, v)
    hist.GetZaxis().SetTitle("Fraction of true class")
    hist.SetMinimum(0.0)
    hist.SetMaximum(zmax)
    hist.Draw("COLZ")
    keep.append(hist)
    return c


def build(directory: Path) -> Path:
    ROOT = root()
    previous = ROOT.gStyle.GetName()
    ROOT.gROOT.SetStyle("Modern")
    keep: list = []
    canvases: list = []
    try:
        short = _canvas(ROOT, "short_frame")
        short.SetTopMargin(0.45)  # a header band: (1 - 0.13 - 0.45) x 8 cm = 3.36 cm
        keep += [short, _frame(ROOT, short)]
        _curve(ROOT, keep)
        canvases += [
            short,
            _ratio_canvas(ROOT, keep, "square_ratio_cut", 600, 0.35, 0.02),  # 600 x 600: main 4.68 cm, "1.2" cut
            _ratio_canvas(ROOT, keep, "tall_ratio", 750, 0.28, 0.10),  # 600 x 750: main 6.4 cm, ratio 1.5 cm
            _ratio_canvas(ROOT, keep, "thin_ratio", 750, 0.15, 0.10),  # ratio panel (1 - 0.45) x 112 px = 0.82 cm
            _matrix(ROOT, keep, "fraction_to_0p9", 0.08, 0.9),
            _matrix(ROOT, keep, "fraction_0_1", 0.08, 1.0),
            _matrix(ROOT, keep, "short_matrix", 0.40, 1.0),  # (1 - 0.13 - 0.40) x 6 cm = 2.82 cm
        ]
        for name, box in (("legend_past_frame", (0.55, 0.18, 0.99, 0.30)), ("legend_in_frame", (0.55, 0.18, 0.93, 0.30))):
            c = _canvas(ROOT, name)  # frame right edge at 0.95 of 600 px: 570 px
            keep += [c, _frame(ROOT, c)]
            _legend(ROOT, keep, box, [(_curve(ROOT, keep), "Test")])
            canvases.append(c)
        tall = _canvas(ROOT, "tall_single", 600, 750)
        keep += [tall, _frame(ROOT, tall)]
        canvases.append(tall)
        path = directory / "plots.root"
        tfile = ROOT.TFile.Open(str(path), "RECREATE")
        target = tfile.mkdir("canvases")
        for canvas in canvases:
            target.WriteObject(canvas, canvas.GetName())
        tfile.Close()
    finally:
        for canvas in canvases:
            canvas.Close()
        style = ROOT.gROOT.GetStyle(previous)
        if style:
            style.cd()
    return path


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    records = figlint.lint_records([build(tmp_path_factory.mktemp("frames"))], jobs=1, redraw=False)
    assert not [r for r in records if r["rule"] in ("worker", "file", "error")], records
    by_canvas: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for r in records:
        by_canvas[r["canvas"]].append((r["rule"], r["object"], r["detail"]))
    return by_canvas


def of(found, name: str, rule: str) -> list[tuple[str, str]]:
    return [(obj, detail) for r, obj, detail in found[name] if r == rule]


def test_a_header_band_leaves_a_3p4_cm_frame(found):
    [(obj, detail)] = of(found, "short_frame", "frame")
    assert obj == "main frame" and detail.startswith("3.36 cm"), detail


def test_a_square_ratio_figure_has_a_short_main_frame_and_a_cut_top_label(found):
    frames = dict(of(found, "square_ratio_cut", "frame"))
    assert float(frames["main frame"].split()[0]) == pytest.approx(0.65 * 0.90 * 8, abs=0.01)
    assert [obj for obj, _ in of(found, "square_ratio_cut", "ticklabel")] == ["y label 1.2"]


def test_a_tall_ratio_figure_passes_the_frame_rules(found):
    assert [r for r in found["tall_ratio"] if r[0] in ("frame", "ticklabel", "aspect", "panels")] == []


def test_a_thin_ratio_panel_fails(found):
    [(obj, detail)] = of(found, "thin_ratio", "frame")
    assert obj == "ratio frame" and float(detail.split()[0]) == pytest.approx(0.15 * 750 * 0.55 * 8 / 600, abs=0.01)


def test_fractions_are_drawn_on_0_to_1(found):
    assert [obj for obj, _ in of(found, "fraction_to_0p9", "zrange")] == ["fraction_to_0p9_h"]
    assert of(found, "fraction_0_1", "zrange") == [] and of(found, "fraction_0_1", "frame") == []


def test_a_short_matrix_frame_fails_at_4_cm(found):
    [(obj, detail)] = of(found, "short_matrix", "frame")
    assert detail.startswith("2.82 cm") and "< 4 cm" in detail, detail


def test_a_single_tall_pad_is_not_an_allowed_aspect(found):
    assert [obj for obj, _ in of(found, "tall_single", "aspect")] == ["canvas"]
    assert np.isclose(600 / 750, figlint.RATIO_ASPECT)


def test_a_legend_past_the_frames_right_edge_fails(found):
    """x2 = 0.99 of 600 px: 24 px beyond the frame's right edge (0.95), 0.32 cm at 8 cm; 0.93 inside."""
    hits = of(found, "legend_past_frame", "legend")
    assert len(hits) == 1 and "24.0 px (0.32 cm" in hits[0][1] and "right edge" in hits[0][1], hits
    assert of(found, "legend_in_frame", "legend") == []
