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


def test_a_zero_cell_shows_its_number():
    """A fraction of exactly 0 (no nonprompt event predicted as diboson in a small fold): COLZ
    leaves the cell unpainted (white), so its "0.000" is black, not white on white; a small
    non-zero fraction on the palette's dark low end keeps white text."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    normalised = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.0, 0.3, 0.7]])
    labels = ("Signal", "Nonprompt", "Diboson")
    confusion = Confusion(labels=labels, counts=normalised * 100, weighted=normalised * 100, normalised=normalised)
    with cms_style(StyleOptions()):
        figs = plots.confusion_figures("confusion_matrix", confusion, ["Run1E2Mu"])
    try:
        texts = {(round(t.GetX(), 1), round(t.GetY(), 1)): t for t in figs[0].extras if t.InheritsFrom("TLatex") and t.GetX() > 0.1}
        zero, small = texts[(2.5, 2.5)], texts[(1.5, 2.5)]  # row Signal (top): P(Diboson) = 0, P(Nonprompt) = 0.1
        assert zero.GetTitle() == "0.000" and zero.GetTextColor() == root().kBlack
        assert small.GetTitle() == "0.100" and small.GetTextColor() == root().kWhite
    finally:
        for fig in figs:
            fig.close()
