"""The frame rule at its edge cases (issue 33): figures of few events, a training history with
diverged epochs and a class matrix of long class names keep the data's frame (>= 5.0 cm at 8 cm
width on curve and histogram figures, figlint_frames' measure) with the legend inside it, never
in a band above it; the log-y headroom a legend takes is allowed by the linter's `logrange`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from pnetviz.draw import canvas, plots, training
from pnetviz.draw.plots import HistSpec
from pnetviz.draw.style import StyleOptions, cms_style, cycle_color
from pnetviz.io.history import TrainingHistory
from pnetviz.metrics.evaluate import score_histogram
from pnetviz.rootenv import root

from figlint import figlint_frames, lint_records  # tests/draw is on sys.path (pytest's rootdir-relative import)

CONTEXT = ["m(H^{#pm}) = 130 GeV, m(A) = 90 GeV, vs t#bar{t}Z", "3#mu, fold 0"]


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


def main_frame_cm(fig: canvas.Figure) -> float:
    """The main frame's height at 8 cm width, as the figure linter measures it."""
    c = fig.canvas
    pads = figlint_frames.frame_pads(c, list(fig.pads[1:]))
    return figlint_frames.frame_height_cm(pads[0], c.GetWw(), c.GetWh())


def legends_inside_the_frame(fig: canvas.Figure) -> list[bool]:
    """For each legend of the main pad: its box ends below the frame's top (not in a band above)."""
    p = fig.pads[0]
    fig.canvas.Modified()
    fig.canvas.Update()  # painted: the legends' NDC corners set
    return [o.GetY2NDC() <= 1 - p.GetTopMargin() + 1e-9 for o in p.GetListOfPrimitives() if o.InheritsFrom("TLegend")]


def four_class_scores(events: int, seed: int = 0) -> list[HistSpec]:
    """P(signal) of 4 classes, train (lines) and test (points), `events` weighted events a
    background class, half as many signal events."""
    rng = np.random.default_rng(seed)
    hists = []
    for split in ("train", "test"):
        for k, (a, b) in enumerate([(5, 1.5), (1.5, 4), (2, 3), (2.5, 2.5)]):
            n = events // 2 if k == 0 else events
            h = score_histogram(f"frame_rule_{split}_{k}", rng.beta(a, b, n), rng.lognormal(0.0, 1.0, n), "")
            hists.append(HistSpec(f"scores/{split}_{k}", h, f"Class {k} ({split})", cycle_color(k), split == "test"))
    return hists


def lint(fig: canvas.Figure, path: Path) -> list[dict]:
    """The figure linter's violations of `fig`'s canvas, stored in `path` as a job stores it."""
    tfile = root().TFile(str(path), "RECREATE")
    tfile.mkdir("canvases").cd()
    fig.canvas.Write(fig.name)
    tfile.Close()
    return lint_records([path], jobs=1, redraw=False)


@pytest.mark.slow
def test_a_four_class_score_figure_of_a_few_hundred_events_keeps_its_frame_and_legend(tmp_path):
    """150 weighted events a background class, 75 signal (525 in all): the data reach the top
    decade over the whole score range; the legend goes inside, in more decades of headroom, not
    above the frame."""
    fig = plots.score_figure("score_distributions", four_class_scores(150), "P(signal)", CONTEXT)
    try:
        assert main_frame_cm(fig) >= 6.0  # the whole frame of a 600 x 600 figure: 6.28 cm (with a band above: 5.37)
        assert legends_inside_the_frame(fig) == [True]
        assert fig.caption == CONTEXT  # the context is the caption's
        assert lint(fig, tmp_path / "plots.root") == []  # logrange too: the decades above the data are the legend's
    finally:
        fig.close()


def diverged_history(bad: dict[str, list[int]]) -> TrainingHistory:
    """30 epochs of a converging training, the best epoch 18, NaN at the epochs of `bad`."""
    e = np.arange(30, dtype=float)
    columns = {"epoch": e, "train_loss": 0.36 + 0.6 * np.exp(-e / 5), "valid_loss": 0.45 + 0.5 * np.exp(-e / 5) + 0.001 * e,
               "train_acc": 0.9 - 0.3 * np.exp(-e / 5), "valid_acc": 0.86 - 0.3 * np.exp(-e / 5)}  # fmt: skip
    for col, epochs in bad.items():
        columns[col][epochs] = math.nan
    return TrainingHistory(Path("history.json"), columns, {"best_epoch": 18})


