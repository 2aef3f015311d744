"""Round A vs round B by expected limit (issue 52, item 4): per model and strategy, matched by
(channel, signal point, kind, pair, variant, strategy) as `pnetviz diff` matches models (the
variant mapped through --rename), each round's expected limit from its campaign_limits.json
(summary.limits), the ratio B/A (below 1: round B expects a tighter limit) and its error from
the fold spreads (summary.limitsboard.RATIO_CONVENTION).

Nothing is dropped: a strategy one round has and the other has not is a row whose `missing` says
which round lacks it and `why` (no campaign_limits.json in that round: a round made before limits
existed; the model without folds/limits.json; the model absent; the fit failed there)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from pnetviz import escape
from pnetviz.io import readers
from pnetviz.io.layout import hyper_tag
from pnetviz.summary import limitsboard
from pnetviz.summary.limitsrows import MISSING, OK, natural_key, strategy_key

FILE = "campaign_limits.json"
KEY_FIELDS = ("channel", "signal", "kind", "pair", "variant", "strategy")
FIELDS = (*KEY_FIELDS, "m_hc", "m_a", "limit_a", "limit_a_fold_std", "limit_b", "limit_b_fold_std", "ratio_b_to_a",
          "ratio_error", "significance_a", "significance_b", "missing", "why")  # fmt: skip
FIX = "rerun `pnetviz campaign` for it (its campaign_limits.json was changed or damaged)"


def load(directory: Path) -> list[dict] | None:
    """The rows of a round's campaign_limits.json; None when the round has none (made before the
    expected limits); BadFile naming the file and the field for a damaged one."""
    path = Path(directory) / FILE
    doc = readers.read_json(path, "campaign limits", FIX, missing_ok=True)
    if doc is None:
        return None
    rows = readers.object_list(doc.get("rows"), escape.text_line(path), "rows", FIX)
    for i, row in enumerate(rows):
        for key in ("channel", "signal", "kind", "pair", "strategy", "status"):
            readers.text(row.get(key), escape.text_line(path), f"rows[{i}].{key}", FIX)
        for key in ("expected_limit", "expected_limit_fold_std", "expected_significance"):
            value = row.get(key)
            if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
                raise readers.BadFile(escape.text_line(path), f"rows[{i}].{key} {value!r:.40} is not a number or null", FIX)
    return rows


def _model_key(row: dict, renames: Mapping[str, str]) -> tuple:
    variant = hyper_tag(row.get("model"))
    return (row["channel"], row["signal"], row["kind"], row["pair"], renames.get(variant, variant))


def _index(rows: Sequence[dict], renames: Mapping[str, str]) -> tuple[dict[tuple, dict], dict[tuple, str]]:
    """(model key + strategy -> row, model key -> why it has no strategy rows: a missing model)."""
    found, missing = {}, {}
    for row in rows:
        key = _model_key(row, renames)
        if row["status"] == MISSING:
            missing[key] = "no folds/limits.json for this model"
        else:
            found[(*key, row["strategy"])] = row
    return found, missing


def _why(side: str, row: dict | None, rows: Sequence[dict] | None, missing: dict[tuple, str], key: tuple) -> str:
    if rows is None:
        return f"round {side} has no {FILE} (made before the expected limits)"
    if row is None:
        return f"round {side}: {missing.get(key[:5], 'no such model and strategy')}"
    return f"round {side}: {escape.text_line(row.get('error') or 'no expected limit')}"


def compare(a_dir: Path, b_dir: Path, renames: Mapping[str, str] | None = None) -> list[dict]:
    """The expected-limit rows of round A vs round B (FIELDS), in the tables' order."""
    renames = dict(renames or {})
    rows_a, rows_b = load(a_dir), load(b_dir)  # a damaged file: readers.BadFile, an InputError naming it
    a, missing_a = _index(rows_a or [], {})
    b, missing_b = _index(rows_b or [], renames)
    keys = set(a) | set(b) | {(*k, "") for k in missing_a} | {(*k, "") for k in missing_b}
    keys = {k for k in keys if k[-1] or not any(o[:5] == k[:5] and o[-1] for o in set(a) | set(b))}
    out = []
    for key in sorted(keys, key=lambda k: (natural_key(k[0]), natural_key(k[1]), *k[2:5], strategy_key(k[5]))):  # MA90 < MA100
        ra, rb = a.get(key), b.get(key)
        ok_a = ra is not None and ra["status"] == OK and _number(ra.get("expected_limit"))
        ok_b = rb is not None and rb["status"] == OK and _number(rb.get("expected_limit"))
        value, error = limitsboard.ratio(ra, rb) if ok_a and ok_b else (None, None)
        lacking = [s for s, ok in (("A", ok_a), ("B", ok_b)) if not ok]
        why = "; ".join(_why(s, r, rows, m, key) for s, ok, r, rows, m in
                        (("A", ok_a, ra, rows_a, missing_a), ("B", ok_b, rb, rows_b, missing_b)) if not ok)  # fmt: skip
        src = ra or rb or {}
        out.append({**dict(zip(KEY_FIELDS, key, strict=True)), "m_hc": src.get("m_hc"), "m_a": src.get("m_a"),
                    "limit_a": (ra or {}).get("expected_limit"), "limit_a_fold_std": (ra or {}).get("expected_limit_fold_std"),
                    "limit_b": (rb or {}).get("expected_limit"), "limit_b_fold_std": (rb or {}).get("expected_limit_fold_std"),
                    "ratio_b_to_a": value, "ratio_error": error,
                    "significance_a": (ra or {}).get("expected_significance"),
                    "significance_b": (rb or {}).get("expected_significance"),
                    "missing": " and ".join(lacking), "why": why})  # fmt: skip
    return out


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def latex_table(rows: Sequence[dict]) -> str:
    """A booktabs table of the expected-limit rows for diff_models.tex ('' without any), narrow
    enough for a 16 cm text width: kind B/MC, the pair by its label, the variant numbered."""
    from pnetviz.metrics.rounding import pm  # noqa: PLC0415
    from pnetviz.summary.limits import pair_tex  # noqa: PLC0415

    if not rows:
        return ""
    variants = sorted({r["variant"] for r in rows})
    number_of = {v: i + 1 for i, v in enumerate(variants)}
    lines = ["\\begin{table}[htbp]", "\\centering", "\\footnotesize", "\\setlength{\\tabcolsep}{3pt}",
             "\\begin{tabular}{@{}lllllllll@{}}", "\\toprule",
             "Channel & Signal & Kind & Pair & Var. & Strategy & Limit A & Limit B & B/A \\\\", "\\midrule"]  # fmt: skip
    for r in rows:
        limits = [pm(r[f"limit_{s}"], r[f"limit_{s}_fold_std"], "latex", fallback=".3g") or "--" for s in ("a", "b")]
        ratio = pm(r["ratio_b_to_a"], r["ratio_error"], "latex", fallback=".3f") or f"-- ({r['missing']})"
        cells = [escape.latex(r["channel"]), escape.latex(r["signal"]), "B" if r["kind"] == "binary" else "MC",
                 pair_tex(r["pair"]), f"V{number_of[r['variant']]}", escape.latex(r["strategy"]) or "--"]  # fmt: skip
        lines.append(" & ".join([*cells, *limits, ratio]) + " \\\\")
    names = "; ".join(f"V{number_of[v]}: \\texttt{{{escape.latex(v) or '(none)'}}}" for v in variants)
    lines += ["\\bottomrule", "\\end{tabular}",
              "\\caption{Round B vs round A: expected 95\\% CLs limit on the signal strength per model and strategy "
              "(median $\\pm$ the std of the per-fold medians; B: binary, MC: multi-class pair or weighted LR, wLR); B/A with "
              "the fold spreads as standard errors, the rounds taken as independent; -- (A): round A has no limit "
              "there (diff\\_limits.csv: why).}",
              "\\label{tab:pnetviz-diff-limits}", "\\end{table}",
              "\\begingroup\\footnotesize\\raggedright\\noindent Model variants: " + names.replace("-", "-\\allowbreak ")
              + ".\\par\\endgroup"]  # fmt: skip
    return "\n".join(lines) + "\n"


