"""rootfile._color_table (gROOT's colours and the palette read in C++) gives what the PyROOT loops
it replaced gave (written out here), after a colour is defined and a built-in one changed; and the
stored lists then hold the same TColor objects in the same order."""

from __future__ import annotations

from pnetviz.draw import rootfile
from pnetviz.rootenv import color_values, root


def reference():
    ROOT = root()
    by_index = {color.GetNumber(): color for color in ROOT.gROOT.GetListOfColors() if color}
    palette = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    return by_index, palette


def test_color_table_as_the_pyroot_loops():
    ROOT = root()
    new = ROOT.TColor.GetFreeColorIndex()
    made = ROOT.TColor(new, 0.1, 0.2, 0.3, "pnetviz_test_color", 0.5)
    ROOT.SetOwnership(made, False)
    red = ROOT.gROOT.GetColor(2)
    before = color_values(red)
    red.SetRGB(0.9, 0.0, 0.05)
    try:
        slots, values, palette = rootfile._color_table()
        by_index, want_palette = reference()
        assert list(slots) == list(by_index) and palette == want_palette and len(palette) > 50
        colors = ROOT.gROOT.GetListOfColors()
        for number, color in by_index.items():
            assert colors.At(slots[number]) == color and values[number] == color_values(color)
        assert values[new] == color_values(made) and values[2] == color_values(red) != before
        array = rootfile._color_array("ListOfColors", [slots[new], slots[2], slots[new]])
        assert [array.At(i).GetNumber() for i in range(array.GetEntries())] == [new, 2, new]
    finally:
        red.SetRGB(*before[:3])
