"""draw.simplify: a drawn line within its tolerance of the exact one (brute force), canvas values,
and curve figures storing the exact curve beside the simplified drawn one."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw.simplify import canvas_values, drawn_points, frame_fractions, simplify


def _distance_to_polyline(px: np.ndarray, py: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Brute force: each point's distance to the nearest segment of the polyline (x, y)."""
    ax, ay, bx, by = x[:-1], y[:-1], x[1:], y[1:]
    dx, dy = bx - ax, by - ay
    qx, qy = px[:, None] - ax, py[:, None] - ay
    length2 = dx * dx + dy * dy
    t = np.clip(np.divide(qx * dx + qy * dy, length2, out=np.zeros_like(qx), where=length2 > 0), 0, 1)
    return np.hypot(qx - t * dx, qy - t * dy).min(axis=1)


CURVES = {
    "roc": lambda u, rng: (u, np.sqrt(u)),
    "noisy": lambda u, rng: (u, 0.5 + 0.05 * np.cumsum(rng.normal(size=u.size)) / np.sqrt(u.size)),
    "spiral": lambda u, rng: (0.5 + 0.4 * u * np.cos(20 * u), 0.5 + 0.4 * u * np.sin(20 * u)),
    "steps": lambda u, rng: (u, np.floor(u * 37) / 37),
}


@pytest.mark.parametrize("kind", sorted(CURVES))
@pytest.mark.parametrize("tolerance", [1e-3, 1e-2])
def test_every_point_within_tolerance_of_the_drawn_line(kind: str, tolerance: float) -> None:
    rng = np.random.default_rng(7)
    x, y = CURVES[kind](np.sort(rng.uniform(0, 1, 3000)), rng)
    keep = simplify(x, y, tolerance)
    assert keep[0] == 0 and keep[-1] == x.size - 1 and np.all(np.diff(keep) > 0)
    assert keep.size < x.size
    assert _distance_to_polyline(x, y, x[keep], y[keep]).max() <= tolerance * (1 + 1e-12)


def test_a_straight_line_keeps_its_ends_and_corners_stay() -> None:
    x = np.linspace(0, 1, 500)
    assert simplify(x, 2 * x, 1e-3).tolist() == [0, 499]
    corner = np.r_[np.linspace(0, 1, 100), np.ones(100)], np.r_[np.zeros(100), np.linspace(0, 1, 100)]
    keep = simplify(*corner, 1e-3)
    assert keep.tolist() == [0, 99, 199]  # the corner (1, 0) and both ends: nothing else is needed


def test_non_finite_points_are_kept_and_split_the_line() -> None:
    x = np.linspace(0, 1, 101)
    y = x.copy()
    y[50] = np.nan
    keep = simplify(x, y, 1e-3)
    assert keep.tolist() == [0, 49, 50, 51, 100]  # each finite run straight: its ends, and the break


def test_frame_fractions_on_linear_and_log_axes() -> None:
    assert frame_fractions(np.array([0.0, 0.5, 2.0]), (0.0, 2.0), False).tolist() == [0.0, 0.25, 1.0]
    assert np.allclose(frame_fractions(np.array([1.0, 10.0, 1000.0]), (1.0, 1000.0), True), [0, 1 / 3, 1])
    # a line straight on the log axis is straight in the frame: two points drawn
    x = np.linspace(0, 1, 200)
    assert drawn_points(x, 10 ** (3 * x), (0, 1), (1, 1000), logy=True).tolist() == [0, 199]
    # on a linear axis the same values bend: more are kept
    assert drawn_points(x, 10 ** (3 * x), (0, 1), (1, 1000)).size > 2


def test_canvas_values_single_precision_inside_its_range_only() -> None:
    v = np.array([0.1, 1 / 3, 123456.789, 0.0, 1e-40, 1e40, np.inf, -np.nan, -2.5e-3])
    out = canvas_values(v)
    assert out.dtype == np.float64 and out.flags.c_contiguous
    rounded = v[[0, 1, 2, 8]].astype(np.float32).astype(np.float64)
    assert out[[0, 1, 2, 8]].tolist() == rounded.tolist()
    assert out[[0, 1, 2, 8]].tolist() != v[[0, 1, 2, 8]].tolist()
    assert out[3] == 0.0 and out[4] == 1e-40 and out[5] == 1e40 and out[6] == np.inf and np.isnan(out[7])
    assert np.all(np.abs(out[[0, 1, 2, 8]] / v[[0, 1, 2, 8]] - 1) < 6e-8)


def _points(graph) -> tuple[np.ndarray, np.ndarray]:
    n = graph.GetN()
    return (np.frombuffer(graph.GetX(), dtype=np.float64, count=n).copy(),
            np.frombuffer(graph.GetY(), dtype=np.float64, count=n).copy())  # fmt: skip


def _drawn(pad, name: str):
    return next(o for o in pad.GetListOfPrimitives() if o.InheritsFrom("TGraph") and o.GetName() == name)


