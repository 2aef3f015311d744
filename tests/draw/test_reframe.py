"""figures.reframe: a log-y figure moved to a frame with another top is the figure made for that
frame (the same canvas as ROOT's JSON, the same pixels), and boxed_figure uses it for a drawing
that does not depend on the frame (score distributions): one canvas built, not two."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pnetviz.draw import canvas, plots
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.rootenv import root


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


def _json(fig) -> str:
    """The canvas as ROOT's JSON, the random suffixes of object names left out."""
    return re.sub(r"_[0-9a-f]{8}(?=[\"_])", "", str(root().TBufferJSON.ToJSON(fig.canvas)))


def _same_canvas(fast, slow, tmp_path) -> None:
    """`fast` and `slow` the same canvas: as ROOT's JSON and as pixels of their PNGs."""
    assert _json(fast) == _json(slow)
    fast.canvas.SaveAs(str(tmp_path / "fast.png"))
    slow.canvas.SaveAs(str(tmp_path / "slow.png"))
    assert (tmp_path / "fast.png").read_bytes() == (tmp_path / "slow.png").read_bytes()


def _hist(name: str):
    h = root().TH1D(name, "", 50, 0.0, 1.0)
    h.SetDirectory(0)
    for i in range(1, 51):
        h.SetBinContent(i, float(np.exp(-i / 8)))
    return h


def test_a_reframed_figure_is_the_figure_made_for_its_new_frame(tmp_path):
    low = canvas.Frame((0.0, 1.0), (1e-4, 3.0), "Score", "Normalised to unit area", logy=True)
    high = canvas.Frame((0.0, 1.0), (1e-4, 30.0), "Score", "Normalised to unit area", logy=True)

    def made(frame):
        fig = canvas.figure("reframed", frame, cms_pos=0, extra_space=0.03, y_title_offset=1.45)
        canvas.add_hist(fig, "h", _hist("h_reframed"), "Data", hist_color=2, points=True)
        return fig

    fresh, moved = made(high), made(low)
    try:
        before = _json(moved)
        canvas.reframe(moved, low, high)
        assert before != _json(fresh) and _json(moved) == _json(fresh)
        for fig, stem in ((fresh, "fresh"), (moved, "moved")):
            fig.canvas.SaveAs(str(tmp_path / f"{stem}.png"))
        assert (tmp_path / "fresh.png").read_bytes() == (tmp_path / "moved.png").read_bytes()
    finally:
        fresh.close()
        moved.close()
    with pytest.raises(ValueError, match="a figure's top only"):
        canvas.reframe(made(low), low, canvas.Frame((0.0, 1.0), (1e-3, 3.0), "Score", "Normalised to unit area", logy=True))


def _boxed(reframe, makes: list):
    """A figure whose line across the frame blocks the upper right corner of the first frame (top
    3) and not of the second (top 30): boxed_figure takes the second."""
    frames = [canvas.Frame((0.0, 1.0), (1e-3, top), "Score", "Events", logy=True) for top in (3.0, 30.0)]

    def make(frame):
        makes.append(frame)
        return canvas.figure("boxed_reframe", frame, cms_pos=0)

    def draw(fig, frame):
        canvas.add_graph(fig, "line", np.array([0.0, 1.0]), np.array([2.0, 2.0]), "A line", line_color=2)

    return canvas.boxed_figure(make, frames, draw, ["context"], corners=("upper right",), reframe=reframe)


