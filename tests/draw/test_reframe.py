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
        assert _json(fast) == _json(slow)
        fast.canvas.SaveAs(str(tmp_path / "fast.png"))
        slow.canvas.SaveAs(str(tmp_path / "slow.png"))
        assert (tmp_path / "fast.png").read_bytes() == (tmp_path / "slow.png").read_bytes()
    finally:
        fast.close()
        slow.close()
