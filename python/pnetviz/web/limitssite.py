"""The web report's expected limits (issue 52, item 4): a section on the overview (per signal
point, the best model and strategy by expected limit, and whether binary or multi-class gives the
better one) and a page `limits.html` (the leaderboard, every model and strategy, the maps), from
the campaign's section (summary.limits). Every name from disk goes through escape.html."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pnetviz.escape import html
from pnetviz.metrics.rounding import asymmetric, pm
from pnetviz.summary import limits
from pnetviz.web.parts import TO_ROOT, _link, _number, _page, _table

PAGE = "limits.html"
VERDICT = {"binary": "<strong>binary</strong>", "multiclass": "<strong>multi-class</strong>", "tie": "tie", "missing": "missing"}


def _limit(row: dict) -> str:
    return pm(row.get("expected_limit"), row.get("expected_limit_fold_std"), "html", fallback=".3g")


def _band(row: dict) -> str:
    median, m1, p1 = (row.get(k) for k in ("expected_limit", "expected_limit_m1", "expected_limit_p1"))
    if not all(isinstance(v, (int, float)) for v in (median, m1, p1)):
        return ""
    return asymmetric(median, p1 - median, median - m1, "html", fallback=".3g")


def _model(row: dict, prefix: str = "") -> str:
    return " ".join(html(row.get(f"{prefix}{k}") or "") for k in ("model", "pair"))


def verdict_table(sec: dict) -> str:
    """Per channel and signal point: the best (rank 1) entry, and binary vs multi-class."""
    best: dict[tuple, dict] = {}
    for e in sec["leaderboard"]:  # the first of rank 1 (equal limits share it)
        best.setdefault((e["channel"], e["signal"]), e)
    head = ("Channel", "Signal", "Best (model, pair)", "Strategy", "Expected limit (&plusmn; fold std)", "Best / score-fit",
            "Better expected limit", "Multi-class / binary")  # fmt: skip
    rows = []
    for v in sec["binary_vs_multiclass"]:
        b = best.get((v["channel"], v["signal"]), {})
        ratio = v.get("ratio_multiclass_to_binary")
        rows.append((html(v["channel"]), html(v["signal"]), _model(b), html(b.get("strategy", "")), _limit(b),
                     _number(b.get("ratio_to_score_fit"), ".3f"), VERDICT[v["better_expected_limit"]],
                     pm(ratio, v.get("ratio_error"), "html", fallback=".3f")))  # fmt: skip
    return _table("limits-answer", head, rows)


def section(data: dict) -> str:
    """The overview's section ('' when no model has expected limits or a missing row)."""
    sec = data.get("limits") or limits.section(data)
    if not sec["rows"]:
        return ""
    missing = sum(r["status"] == limits.MISSING for r in sec["rows"])
    note = f" {missing} models have no folds/limits.json (listed as missing on the page)." if missing else ""
    return ('<h2 id="limits">The round\'s answer: expected limits</h2>'
            f"<p>Lowest expected 95% CLs limit on the signal strength per signal point over every model, pair and "
            f'strategy; binary vs multi-class by the best of each. Every number: <a href="{PAGE}">expected limits</a>.'
            f"{html(note)}</p>" + verdict_table(sec))  # fmt: skip


def with_section(page: str, data: dict) -> str:
    """The overview page with the section appended at the end of its body."""
    head, sep, tail = page.rpartition("\n</body>")
    return f"{head}\n{section(data)}{sep}{tail}" if sep else page


def rows_table(rows: Sequence[dict]) -> str:
    head = ("Channel", "Signal", "Kind", "Model", "Pair", "Strategy", "Status", "Expected limit (&plusmn; fold std)",
            "&plusmn;1&sigma; band", "Expected Z (&plusmn; fold std)", "Chosen on", "Folds", "Error")  # fmt: skip
    cells = [(html(r["channel"]), html(r["signal"]), html(r["kind"]), html(r["model"]), html(r["pair"]), html(r["strategy"]),
              html(r["status"]), _limit(r), _band(r),
              pm(r.get("expected_significance"), r.get("expected_significance_fold_std"), "html", fallback=".3g"),
              html(r.get("chosen_on") or ""), html(r.get("folds") or ""), html(r.get("error") or "")) for r in rows]  # fmt: skip
    return _table("limits-rows", head, cells, "filter (e.g. Run3Mu cut-and-mass)")


def board_table(board: Sequence[dict]) -> str:
    head = ("Channel", "Signal", "Rank", "Kind", "Model", "Pair", "Strategy", "Expected limit (&plusmn; fold std)",
            "Ratio to the best", "Ratio to its score-fit")  # fmt: skip
    cells = [(html(e["channel"]), html(e["signal"]), html(e["rank"]), html(e["kind"]), html(e["model"]), html(e["pair"]),
              html(e["strategy"]), _limit(e), _number(e.get("ratio_to_best"), ".3f"), _number(e.get("ratio_to_score_fit"), ".3f"))
             for e in board]  # fmt: skip
    return _table("limits-leaderboard", head, cells, "filter (e.g. MHc130_MA90)")


def maps_html(campaign_dir: Path) -> str:
    """The expected-limit maps of the campaign set (summary.limitsmaps), PNG or live view."""
    from pnetviz.web.parts import _figures  # noqa: PLC0415
    from pnetviz.web.sitepages import figure  # noqa: PLC0415

    names = [n for n in _figures(campaign_dir) if n.startswith("map_expected_limit_")]
    figs = "".join(figure("campaign", n, campaign_dir, TO_ROOT, 400, n, campaign_dir) for n in names)
    return f'<h2>Maps</h2><div class="figures">{figs}</div>' if figs else ""


def page(data: dict, campaign_dir: Path, jsroot: str) -> str:
    """limits.html: the verdicts, the leaderboard, every row and the maps."""
    sec = data.get("limits") or limits.section(data)
    body = ['<p><a href="index.html">campaign report</a></p><h1>Expected limits</h1>',
            f"<p>{html(limits.CONVENTION)}. Files: "
            + ", ".join(f'<a href="../{_link(n)}">{html(n)}</a>' for n in ("campaign_limits.csv", "campaign_limits.tex",
                                                                          "campaign_limits_leaderboard.csv", "campaign_limits.json"))
            + ".</p>",
            "<h2>Per signal point</h2>", verdict_table(sec),
            "<h2>Leaderboard (lowest expected limit first per channel and signal point)</h2>", board_table(sec["leaderboard"]),
            "<h2>Every model and strategy</h2>", rows_table(sec["rows"]), maps_html(campaign_dir)]  # fmt: skip
    return _page("pnetviz expected limits", "\n".join(body), jsroot, scripts=("site.js",))
