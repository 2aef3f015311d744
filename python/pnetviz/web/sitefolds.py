"""The model page's per-fold metrics table: one row per fold (and pair), read from the fold sets'
summary_report.json, the numbers the campaign aggregates (issue 37, item 1)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import html
from pnetviz.io import readers
from pnetviz.metrics.rounding import pm

WORKING_POINTS = ("0.5", "0.9")
ABOVE_HULL = ("binned FIP (50 bins) above FIP2 (hull), which bounds it for a concave ROC: the ROC is not concave where "
              "the binning looks, or finite-sample noise (compare the binned FIP's error)")  # binned_fip_50_above_hull


def _num(value, fmt: str) -> str:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return format(value, fmt) if ok else ""


def _rejection(test: dict, wp: str) -> str:
    value = test.get("rejection", {}).get(wp)
    text = _num(value, ".3g")
    return f"&gt; {text}" if text and test.get("rejection_lower_limit", {}).get(wp) else text


def _metrics(report: dict) -> list[tuple[str, dict]]:
    """(pair, hep_metrics of that pair) of one fold report: binary (one pair) or multi-class."""
    hep = report.get("hep_metrics") if isinstance(report, dict) else None
    if not isinstance(hep, dict):
        return []
    if isinstance(hep.get("test"), dict):
        return [(str(report.get("background", "")), hep)]
    return [(str(pair), m) for pair, m in hep.items() if isinstance(m, dict) and isinstance(m.get("test"), dict)]


def fold_rows(set_dirs: Sequence[Path]) -> list[dict]:
    """Plain rows (fold, pair, auc, auc_error, rejection per working point, KS p, FIP2, binned FIP)."""
    rows = []
    for set_dir in set_dirs:
        if not set_dir.name.startswith("fold-"):
            continue
        try:
            report = readers.read_json(set_dir / "summary_report.json", "fold report", finite=False)
        except InputError:
            continue
        if not isinstance(report, dict):
            continue
        for pair, hep in _metrics(report):
            test, ot = hep["test"], hep.get("overtraining", {}) if isinstance(hep.get("overtraining"), dict) else {}
            rows.append({"fold": set_dir.name.removeprefix("fold-"), "pair": pair, "test": test,
                         "ks_signal": (ot.get("ks_signal") or {}).get("p_value"),
                         "ks_background": (ot.get("ks_background") or {}).get("p_value")})  # fmt: skip
    return rows


def fold_table(page, set_dirs: Sequence[Path]) -> str:
    """The per-fold table of a binary or multi-class model page (empty for others)."""
    rows = fold_rows(set_dirs)
    if not rows:
        return ""
    head = ("Fold", "Pair", "Test AUC", *(f"Rejection at &epsilon;<sub>s</sub> = {wp}" for wp in WORKING_POINTS),
            "KS p (signal)", "KS p (background)", "FIP2 (hull)", "Binned FIP (50 bins)")  # fmt: skip
    body = []
    for r in rows:
        t = r["test"]
        binned = pm(t.get("binned_fip_50"), t.get("binned_fip_50_error"), "html")
        above = t.get("binned_fip_50_above_hull") is True
        cells = (html(r["fold"]), html(r["pair"]), pm(t.get("auc"), t.get("auc_error"), "html"),
                 *(_rejection(t, wp) for wp in WORKING_POINTS), _num(r["ks_signal"], ".3g"), _num(r["ks_background"], ".3g"),
                 _num(t.get("fip2_hull"), ".3f"), f'{binned} <span class="flag" title="{html(ABOVE_HULL)}">&dagger;</span>' if above else binned)  # fmt: skip
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    header = "".join(f'<th data-sort="{i}">{h}</th>' for i, h in enumerate(head))
    flagged = sum(r["test"].get("binned_fip_50_above_hull") is True for r in rows)
    note = f'<p class="note">&dagger; ({flagged} of {len(rows)}): {html(ABOVE_HULL)}.</p>' if flagged else ""
    return (f'<h2>Per fold (test split, from each fold\'s summary_report.json)</h2><table id="folds" class="sortable">'
            f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>{note}")
