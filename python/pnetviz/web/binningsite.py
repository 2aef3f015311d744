"""The web report's section on the binning for the fit (issue 39): the binned sensitivity per
model and pair at the chosen K, and the binary vs multi-class difference with its standard error
(summary.binningtable), appended to the overview page by web.site."""

from __future__ import annotations

from pnetviz.summary import binningtable
from pnetviz.web.parts import _number, _table
from pnetviz.escape import html
from pnetviz.metrics.rounding import pm


def section(data: dict) -> str:
    """The section's HTML: two sortable tables, every cell escaped."""
    sec = data.get("fit_binning") or binningtable.section(data)
    head = ("Channel", "Signal", "Kind", "Model", "Pair", "Score", "K", "Binned FIP (mean &plusmn; std over folds)", "Optimism (train &minus; test)",
            "Efficiency", "Folds")  # fmt: skip
    rows = [(html(r["channel"]), html(r["signal"]), html(r["kind"]), html(r["model"]), html(r["pair"]), html(r["score"]),
             html(r["k"] if r["k"] is not None else ""), pm(r["value_mean"], r["value_std"], "html"),
             _number(r["optimism_mean"], "+.4f"), _number(r["efficiency_mean"], ".3f"), html(r["folds"]))
            for r in sec["rows"]]  # fmt: skip
    chead = ("Channel", "Signal", "Background", "Binary (K)", "Multi-class (K)", "Multi-class &minus; binary (&plusmn; s.e.)",
             "p (corrected t)", "p (Holm)", "Folds")  # fmt: skip
    crows = [(html(c["channel"]), html(c["signal"]), html(c["background"]),
              f"{_number(c['value_binary_mean'])} ({html(c['k_binary'])})", f"{_number(c['value_multiclass_mean'])} ({html(c['k_multiclass'])})",
              pm(c["diff_mean"], c["diff_standard_error"], "html", sign=True),
              _number(c["diff_p_value"], ".3g"), _number(c.get("diff_p_holm"), ".3g"), html(c["folds"])) for c in sec["comparison"]]  # fmt: skip
    return ('<h2 id="fit-binning">Binning for the fit (binned FIP on the test split, edges chosen on train)</h2>'
            f"<p>{html(binningtable.CONVENTION)}. Maps: map_fit_binning_* above; files: campaign_fit_binning.csv, "
            "campaign_fit_binning_comparison.csv, campaign_fit_binning.tex.</p>"
            + _table("fit-binning", head, rows, "filter (e.g. Run3Mu binary)")
            + "<h3>Binary vs multi-class</h3>" + _table("fit-binning-compared", chead, crows))


def with_section(page: str, data: dict) -> str:
    """The overview page with the section appended at the end of its body."""
    head, sep, tail = page.rpartition("\n</body>")
    return f"{head}\n{section(data)}{sep}{tail}" if sep else page
