"""Where the context and legend go: draw.layout's free_box and boxed_figure on hand-made data.

The frame of `canvas.figure` (cmsstyle, 600 x 600, CMS label above) spans NDC x 0.145-0.95 and
y 0.1433-0.93 (left 87 px, right 30 px, bottom 0.125 + 0.02, top 0.07); a box in the lower right
corner then spans x (0.93 - width, 0.93) and starts at y 0.1633.
"""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import canvas
from pnetviz.draw.style import StyleOptions, cms_style

FRAME = canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y")


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


def _line(fig, x, y, key="data"):
    canvas.add_graph(fig, key, np.asarray(x, float), np.asarray(y, float), "Data", line_color=1)


def test_box_goes_to_the_first_corner_the_data_leave_empty():
    fig = canvas.figure("t1", FRAME, cms_pos=0)
    _line(fig, [0.0, 1.0], [0.9, 0.9])  # a horizontal line at y = 0.9: the upper corners are taken
    box = canvas.free_box(fig, FRAME, 3, 0.4, corners=("upper right", "lower right"))
    p = fig.canvas
    assert box is not None
    assert box[2] == pytest.approx(1 - p.GetRightMargin() - canvas.BOX_INSET)
    assert box[1] == pytest.approx(p.GetBottomMargin() + canvas.BOX_INSET)  # the lower corner
    assert box[3] - box[1] == pytest.approx(3.4 * canvas.LINE_HEIGHT[1])
    fig.close()


def test_the_chance_diagonal_keeps_a_tall_box_out_of_the_lower_right():
    fig = canvas.figure("t2", FRAME, cms_pos=0)
    canvas.add_line(fig, 0.0, 0.0, 1.0, 1.0)
    # 3 lines fit under y = x at width 0.40 ...
    assert canvas.free_box(fig, FRAME, 3, 0.40, corners=("lower right",)) is not None
    # ... 12 lines (0.6 NDC tall) do not: the diagonal is at NDC y ~0.45 where such a box begins
    assert canvas.free_box(fig, FRAME, 12, 0.40, corners=("lower right",)) is None
    fig.close()


def test_markers_and_error_bars_count_as_data():
    fig = canvas.figure("t3", FRAME, cms_pos=0)
    canvas.add_error_points(fig, "pts", np.array([0.8]), np.array([0.5]), np.array([0.45]), "Points", marker_color=1)
    # the error bar spans y 0.05-0.95 at x = 0.8: no box on the right side, either corner
    assert canvas.free_box(fig, FRAME, 2, 0.3, corners=("lower right", "upper right")) is None
    assert canvas.free_box(fig, FRAME, 2, 0.3, corners=("lower left",)) is not None
    fig.close()


def test_boxed_figure_lowers_the_frame_by_the_legend_rows_only_when_no_place_is_free():
    """Data in every place of the frame: the legend alone (the context to the caption) in columns
    right above the frame, which is lowered by its rows only: still >= 5 cm at 8 cm width."""
    def draw(fig, frame):
        for k, y in enumerate(np.linspace(0.05, 0.95, 10)):  # horizontal lines everywhere, three labelled
            canvas.add_graph(fig, f"l{k}", np.array([0.0, 1.0]), np.array([y, y]), f"Line {k}" if k < 3 else None, line_color=1)

    fig = canvas.boxed_figure(lambda fr: canvas.figure("t4", fr, cms_pos=0), [FRAME], draw, ["context line"])
    p = fig.canvas
    legend = next(o for o in p.GetListOfPrimitives() if o.InheritsFrom("TLegend"))
    assert legend.GetNColumns() == 3 and legend.GetNRows() == 1  # three short labels side by side
    assert legend.GetY1() >= 1 - p.GetTopMargin() and legend.GetY2() == pytest.approx(0.93)  # under the CMS label line
    assert p.GetTopMargin() == pytest.approx(0.07 + 1.3 * canvas.LINE_HEIGHT[0] + canvas.BOX_INSET / 2)
    assert (1 - p.GetTopMargin() - p.GetBottomMargin()) * 8.0 >= 5.0  # the frame at 8 cm width
    assert fig.caption == ["context line"]
    fig.close()


