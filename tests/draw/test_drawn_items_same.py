"""sampling.drawn_items reads a histogram's draw option without its "SAME": the E of "SAME" is no
error bar, so a histogram drawn "HIST SAME" (every score distribution's train histograms) is its
steps, as drawn, and the legend search does not keep clear of error bars nobody sees."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import canvas
from pnetviz.draw.sampling import drawn_items
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.rootenv import root


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


@pytest.mark.parametrize("option, kind", [("HIST SAME", "line"), ("SAMEHIST", "line"), ("SAME", "line"),
                                          ("E SAME", "markers"), ("P SAME", "markers"), ("SAME E1", "markers"),
                                          ("BAR SAME", "bars")])  # fmt: skip
def test_same_is_not_an_error_bar(option: str, kind: str) -> None:
    fig = canvas.figure("same_option", canvas.Frame(x=(0.0, 1.0), y=(0.0, 1.0), xtitle="x", ytitle="y"))
    try:
        hist = root().TH1D("same_option_h", "", 4, 0.0, 1.0)
        for i, value in enumerate((0.1, 0.4, 0.0, 0.2), start=1):
            hist.SetBinContent(i, value)
        fig.pads[0].cd()
        hist.Draw(option)
        items = [item for item in drawn_items(fig) if item[0] != "line" or item[1].size != 2]  # not the frame's lines
        assert [item[0] for item in items] == [kind]
        if kind == "line":
            assert np.array_equal(items[0][2], np.repeat([0.1, 0.4, 0.0, 0.2], 2))
    finally:
        fig.close()
