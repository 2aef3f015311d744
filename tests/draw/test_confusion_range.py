"""Confusion fractions on a fixed z range [0, 1] (issue 33 item 5): one colour means one fraction
in every model; the counts keep a range from their data."""

from __future__ import annotations

import numpy as np

from pnetviz.draw import plots
from pnetviz.draw.style import StyleOptions, cms_style
from pnetviz.metrics.evaluate import Confusion


def test_fractions_span_0_to_1_and_counts_follow_the_data():
    normalised = np.array([[0.82, 0.18], [0.31, 0.69]])
    counts = np.array([[820.0, 180.0], [310.0, 690.0]])
    confusion = Confusion(labels=("Signal", "Background"), counts=counts, weighted=counts, normalised=normalised)
    with cms_style(StyleOptions()):
        figs = plots.confusion_figures("confusion_matrix", confusion, ["Run1E2Mu"])
    try:
        fractions, events = (fig.objects[key] for fig, key in zip(figs, ("confusion/test_normalised", "confusion/test_counts")))
        assert (fractions.GetMinimum(), fractions.GetMaximum()) == (0.0, 1.0)
        assert fractions.GetMaximum() != normalised.max()  # not the largest fraction (0.82)
        assert events.GetMinimum() == 0.0 and events.GetMaximum() >= 820.0
    finally:
        for fig in figs:
            fig.close()
