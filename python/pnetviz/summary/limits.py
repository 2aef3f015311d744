"""The round's answer (issue 52, item 4): per channel, signal point, model, pair and strategy the
expected 95% CLs upper limit on the signal strength (median, +-1 and +-2 sigma band) and the
expected discovery significance, with their spread over the folds, read from each model's
`folds/limits.json` (jobs.limits, docs/limits.md), as campaign_limits.csv / .tex / .json.

A finished model without `folds/limits.json` (one fold, or limits not computed) is one row with
status "missing"; a strategy whose fit failed is a row with status "failed" and its one line in
`error`, its numbers empty: never a made-up number. Rows are sorted by channel, then naturally by
mass (MHc130_MA90 before MHc130_MA100), then model, pair and strategy (STRATEGIES order).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from pnetviz import escape
from pnetviz.io.layout import hyper_tag, signal_masses
from pnetviz.metrics.rounding import asymmetric, pm
from pnetviz.names import symbol
from pnetviz.output.report import dumps, plain
from pnetviz.summary import setfiles
from pnetviz.summary.latex import _label_key, _mass_cells, channel_tex, label_tex

FILE = "limits.json"
WHAT = "expected limits from this file"
STRATEGIES = ("score-fit", "cut-and-mass", "mass-x-score")  # the order of rows and maps; others after, by name
REFERENCE = "score-fit"  # the ratio maps' denominator
BAND = ("m2", "m1", "p1", "p2")
OK, FAILED, MISSING = "ok", "failed", "missing"
FIELDS = ("channel", "signal", "m_hc", "m_a", "kind", "model", "pair", "strategy", "status", "chosen_on",
          "expected_limit", *(f"expected_limit_{b}" for b in BAND), "expected_limit_fold_std", "expected_limit_text",
          "expected_significance", "expected_significance_fold_std", "expected_significance_text", "folds",
          "datacard", "error")  # fmt: skip
CONVENTION = ("expected 95% CLs upper limit on the signal strength (asymptotic, Asimov data = background sum) of the "
              "pooled out-of-fold templates: median and its +-1, +-2 sigma band; fold spread = sample std (ddof=1) of "
              "the per-fold medians; expected significance = discovery Z on the Asimov signal+background data, fold "
              "spread likewise; *_text: rounded by the PDG rule on the fold spread, the CSV numbers in full precision")  # fmt: skip


def natural_key(text: str) -> tuple:
    """A sort key reading the digit runs of `text` as numbers: MHc130_MA90 before MHc130_MA100."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text) if p)


def strategy_key(name: str) -> tuple:
    return (STRATEGIES.index(name), "") if name in STRATEGIES else (len(STRATEGIES), name)


def row_key(row: dict) -> tuple:
    """The table's order: channel, mass (naturally), signal, kind, model, pair, strategy."""
    mass = (row["m_hc"], row["m_a"]) if row.get("m_hc") is not None else (math.inf, math.inf)
    return (natural_key(row["channel"]), mass, natural_key(row["signal"]), row["kind"], natural_key(row["model"]),
            natural_key(row["pair"]), strategy_key(row["strategy"]))  # fmt: skip


def _number(value: object, path: Path, field: str) -> float | None:
    """A number of the file or None (JSON null); anything else (a text, a boolean) is the file damaged."""
    if value is None:
        return None
    if not setfiles.is_number(value):
        raise setfiles.damaged(path, f"{field} {value!r:.40} is not a number or null", WHAT)
    return float(value)