def test_canvas_draws_within_1e3_of_the_frame_and_the_file_keeps_the_exact_curve() -> None:
    from pnetviz.draw import plots
    from pnetviz.draw.style import StyleOptions, cms_style, color
    from pnetviz.metrics import folds
    from pnetviz.metrics.roc import vertices
    from toyrocs import two_rocs

    ref, other, (sums_ref, sums_other) = two_rocs(20000, 11)
    roc = [plots.CurveSpec("t/roc_a", ref.fpr, ref.tpr, "A", color("binary"), 1),
           plots.CurveSpec("t/roc_b", other.fpr, other.tpr, "B", color("multiclass"), 2)]  # fmt: skip
    ratio = folds.roc_ratio(other, ref, sums_other)
    panel = plots.RatioPanel("A", [plots.RatioSpec("t/ratio_a", folds.roc_ratio(ref, ref, sums_ref), color("binary"), 1, True),
                                   plots.RatioSpec("t/ratio_b", ratio, color("multiclass"), 2)])  # fmt: skip
    with cms_style(StyleOptions()):
        fig = plots.roc_figure("roc_simplified", roc, ["context"], ratio=panel)
        main, lower = fig.pads
        exact = vertices(ref.fpr, ref.tpr)
        stored_x, stored_y = _points(fig.objects["t/roc_a"])
        np.testing.assert_array_equal(stored_x, ref.fpr[exact])  # the file: the exact curve, bit for bit
        np.testing.assert_array_equal(stored_y, ref.tpr[exact])
        ok = np.isfinite(ratio.ratio)
        np.testing.assert_array_equal(_points(fig.objects["t/ratio_b"])[1], ratio.ratio[ok])
        for pad, name, (x, y) in ((main, "t_roc_a", (ref.fpr[exact], ref.tpr[exact])),
                                  (lower, "t_ratio_b", (ratio.x[ok], ratio.ratio[ok]))):  # fmt: skip
            dx, dy = _points(_drawn(pad, name))
            assert dx.size < x.size / 2  # the canvas holds far fewer points
            xlim, ylim = (pad.GetUxmin(), pad.GetUxmax()), (pad.GetUymin(), pad.GetUymax())
            fx, fy = frame_fractions(x, xlim, False), frame_fractions(y, ylim, False)
            gap = _distance_to_polyline(fx, fy, frame_fractions(dx, xlim, False), frame_fractions(dy, ylim, False))
            assert gap.max() < 1e-3 + 1e-6  # every exact point within 1e-3 of the frame of the drawn line
            assert np.all(dx.astype(np.float32).astype(np.float64) == dx)  # single precision values
        fig.close()


def _decimated_in_numpy(x: np.ndarray, y: np.ndarray, step: float) -> np.ndarray:
    """metrics.roc.decimate's rule in numpy (an independent oracle of its C++ mask)."""
    seg = np.abs(np.diff(x)) + np.abs(np.diff(y))
    bucket = np.floor(np.r_[0.0, np.cumsum(seg)] / step)
    crossing = np.flatnonzero(np.diff(bucket) != 0) + 1
    before_jump = crossing[seg[crossing - 1] > step / 2] - 1
    return np.unique(np.r_[0, crossing, before_jump, x.size - 1])


@pytest.mark.parametrize("kind", sorted(CURVES))
def test_decimate_keeps_the_points_of_its_rule(kind: str) -> None:
    from pnetviz.metrics.roc import decimate

    rng = np.random.default_rng(5)
    for n, step in ((3, 1e-2), (50, 1e-2), (3000, 1e-3), (20000, 2e-4)):
        x, y = CURVES[kind](np.sort(rng.uniform(0, 1, n)), rng)
        assert decimate(x, y, step).tolist() == _decimated_in_numpy(x, y, step).tolist()


@pytest.mark.parametrize("kind", sorted(CURVES))
def test_one_kernel_call_keeps_what_decimate_then_the_search_keep(kind: str) -> None:
    """simplify's single C++ call (decimate_mask + the search) keeps the points that
    metrics.roc.decimate at half the tolerance, then the search alone (simplify_line) over them,
    keep: the same arithmetic."""
    from pnetviz.metrics.roc import decimate
    from pnetviz.rootenv import compiled

    line = compiled('#include "simplify.h"', "simplify.h").pnetviz.simplify_line
    rng = np.random.default_rng(3)
    for n, tolerance in ((50, 1e-2), (3000, 1e-3), (20000, 2e-4)):
        x, y = CURVES[kind](np.sort(rng.uniform(0, 1, n)), rng)
        first = decimate(x, y, tolerance / 2)
        mask = np.zeros(first.size, dtype=np.uint8)
        line(np.ascontiguousarray(x[first]), np.ascontiguousarray(y[first]), first.size, tolerance / 2, mask)
        assert simplify(x, y, tolerance).tolist() == first[mask.view(bool)].tolist()
