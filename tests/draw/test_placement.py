"""Where the context and legend go: draw/canvas.py's free_box and boxed_figure on hand-made data.

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


def test_boxed_figure_falls_back_to_a_header_when_no_corner_is_free():
    def draw(fig, frame):
        for k, y in enumerate(np.linspace(0.05, 0.95, 10)):  # horizontal lines everywhere
            _line(fig, [0.0, 1.0], [y, y], key=f"l{k}")

    fig = canvas.boxed_figure(lambda fr: canvas.figure("t4", fr, cms_pos=0), [FRAME], draw, ["context line"])
    p = fig.canvas
    header = canvas.header_height(["context line"], ["Data"] * 10)
    assert p.GetTopMargin() == pytest.approx(header)  # stage 3: context and legend above the frame
    legends = [o for o in p.GetListOfPrimitives() if o.InheritsFrom("TLegend")]
    assert len(legends) == 1 and legends[0].GetY1() >= 1 - header
    fig.close()


def test_boxed_figure_keeps_the_box_in_the_frame_when_there_is_room():
    fig = canvas.boxed_figure(lambda fr: canvas.figure("t5", fr, cms_pos=0), [FRAME],
                              lambda f, fr: _line(f, [0.0, 1.0], [0.9, 0.9]), ["context"])  # fmt: skip
    p = fig.canvas
    assert p.GetTopMargin() == pytest.approx(0.07)  # cmsstyle's own: no header
    legend = next(o for o in p.GetListOfPrimitives() if o.InheritsFrom("TLegend"))
    assert legend.GetNRows() == 2 and legend.GetY2NDC() < 0.5
    fig.close()


def test_header_layout_side_by_side_only_when_both_fit():
    assert canvas.header_layout(["short"], ["Train", "Test"]) == (True, 1, 2)
    long_entry = "Nominal: AUC 0.925 #pm 0.035 (a long legend line)"
    side, columns, rows = canvas.header_layout(["m(H^{+}) = 100 GeV, m(A) = 95 GeV"], [long_entry] * 3)
    assert (side, columns, rows) == (False, 1, 4)


@pytest.mark.parametrize("ratio", [False, True])
def test_header_geometry_is_that_of_the_built_header_figure(ratio):
    """boxed_figure decides the header layouts from the frame candidate's drawing and the header
    figure's geometry without building it: that geometry is the built figure's, to the bit (pad
    margins are Float_t), and the items drawn are the same in both figures."""
    header = canvas.header_height(["context line"], [])
    ratio_frame = canvas.Frame(FRAME.x, (0.5, 1.5), FRAME.xtitle, "Ratio")
    if ratio:
        built = canvas.ratio_figure("t_hdr", FRAME, ratio_frame, header=header, extra_space=0.03)
        margins, scale = canvas.ratio_header_geometry(header, 0.03)
    else:
        built = canvas.header_figure("t_hdr", FRAME, header)
        margins, scale = canvas.header_margins(header), 1.0
    assert tuple(float(np.float32(m)) for m in margins) == canvas.margins_of(built.pads[0])
    assert scale == canvas.pad_scale(built, 0)
    candidate = canvas.figure("t_cand", FRAME, cms_pos=0)
    for fig in (built, candidate):
        _line(fig, [0.0, 0.5, 1.0], [0.2, 0.95, 0.3])
    a, b = canvas.drawn_items(built), canvas.drawn_items(candidate)
    assert len(a) == len(b) == 1 and all(np.array_equal(x, y) for x, y in zip(a[0][1:], b[0][1:]))
    layout = canvas.Layout(canvas.margins_of(built.pads[0]), scale, b)
    assert np.array_equal(canvas.drawn_points(None, FRAME, items=b, margins=layout.margins), canvas.drawn_points(built, FRAME))
    assert canvas.free_box(None, FRAME, 2, 0.3, layout=layout) == canvas.free_box(built, FRAME, 2, 0.3)
    built.close()
    candidate.close()
