"""Two weighted samples' shapes compared in one binning: equal-population edges and the
weighted-weighted chi2 (Gagunashvili; ROOT's TH1::Chi2Test "WW"), pure computations on arrays
(the deployed-fold check, jobs.deployedfold, bins the train and test splits' scores with them)."""

from __future__ import annotations

import numpy as np

from pnetviz.rootenv import root


def equal_population_edges(values: np.ndarray, bins: int = 10) -> np.ndarray:
    """At most `bins` bins, edges at the quantiles of `values` (repeated edges merged); the outer
    edges just outside the extremes, so every value falls inside."""
    edges = np.unique(np.quantile(np.asarray(values, float), np.linspace(0.0, 1.0, bins + 1)))
    if edges.size < 2:
        edges = np.array([edges[0] - 0.5, edges[0] + 0.5])
    edges[0], edges[-1] = np.nextafter(edges[0], -np.inf), np.nextafter(edges[-1], np.inf)
    return edges


def chi2_shapes(a: np.ndarray, wa: np.ndarray, b: np.ndarray, wb: np.ndarray, edges: np.ndarray) -> dict:
    """chi2 = sum_i (W_a w_bi - W_b w_ai)^2 / (W_a^2 s_bi^2 + W_b^2 s_ai^2) over the bins where a
    histogram has an entry (w: sum of weights in the bin, s^2: sum of squared weights, W: the
    totals), ndf = those bins - 1, p from the chi2 distribution: are the two shapes the same?"""
    w_a, _ = np.histogram(a, edges, weights=wa)
    w_b, _ = np.histogram(b, edges, weights=wb)
    s_a, _ = np.histogram(a, edges, weights=np.square(wa))
    s_b, _ = np.histogram(b, edges, weights=np.square(wb))
    total_a, total_b = float(w_a.sum()), float(w_b.sum())
    used = (s_a > 0) | (s_b > 0)
    ndf = int(used.sum()) - 1
    if ndf < 1 or total_a <= 0 or total_b <= 0:
        return {"chi2": None, "ndf": max(ndf, 0), "p_value": None}
    chi2 = float(np.sum((total_a * w_b[used] - total_b * w_a[used]) ** 2
                        / (total_a**2 * s_b[used] + total_b**2 * s_a[used])))  # fmt: skip
    return {"chi2": chi2, "ndf": ndf, "p_value": float(root().Math.chisquared_cdf_c(chi2, ndf))}
