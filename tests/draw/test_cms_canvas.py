"""figures.cms_canvas: cmsstyle's cmsCanvas (inside style.unpainted) without the paint of its
DrawFrame: the same canvas, as ROOT's JSON and as pixels, for every option `figure` passes it
(square or 4:3, CMS label in or above the frame, extra left space, y title offsets on each branch of
cmsCanvas's margin formula, frames whose last bin edge is not the given maximum)."""

from __future__ import annotations

import itertools

import pytest

from pnetviz.draw import figures
from pnetviz.draw.geometry import Frame
from pnetviz.draw.style import StyleOptions, cms_style, cmsstyle, unpainted
from pnetviz.rootenv import root

FRAMES = [((0.0, 1.0), (0.0, 1.05)), ((1e-4, 1.0), (1.0, 1e5)), ((-3.2, 7.5), (-0.5, 123.0)), ((-3.2, 7.6), (0.2, 0.9))]


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


def _json(canvas, name: str) -> str:
    return str(root().TBufferJSON.ToJSON(canvas)).replace(name, "NAME")


def _oracle(name: str, frame: Frame, square: bool, pos: int, extra: float, offset: float):
    with unpainted():
        return cmsstyle().cmsCanvas(name, *frame.x, *frame.y, frame.xtitle, frame.ytitle, square=square, iPos=pos,
                                    extraSpace=extra, yTitOffset=offset)  # fmt: skip


@pytest.mark.parametrize("square, pos", [(True, 0), (True, 11), (False, 0), (False, 11)])
def test_same_canvas_as_cmsstyle(square: bool, pos: int) -> None:
    for extra, offset, (x, y) in itertools.product((0.0, 0.03), (0.78, 1.2, 1.45, 1.6, 1.9), FRAMES):
        frame = Frame(x=x, y=y, xtitle="Signal efficiency #varepsilon_{s}", ytitle="Background rejection")
        slow = _oracle("oracle_canvas", frame, square, pos, extra, offset)
        fast = figures.cms_canvas("fast_canvas", frame, square, pos, extra, offset)
        try:
            assert _json(fast, "fast_canvas") == _json(slow, "oracle_canvas"), (extra, offset, x, y)
        finally:
            slow.Close()
            fast.Close()


def test_same_pixels_as_cmsstyle(tmp_path) -> None:
    frame = Frame(x=(-3.2, 7.6), y=(0.2, 0.9), xtitle="Score", ytitle="Events")
    for name, canvas in (("slow", _oracle("oracle_px", frame, True, 0, 0.03, 1.45)),
                         ("fast", figures.cms_canvas("fast_px", frame, True, 0, 0.03, 1.45))):  # fmt: skip
        canvas.SaveAs(str(tmp_path / f"{name}.png"))
        canvas.Close()
    assert (tmp_path / "fast.png").read_bytes() == (tmp_path / "slow.png").read_bytes()


def test_figure_draws_no_paint_of_the_frame() -> None:
    """What a figure is made of: the frame histogram, the CMS label's texts, cmsCanvas's three axis
    copies and the TFrame (first, as a paint puts it, and last, as cmsCanvas draws it)."""
    fig = figures.figure("kinds", Frame(x=(0.0, 1.0), y=(0.0, 1.05), xtitle="x", ytitle="y"), cms_pos=0)
    names = [(obj.ClassName(), obj.GetName()) for obj in fig.canvas.GetListOfPrimitives()]
    assert names[0] == names[-1] == ("TFrame", "TFrame")
    assert names[1] == ("TH1F", "hframe")
    assert names.count(("TH1F", "hframe_copy")) == 3
    assert {n for n in names[2:-4]} == {("TLatex", "")}
    fig.close()
