"""The round's answer (issue 52, item 4): the campaign's expected limits per channel, signal
point, model, pair and strategy (summary.limitsrows reads them from each model's
`folds/limits.json`), as campaign_limits.csv / .tex / .json and campaign_limits_leaderboard.csv,
with the leaderboard and the binary vs multi-class verdicts (summary.limitsboard) and the maps
(summary.limitsmaps); hooked into summary.summary.write like the fit-binning table.
"""

from __future__ import annotations

import math

from pnetviz import escape
from pnetviz.metrics.rounding import asymmetric, pm
from pnetviz.names import symbol
from pnetviz.output.report import dumps, plain
from pnetviz.summary import limitsboard, limitsmaps
from pnetviz.summary.limitsboard import COMPARED_FIELDS, verdict_line  # noqa: F401 - callers use limits.*
from pnetviz.summary.latex import _label_key, _mass_cells, channel_tex, label_tex
from pnetviz.summary.limitsrows import (CONVENTION, FIELDS, FILE, MISSING, OK, STRATEGIES, natural_key, rows,  # noqa: F401 - callers use limits.*
                                        strategy_key)


def section(data: dict) -> dict:
    """The campaign's expected-limit section from its summary data (`jobs`): the rows (sorted,
    limitsrows.row_key), the leaderboard and the binary vs multi-class verdicts (summary.limitsboard)."""
    found = rows(data)
    return {"rows": found, "leaderboard": limitsboard.leaderboard(found),
            "binary_vs_multiclass": limitsboard.binary_vs_multiclass(found), "convention": CONVENTION}


def limit_tex(row: dict) -> str:
    """The median +- its fold spread, PDG-rounded ("--" without a limit)."""
    return pm(row.get("expected_limit"), row.get("expected_limit_fold_std"), "latex", fallback=".3g") or "--"


def band_tex(row: dict) -> str:
    """The +-1 sigma band as median^{+(p1 - median)}_{-(median - m1)}, PDG-rounded on the smaller side."""
    median, m1, p1 = (row.get(k) for k in ("expected_limit", "expected_limit_m1", "expected_limit_p1"))
    if not all(isinstance(v, float) and math.isfinite(v) for v in (median, m1, p1)):
        return "--"
    return asymmetric(median, p1 - median, median - m1, "latex", fallback=".3g")


def pair_tex(pair: str) -> str:
    """A pair as the tables name it: signal_vs_ttZ -> $t\\bar{t}Z$ (summary.latex labels), the weighted
    LR's weighted_lr_signal_vs_all -> wLR all; other names escaped."""
    if pair.startswith("weighted_lr_"):
        return "wLR " + label_tex(pair.removeprefix("weighted_lr_").removeprefix("signal_vs_"))
    return label_tex(pair.removeprefix("signal_vs_")) if pair else "--"


def channel_table(channel: str, rows: list[dict], number_of: dict[str, int]) -> list[str]:
    """One booktabs table float of a channel's rows (escape.latex on every name; failed and
    missing rows say so over the three number columns)."""
    caption = (rf"Expected 95\% CLs upper limit on the signal strength $\mu$ and expected discovery significance $Z$ "
               rf"in the {channel_tex(channel)} channel per model (B: binary, MC: multi-class pair or weighted LR (wLR), "
               rf"V: the model variant) and strategy: pooled out-of-fold templates, Asimov data = background sum "
               rf"(blind); median $\pm$ sample std of the per-fold medians, the $\pm1\sigma$ band of the median, "
               rf"digits by the PDG rule. Masses in GeV.")  # fmt: skip
    lines = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}",
             rf"\caption{{{caption}}}", rf"\label{{tab:pnetviz-limits-{_label_key(channel)}}}",
             r"\begin{tabular}{rrlllllll}", r"\toprule",
             f"{symbol('mhc', 'latex')} & {symbol('ma', 'latex')} & Kind & Pair & Var. & Strategy & Limit & "
             r"$\pm1\sigma$ band & $Z$ \\", r"\midrule"]  # fmt: skip
    for r in rows:
        cells = [_mass_cells(r["signal"]), "B" if r["kind"] == "binary" else "MC", pair_tex(r["pair"]),
                 f"V{number_of[r['variant']]}", escape.latex(r["strategy"]) or "--"]  # fmt: skip
        if r["status"] == OK:
            cells += [limit_tex(r), band_tex(r), pm(r.get("expected_significance"), r.get("expected_significance_fold_std"),
                                                    "latex", fallback=".3g") or "--"]  # fmt: skip
        else:
            cells.append(rf"\multicolumn{{3}}{{c}}{{{r['status']}}}")
        lines.append(" & ".join(cells) + r" \\")
    return [*lines, r"\bottomrule", r"\end{tabular}", r"\end{table}"]


def latex_table(sec: dict) -> str:
    """One table float per channel (channel_table), in the rows' order; the variants named below."""
    found = sec["rows"]
    variants = sorted({r["variant"] for r in found})
    number_of = {v: i + 1 for i, v in enumerate(variants)}
    lines = [r"% pnetviz: expected limits per strategy (issue 52); needs \usepackage{booktabs}"]
    for channel in dict.fromkeys(r["channel"] for r in found):
        lines += channel_table(channel, [r for r in found if r["channel"] == channel], number_of)
    if not found:
        lines.append(r"% no model of this round has expected limits (folds/limits.json)")
    if variants:
        names = "; ".join(f"V{number_of[v]}: \\texttt{{{escape.latex(v) or '(none)'}}}" for v in variants)
        lines.append(r"\begingroup\footnotesize\raggedright\noindent Model variants: " + names.replace("-", "-\\allowbreak ")
                     + r".\par\endgroup")  # fmt: skip
    return "\n".join(lines) + "\n"


def files(sec: dict) -> dict[str, str]:
    """campaign_limits.csv / .tex / .json and the leaderboard's CSV (summary.limitsboard)."""
    return {"campaign_limits.csv": escape.csv_table(sec["rows"], FIELDS),
            "campaign_limits.tex": latex_table(sec),
            "campaign_limits_leaderboard.csv": escape.csv_table(sec["leaderboard"], limitsboard.BOARD_FIELDS),
            "campaign_limits.json": dumps(plain(sec)) + "\n"}  # fmt: skip


def attach(data: dict) -> dict[str, str]:
    """The hook for summary.summary.write: the section into `data["limits"]` (maps, web report),
    the expected-limit verdict into each binary vs multi-class comparison, and the section's files."""
    data["limits"] = section(data)
    limitsboard.annotate(data.get("binary_vs_multiclass", []), data["limits"]["rows"])  # the comparison CSV's columns
    return files(data["limits"])


def figures(data: dict) -> list:
    """The section's maps (summary.limitsmaps)."""
    return limitsmaps.figures(data.get("limits") or section(data))
