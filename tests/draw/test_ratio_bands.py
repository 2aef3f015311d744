"""Issue 34 audit: ratio bands are stored unclipped (only the drawn copy is clipped to the axis),
and rejection-ratio bands are log-space (asymmetric, never below zero)."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import plots
from pnetviz.draw.style import StyleOptions, cms_style, color
from pnetviz.metrics import folds

X = np.linspace(0.1, 0.9, 9)


def test_rejection_ratio_band_is_log_space_and_positive_with_large_errors():
    eps_b = np.full(X.size, 0.01)
    ref = np.full(X.size, 0.02)
    err = np.linspace(0.001, 0.05, X.size)  # up to 5x the value: a linear band reaches -8
    r = folds.rejection_ratio_from_eps(X, eps_b, ref, err)
    d = err / eps_b
    assert r.ratio == pytest.approx(np.full(X.size, 2.0))
    assert r.low == pytest.approx(2.0 * np.exp(-d)) and r.high == pytest.approx(2.0 * np.exp(d))
    assert np.all(r.low > 0) and np.all(r.low < r.ratio) and np.all(r.ratio < r.high)


def test_stored_roc_ratio_band_is_unclipped():
    ratio = folds.ratio_to_reference(X, np.full(X.size, 0.5), np.full(X.size, 0.1), np.linspace(0.01, 1.5, X.size))
    r, e = 5.0, np.linspace(0.01, 1.5, X.size) / 0.1  # r - e reaches -10, r + e 20
    assert ratio.low == pytest.approx(r - e)
    curve = [plots.CurveSpec("t/roc_a", X, X, "A", color("binary"), 2),
             plots.CurveSpec("t/roc_b", X, np.sqrt(X), "B", color("multiclass"), 2)]
    ref = folds.ratio_to_reference(X, X, X, np.zeros(X.size))
    panel = plots.RatioPanel("A", [plots.RatioSpec("t/ratio_a", ref, color("binary"), 2, True),
                                   plots.RatioSpec("t/ratio_b", ratio, color("multiclass"), 2)])  # fmt: skip
    with cms_style(StyleOptions()):
        fig = plots.roc_figure("roc_band_check", curve, ["context"], ratio=panel)
        try:
            band = fig.objects["t/ratio_b_band"]
            n = band.GetN()
            ys = np.array([band.GetPointY(i) for i in range(n)])
            assert n == 2 * X.size
            assert ys[: X.size] == pytest.approx(r + e) and ys[X.size:] == pytest.approx((r - e)[::-1])
        finally:
            fig.close()
