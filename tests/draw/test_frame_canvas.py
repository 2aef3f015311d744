"""macros/frame_canvas.h and stored_style.h through draw.native: a figure's canvas and frame, a
matrix's palette and the stored CMS style made by the compiled calls are the objects the Python
path (PNETVIZ_KERNELS=jit: no library) makes, as ROOT's JSON of the canvas."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pnetviz.draw import figures, matrices, native
from pnetviz.draw.geometry import Figure, Frame
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.rootenv import root

FRAMES = [Frame((0.0, 1.0), (0.0, 1.02), "Background efficiency", "Signal efficiency"),
          Frame((0.0, 1.0), (1.0, 3e4), "Signal efficiency", "Background rejection", logy=True),
          Frame((1e-4, 1.0), (0.0, 1.02), "Background efficiency", "Signal efficiency", logx=True),
          Frame((-3.2, 7.6), (0.2, 0.9), "Score", "Events")]  # fmt: skip


@pytest.fixture(autouse=True)
def _built():
    if native.kernels() is None:
        pytest.skip("no C++ compiler here: the library cannot be built (the Python path is the only one)")
    with cms_style(StyleOptions()):
        yield


def _json(canvas) -> str:
    """ROOT's JSON of `canvas`, the names this test gives (made unique: geometry.unique) set equal."""
    return re.sub(r'"(?:fc|pf|mx|confusion_m)_[^"]*"', '"NAME"', str(root().TBufferJSON.ToJSON(canvas)))


def _both(monkeypatch, make) -> tuple[str, str]:
    """(compiled, Python) JSON of the canvas of the figure `make(tag)` returns, made each way."""
    fast = make("fast")
    monkeypatch.setenv("PNETVIZ_KERNELS", "jit")
    assert native.kernels() is None
    slow = make("slow")
    monkeypatch.delenv("PNETVIZ_KERNELS")
    try:
        return _json(fast.canvas), _json(slow.canvas)
    finally:
        fast.close()
        slow.close()


@pytest.mark.parametrize("frame", FRAMES, ids=["linear", "logy", "logx", "offset"])
@pytest.mark.parametrize("square, pos, extra", [(True, 0, 0.03), (True, 11, 0.0), (False, 0, 0.0)])
def test_figure_is_the_python_paths(monkeypatch, frame, square, pos, extra) -> None:
    fast, slow = _both(monkeypatch, lambda tag: figures.figure(f"fc_{tag}", frame, square, extra, cms_pos=pos))
    assert fast == slow
    assert '"fLogy" : 1' in fast if frame.logy else '"fLogy" : 0' in fast  # the settings are there at all


@pytest.mark.parametrize("frame", FRAMES, ids=["linear", "logy", "logx", "offset"])
def test_plain_figure_and_its_frame_histogram_are_the_python_paths(monkeypatch, frame) -> None:
    def make(tag: str):
        canvas = root().TCanvas(f"pf_{tag}", "", 600, 600)
        canvas.SetLogx(frame.logx)
        figures.draw_frame(canvas, frame.x[0], frame.y[0], frame.x[1], frame.y[1], "a title")
        return Figure(name=f"pf_{tag}", canvas=canvas, pads=[canvas])

    fast, slow = _both(monkeypatch, make)
    assert fast == slow
    assert '"fNbins" : 1000' in fast


def test_matrix_palette_is_the_python_paths(monkeypatch) -> None:
    def make(tag: str):
        fig = matrices.matrix_figure(f"mx_{tag}", labels=("Signal", "Background"))
        matrices.add_matrix(fig, "confusion/m", np.array([[0.9, 0.1], [0.2, 0.8]]), ("Signal", "Background"), ".2f", 0,
                            "Fraction", zmax=1.0)  # fmt: skip
        return fig

    fast, slow = _both(monkeypatch, make)
    assert fast == slow
    assert "TPaletteAxis" in fast


@pytest.mark.parametrize("logy", [False, True])
def test_reframed_figure_is_the_python_paths(monkeypatch, logy) -> None:
    low, top = (1.0, 3e3) if logy else (0.0, 1.05)
    old = Frame((0.0, 1.0), (low, top), "Signal efficiency", "Background rejection", logy=logy)
    new = Frame((0.0, 1.0), (low, top * 10 if logy else 1.3), "Signal efficiency", "Background rejection", logy=logy)

    def make(tag: str):
        fig = figures.figure(f"fc_{tag}", old, extra_space=0.03, cms_pos=0)
        assert figures.reframe(fig, old, new)
        return fig

    fast, slow = _both(monkeypatch, make)
    assert fast == slow
    assert f'"fMaximum" : {new.y[1]:g}' in fast
