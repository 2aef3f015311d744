"""The web page of `pnetviz diff` (`index.html` in its output directory, self-contained): the
matched models' table (significant rows marked), the difference maps, each model's ROC and
rejection overlays, and the unmatched models. Every text from disk or a name is escaped
(escape.html), every link quoted (urllib.parse.quote). The page runs no script: its
Content-Security-Policy (CSP) allows its own inline style and the images beside it, nothing else."""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Sequence

from pnetviz.rounds.diff import Diff, bound_of
from pnetviz.summary.latex import interval_digits
from pnetviz.rounds.diffplots import overlay_prefix
from pnetviz.escape import html

PAGE = "index.html"
STYLE = ("body{font-family:sans-serif;margin:1.5em;max-width:80em}table{border-collapse:collapse;font-size:90%}"
         "td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}td.t{text-align:left}"
         "tr.sig{background:#fde6c8}figure{display:inline-block;margin:4px}img{border:1px solid #ddd}")  # fmt: skip
# no script, no fetch, no plugin, no form: a name that got past the escaping could not run anything
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'none'")  # fmt: skip
COLUMNS = (("channel", "Channel", None), ("signal", "Signal", None), ("kind", "Kind", None), ("pair", "Pair", None),
           ("variant", "Variant", None), ("folds", "Folds", None), ("auc_a_mean", "AUC A", ".4f"),
           ("auc_b_mean", "AUC B", ".4f"), ("delta_auc", "ΔAUC", "+.4f"), ("delta_auc_standard_error", "±", ".4f"),
           ("p_holm", "p Holm", ".2g"), ("error_method", "Error (ΔAUC)", None), ("delta_fip2", "ΔFIP2", "+.3f"), ("delta_fip2_standard_error", "±", ".3f"),
           ("delta_fip2_p_holm", "p Holm (FIP2)", ".2g"), ("rejection_ratio_0.5", "R(0.5) B/A", ".3f"),
           ("rejection_ratio_0.9", "R(0.9) B/A", ".3f"))  # fmt: skip


def cell(value: object, fmt: str | None, bound: str = "") -> str:
    """A table cell: text, a number in `fmt`, "> X"/"< X" for a bound, "–" without a number."""
    if fmt is None:
        return f'<td class="t">{html(value)}</td>'
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return "<td>–</td>"
    return f"<td>{html(bound + ' ' if bound else '')}{html(format(value, fmt))}</td>"


def ratio_cell(row: dict, key: str) -> str:
    """A rejection ratio B/A: r<sup>+u</sup><sub>-d</sub> (its fold interval, rounded as the web
    report's rejections), "&gt; r"/"&lt; r" for a bound, r alone without interval, "–" without r."""
    value, bound = row.get(key), bound_of(row, key)
    if bound or not isinstance(value, float):
        return cell(value, ".3f", bound)
    digits = interval_digits(value, row.get(f"{key}_lower"), row.get(f"{key}_upper"))
    return f"<td>{digits[0]}<sup>+{digits[1]}</sup><sub>&minus;{digits[2]}</sub></td>" if digits else cell(value, ".3f")


def image(stem: str, caption: str, width: int = 420) -> str:
    link = urllib.parse.quote(f"{stem}.png")
    return (f'<figure><a href="{link}"><img src="{link}" alt="{html(stem)}" width="{width}"></a>'
            f"<figcaption>{html(caption)}</figcaption></figure>")  # fmt: skip


def page(diff: Diff, names: tuple[str, str], maps: Sequence[str], with_images: bool) -> str:
    """The page's HTML; `maps`: the difference maps' figure names; `with_images`: PNGs written."""
    head = "".join(f"<th>{html(title)}</th>" for _, title, _ in COLUMNS)
    rows = []
    for row in diff.rows:
        mark = ' class="sig"' if row.get("significant") else ""
        rows.append(f"<tr{mark}>" + "".join(ratio_cell(row, k) if k.startswith("rejection_ratio_") else
                                             cell(row.get(k), fmt, bound_of(row, k)) for k, _, fmt in COLUMNS) + "</tr>")  # fmt: skip
    parts = [f"<h1>Round B vs round A</h1><p>A: <code>{html(names[0])}</code> ({html(diff.a)})<br>"
             f"B: <code>{html(names[1])}</code> ({html(diff.b)})</p>",
             f"<p>{len(diff.rows)} models matched, {sum(bool(r.get('significant')) for r in diff.rows)} with ΔAUC "
             f"significant after Holm's adjustment (α = {html(format(diff.alpha, 'g'))}, highlighted); "
             f"{len(diff.unmatched)} models of one round only. ΔAUC errors and p-values: {html('; '.join(sorted({r['error_method'] for r in diff.rows}))) if diff.rows else '–'} (per model: <code>pairing</code> in diff_models.csv). "
             '<a href="diff_models.csv">diff_models.csv</a> · <a href="diff_models.tex">diff_models.tex</a> · '
             '<a href="diff_unmatched.csv">diff_unmatched.csv</a> · <a href="diff.json">diff.json</a> · '
             '<a href="plots.root">plots.root</a></p>',
             f"<table><tr>{head}</tr>{''.join(rows)}</table>",
             "<p>R(0.5), R(0.9): the background rejection 1/mean(ε<sub>b</sub>) over the folds at ε<sub>s</sub> = 0.5, 0.9 "
             "(docs/statistics.md). B/A “&gt; X” or “&lt; X”: a bound, where one round's rejection is a 95% CL lower "
             "limit (no background passes in any fold); “–” where both rounds' are.</p>"]  # fmt: skip
    if with_images and maps:
        parts.append("<h2>Difference maps over the mass grid</h2>" + "".join(image(m, m) for m in maps))
    if with_images:
        overlays = [(i, r) for i, r in enumerate(diff.rows) if r.get("curves")]
        if overlays:
            parts.append("<h2>ROC and rejection curves, mean of the folds (A reference)</h2>")
        for i, r in overlays:
            what = f"{r['channel']} {r['kind']} {r['signal']} vs {r['pair']} ({r['variant']})"
            prefix = overlay_prefix(diff, i)
            parts.append(f"<h3>{html(what)}</h3>" + image(f"{prefix}roc_curve_folds", "ROC")
                         + image(f"{prefix}rejection_curve_folds", "rejection"))  # fmt: skip
    from pnetviz.rounds.difflimits import html_section  # noqa: PLC0415

    parts.append(html_section(diff.limits))
    parts.append("<h2>Models of one round only</h2>")
    if diff.unmatched:
        keys = ("round", "channel", "signal", "kind", "pair", "variant", "model", "folds", "why")
        parts.append("<table><tr>" + "".join(f"<th>{html(k)}</th>" for k in keys) + "</tr>"
                     + "".join("<tr>" + "".join(cell(u.get(k), None) for k in keys) + "</tr>" for u in diff.unmatched)
                     + "</table>")  # fmt: skip
    else:
        parts.append("<p>none: every model of each round has its match.</p>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{html(CSP)}"><title>pnetviz diff: {html(names[1])} vs '
            f"{html(names[0])}</title><style>{STYLE}</style></head>\n<body>{''.join(parts)}</body></html>\n")  # fmt: skip
