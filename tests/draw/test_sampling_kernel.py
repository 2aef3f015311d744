"""The occupancy grid of what a pad drew, filled by one C++ call from the packed items
(sampling.pack_items, sampling.items_occupancy, macros/occupancy_items.h), against its numpy form
(the oracle: sampling.drawn_parts' NDC points and segments, then the grid of layout._grid): equal
bit for bit on linear and log axes, with non-finite values, points off a log axis, markers with and
without error bars, bars, histogram steps and TLines; the legend boxes found in them alike.
"""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import canvas, layout, sampling
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.rootenv import root

MARGINS = tuple(float(np.float32(v)) for v in (0.145, 0.05, 0.1433, 0.07))  # pad margins are Float_t
FRAMES = {
    "linear": canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y"),
    "shifted": canvas.Frame((-0.37, 1.21), (-0.2, 1.3), "x", "y"),
    "logy": canvas.Frame((0.0, 1.0), (1e-3, 10.0), "x", "y", logy=True),
    "logy_headroom": canvas.Frame((0.0, 1.0), (1e-3, 1e3), "x", "y", logy=True),  # the same start: error bars' log10 kept
    "logx": canvas.Frame((1e-4, 1.0), (0.0, 1.0), "x", "y", logx=True),
    "loglog": canvas.Frame((1e-4, 1.0), (1e-3, 10.0), "x", "y", logx=True, logy=True),
}


@pytest.fixture(autouse=True)
def _style():
    with cms_style(StyleOptions()):
        yield


def numpy_occupancy(items: list[tuple], frame: canvas.Frame, margins) -> np.ndarray:
    """The grid as draw.layout.drawn_occupancy made it before the kernel: drawn_parts in numpy,
    then the points and segments set by occupancy_fill (macros/occupancy.h)."""
    segments, xs, ys = sampling.drawn_parts(items, frame, margins)
    left, right, bottom, top = margins
    return layout._grid(segments, xs, ys, (left, 1 - right, bottom, 1 - top))


def kernel_occupancy(items: list[tuple], frame: canvas.Frame, margins) -> np.ndarray:
    grid = np.zeros((layout.GRID_CELLS, layout.GRID_WORDS), dtype=np.uint64)
    sampling.items_occupancy(sampling.pack_items(items), frame, margins, grid)
    return grid


def _synthetic_items(rng: np.random.Generator) -> list[tuple]:
    """Every kind of item, with NaN, inf, zeros and negatives (off a log axis), values outside the
    frames, a line of one point and one of none, markers without and with error bars."""
    x = np.sort(rng.uniform(-0.2, 1.2, 400))
    y = 0.5 + 0.7 * np.sin(11 * x) + rng.normal(0, 0.05, x.size)
    y[[3, 50, 51, 200]] = [np.nan, np.inf, -np.inf, 0.0]
    x[[100, 300]] = [np.nan, -1e-9]
    edges = np.linspace(0.0, 1.0, 31)
    c = rng.uniform(-0.1, 1.2, 30)
    mx, my = rng.uniform(0, 1, 60), rng.uniform(-0.05, 1.1, 60)
    mx[5], my[7] = np.nan, -np.inf
    low, high = my - rng.uniform(0, 0.3, 60), my + rng.uniform(0, 0.3, 60)
    low[9] = np.nan
    across = np.linspace(0.05, 0.95, 36)
    return [
        ("line", x, y),
        ("line", np.array([0.3]), np.array([0.4])),
        ("line", np.zeros(0), np.zeros(0)),
        ("line", np.repeat(edges, 2)[1:-1], np.repeat(c, 2)),  # histogram steps
        ("line", np.array([0.0, 1.0]), np.array([0.01, 0.9])),  # a TLine
        ("markers", mx, my, None, None),
        ("markers", mx[:30], my[:30], low[:30], high[:30]),
        ("markers", np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)),
        ("bars", across, np.minimum(0.0, np.repeat(c[:3], 12)), np.maximum(0.0, np.repeat(c[:3], 12))),
        ("bars", np.array([0.5, 0.6]), np.array([-0.2, 0.1]), np.array([np.nan, 0.5])),
    ]


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_kernel_grid_equals_the_numpy_grid_bit_for_bit(name):
    frame = FRAMES[name]
    for seed in range(4):
        items = _synthetic_items(np.random.default_rng(seed))
        expected = numpy_occupancy(items, frame, MARGINS)
        assert expected.any()
        assert np.array_equal(kernel_occupancy(items, frame, MARGINS), expected)
        for one in items:  # each item alone too (a kind's arrays empty, the others not)
            assert np.array_equal(kernel_occupancy([one], frame, MARGINS), numpy_occupancy([one], frame, MARGINS))