@pytest.mark.parametrize("path", ["frames", "more"])
def test_boxed_figure_moves_the_first_figure_rather_than_drawing_it_again(path, monkeypatch):
    """The figure boxed_figure returns with `reframe` equals the one it returns drawing each frame
    anew (as ROOT's JSON), from one canvas made instead of two: for a frame in `frames` and for one
    in `more` (a score figure whose legend needs two more decades, its context to the caption)."""
    made_fast, made_slow = [], []
    if path == "frames":
        fast, slow = _boxed(canvas.reframe, made_fast), _boxed(None, made_slow)
    else:
        figures = []
        for reframe, made in ((canvas.reframe, made_fast), (None, made_slow)):
            figure = canvas.figure

            def counted(*args, made=made, figure=figure, **kwargs):
                made.append(args[1])
                return figure(*args, **kwargs)

            monkeypatch.setattr(canvas, "figure", counted)
            monkeypatch.setattr(canvas, "reframe", reframe)
            hist = root().TH1D(f"steps_{len(figures)}", "", 50, 0.0, 1.0)
            hist.SetDirectory(0)
            for i in range(1, 51):
                hist.SetBinContent(i, 0.02 if i % 2 else 4e-3)
            figures.append(plots.score_figure("score_more", [plots.HistSpec("s/a", hist, "Train", 2, False)], "Score", ["one line"]))
            monkeypatch.undo()
        fast, slow = figures
    try:
        top = next(o for o in fast.pads[0].GetListOfPrimitives() if o.GetName() == "hframe").GetMaximum()
        assert len(made_fast) == 1 and len(made_slow) >= 2 and top > made_fast[0].y[1]
        assert _json(fast).replace("steps_0", "steps_1") == _json(slow)
    finally:
        fast.close()
        slow.close()


def _rejection(seed: int, moved: bool, made: list, monkeypatch):
    """A rejection figure with its no-background region greyed (rejection.greyed), whose legend
    has room only in the taller frame for these seeds; `moved`: with rejection.moved_greyed."""
    from types import SimpleNamespace

    from pnetviz.draw import rejection
    from pnetviz.metrics.hep import effective_events
    from pnetviz.metrics.roc import binary_clf_curve

    rng = np.random.default_rng(seed)
    results, n_eff = {}, {}
    for split in ("train", "test"):
        y = rng.random(400) < 0.5
        w = rng.uniform(0.5, 1.5, 400)
        results[split] = SimpleNamespace(curve=binary_clf_curve(rng.normal(2.0 * y, 1), y, w))
        n_eff[split] = effective_events(w[~y])
    edge = rejection.no_background_edge(results["test"].curve)
    specs = rejection.rejection_specs("p", results, n_eff, label_limits=edge <= 0)
    top = max(plots.rejection_top(specs), 2.0) * 10.0
    figure = canvas.figure

    def counted(*args, **kwargs):
        made.append(args[1])
        return figure(*args, **kwargs)

    monkeypatch.setattr(canvas, "figure", counted)
    # the grey region's entry as long as it was (the one name, 'Lower limit (95% CL)', is short
    # enough that these toys' legends fit the first frame): the toys then need the taller frame
    monkeypatch.setattr(rejection, "NO_BACKGROUND", "No bkg. event: lower limit (95% CL)")
    try:
        return plots.rejection_figure("rejection_moved", specs, ["m(H^{+}) = 130 GeV, m(A) = 90 GeV", "vs nonprompt, fold 0"],
                                      underlay=rejection.greyed("p", edge, top),
                                      reframe=rejection.moved_greyed(top) if moved else None)  # fmt: skip
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("seed", [1, 4, 9])
def test_rejection_figure_with_its_grey_region_moved_is_the_one_drawn_anew(seed, monkeypatch, tmp_path):
    """The greyed no-background box follows the frame's top: moved with the figure (one canvas
    built), the figure equals the one drawn anew in the taller frame (two built), as ROOT's JSON
    and as pixels; the curves are drawn from the same points in both frames (plots._finest)."""
    made_fast, made_slow = [], []
    fast = _rejection(seed, True, made_fast, monkeypatch)
    slow = _rejection(seed, False, made_slow, monkeypatch)
    try:
        assert len(made_fast) == 1 and len(made_slow) == 2
        box = next(o for o in fast.extras if o.InheritsFrom("TBox") and not o.InheritsFrom("TPave"))
        assert box.GetY2() == made_slow[1].y[1]  # the region reaches the taller frame's top
        _same_canvas(fast, slow, tmp_path)
    finally:
        fast.close()
        slow.close()


