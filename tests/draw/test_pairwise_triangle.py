"""The pairwise AUC matrix as its upper triangle (issue 33 item 5): AUC(i, j) = AUC(j, i) with the
score P_i/(P_i+P_j), so a (k-1) x (k-1) triangle, the signal's row on top, holds every pair once."""

from __future__ import annotations

import math

import numpy as np

from pnetviz.draw import plots
from pnetviz.draw.classplots import upper_triangle
from pnetviz.draw.matrices import UNDEFINED_CELL
from pnetviz.draw.style import StyleOptions, cms_style

FULL = np.array([[math.nan, 0.97, 0.91, 0.95],
                 [0.97, math.nan, 0.89, 0.75],
                 [0.91, 0.89, math.nan, 0.87],
                 [0.95, 0.75, 0.87, math.nan]])  # fmt: skip


def test_upper_triangle():
    tri = upper_triangle(FULL)
    assert tri.shape == (3, 3)
    assert tri[0].tolist() == [0.97, 0.91, 0.95] and tri[1, 1:].tolist() == [0.89, 0.75] and tri[2, 2] == 0.87
    assert np.isnan(tri[np.tril_indices(3, -1)]).all()


def test_stored_matrix_is_the_triangle_with_its_labels():
    labels = ("Signal", "Nonprompt", "Diboson", "ttX")
    with cms_style(StyleOptions()):
        fig = plots.pairwise_auc_figure("pairwise_auc", "pairwise_auc/test", FULL, labels, ["context"])
    try:
        h = fig.objects["pairwise_auc/test"]
        assert (h.GetNbinsX(), h.GetNbinsY()) == (3, 3)
        assert [h.GetXaxis().GetBinLabel(i) for i in (1, 2, 3)] == ["Nonprompt", "Diboson", "ttX"]
        assert [h.GetYaxis().GetBinLabel(j) for j in (3, 2, 1)] == ["Signal", "Nonprompt", "Diboson"]  # signal on top
        assert [h.GetBinContent(i, 3) for i in (1, 2, 3)] == [0.97, 0.91, 0.95]
        assert h.GetBinContent(1, 2) == UNDEFINED_CELL and h.GetBinContent(1, 1) == h.GetBinContent(2, 1) == UNDEFINED_CELL
        assert h.GetBinContent(3, 1) == 0.87
    finally:
        fig.close()
