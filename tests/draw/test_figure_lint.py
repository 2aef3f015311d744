"""The figure linter (tests/draw/figlint.py) on canvases built here with a known defect each, then
on every canvas a small campaign stores (plots.root of every output set, campaign/campaign.root).

The rules (from the issue): one panel per canvas (a ratio panel under the main frame allowed), a
fixed aspect (square or 4:3) whatever the names; every text >= 7 pt when the figure is printed
8 cm wide; texts, legends and the CMS label neither overlap each other nor leave the pad; axes
of bounded quantities (efficiency, precision, AUC, accuracy, ...) end at <= 1.1; log axes extend
at most about a decade beyond the data; canvases that redraw identically in a plain ROOT session
(no title box, no stats box). The checks run in a separate plain ROOT process (no pnetviz, no
cmsstyle); see figlint.py for how each quantity is measured.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import figlint  # tests/draw is on sys.path: pytest's rootdir-relative import of this test module
from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.rootenv import root


# ---------------------------------------------------------------------------------------------
# Synthetic canvases: one defect each (and clean ones), all in one file linted once.
# ---------------------------------------------------------------------------------------------

def _canvas(ROOT, name: str, w: int = 600, h: int = 600):
    """A canvas of exactly w x h pixels (batch mode would otherwise subtract 4 x 28)."""
    c = ROOT.TCanvas(name, "", w, h)
    c.SetCanvasSize(w, h)
    c.SetMargin(0.15, 0.05, 0.13, 0.07)
    return c


def _frame(ROOT, pad, y_max: float = 1.05, xtitle: str = "Background efficiency", ytitle: str = "Signal efficiency",
           y_min: float = 0.0, title: str = ""):  # fmt: skip
    frame = pad.DrawFrame(0.0, y_min, 1.0, y_max)
    frame.SetTitle(title)
    if not title:
        frame.SetBit(ROOT.TH1.kNoTitle)
    frame.SetStats(False)
    for axis, text in ((frame.GetXaxis(), xtitle), (frame.GetYaxis(), ytitle)):
        axis.SetTitle(text)
        axis.SetLabelSize(0.045)
        axis.SetTitleSize(0.05)
        axis.SetLabelFont(42)
        axis.SetTitleFont(42)
    return frame


def _text(ROOT, keep: list, x: float, y: float, text: str, size: float = 0.04, align: int = 11, font: int = 42):
    t = ROOT.TLatex(x, y, text)
    t.SetNDC()
    t.SetTextFont(font)
    t.SetTextSize(size)
    t.SetTextAlign(align)
    t.Draw()
    keep.append(t)
    return t


def _cms_label(ROOT, keep: list) -> None:
    _text(ROOT, keep, 0.19, 0.90, "CMS", 0.05, 13, 61)
    _text(ROOT, keep, 0.95, 0.94, "Run 2 (13 TeV)", 0.045, 31)


def _curve(ROOT, keep: list):
    x = np.linspace(0.0, 1.0, 50)
    g = ROOT.TGraph(50, x, np.sqrt(x))
    g.SetLineWidth(2)
    g.Draw("L SAME")
    keep.append(g)
    return g


def _legend(ROOT, keep: list, box, entries, size: float = 0.04):
    leg = ROOT.TLegend(*box)
    leg.SetTextFont(42)
    leg.SetTextSize(size)
    leg.SetBorderSize(0)
    leg.SetFillStyle(0)
    for obj, label in entries:
        leg.AddEntry(obj, label, "l")
    leg.Draw()
    keep.append(leg)
    return leg


def _clean(ROOT, keep: list, name: str, w: int = 600, h: int = 600):
    c = _canvas(ROOT, name, w, h)
    keep += [c, _frame(ROOT, c)]
    g = _curve(ROOT, keep)
    _cms_label(ROOT, keep)
    _legend(ROOT, keep, (0.50, 0.18, 0.92, 0.30), [(g, "Test, AUC 0.91")], size=0.045)  # 7.7 pt on 800 x 600
    _text(ROOT, keep, 0.92, 0.40, "Run3Mu, fold 0", 0.045, 31)
    return c


def build_synthetic(directory: Path) -> Path:
    """plots.root with a canvas per case (name = case), and a PNG for the redraw case."""
    ROOT = root()
    previous = ROOT.gStyle.GetName()
    ROOT.gROOT.SetStyle("Modern")
    keep: list = []
    canvases = []
    try:
        canvases.append(_clean(ROOT, keep, "clean_square"))
        canvases.append(_clean(ROOT, keep, "clean_four_three", 800, 600))

        c = _clean(ROOT, keep, "small_text")
        _text(ROOT, keep, 0.20, 0.60, "tiny context line", 0.022)  # 0.022 * 600 px * 226.8 / 600 = 4.99 pt
        canvases.append(c)

        c = _canvas(ROOT, "legend_over_text")
        keep += [c, _frame(ROOT, c)]
        g = _curve(ROOT, keep)
        _cms_label(ROOT, keep)
        _legend(ROOT, keep, (0.50, 0.18, 0.92, 0.34), [(g, "Test"), (g, "Train")])
        _text(ROOT, keep, 0.55, 0.25, "MHc100_MA95 vs ttZ", 0.04)
        canvases.append(c)

        c = _canvas(ROOT, "legend_over_curve")
        keep += [c, _frame(ROOT, c)]
        g = _curve(ROOT, keep)
        _cms_label(ROOT, keep)
        _legend(ROOT, keep, (0.20, 0.60, 0.60, 0.80), [(g, "Test"), (g, "Train")])  # sqrt(x) runs through it
        canvases.append(c)

        c = _canvas(ROOT, "side_by_side", 1200, 600)
        c.Divide(2, 1)
        keep.append(c)
        for i in (1, 2):
            pad = c.cd(i)
            keep.append(_frame(ROOT, pad))
            _curve(ROOT, keep)
        canvases.append(c)

        c = _canvas(ROOT, "ratio_panel")  # main pad over a ratio panel: one figure
        keep.append(c)
        top = ROOT.TPad("top", "", 0.0, 0.30, 1.0, 1.0)
        bottom = ROOT.TPad("bottom", "", 0.0, 0.0, 1.0, 0.30)
        for pad in (top, bottom):
            pad.SetMargin(0.15, 0.05, 0.02 if pad is top else 0.35, 0.07 if pad is top else 0.10)  # room for "1.5"
            c.cd()
            pad.Draw()
            keep.append(pad)
        top.cd()
        main = _frame(ROOT, top)
        main.GetXaxis().SetLabelSize(0.0)  # the panel below has the x labels
        main.GetYaxis().ChangeLabel(1, -1, 0.0)  # the lowest label would be cut by the pad's bottom edge
        keep.append(main)
        _curve(ROOT, keep)
        bottom.cd()
        ratio = _frame(ROOT, bottom, y_max=1.5, y_min=0.5, ytitle="Ratio")
        for axis in (ratio.GetXaxis(), ratio.GetYaxis()):  # sizes relative to the 180 px high pad
            axis.SetLabelSize(0.13)
            axis.SetTitleSize(0.14)
        keep.append(ratio)
        canvases.append(c)

        c = _canvas(ROOT, "efficiency_to_1p32")
        keep += [c, _frame(ROOT, c, y_max=1.32)]
        _curve(ROOT, keep)
        canvases.append(c)

        c = _canvas(ROOT, "frame_with_title")
        keep += [c, _frame(ROOT, c, title="ROC curve, test events")]
        _curve(ROOT, keep)
        canvases.append(c)

        c = _canvas(ROOT, "stats_box")
        h = ROOT.TH1D("stats_box_hist", "", 20, 0.0, 1.0)
        for value in np.linspace(0.05, 0.95, 40):
            h.Fill(value)
        h.SetBit(ROOT.TH1.kNoTitle)
        h.SetStats(True)
        h.GetXaxis().SetTitle("Score")
        h.Draw("HIST")
        keep += [c, h]
        canvases.append(c)

        c = _canvas(ROOT, "batch_size_596x572", 596, 572)  # what TCanvas(..., 600, 600) gives in batch mode
        keep += [c, _frame(ROOT, c)]
        canvases.append(c)

        c = _canvas(ROOT, "legend_size_zero")
        keep += [c, _frame(ROOT, c)]
        g = _curve(ROOT, keep)
        _legend(ROOT, keep, (0.50, 0.18, 0.92, 0.30), [(g, "Test")], size=0.0)
        canvases.append(c)

        c = _canvas(ROOT, "log_headroom")
        c.SetLogy()
        frame = c.DrawFrame(0.0, 1.0, 1.0, 1e4)  # data 1..10: three decades of empty room above
        frame.SetBit(ROOT.TH1.kNoTitle)
        frame.GetXaxis().SetTitle("Signal efficiency")
        frame.GetYaxis().SetTitle("Background rejection")
        x = np.linspace(0.0, 1.0, 20)
        g = ROOT.TGraph(20, x, 10.0 - 9.0 * x)
        g.Draw("L SAME")
        keep += [c, frame, g]
        canvases.append(c)

        c = _canvas(ROOT, "text_off_pad")
        keep += [c, _frame(ROOT, c)]
        _text(ROOT, keep, 0.80, 0.50, "a context line running off the right edge", 0.04)
        canvases.append(c)

        c = _canvas(ROOT, "bin_labels", 600, 600)
        keep.append(c)
        bars = ROOT.TH1D("bin_labels_hist", "", 3, 0.0, 3.0)
        bars.SetBit(ROOT.TH1.kNoTitle)
        bars.SetStats(False)
        for k, label in enumerate(("signal", "nonprompt", "diboson"), start=1):
            bars.GetXaxis().SetBinLabel(k, label)
            bars.SetBinContent(k, 0.5)
        bars.GetXaxis().SetLabelSize(0.045)  # drawn at 2/3: 0.03 * 600 px -> 6.8 pt
        bars.GetYaxis().SetLabelSize(0.045)
        bars.Draw("HIST")
        keep.append(bars)
        canvases.append(c)

        for name, offset in (("axis_clear", None), ("y_title_on_labels", 0.9)):  # PNGs: the axis rule runs on them
            c = _clean(ROOT, keep, name)
            if offset is not None:  # the title's baseline 0.9 x 0.05 x 600 px from the axis: over "0.8"
                next(o for o in c.GetListOfPrimitives() if o.InheritsFrom("TH1")).GetYaxis().SetTitleOffset(offset)
            c.Modified()
            c.Update()
            c.SaveAs(str(directory / f"{name}.png"))
            canvases.append(c)

        c = _canvas(ROOT, "titled_after_png")  # PNG saved untitled, then a title added (as a TBrowser title)
        frame = _frame(ROOT, c)
        keep += [c, frame]
        _curve(ROOT, keep)
        c.Update()
        previous_level = ROOT.gErrorIgnoreLevel
        ROOT.gErrorIgnoreLevel = ROOT.kWarning
        c.SaveAs(str(directory / "titled_after_png.png"))
        ROOT.gErrorIgnoreLevel = previous_level
        frame.SetTitle("Signal efficiency vs background efficiency")
        frame.ResetBit(ROOT.TH1.kNoTitle)
        canvases.append(c)

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
def synthetic(tmp_path_factory):
    path = build_synthetic(tmp_path_factory.mktemp("figlint"))
    records = figlint.lint_records([path], jobs=1)
    assert not [r for r in records if r["rule"] in ("worker", "file", "error")], records
    by_canvas: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for r in records:
        by_canvas[r["canvas"]].append((r["rule"], r["object"], r["detail"]))
    return by_canvas


def rules(found, name: str) -> set[str]:
    return {rule for rule, _, _ in found[name]}


@pytest.mark.slow
def test_clean_canvases_pass(synthetic):
    assert synthetic["clean_square"] == []
    assert synthetic["clean_four_three"] == []
    assert synthetic["ratio_panel"] == []


@pytest.mark.slow
def test_a_5pt_text_fails_on_size(synthetic):
    found = synthetic["small_text"]
    assert [(rule, obj) for rule, obj, _ in found] == [("size", "text 'tiny context line'")], found
    assert "4.99 pt" in found[0][2]


@pytest.mark.slow
def test_overlapping_legend_and_text_fail(synthetic):
    found = synthetic["legend_over_text"]
    assert rules(synthetic, "legend_over_text") == {"overlap"}, found
    assert any("legend" in obj and "MHc100_MA95 vs ttZ" in obj for _, obj, _ in found), found


@pytest.mark.slow
def test_legend_over_the_curve_fails_on_data(synthetic):
    found = synthetic["legend_over_curve"]
    assert [(rule, obj.split(" / ")[0]) for rule, obj, _ in found] == [("data", "legend")], found
    # sqrt(x) enters the box (x NDC 0.20-0.60 -> data 0.0625-0.5625, y NDC 0.60-0.80) from below
    assert "near px" in found[0][2]


@pytest.mark.slow
def test_two_side_by_side_panels_fail(synthetic):
    found = synthetic["side_by_side"]
    assert "panels" in rules(synthetic, "side_by_side"), found
    assert "aspect" in rules(synthetic, "side_by_side"), found  # 2:1


@pytest.mark.slow
def test_signal_efficiency_to_1p32_fails(synthetic):
    found = synthetic["efficiency_to_1p32"]
    assert [(rule, obj) for rule, obj, _ in found] == [("range", "y axis 'Signal efficiency'")], found
    assert "1.32" in found[0][2]


@pytest.mark.slow
def test_frame_title_gives_a_title_box(synthetic):
    found = synthetic["frame_with_title"]
    assert [(rule, obj) for rule, obj, _ in found] == [("title", "title box")], found
    assert "ROC curve, test events" in found[0][2]


@pytest.mark.slow
def test_stats_box_fails(synthetic):
    assert rules(synthetic, "stats_box") == {"stats"}, synthetic["stats_box"]


@pytest.mark.slow
def test_batch_mode_canvas_size_is_not_square(synthetic):
    found = synthetic["batch_size_596x572"]
    assert [rule for rule, _, _ in found] == ["aspect"], found
    assert "596x572" in found[0][2]


@pytest.mark.slow
def test_legend_text_size_zero_fails(synthetic):
    found = synthetic["legend_size_zero"]
    assert [(rule, obj) for rule, obj, _ in found] == [("size", "legend")], found


@pytest.mark.slow
def test_log_axis_with_decades_of_headroom_fails(synthetic):
    found = synthetic["log_headroom"]
    assert [rule for rule, _, _ in found] == ["logrange"], found
    assert "3.00 decades above" in found[0][2]


@pytest.mark.slow
def test_text_leaving_the_pad_fails(synthetic):
    found = synthetic["text_off_pad"]
    assert [rule for rule, _, _ in found] == ["outside"], found
    assert "at the right" in found[0][2]


@pytest.mark.slow
def test_bin_labels_are_measured_at_two_thirds(synthetic):
    found = synthetic["bin_labels"]
    assert [(rule, obj.split(" (")[0]) for rule, obj, _ in found] == [("size", "x axis bin labels")], found


@pytest.mark.slow
def test_a_y_title_over_its_tick_labels_fails_on_axis(synthetic):
    assert synthetic["axis_clear"] == []
    found = [(rule, obj) for rule, obj, _ in synthetic["y_title_on_labels"]]
    assert found == [("axis", "y axis 'Signal efficiency'")], synthetic["y_title_on_labels"]


@pytest.mark.slow
def test_redraw_differs_when_a_title_is_added_after_the_png(synthetic):
    assert rules(synthetic, "titled_after_png") == {"title", "redraw"}, synthetic["titled_after_png"]


def test_a_canvas_carrying_code_is_refused_and_never_drawn(tmp_path):
    """A stored canvas with a TExec of its own: one `code` violation (pnetviz.draw.stored, in the
    test process); no worker draws the file, so its command never runs."""
    ROOT = root()
    pwned, path = tmp_path / "PWNED", tmp_path / "code.root"
    tfile = ROOT.TFile(str(path), "RECREATE")
    tfile.mkdir("canvases").cd()
    canvas = _canvas(ROOT, "with_exec")
    command = ROOT.TExec("x", f".! touch {pwned}")
    canvas.GetListOfPrimitives().Add(command)
    canvas.Write()  # written, never drawn
    tfile.Close()
    canvas.GetListOfPrimitives().Clear()
    records = figlint.lint_records([path], jobs=1)
    assert [(r["canvas"], r["rule"]) for r in records] == [("*", "code")], records
    assert "TExec 'x'" in records[0]["detail"] and "with_exec" in records[0]["detail"]
    assert not pwned.exists()


# ---------------------------------------------------------------------------------------------
# Every canvas a small campaign stores.
# ---------------------------------------------------------------------------------------------

# One channel: every figure and map is drawn per channel, so a second one adds no kind of canvas
# (Run1E2Mu: the longer name in the context lines); two signal points for the maps over the mass
# grid, two folds for the over-folds plots.
CHANNELS, SIGNALS, FOLDS = ("Run1E2Mu",), ("MHc100_MA95", "MHc160_MA85"), (0, 1)


@pytest.fixture(scope="module")
def stored_files(tmp_path_factory):
    """Every kind of canvas: binary, multi-class and comparison jobs per fold and over folds
    (profiled, b-jet, hull, fold-summary plots), the campaign's maps and graphs."""
    from pnetviz.demo.trainertree import write_trainer_fold

    base = tmp_path_factory.mktemp("lint_tree") / "results"
    for channel in CHANNELS:
        for signal in SIGNALS:
            for fold in FOLDS:
                write_trainer_fold(base, channel, signal, fold, events=1500)
    out = tmp_path_factory.mktemp("lint_plots")
    # --images all: the redraw and axis rules compare each canvas with the PNG beside its plots.root
    argv = ["--results-dir", str(base), "--plots-dir", str(out), "--workers", "0", "--images", "all", "--formats", "png",
            "--bootstrap", "20", "--syst", "all", "--score-shift", "background=0.02", "--hull", "-q"]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, argv) == 0
    files = sorted(out.rglob("plots.root")) + [out / "campaign" / "campaign.root"]
    assert (out / "campaign" / "campaign.root").exists()
    return files


PENDING_RULES = figlint.PENDING_RULES  # rules whose fixes are in progress (figlint.py says which and why)


@pytest.mark.slow
def test_every_stored_canvas_passes(stored_files):
    records = figlint.lint_records(stored_files, jobs=2)
    broken = [figlint.format_violation(r) for r in records if r["rule"] in ("worker", "file", "error")]
    assert not broken, "\n".join(broken[:10])
    pending = [r for r in records if r["rule"] in PENDING_RULES]
    records = [r for r in records if r["rule"] not in PENDING_RULES]
    if records:
        pytest.fail(f"{len(records)} figure violations in {len({r['file'] for r in records})} files:\n" + figlint.summarize(records),
                    pytrace=False)  # fmt: skip
    if pending:  # every other rule passes: the frame rule shown as the known gap, not hidden
        pytest.xfail(f"{len(pending)} violations of rules in progress ({sorted(PENDING_RULES)}):\n" + figlint.summarize(pending))