def test_legend_above_a_drawn_figure_is_the_figure_drawn_after_it(tmp_path):
    """legend_above on the figure already drawn (boxed_figure's last resort: one canvas built, not
    two) gives the canvas it gives when the data are drawn after the margin moved, as ROOT's JSON
    and as pixels."""
    import re

    from pnetviz.draw.layout import legend_above
    from pnetviz.rootenv import root

    def draw(fig):
        for k, y in enumerate(np.linspace(0.05, 0.95, 10)):
            canvas.add_graph(fig, f"l{k}", np.array([0.0, 1.0]), np.array([y, 0.3 * y]), f"Line {k}" if k < 4 else None, line_color=1 + k)
        canvas.add_band(fig, "band", np.array([0.6, 1.0]), np.zeros(2), np.ones(2), "Region", band_color=2, alpha=0.2)

    def json(fig) -> str:
        return re.sub(r"_[0-9a-f]{8}(?=[\"_])", "", str(root().TBufferJSON.ToJSON(fig.canvas)))

    after = canvas.figure("above", FRAME, cms_pos=0)
    legend_above(after, ["Line 0", "Line 1", "Line 2", "Line 3", "Region"], lambda: draw(after))
    drawn = canvas.figure("above", FRAME, cms_pos=0)
    draw(drawn)
    legend_above(drawn, ["Line 0", "Line 1", "Line 2", "Line 3", "Region"], lambda: None)
    try:
        assert json(drawn) == json(after)
        after.canvas.SaveAs(str(tmp_path / "after.png"))
        drawn.canvas.SaveAs(str(tmp_path / "drawn.png"))
        assert (tmp_path / "after.png").read_bytes() == (tmp_path / "drawn.png").read_bytes()
    finally:
        after.close()
        drawn.close()


def test_boxed_figure_drops_the_context_before_it_gives_up_a_free_corner():
    """Room for the legend alone in the lower right: the legend goes there, the context to the caption."""
    def draw(fig, frame):
        _line(fig, [0.0, 0.55, 1.0], [0.3, 0.3, 0.3], key="low")
        _line(fig, [0.0, 1.0], [0.62, 0.62], key="high")
        _line(fig, [0.0, 0.3], [0.2, 0.2], key="left")

    context = ["a long context line that says which signal point", "and another context line of some length", "and a third"]
    fig = canvas.boxed_figure(lambda fr: canvas.figure("t4b", fr, cms_pos=0), [FRAME], draw, context)
    legend = next(o for o in fig.canvas.GetListOfPrimitives() if o.InheritsFrom("TLegend"))
    assert legend.GetNRows() == 3 and fig.caption == context
    assert legend.GetY2() < 0.4  # under the line at y = 0.3 (NDC ~0.38)
    fig.close()


def test_boxed_figure_keeps_the_box_in_the_frame_when_there_is_room():
    fig = canvas.boxed_figure(lambda fr: canvas.figure("t5", fr, cms_pos=0), [FRAME],
                              lambda f, fr: _line(f, [0.0, 1.0], [0.9, 0.9]), ["context"])  # fmt: skip
    p = fig.canvas
    assert p.GetTopMargin() == pytest.approx(0.07)  # cmsstyle's own: no header
    legend = next(o for o in p.GetListOfPrimitives() if o.InheritsFrom("TLegend"))
    assert legend.GetNRows() == 2 and legend.GetY2NDC() < 0.5
    fig.close()


