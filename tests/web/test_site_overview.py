"""The campaign overview's headline (issue 54): one sentence answering binary vs multi-class over
the round, rows by mass (MHc130_MA90 before MHc130_MA100), the best model named only where it is
significantly better than another model of its group."""

from __future__ import annotations

import re

from pnetviz.web import siteoverview


def entry(signal: str, kind: str, position: int, compatible: bool) -> dict:
    return {"channel": "Run3Mu", "signal": signal, "background": "ttZ", "kind": kind, "position": position,
            "compatible_with_best": compatible}  # fmt: skip


def compared(signal: str, diff: float, p_holm: float) -> dict:
    return {"channel": "Run3Mu", "signal": signal, "background": "ttZ", "auc_diff_mean": diff,
            "auc_diff_standard_error": 0.01, "auc_diff_p_holm": p_holm}  # fmt: skip


def test_the_verdict_sentence_counts_the_comparisons():
    none = siteoverview.summary_sentence([compared("MHc130_MA90", 0.01, 0.4), compared("MHc130_MA100", -0.01, 1.0)])
    assert "No significant difference between binary and multi-class in any of the 2 comparisons" in none
    some = siteoverview.summary_sentence([compared("A", 0.05, 0.01), compared("B", -0.05, 0.02), compared("C", 0.0, 0.9)])
    assert "multi-class better in 1 and binary better in 1 of the 3 binary vs multi-class comparisons" in some
    assert "no significant difference in the other 1" in some
    assert siteoverview.summary_sentence([]) == ""


def test_rows_by_mass_and_the_best_only_where_significant():
    data = {"leaderboard": [entry("MHc130_MA100", "multiclass", 1, True), entry("MHc130_MA100", "binary", 2, True),
                            entry("MHc130_MA90", "binary", 1, True), entry("MHc130_MA90", "multiclass", 2, False)],
            "binary_vs_multiclass": [compared("MHc130_MA100", 0.01, 0.5), compared("MHc130_MA90", -0.05, 0.01)]}  # fmt: skip
    html = siteoverview.headline(data, [])
    rows = html.split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]
    assert [re.search(r"Run3Mu / (\w+)</a>", r).group(1) for r in rows] == ["MHc130_MA90", "MHc130_MA100"]
    cells = [[c.split("</td>")[0] for c in r.split("<td>")[1:]] for r in rows]
    assert cells[0][2] == "binary" and cells[1][2] == "all compatible"  # MA90: binary significantly better than multi-class
    assert cells[1][3] == "binary" and cells[0][3] == "none"
    assert html.index('class="verdict"') < html.index("<table")
