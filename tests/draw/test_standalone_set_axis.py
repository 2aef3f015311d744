"""standalone._default_axis sets in one C++ call what its six PyROOT setter calls set: ROOT's
default sizes, font 42 and the title offset of the axis (x: 1, y and z: ROOT's automatic 0)."""

from __future__ import annotations

import pytest

from pnetviz.draw import standalone
from pnetviz.rootenv import root


def attributes(axis) -> tuple:
    return (axis.GetLabelSize(), axis.GetLabelOffset(), axis.GetTitleSize(), axis.GetLabelFont(), axis.GetTitleFont(),
            axis.GetTitleOffset())  # fmt: skip


@pytest.mark.parametrize("name", ["x", "y", "z"])
def test_default_axis_as_the_setters(name):
    ROOT = root()
    mine, theirs = (ROOT.TH2F(f"sa_{name}_{i}", "", 2, 0.0, 1.0, 2, 0.0, 1.0) for i in range(2))
    for hist in (mine, theirs):
        axis = hist.GetXaxis()
        axis.SetLabelSize(0.05), axis.SetLabelOffset(0.012), axis.SetTitleSize(0.06), axis.SetLabelFont(62)
        axis.SetTitleFont(62), axis.SetTitleOffset(1.45)
    standalone._default_axis(mine.GetXaxis(), name)
    axis = theirs.GetXaxis()
    axis.SetLabelSize(standalone.AXIS_SIZE), axis.SetLabelOffset(standalone.LABEL_OFFSET)
    axis.SetTitleSize(standalone.AXIS_SIZE), axis.SetLabelFont(42), axis.SetTitleFont(42)
    axis.SetTitleOffset(standalone.X_TITLE_OFFSET if name == "x" else standalone.AUTO_OFFSET)
    assert attributes(mine.GetXaxis()) == attributes(theirs.GetXaxis())
    assert attributes(mine.GetXaxis())[3:] == (42, 42, 1.0 if name == "x" else 0.0)
