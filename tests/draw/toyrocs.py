"""The two-ROC toy the drawing tests share: unit Gaussians 1.2 and 1.6 apart for the same events
(40% signal, weights uniform in [0.5, 1.5]), as exact weighted curves."""

from __future__ import annotations

import numpy as np

from pnetviz.metrics import hep
from pnetviz.metrics.roc import binary_clf_curve


def two_rocs(n: int, seed: int):
    """(ref, other, n_sig): the curves at separations 1.2 and 1.6 and the signal's effective events."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    w = rng.uniform(0.5, 1.5, n)
    ref, other = binary_clf_curve(rng.normal(1.2 * y, 1), y, w), binary_clf_curve(rng.normal(1.6 * y, 1), y, w)
    return ref, other, hep.effective_events(w[y])
