"""metrics.roc.vertices: a polyline's points without those inside axis-parallel straight runs,
checked on hand-worked polylines and against scikit-learn's ROC (whose drop_intermediate drops
the same points of an unweighted staircase)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_curve

from pnetviz.metrics.roc import binary_clf_curve, vertices


def test_hand_worked_polylines():
    x = np.array([0.0, 0.0, 0.0, 0.5, 1.0, 1.0])
    y = np.array([0.0, 0.3, 0.6, 0.6, 0.6, 1.0])
    assert vertices(x, y).tolist() == [0, 2, 4, 5]  # (0, 0.3) and (0.5, 0.6) lie inside a run
    back = np.array([0.0, 2.0, 1.0, 3.0])  # turns back on itself: the turning point is no inside point
    assert vertices(back, np.zeros(4)).tolist() == [0, 1, 2, 3]
    assert vertices(np.array([0.0, 1.0]), np.array([0.0, 1.0])).tolist() == [0, 1]
    slanted = np.array([0.0, 0.5, 1.0])  # straight, but not axis-parallel: kept (exact ties only)
    assert vertices(slanted, slanted).tolist() == [0, 1, 2]
    nan = np.array([0.0, np.nan, 0.0])
    assert vertices(np.array([0.0, 1.0, 2.0]), nan).tolist() == [0, 1, 2]


@pytest.mark.parametrize(("seed", "decimals"), [(1, None), (2, None), (3, 2)])
def test_a_staircase_roc_keeps_its_corners_only(seed, decimals):
    rng = np.random.default_rng(seed)
    n = 4000
    y = rng.random(n) < 0.3
    s = rng.normal(y * 1.0, 1.0)
    if decimals is not None:  # ties: slanted steps too, kept
        s = np.round(s, decimals)
    w = np.ones(n)
    curve = binary_clf_curve(s, y, w)
    keep = vertices(curve.fpr, curve.tpr)
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)  # every threshold
    assert keep.size < fpr.size / (2 if decimals is None else 1)
    assert keep.size <= roc_curve(y, s, drop_intermediate=True)[0].size  # as few as scikit-learn's plotted points
    x0, x1, y0, y1 = (a[:, None] for a in (curve.fpr[keep][:-1], curve.fpr[keep][1:], curve.tpr[keep][:-1], curve.tpr[keep][1:]))
    on = ((np.minimum(x0, x1) <= fpr) & (fpr <= np.maximum(x0, x1)) & (np.minimum(y0, y1) <= tpr) & (tpr <= np.maximum(y0, y1))
          & np.isclose((x1 - x0) * (tpr - y0), (y1 - y0) * (fpr - x0), rtol=0, atol=1e-15))  # fmt: skip
    assert on.any(axis=0).all()  # every point of scikit-learn's curve on the kept polyline
    area = np.trapezoid(curve.tpr[keep], curve.fpr[keep])
    assert area == pytest.approx(np.trapezoid(curve.tpr, curve.fpr), abs=1e-15)  # the same line
