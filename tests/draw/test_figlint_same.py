"""The linter reads a histogram's draw option as drawn_items does, without its "SAME": a histogram
drawn "HIST SAME" is its steps (its error bars are not drawn, so they cannot cross a legend),
one drawn "E SAME" its markers and error bars."""

from __future__ import annotations

import pytest

import figlint
from test_figure_lint import _canvas, _cms_label, _frame, _legend
from pnetviz.rootenv import root


@pytest.mark.parametrize("option, crossed", [("HIST SAME", False), ("SAMEHIST", False), ("E SAME", True), ("SAME E1", True)])
def test_undrawn_error_bars_do_not_cross_a_legend(option: str, crossed: bool) -> None:
    ROOT, keep = root(), []
    c = _canvas(ROOT, f"same_{len(option)}_{crossed}")
    keep += [c, _frame(ROOT, c)]
    hist = ROOT.TH1D(f"h_{option.replace(' ', '_')}", "", 4, 0.0, 1.0)
    hist.SetDirectory(0)
    for i in range(1, 5):  # steps at y 0.5 (NDC 0.51), error bars up to 0.8 (NDC 0.74)
        hist.SetBinContent(i, 0.5)
        hist.SetBinError(i, 0.3)
    hist.SetStats(False)
    hist.Draw(option)
    keep.append(hist)
    _cms_label(ROOT, keep)
    _legend(ROOT, keep, (0.20, 0.62, 0.60, 0.80), [(hist, "Signal")])
    found = [(rule, obj.split(" / ")[0]) for rule, obj, _ in figlint.lint_canvas(c)]
    assert (("data", "legend") in found) == crossed, found
    c.Close()