def _limit(value: object, path: Path, field: str) -> dict | None:
    """An expected_limit object (median and the band) or None."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise setfiles.damaged(path, f"{field} is not an object with median, m2, m1, p1, p2", WHAT)
    return {k: _number(value.get(k), path, f"{field}.{k}") for k in ("median", *BAND)}


def entries(doc: dict, path: Path) -> list[dict]:
    """The model entries of one limits.json: the document itself, or each of its `pairs` (a
    multi-class model's pairs in one file); each must have a `strategies` list of objects."""
    found = doc.get("pairs") if "pairs" in doc else [doc]
    if not isinstance(found, list) or not all(isinstance(e, dict) for e in found):
        raise setfiles.damaged(path, "'pairs' is not a list of objects", WHAT)
    for i, e in enumerate(found):
        if not isinstance(e.get("strategies"), list) or not all(isinstance(s, dict) and isinstance(s.get("name"), str)
                                                                 for s in e["strategies"]):  # fmt: skip
            where = "" if found[0] is doc else f"pairs[{i}]."
            raise setfiles.damaged(path, f"{where}strategies is not a list of objects with a 'name'", WHAT)
    return found


def strategy_row(base: dict, s: dict, path: Path, pair: str) -> dict:
    """One row of the table from one strategy object of limits.json."""
    limit = _limit(s.get("expected_limit"), path, f"{s['name']}.expected_limit")
    spread = s.get("fold_spread") if isinstance(s.get("fold_spread"), dict) else {}
    z = _number(s.get("expected_significance"), path, f"{s['name']}.expected_significance")
    lstd = _number(spread.get("expected_limit_median_std"), path, f"{s['name']}.fold_spread.expected_limit_median_std")
    zstd = _number(spread.get("expected_significance_std"), path, f"{s['name']}.fold_spread.expected_significance_std")
    per_fold = s.get("per_fold") if isinstance(s.get("per_fold"), list) else []
    per_fold_limits = [_limit(f.get("expected_limit"), path, f"{s['name']}.per_fold.expected_limit")
                       for f in per_fold if isinstance(f, dict)]  # fmt: skip
    median = limit["median"] if limit else None
    error = s.get("error")
    status = FAILED if error or median is None else OK
    row = {**base, "pair": pair, "strategy": s["name"], "status": status,
           "chosen_on": s.get("chosen_on") if isinstance(s.get("chosen_on"), str) else None,
           "expected_limit": median, **{f"expected_limit_{b}": limit[b] if limit else None for b in BAND},
           "expected_limit_fold_std": lstd, "expected_limit_text": pm(median, lstd, "text", fallback=".3g"),
           "expected_significance": z, "expected_significance_fold_std": zstd,
           "expected_significance_text": pm(z, zstd, "text", fallback=".3g"), "folds": len(per_fold),
           "fold_limits": [p["median"] if p else None for p in per_fold_limits],
           "datacard": s.get("datacard") if isinstance(s.get("datacard"), str) else None,
           "error": escape.text_line(error) if error else (None if median is not None else "no expected limit")}  # fmt: skip
    return row


def job_rows(job: dict) -> list[dict]:
    """The rows of one finished binary or multi-class job: its strategies from folds/limits.json,
    or one row with status "missing" when the model has none."""
    folds = Path(job["outputs"][0]).parent / "folds"
    path = folds / FILE
    masses = signal_masses(job["signal"]) or (None, None)
    base = {"channel": job["channel"], "signal": job["signal"], "m_hc": masses[0], "m_a": masses[1], "kind": job["kind"],
            "model": job["model"] or ""}  # fmt: skip
    doc = setfiles.read_object(path, WHAT, missing_ok=True)
    if doc is None:
        return [{**base, "pair": job.get("pair") or "", "strategy": "", "status": MISSING, "folds": 0,
                 "error": f"no {FOLDS_FILE} (one fold, or limits not computed)"}]  # fmt: skip
    rows = []
    for e in entries(doc, path):
        pair = e.get("pair") if isinstance(e.get("pair"), str) else (job.get("pair") or "")
        entry_base = {**base, "kind": e["kind"] if isinstance(e.get("kind"), str) else job["kind"]}
        rows += [strategy_row(entry_base, s, path, pair) for s in e["strategies"]]
    return rows


FOLDS_FILE = f"folds/{FILE}"


def section(data: dict) -> dict:
    """The campaign's expected-limit section from its summary data (`jobs`): the rows (sorted,
    row_key), the leaderboard and the binary vs multi-class verdicts (summary.limitsboard)."""
    from pnetviz.summary import limitsboard  # noqa: PLC0415

    rows = []
    for job in data["jobs"]:
        if job["status"] in ("done", "up to date") and job["kind"] in ("binary", "multiclass") and job["outputs"]:
            rows += job_rows(job)
    rows.sort(key=row_key)
    for row in rows:
        row["variant"] = hyper_tag(row["model"])
    return {"rows": rows, "leaderboard": limitsboard.leaderboard(rows),
            "binary_vs_multiclass": limitsboard.binary_vs_multiclass(rows), "convention": CONVENTION}


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
    """A pair as the tables name it: signal_vs_ttZ -> $t\\bar{t}Z$ (summary.latex labels), others escaped."""
    return label_tex(pair.removeprefix("signal_vs_")) if pair else "--"


def channel_table(channel: str, rows: list[dict], number_of: dict[str, int]) -> list[str]:
    """One booktabs table float of a channel's rows (escape.latex on every name; failed and
    missing rows say so over the three number columns)."""
    caption = (rf"Expected 95\% CLs upper limit on the signal strength $\mu$ and expected discovery significance $Z$ "
               rf"in the {channel_tex(channel)} channel per model (B: binary, MC: multi-class pair or weighted LR, "
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
    rows = sec["rows"]
    variants = sorted({r["variant"] for r in rows})
    number_of = {v: i + 1 for i, v in enumerate(variants)}
    lines = [r"% pnetviz: expected limits per strategy (issue 52); needs \usepackage{booktabs}"]
    for channel in dict.fromkeys(r["channel"] for r in rows):
        lines += channel_table(channel, [r for r in rows if r["channel"] == channel], number_of)
    if not rows:
        lines.append(r"% no model of this round has expected limits (folds/limits.json)")
    if variants:
        names = "; ".join(f"V{number_of[v]}: \\texttt{{{escape.latex(v) or '(none)'}}}" for v in variants)
        lines.append(r"\begingroup\footnotesize\raggedright\noindent Model variants: " + names.replace("-", "-\\allowbreak ")
                     + r".\par\endgroup")  # fmt: skip
    return "\n".join(lines) + "\n"


def files(sec: dict) -> dict[str, str]:
    """campaign_limits.csv / .tex / .json and the leaderboard's CSV (summary.limitsboard)."""
    from pnetviz.summary import limitsboard  # noqa: PLC0415

    return {"campaign_limits.csv": escape.csv_table(sec["rows"], FIELDS),
            "campaign_limits.tex": latex_table(sec),
            "campaign_limits_leaderboard.csv": escape.csv_table(sec["leaderboard"], limitsboard.BOARD_FIELDS),
            "campaign_limits.json": dumps(plain(sec)) + "\n"}  # fmt: skip


def attach(data: dict) -> dict[str, str]:
    """The hook for summary.summary.write: the section into `data["limits"]` (maps, web report) and its files."""
    data["limits"] = section(data)
    return files(data["limits"])


def figures(data: dict) -> list:
    """The section's maps (summary.limitsmaps)."""
    from pnetviz.summary import limitsmaps  # noqa: PLC0415

    return limitsmaps.figures(data.get("limits") or section(data))