@pytest.mark.parametrize("bad", [[12], [3, 5], [3, 5, 7, 9]], ids=["one", "two", "four"])
def test_a_training_figure_naming_diverged_epochs_keeps_its_frame_and_legend(bad):
    figs = training.training_figures(diverged_history({"valid_loss": bad}), CONTEXT)
    loss = next(f for f in figs if f.name == "training_loss")
    try:
        assert main_frame_cm(loss) >= 6.0  # before: the legend above the frame, 4.93 cm
        assert legends_inside_the_frame(loss) == [True]
        entries = [str(e.GetLabel()) for o in loss.pads[0].GetListOfPrimitives() if o.InheritsFrom("TLegend")
                   for e in o.GetListOfPrimitives()]  # fmt: skip
        named = {1: "Validation: epoch 12 not finite", 2: "Validation: epochs 3, 5 not finite", 4: "Validation: 4 epochs not finite"}
        assert named[len(bad)] in entries
        box = next(o for o in loss.pads[0].GetListOfPrimitives() if o.InheritsFrom("TLegend"))  # painted above
        assert box.GetX1NDC() >= loss.pads[0].GetLeftMargin()  # line samples right of the y axis
    finally:
        for f in figs:
            f.close()


LONG_CLASSES = ["Signal", "nonprompt-TT", "nonprompt-DY", "Diboson", "t#bar{t}X"]


@pytest.mark.parametrize("labels, size", [(LONG_CLASSES, (800, 800)), (["Signal", "Nonprompt", "Diboson", "t#bar{t}X"], (800, 600))])
def test_a_class_matrix_with_vertical_labels_is_square_and_keeps_its_frame(labels, size):
    """Five long class names stand vertical under the matrix: on 4:3 the frame was 3.09 cm (< 4.0);
    on a square canvas, the text the same in pixels, it passes the square figure's 5.0 cm."""
    fig = canvas.matrix_figure("ga_ks_iter0_model2", 1, labels)
    n = len(labels)
    canvas.add_matrix(fig, "ks/iter0_model2", np.linspace(0, 1, n * n).reshape(n, n), labels, ".3f", 0, "KS p-value (train vs test)")
    canvas.context_line(fig, CONTEXT)
    c = fig.canvas
    try:
        assert (c.GetWw(), c.GetWh()) == size
        assert figlint_frames.check_frames(c, [], *size) == []
        assert main_frame_cm(fig) >= (5.0 if size[0] == size[1] else 4.0)
        hist = next(o for o in c.GetListOfPrimitives() if o.InheritsFrom("TH2"))
        px = hist.GetXaxis().GetLabelSize() * min(size)  # the labels' size in pixels: as on the 800 x 600 canvas
        assert px == pytest.approx(canvas.BIN_LABEL_SIZE["matrix"] * 600)
    finally:
        fig.close()


def _log_canvas(ROOT, name: str, legend: bool):
    """A log-y figure of data up to 0.1, its range to 100 (3 decades above); with `legend`, a
    legend box over the top 2 decades."""
    c = ROOT.TCanvas(name, "", 600, 600)
    c.SetCanvasSize(600, 600)
    c.SetMargin(0.16, 0.05, 0.14, 0.07)
    c.SetLogy()
    frame = c.DrawFrame(0.0, 1e-3, 1.0, 100.0)
    frame.GetXaxis().SetTitle("Score")
    frame.GetYaxis().SetTitle("Events")
    graph = ROOT.TGraph(3, np.array([0.1, 0.5, 0.9]), np.array([1e-3, 0.1, 1e-2]))
    graph.Draw("L SAME")
    keep = [graph]
    if legend:
        top = 1 - c.GetTopMargin()
        height = (1 - c.GetTopMargin() - c.GetBottomMargin()) * 2.0 / 5.0  # 2 of the 5 decades
        leg = ROOT.TLegend(0.3, top - height - 0.01, 0.9, top - 0.01)
        leg.SetTextSize(0.04)
        leg.AddEntry(graph, "Data", "l")
        leg.Draw()
        keep.append(leg)
    return c, keep


@pytest.mark.slow
def test_log_headroom_a_legend_takes_is_allowed(tmp_path):
    ROOT = root()
    path = tmp_path / "logrange.root"
    tfile = ROOT.TFile(str(path), "RECREATE")
    tfile.mkdir("canvases").cd()
    kept = []
    for name, legend in (("with_legend", True), ("without_legend", False)):
        c, keep = _log_canvas(ROOT, name, legend)
        c.Write()
        kept += [c, *keep]
    tfile.Close()
    records = lint_records([path], jobs=1, redraw=False)
    logrange = {r["canvas"] for r in records if r["rule"] == "logrange"}
    assert logrange == {"without_legend"}, records