def test_no_items_and_items_off_the_frame_set_no_cell():
    frame = FRAMES["logy"]
    off = [("line", np.array([0.2, 0.8]), np.array([-1.0, 0.0])), ("markers", np.array([2.0]), np.array([1.0]), None, None),
           ("bars", np.array([0.5]), np.array([0.0]), np.array([-3.0]))]  # fmt: skip
    for items in ([], off):
        assert not kernel_occupancy(items, frame, MARGINS).any()
        assert not numpy_occupancy(items, frame, MARGINS).any()


def test_a_marker_sets_its_centre_and_corners_and_its_error_bar_the_cells_between():
    """A marker at the frame's centre: 5 cells (centre and corners +-MARKER_HALF); with an error
    bar from y 0.25 to 0.75 (NDC 0.3 to 0.7) the cells of its ERROR_SAMPLES points too."""
    frame, margins = FRAMES["linear"], (0.1, 0.1, 0.1, 0.1)
    bits = lambda grid: np.unpackbits(grid.view(np.uint8), axis=1, bitorder="little")[:, :layout.GRID_CELLS]  # noqa: E731
    alone = bits(kernel_occupancy([("markers", np.array([0.5]), np.array([0.5]), None, None)], frame, margins))
    h = round(sampling.MARKER_HALF * layout.GRID_CELLS)
    assert sorted(zip(*np.nonzero(alone))) == sorted((250 + i, 250 + j) for i, j in ((0, 0), (-h, -h), (-h, h), (h, -h), (h, h)))
    bar = bits(kernel_occupancy([("markers", np.array([0.5]), np.array([0.5]), np.array([0.25]), np.array([0.75]))], frame,
                                margins))  # fmt: skip
    column = np.nonzero(bar[250])[0]
    assert column.min() == 150 and column.max() == 350 and column.size == sampling.ERROR_SAMPLES + 1  # + the centre's own cell


def _figure_items(frame: canvas.Frame) -> tuple[canvas.Figure, layout.Layout]:
    """A figure holding every kind of primitive drawn_items reads: TGraph lines, a filled band,
    TGraphErrors and TGraphAsymmErrors markers, TH1 steps, TH1 with "E" and "P", a bar chart,
    TLines in data coordinates and in NDC (no data: left out)."""
    ROOT = root()
    fig = canvas.figure("kernel", frame, cms_pos=0)
    fig.canvas.cd()
    keep = []
    x = np.linspace(frame.x[0], frame.x[1], 120)
    y = 0.5 + 0.6 * np.sin(9 * np.linspace(0, 1, 120))
    y[10] = -0.5  # off a log y axis
    g = ROOT.TGraph(x.size, x, y)
    g.Draw("L SAME")
    band = ROOT.TGraph(4, np.array([0.2, 0.4, 0.4, 0.2]) * frame.x[1], np.array([0.1, 0.1, 0.3, 0.3]))
    band.Draw("F SAME")
    n = 15
    px, py = np.linspace(0.1, 0.9, n) * frame.x[1], np.linspace(0.05, 0.9, n)
    ge = ROOT.TGraphErrors(n, px, py, np.zeros(n), np.full(n, 0.04))
    ge.Draw("P SAME")
    ga = ROOT.TGraphAsymmErrors(n, px, py[::-1].copy(), np.zeros(n), np.zeros(n), np.full(n, 0.2), np.full(n, 0.01))
    ga.Draw("P SAME")
    gp = ROOT.TGraph(n, px, py * 0.5)
    gp.Draw("P SAME")
    for option in ("HIST", "E", "P", "B"):  # added with these options alone ("SAME" holds an E)
        h = ROOT.TH1D(canvas.unique("h"), "", 12, frame.x[0], frame.x[1])
        for i in range(1, 13):
            h.SetBinContent(i, 0.05 * i if i != 4 else 0.0)
            h.SetBinError(i, 0.02 * i)
        h.SetBarWidth(0.6)
        h.SetBarOffset(0.2)
        fig.canvas.GetListOfPrimitives().Add(h, option)
        keep.append(h)
    line = ROOT.TLine(frame.x[0], 0.01, frame.x[1], 0.95)
    line.Draw()
    ndc = ROOT.TLine(0.2, 0.2, 0.8, 0.8)
    ndc.SetNDC(True)
    ndc.Draw()
    fig.extras.extend([g, band, ge, ga, gp, *keep, line, ndc])
    items = sampling.drawn_items(fig)
    assert sorted({item[0] for item in items}) == ["bars", "line", "markers"]
    return fig, layout.Layout(canvas.margins_of(fig.pads[0]), 1.0, items)


