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
    with pytest.raises(ValueError, match="log-y figure's top only"):
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