def test_first_empty_box_agrees_with_a_brute_force_search_over_the_points():
    """layout._first_empty (a boolean grid sliced per box) against the definition: the first box
    whose widened extent, in whole grid cells, holds no point's cell."""
    from pnetviz.draw import layout

    n, gap = layout.GRID_CELLS, 0.006
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(400):
        points = rng.random((int(rng.integers(0, 40)), 2)) * 1.2 - 0.1
        cells = np.clip((points * n).astype(int), 0, n - 1)
        boxes = []
        for _ in range(int(rng.integers(1, 8))):
            x1, y1 = rng.random(2) * 1.1 - 0.05
            boxes.append((x1, y1, x1 + rng.random() * 0.4, y1 + rng.random() * 0.4))

        def empty(box):
            i1, j1 = (min(max(int(np.floor((v - gap) * n)), 0), n) for v in box[:2])
            i2, j2 = (min(max(int(np.floor((v + gap) * n)) + 1, 0), n) for v in box[2:])
            return not np.any((cells[:, 0] >= i1) & (cells[:, 0] < i2) & (cells[:, 1] >= j1) & (cells[:, 1] < j2))

        expected = next((b for b in boxes if empty(b)), None)
        found += expected is not None
        assert layout._first_empty(layout.occupancy(points), boxes) == expected
    assert 50 < found < 390  # both outcomes exercised


@pytest.mark.parametrize("logy", [False, True])
def test_occupancy_kernel_sets_exactly_the_cells_of_the_sampled_points(logy):
    """layout.drawn_occupancy (segments sampled and cells set in C++, macros/occupancy.h) against
    numpy: the cells of sampling.drawn_points, which samples the same lines every SAMPLE_STEP.
    Lines (a curve leaving the frame, a steep one, a constant one), markers with error bars, a
    histogram and a TLine, on a linear and a log y axis: the two grids are equal cell for cell."""
    from pnetviz.draw import layout, sampling

    frame = canvas.Frame((0.0, 1.0), (1e-3, 10.0), "x", "y", logy=True) if logy else FRAME
    fig = canvas.figure("occ", frame, cms_pos=0, extra_space=0.03 if logy else 0.0)
    x = np.linspace(0.0, 1.0, 301)
    _line(fig, x, 0.5 + 0.6 * np.sin(9 * x), "wave")  # leaves the frame above and below
    _line(fig, [0.1, 0.1001, 0.9], [0.002, 0.95, 0.3], "steep")
    _line(fig, [-0.3, 0.4], [0.3, 0.35], "from the left")  # its part left of the frame is no data in it
    canvas.add_error_points(fig, "pts", np.linspace(0.05, 0.95, 12), np.linspace(0.2, 0.8, 12), np.full(12, 0.05), "Points",
                            marker_color=2)  # fmt: skip
    canvas.add_line(fig, 0.0, 0.01, 1.0, 0.9)
    lay = layout.Layout(canvas.margins_of(fig.pads[0]), 1.0, sampling.drawn_items(fig))
    points = sampling.drawn_points(None, frame, items=lay.items, margins=lay.margins)
    n = layout.GRID_CELLS
    expected = np.zeros((n, n), dtype=bool)
    cells = np.clip((points * n).astype(np.int64), 0, n - 1)
    expected[cells[:, 0], cells[:, 1]] = True
    grid = layout.drawn_occupancy(lay, frame)
    bits = np.unpackbits(grid.view(np.uint8), axis=1, bitorder="little")[:, :n].astype(bool)
    assert points.shape[0] > 1000 and expected.sum() > 500
    assert np.array_equal(bits, expected)
    assert np.array_equal(grid, layout.occupancy(points))
    fig.close()


