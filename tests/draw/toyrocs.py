"""The two-ROC toy the drawing tests share: unit Gaussians 1.2 and 1.6 apart for the same events
(40% signal, weights uniform in [0.5, 1.5]), as exact weighted curves."""

from __future__ import annotations

import numpy as np

from pnetviz.metrics.curvesums import curve_sums
from pnetviz.metrics.roc import binary_clf_curve


def two_rocs(n: int, seed: int):
    """(ref, other, (ref's sums, other's sums)): the curves at separations 1.2 and 1.6 and their
    weighted sums (curvesums.curve_sums: the ratio bands' errors)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    w = rng.uniform(0.5, 1.5, n)
    s_ref, s_other = rng.normal(1.2 * y, 1), rng.normal(1.6 * y, 1)
    ref, other = binary_clf_curve(s_ref, y, w), binary_clf_curve(s_other, y, w)
    return ref, other, (curve_sums(ref, s_ref, y, w), curve_sums(other, s_other, y, w))