def test_binning_histograms_moved_to_the_taller_frame_are_the_ones_drawn_anew(monkeypatch):
    """binningplots.histograms_figure (lines on a log y axis that fill the first frame's top):
    one canvas with canvas.reframe, the same canvas as the two-build path gives."""
    from pnetviz.draw import binningplots

    def build(reframe, made):
        figure = canvas.figure

        def counted(*args, **kwargs):
            made.append(args[1])
            return figure(*args, **kwargs)

        monkeypatch.setattr(canvas, "figure", counted)
        monkeypatch.setattr(canvas, "reframe", reframe)
        hists = []
        for process, col in (("signal", 2), ("background", 4)):
            h = root().TH1D(f"bh_{process}_{len(made)}_{reframe is None}", "", 8, 0.0, 1.0)
            h.SetDirectory(0)
            for i in range(1, 9):
                h.SetBinContent(i, 100.0 if process == "background" else 1.0)  # 2.3 decades: room in the taller frame only
            hists.append((process, h, process.capitalize(), col))
        try:
            return binningplots.histograms_figure("binning_histograms", "b", hists, "Events per bin", ["one context line", "another"])
        finally:
            monkeypatch.undo()

    made_fast, made_slow = [], []
    fast, slow = build(canvas.reframe, made_fast), build(None, made_slow)
    try:
        assert len(made_fast) == 1 and len(made_slow) == 2
        names = re.compile(r"bh_(\w+?)_\d+_(True|False)")
        assert names.sub(r"bh_\1", _json(fast)) == names.sub(r"bh_\1", _json(slow))
    finally:
        fast.close()
        slow.close()


@pytest.mark.parametrize("physics", [True, False])
def test_training_figure_moved_on_its_linear_axis_is_the_one_drawn_anew(physics, monkeypatch, tmp_path):
    """A training-history figure whose curves fill the first frame's top (a linear y axis): moved
    to the taller frame where the axis decides the same from both ranges (figures._y_axis_fit),
    the same canvas (JSON, pixels) as the one drawn anew; `physics` False: a plain_figure."""
    from pathlib import Path

    from pnetviz.draw import training
    from pnetviz.io.history import TrainingHistory

    epochs = np.arange(30.0)
    columns = {"epoch": epochs, "train_loss": 0.5 + 0.4 * np.cos(epochs), "valid_loss": 0.5 + 0.4 * np.sin(epochs)}
    history = TrainingHistory(Path("h.json"), columns, {})
    series = [("train_loss", "Training", 2, 1), ("valid_loss", "Validation", 4, 2)]
    figures = {}
    for moved in (True, False):
        made = []
        figure, plain = canvas.figure, canvas.plain_figure

        def counted(*args, made=made, figure=figure, **kwargs):
            made.append(args[1])
            return figure(*args, **kwargs)

        def counted_plain(*args, made=made, plain=plain, **kwargs):
            made.append(args[1])
            return plain(*args, **kwargs)

        monkeypatch.setattr(canvas, "figure", counted)
        monkeypatch.setattr(canvas, "plain_figure", counted_plain)
        if not moved:
            monkeypatch.setattr(canvas, "reframe", lambda *args: False)
        figures[moved] = (training._history_figure("training_loss", history, "Loss", series, ["a context line"], physics=physics), made)
        monkeypatch.undo()
    (fast, made_fast), (slow, made_slow) = figures[True], figures[False]
    try:
        assert len(made_fast) == 1 and len(made_slow) == 2 and made_slow[1].y[1] > made_slow[0].y[1]
        _same_canvas(fast, slow, tmp_path)
    finally:
        fast.close()
        slow.close()


def test_a_linear_figure_whose_axis_would_decide_otherwise_is_not_moved():
    """A narrow linear range ("0.915": 505 divisions, the title further out) and a wide one: the
    canvas would differ beyond the range, so reframe leaves it as it is and says so (False)."""
    narrow = canvas.Frame((0.0, 1.0), (0.9, 0.925), "x", "Accuracy")
    wide = canvas.Frame((0.0, 1.0), (0.9, 1.5), "x", "Accuracy")
    fig = canvas.figure("not_moved", narrow, cms_pos=0)
    try:
        before = _json(fig)
        assert fig.axis_fit(narrow) != fig.axis_fit(wide)
        assert canvas.reframe(fig, narrow, wide) is False and _json(fig) == before
        assert canvas.reframe(fig, narrow, canvas.Frame((0.0, 1.0), (0.9, 0.925), "x", "Accuracy")) is True
    finally:
        fig.close()
