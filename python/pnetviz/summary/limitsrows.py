"""The rows of the campaign's expected limits (issue 52, item 4), read from each model's
`folds/limits.json` (jobs.limits, docs/limits.md): one row per channel, signal point, model, pair
and strategy with the expected 95% CLs upper limit on the signal strength (median, +-1 and +-2
sigma band) and the expected discovery significance, with their spread over the folds.

A finished model without `folds/limits.json` (one fold, or limits not computed) is one row with
status "missing"; a strategy whose fit failed is a row with status "failed" and its one line in
`error`, its numbers empty where the fit gave none: never a made-up number. Rows sort by channel, then naturally by mass
(MHc130_MA90 before MHc130_MA100), then model, pair and strategy (STRATEGIES order): row_key.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from pnetviz import escape
from pnetviz.io.layout import hyper_tag, signal_masses
from pnetviz.metrics.rounding import pm
from pnetviz.summary import setfiles

FILE = "limits.json"
FOLDS_FILE = f"folds/{FILE}"
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
            where = "" if found[0] is doc else f"pairs[{i}]."  # the flat form of the contract: no pairs
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
    """The rows of one finished binary or multi-class job (its fold sets' parent holds folds/)."""
    background = job.get("pair") if job["kind"] == "binary" else None  # a binary job's pair: its background
    return model_rows(Path(job["outputs"][0]).parent / "folds", job["channel"], job["signal"], job["kind"], job["model"] or "",
                      f"signal_vs_{background}" if background else "")  # as limits.json names the pair (jobs.limits.pair_id)


def model_rows(folds: Path, channel: str, signal: str, kind: str, model: str, pair: str = "") -> list[dict]:
    """The rows of one model whose fold summary is `folds`: its strategies from limits.json, or
    one row with status "missing" when the model has none."""
    path = Path(folds) / FILE
    masses = signal_masses(signal) or (None, None)
    base = {"channel": channel, "signal": signal, "m_hc": masses[0], "m_a": masses[1], "kind": kind, "model": model}
    doc = setfiles.read_object(path, WHAT, missing_ok=True)
    if doc is None:
        return [{**base, "pair": pair, "strategy": "", "status": MISSING, "folds": 0,
                 "error": f"no {FOLDS_FILE} (one fold, or limits not computed)"}]  # fmt: skip
    found = []
    for e in entries(doc, path):
        entry_base = {**base, "kind": e["kind"] if isinstance(e.get("kind"), str) else kind}
        found += [strategy_row(entry_base, s, path, e["pair"] if isinstance(e.get("pair"), str) else pair)
                  for s in e["strategies"]]  # fmt: skip
    return found


def rows(data: dict) -> list[dict]:
    """The rows of every finished binary and multi-class job of the campaign (`data["jobs"]`), sorted (row_key)."""
    out = []
    for job in data["jobs"]:
        if job["status"] in ("done", "up to date") and job["kind"] in ("binary", "multiclass") and job["outputs"]:
            out += job_rows(job)
    out.sort(key=row_key)
    for row in out:
        row["variant"] = hyper_tag(row["model"])
    return out
