"""The iso-accuracy line the seed's lecture notes ask for (002: A = (P TPR + N TNR)/(P + N), lines of
slope N/P, the optimum where the highest one touches the ROC convex hull): drawn through the
optimum of the ROC with --hull, every point of it at the optimum's accuracy, no hull vertex above
it, and ending on the frame's edges."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import plots
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.metrics import hep
from pnetviz.metrics.prevalence import optimal_operating_point
from pnetviz.metrics.roc import binary_clf_curve


@pytest.mark.parametrize("signal_share", [0.5, 0.2])
def test_iso_accuracy_line_touches_the_hull_at_the_optimum(signal_share):
    rng = np.random.default_rng(11)
    n = 4000
    y = rng.random(n) < signal_share
    s = np.clip(rng.normal(np.where(y, 0.65, 0.4), 0.15), 0, 1)
    w = rng.uniform(0.5, 1.5, n)
    curve = binary_clf_curve(s, y, w)
    hull = hep.convex_hull(curve)
    P, N = w[y].sum(), w[~y].sum()
    best = optimal_operating_point(hull, P, N)
    spec = plots.CurveSpec("roc/test", curve.fpr, curve.tpr, "Test", 1, 2)
    with cms_style(StyleOptions()):
        fig = plots.roc_figure("roc_curve", [spec], ["toy"],
                               hull=("roc/test", hull.fpr, hull.tpr, (best["eps_b"], best["eps_s"], best["prevalence"], best["accuracy"])))
    line = next(o for o in fig.extras if o.InheritsFrom("TGraph") and o.GetTitle().startswith("Iso-accuracy line"))
    x = np.frombuffer(line.GetX(), count=line.GetN()).copy()
    t = np.frombuffer(line.GetY(), count=line.GetN()).copy()
    accuracy = (P * t + N * (1 - x)) / (P + N)  # seed 002's A along the line
    np.testing.assert_allclose(accuracy, best["accuracy"], rtol=1e-9)
    assert np.polyfit(x, t, 1)[0] == pytest.approx(N / P, rel=1e-9)  # slope N/P
    on_hull = (P * hull.tpr + N * (1 - hull.fpr)) / (P + N)
    assert on_hull.max() == pytest.approx(best["accuracy"], rel=1e-12)  # the highest line touching the hull
    ends = [(x[0], t[0]), (x[-1], t[-1])]
    assert all(min(abs(a), abs(a - 1.0), abs(b), abs(b - 1.02)) < 1e-9 for a, b in ends)  # on the frame's edges
    assert f"A = {best['accuracy']:.3f}" in line.GetTitle()
    fig.close()