def test_a_roc_without_room_beside_its_chance_line_is_the_same_figure_drawn_without_it():
    """boxed_figure's frame equal to the first (curve_figure's diagonal): where the box has room
    only without the chance line, the figure is the first one with the line taken off its pad,
    which is what drawing it again without the line gives: the same primitives, the same legend
    box; with room beside the line, the line stays."""
    from pnetviz.draw import plots

    x = np.linspace(0.0, 1.0, 50)
    curves = [plots.CurveSpec("roc/test", x, np.sqrt(x), "Test", 1, 2)]
    many = [f"context line {i}" for i in range(9)]  # a box too tall for the lower right beside the line

    def names(fig):
        return [(o.ClassName(), o.GetName().split("_")[0]) for o in fig.pads[0].GetListOfPrimitives()]

    def legend(fig):
        leg = next(o for o in fig.pads[0].GetListOfPrimitives() if o.InheritsFrom("TLegend"))
        return [round(v, 9) for v in (leg.GetX1NDC(), leg.GetY1NDC(), leg.GetX2NDC(), leg.GetY2NDC())], leg.GetNRows()

    removed = plots.roc_figure("roc_many", curves, many)
    frame = canvas.Frame((0.0, 1.0), (0.0, 1.02), plots.quantity("background_efficiency"), plots.quantity("signal_efficiency"))
    redrawn = plots.curve_figure("roc_many", frame, curves, many,
                                 corners=("lower right",))  # fmt: skip
    try:
        assert not any(n == "reference" for _, n in names(removed)) and removed.optional == []
        assert [n for n in names(removed) if n[0] != "TLatex"] == [n for n in names(redrawn) if n[0] != "TLatex"]
        assert legend(removed) == legend(redrawn) and legend(removed)[1] == 10
    finally:
        removed.close()
        redrawn.close()
    kept = plots.roc_figure("roc_few", curves, ["one line"])
    try:
        assert any(n == "reference" for _, n in names(kept))
    finally:
        kept.close()


def test_a_roc_whose_context_fits_nowhere_gets_its_legend_alone_where_the_chance_line_is_not():
    """The same frame without the chance line, not built when its predicted drawing has no room
    for the context either: built later for the legend alone (the context goes to the caption),
    and built without the line: the legend inside the frame, not above it."""
    from pnetviz.draw import plots

    x = np.linspace(0.0, 1.0, 200)  # curves hugging the upper left and the lower right: free space on the diagonal only
    curves = [plots.CurveSpec("roc/a", x, x ** 0.2, "Upper model", 1), plots.CurveSpec("roc/b", x, x ** 4, "Lower model", 2),
              plots.CurveSpec("roc/c", x, x ** 0.2, "Upper model 0", 3)]  # fmt: skip
    context = [f"a long context line number {i} of this figure" for i in range(16)]  # fits no corner
    fig = plots.roc_figure("roc_alone", curves, context)
    try:
        names = [o.GetName() for o in fig.pads[0].GetListOfPrimitives()]
        leg = next(o for o in fig.pads[0].GetListOfPrimitives() if o.InheritsFrom("TLegend"))
        assert fig.caption == context and leg.GetNRows() == 3
        assert not any(n.startswith("reference_line") for n in names)
        assert leg.GetY2() < 1 - fig.pads[0].GetTopMargin()  # inside the frame (the legend's NDC)
    finally:
        fig.close()


def test_no_candidate_box_reaches_past_the_frames_right_edge():
    """A box as wide as 0.80 of the pad in a frame 0.775 wide (left 0.175, right 0.05: a figure with
    extra_space): no corner offers it (the upper-left one reached 0.36 cm past the frame's right
    edge at 8 cm: figure lint's legend rule); a narrower one stays inside in every corner."""
    from pnetviz.draw import layout

    margins = (0.175, 0.05, 0.13, 0.07)
    corners = ("upper left", "upper right", "upper center", "lower center", "anywhere")
    assert layout._boxes(margins, 1.0, 6, 0.80, corners) == ()
    boxes = layout._boxes(margins, 1.0, 3, 0.40, corners)
    assert boxes and all(b[0] >= 0.175 and b[2] <= 0.95 + 1e-9 for b in boxes)