def summary_line(rows: Sequence[dict]) -> str:
    """The command's line: how many strategies are compared, how many improved (B/A < 1), missing."""
    both = [r for r in rows if r["ratio_b_to_a"] is not None]
    better = sum(r["ratio_b_to_a"] < 1 for r in both)
    return (f"expected limits: {len(both)} model strategies in both rounds, {better} tighter in B (B/A < 1), "
            f"{len(rows) - len(both)} missing in a round (diff_limits.csv)")


def html_section(rows: Sequence[dict]) -> str:
    """The diff page's section: one table row per model and strategy (every name escaped)."""
    from pnetviz.metrics.rounding import pm  # noqa: PLC0415

    head = ("channel", "signal", "kind", "pair", "variant", "strategy", "limit A", "limit B", "B/A", "missing", "why")
    body = []
    for r in rows:
        cells = [escape.html(r[k]) for k in KEY_FIELDS]
        cells += [pm(r[f"limit_{s}"], r[f"limit_{s}_fold_std"], "html", fallback=".3g") or "–" for s in ("a", "b")]
        cells += [pm(r["ratio_b_to_a"], r["ratio_error"], "html", fallback=".3f") or "–", escape.html(r["missing"]),
                  escape.html(r["why"])]  # fmt: skip
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    if not body:
        return "<h2>Expected limits</h2><p>neither round has expected limits (campaign_limits.json).</p>"
    return ('<h2>Expected limits (B/A &lt; 1: round B expects a tighter limit)</h2><p><a href="diff_limits.csv">'
            "diff_limits.csv</a>; the ratio's error from the fold spreads of both rounds.</p><table><tr>"
            + "".join(f"<th>{escape.html(h)}</th>" for h in head) + "</tr>" + "".join(body) + "</table>")