@pytest.mark.parametrize("name", ["linear", "logy", "logx"])
def test_drawn_occupancy_of_a_figure_equals_the_numpy_grid(name):
    """drawn_occupancy of real primitives in their own frame and in the other frames (as
    boxed_figure predicts them), with the legend boxes the search finds in each."""
    fig, lay = _figure_items(FRAMES[name])
    try:
        for other in FRAMES.values():
            expected = numpy_occupancy(lay.items, other, lay.margins)
            grid = layout.drawn_occupancy(lay, other)
            assert np.array_equal(grid, expected)
            boxes = layout._corner_boxes(lay, 3, 0.3, (*layout.CORNERS, "anywhere"))
            assert layout._first_empty(grid, boxes) == layout._first_empty(expected, boxes)
        assert lay.packed is lay.packed  # packed once per layout, the error bars' inner values once per y start
        assert set(lay.packed.error_inners) == {(0.0, False), (-0.2, False), (1e-3, True)}  # 6 frames, 3 y starts
    finally:
        fig.close()


def test_uniform_bin_edges_are_numpys_linspace_bit_for_bit():
    """drawn_items' bin edges (sampling._linspace, numpy's arithmetic without its overhead) are
    np.linspace's doubles, signs of zero included, for ordinary, tiny, huge and reversed ranges."""
    rng = np.random.default_rng(7)
    cases = [(0.0, 1.0, 51), (-1.0, 1.0, 3), (-0.0, 0.0, 4), (1e-310, 3e-310, 7), (5.0, -5.0, 11), (0.1, 0.7, 2)]
    cases += [(float(a), float(a + w), int(n)) for a, w, n in zip(rng.normal(0, 100, 200), rng.exponential(10, 200),
                                                                  rng.integers(2, 400, 200))]  # fmt: skip
    for start, stop, num in cases:
        mine, numpy_ = sampling._linspace(start, stop, num), np.linspace(start, stop, num)
        assert mine.dtype == numpy_.dtype and np.array_equal(mine.view(np.uint64), numpy_.view(np.uint64)), (start, stop, num)


def test_drawn_items_reads_every_kind_of_primitive():
    """The items of _figure_items' primitives: graph lines and the band's closed outline, the
    y errors of a TGraphErrors (symmetric) and a TGraphAsymmErrors (low, high), none for a TGraph
    drawn "P", histogram steps, "E" and "P" markers at the centres of non-empty bins with
    content -+ error, 12 bar lines per bin, the TLine in data coordinates (the NDC one left out)."""
    fig, lay = _figure_items(FRAMES["linear"])
    fig.close()
    kinds = [item[0] for item in lay.items]
    assert kinds == ["line", "line", "markers", "markers", "markers", "line", "markers", "markers", "bars", "line"]
    graph, band, errors, asym, plain, steps, e, p, bars, line = lay.items
    assert np.array_equal(band[1], [0.2, 0.4, 0.4, 0.2, 0.2]) and np.array_equal(band[2], [0.1, 0.1, 0.3, 0.3, 0.1])
    assert np.array_equal(errors[3], errors[2] - 0.04) and np.array_equal(errors[4], errors[2] + 0.04)
    assert np.array_equal(asym[3], asym[2] - 0.2) and np.array_equal(asym[4], asym[2] + 0.01)
    assert plain[3] is None and plain[4] is None
    edges = np.linspace(0.0, 1.0, 13)
    contents = np.where(np.arange(1, 13) == 4, 0.0, 0.05 * np.arange(1, 13))
    assert np.array_equal(steps[1], np.repeat(edges, 2)[1:-1]) and np.array_equal(steps[2], np.repeat(contents, 2))
    shown = contents != 0
    for markers in (e, p):
        assert np.array_equal(markers[1], (0.5 * (edges[:-1] + edges[1:]))[shown])
        assert np.allclose(markers[3], (contents - 0.02 * np.arange(1, 13))[shown])
    assert bars[1].size == 12 * 12 and bars[1][0] == pytest.approx(0.2 / 12) and bars[1][11] == pytest.approx(0.8 / 12)
    assert np.array_equal(line[1], [0.0, 1.0]) and np.array_equal(line[2], [0.01, 0.95])
