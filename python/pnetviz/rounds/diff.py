"""Round A vs round B (issue 35, item 3): did it get better, where, and is it real?

Both rounds are campaign outputs (their `campaign_summary.json`). Models are matched by
(channel, signal point, kind, pair, variant) - the variant is the hyperparameter part of the
trainer's model name (layout.hyper_tag), mapped through `renames` for a renamed variant - and
folds by index. Per matched model, over the folds both rounds have:

- delta AUC = mean over folds of AUC_B - AUC_A, with the event-paired bootstrap where both
  rounds evaluated the same test events (rounds.diffevents: by event_id, else by position,
  rounds.diffposition), else the corrected resampled t-test of the
  per-fold differences (metrics.foldtests.corrected_paired_test; n_test/n_train from both
  rounds' fold rows, summary.ranking.fold_ratio) and its two-sided p-value; `pairing` says which
  and why; p_value_corrected (that fold test's p) and p_value_naive_t (the naive paired t over
  the folds, anti-conservative, for reference) are kept beside it;
- Holm's adjustment of those p-values over the comparison's family (every matched model with
  a test: at least two common folds), `significant` when the adjusted p is below `alpha`;
- delta FIP2 (the figure of merit on the test ROC's convex hull) the same way, paired fold by
  fold, with its own Holm adjustment over the models that have it (`error_method` names the
  test; the event-paired bootstrap needs both rounds' events, which the campaign rows do not
  hold: the corrected fold test is used);
- the background rejection 1/mean(eps_b) at each fixed signal efficiency of each round (a lower
  limit where no background passes in any fold, raised to a measured rejection at a larger eps_s,
  as in the campaign's tables), their difference and ratio B/A, bounds where one round's rejection
  is a limit ("> X" and "< X" in diff_models.csv), none where both are.

Models of one round only, or without a common fold, are listed as unmatched, never dropped.
The expected limits of both rounds, per model and strategy, are compared apart (rounds.difflimits:
the ratio B/A, "missing" where a round has none).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.summary.ranking import fold_ratio
from pnetviz.errors import InputError
from pnetviz.io.layout import hyper_tag
from pnetviz.metrics import hep
from pnetviz.metrics.folds import Rejection
from pnetviz.metrics.foldtests import corrected_paired_test
from pnetviz.metrics.multiplicity import holm
from pnetviz.escape import text_line
from pnetviz.io import readers
from pnetviz.io.readers import read_json

SUMMARY = "campaign_summary.json"
KEY_FIELDS = ("channel", "signal", "kind", "pair", "variant")
EPS_S = ("0.5", "0.9")  # the campaign rows' fixed signal efficiencies
ALPHA = 0.05
DIFF_FIELDS = (*KEY_FIELDS, "model_a", "model_b", "m_hc", "m_a", "folds", "auc_a_mean", "auc_b_mean", "delta_auc",
               "delta_auc_std", "delta_auc_standard_error", "t", "dof", "p_value", "p_value_corrected", "p_value_naive_t", "p_holm", "significant",
               "test_train_ratio", "fip2_a_mean", "fip2_b_mean", "delta_fip2", "delta_fip2_standard_error",
               "delta_fip2_p_value", "delta_fip2_p_holm", "error_method", "pairing",
               *(f"{w}_{e}{x}" for e in EPS_S for w in ("rejection_a", "rejection_b", "delta_rejection", "rejection_ratio")
                 for x in (("", "_lower", "_upper") if w == "rejection_ratio" else ("",))))  # fmt: skip
BOUNDED = {f"{w}_{e}": (f"{w}_{e}_limit", ">") for e in EPS_S for w in ("rejection_a", "rejection_b")} | \
    {f"{w}_{e}": (f"rejection_ratio_{e}_bound", None) for e in EPS_S for w in ("delta_rejection", "rejection_ratio")}  # fmt: skip
UNMATCHED_FIELDS = ("round", *KEY_FIELDS, "model", "folds", "why")


@dataclass
class Diff:
    """The comparison: matched rows (DIFF_FIELDS), unmatched rows (UNMATCHED_FIELDS), the two
    rounds' summary directories."""

    a: Path
    b: Path
    rows: list[dict] = field(default_factory=list)
    unmatched: list[dict] = field(default_factory=list)
    alpha: float = ALPHA
    limits: list[dict] = field(default_factory=list)  # by expected limit (rounds.difflimits.FIELDS)


def summary_dir(path: Path) -> Path:
    """The campaign summary directory of a round: `path` itself, its `campaign/`, or InputError."""
    for candidate in (Path(path), Path(path) / "campaign"):
        if (candidate / SUMMARY).is_file():
            return candidate
    raise InputError(f"{path}: no campaign summary ({SUMMARY} in it or in its campaign/). Fix: give the --plots-dir "
                     "of a finished `pnetviz campaign` (or <plots-dir>/<round> for a round placed with --round).")  # fmt: skip


ROW_FIX = "rerun `pnetviz campaign` for it (its summary was changed or damaged)"
MAX_FOLD = 9999  # a fold row's index (fold-<k>): a trainer's k-fold has a handful
NAME_FIELDS = ("channel", "signal", "kind")  # path components of the round's fold sets


def load_rows(directory: Path) -> list[dict]:
    """The fold rows of a campaign summary (pilot rows and rows without a test AUC left out).
    BadFile naming the file and the field for a summary whose `rows` is no list of objects, or
    whose fold row has a channel, signal point, kind, pair or model that is not a name."""
    path = Path(directory) / SUMMARY
    data = read_json(path, "campaign summary", ROW_FIX)
    if "rows" not in data:
        raise InputError(f"{text_line(path)}: not a campaign summary (no rows). Fix: rerun `pnetviz campaign` for it.")
    rows = readers.object_list(data["rows"], text_line(path), "rows", ROW_FIX)
    kept = []
    for index, row in enumerate(rows):
        fold, auc = row.get("fold"), row.get("auc_test")
        if fold is not None and not (isinstance(fold, int) and not isinstance(fold, bool) and 0 <= fold <= MAX_FOLD):
            raise readers.BadFile(text_line(path), f"rows[{index}].fold {fold!r:.60} is not a fold index (0 to {MAX_FOLD}) or null",
                          ROW_FIX)  # fmt: skip
        if auc is not None and not finite(auc):  # a text or a boolean: the row was dropped without a word
            raise readers.BadFile(text_line(path), f"rows[{index}].auc_test {auc!r:.60} is not a number or null", ROW_FIX)
        if fold is None or auc is None:  # a pilot row, a fold without a test AUC
            continue
        for key in NAME_FIELDS:
            readers.name_part(row.get(key), text_line(path), f"rows[{index}].{key}", ROW_FIX)
        readers.text(row.get("pair"), text_line(path), f"rows[{index}].pair", ROW_FIX)
        model = readers.optional_text(row.get("model"), text_line(path), f"rows[{index}].model", ROW_FIX)
        if model is not None:
            readers.name_part(model, text_line(path), f"rows[{index}].model", ROW_FIX)
        kept.append(row)
    return kept


def finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def key_of(row: dict, renames: Mapping[str, str]) -> tuple:
    variant = hyper_tag(row.get("model"))
    return (row["channel"], row["signal"], row["kind"], row["pair"], renames.get(variant, variant))


def by_model(rows: Sequence[dict], renames: Mapping[str, str]) -> dict[tuple, dict[int, dict]]:
    """key -> {fold: row}."""
    out: dict[tuple, dict[int, dict]] = {}
    for row in rows:
        out.setdefault(key_of(row, renames), {})[row["fold"]] = row
    return out


def rejection(rows: Sequence[dict], eps_s: str) -> tuple[float | None, bool]:
    """(1/mean(eps_b at eps_s) over the folds' rows, whether it is a lower limit): where no
    background passes in any fold, the 95% CL lower limit from the folds' summed effective
    background events (metrics.folds.Rejection, as the campaign's tables); (None, False) if a fold
    lacks eps_b, or none passes and the rows carry no effective event count."""
    values = [r.get(f"eps_b_{eps_s}") for r in rows]
    if not values or not all(finite(v) for v in values):
        return None, False
    n_eff = [r.get("n_eff_test_background") for r in rows]
    if sum(values) <= 0 and not all(finite(n) and n > 0 for n in n_eff):
        return None, False
    rej = Rejection.over_folds(np.array(values, dtype=float), sum(n for n in n_eff if finite(n)) or 1.0)
    return rej.value, rej.lower_limit


def rejections(rows: Sequence[dict]) -> dict[str, tuple[float | None, bool]]:
    """rejection() at each of EPS_S, a lower limit raised to a measured rejection at a larger eps_s
    (hep.monotone_limits, as the campaign's tables)."""
    found = {eps: rejection(rows, eps) for eps in EPS_S}
    known = {eps: v for eps, v in found.items() if v[0] is not None}
    raised = hep.monotone_limits({e: v for e, (v, _) in known.items()}, {e: limit for e, (_, limit) in known.items()})
    return {eps: (raised.get(eps), limit) for eps, (_, limit) in found.items()}


def compared_rejections(a: tuple[float | None, bool], b: tuple[float | None, bool]) -> tuple[float | None, float | None, str]:
    """(B - A, B / A, bound) of two rejections (value, lower limit?): bound "" for two measured
    values, "<" when A is a lower limit (B - A and B/A are at most the numbers), ">" when B is, and
    (None, None, "") when both are limits or either is missing (no bound)."""
    (ra, la), (rb, lb) = a, b
    if ra is None or rb is None or (la and lb):
        return None, None, ""
    return rb - ra, rb / ra, "<" if la else ">" if lb else ""


def matched_row(key: tuple, a: dict[int, dict], b: dict[int, dict], folds: list[int]) -> dict:
    """One matched model's differences over `folds` (DIFF_FIELDS but p_holm, significant)."""
    ra, rb = [a[f] for f in folds], [b[f] for f in folds]
    stats = corrected_paired_test([r["auc_test"] for r in rb], [r["auc_test"] for r in ra], fold_ratio([*ra, *rb]))
    row = dict(zip(KEY_FIELDS, key, strict=True))
    row |= {"model_a": ra[0].get("model"), "model_b": rb[0].get("model"), "m_hc": ra[0].get("m_hc"),
            "m_a": ra[0].get("m_a"), "folds": " ".join(map(str, folds)),
            "auc_a_mean": sum(r["auc_test"] for r in ra) / len(ra), "auc_b_mean": sum(r["auc_test"] for r in rb) / len(rb),
            "delta_auc": stats["mean"], "delta_auc_std": stats["std"], "delta_auc_standard_error": stats["standard_error"],
            "t": stats["t"], "dof": stats["dof"], "p_value": stats["p_value"], "p_value_corrected": stats["p_value"],
            "p_value_naive_t": stats["p_naive_t"], "test_train_ratio": stats["test_train_ratio"],
            "pairing": "not event-paired, the corrected fold test"}  # fmt: skip
    row |= fip2_difference(ra, rb, stats["test_train_ratio"])
    side_a, side_b = rejections(ra), rejections(rb)
    for eps in EPS_S:
        delta, ratio, bound = compared_rejections(side_a[eps], side_b[eps])
        lower, upper = ratio_interval(ratio, [r.get(f"eps_b_{eps}") for r in ra], [r.get(f"eps_b_{eps}") for r in rb]) \
            if not bound else (None, None)  # fmt: skip
        row |= {f"rejection_a_{eps}": side_a[eps][0], f"rejection_a_{eps}_limit": side_a[eps][1],
                f"rejection_b_{eps}": side_b[eps][0], f"rejection_b_{eps}_limit": side_b[eps][1],
                f"delta_rejection_{eps}": delta, f"rejection_ratio_{eps}": ratio, f"rejection_ratio_{eps}_bound": bound,
                f"rejection_ratio_{eps}_lower": lower, f"rejection_ratio_{eps}_upper": upper}  # fmt: skip
    return row


RATIO_ERROR = ("rejection_ratio_<eps>_lower/_upper: r exp(-+s) with s the standard error over the common folds of the "
               "per-fold ln(eps_b A / eps_b B) (sample std / sqrt(k)), paired fold by fold; none with a fold where either "
               "eps_b is 0 or fewer than two folds")  # fmt: skip


def ratio_interval(ratio: float | None, eps_a: Sequence[object], eps_b: Sequence[object]) -> tuple[float | None, float | None]:
    """The interval of a rejection ratio B/A (RATIO_ERROR), (None, None) where it is undefined."""
    if ratio is None or len(eps_a) < 2 or not all(finite(e) and e > 0 for e in (*eps_a, *eps_b)):
        return None, None
    logs = np.log(np.asarray(eps_a, float) / np.asarray(eps_b, float))
    s = float(np.std(logs, ddof=1)) / math.sqrt(logs.size)
    return ratio * math.exp(-s), ratio * math.exp(s)


ERROR_METHOD = "corrected resampled t-test over the common folds (Nadeau-Bengio)"


def fip2_difference(ra: Sequence[dict], rb: Sequence[dict], ratio: float | None) -> dict:
    """delta FIP2 = B - A over the folds (their rows `ra`, `rb`), paired fold by fold, with the
    corrected fold test's error and p-value (None where a fold lacks FIP2)."""
    out = {"fip2_a_mean": None, "fip2_b_mean": None, "delta_fip2": None, "delta_fip2_standard_error": None,
           "delta_fip2_p_value": None, "error_method": ERROR_METHOD}  # fmt: skip
    fa, fb = [r.get("fip2") for r in ra], [r.get("fip2") for r in rb]
    if not all(finite(v) for v in (*fa, *fb)):
        return out
    stats = corrected_paired_test(fb, fa, ratio)
    return out | {"fip2_a_mean": sum(fa) / len(fa), "fip2_b_mean": sum(fb) / len(fb), "delta_fip2": stats["mean"],
                  "delta_fip2_standard_error": stats["standard_error"], "delta_fip2_p_value": stats["p_value"]}


def compare(a_dir: Path, b_dir: Path, renames: Mapping[str, str] | None = None, alpha: float = ALPHA,
            pair=None) -> Diff:  # fmt: skip
    """Round A (`a_dir`) vs round B (`b_dir`): campaign summary directories (summary_dir).
    `pair(diff)`: runs before Holm's adjustment (rounds.diffevents: event-paired errors)."""
    renames = dict(renames or {})
    a, b = by_model(load_rows(a_dir), {}), by_model(load_rows(b_dir), renames)
    diff = Diff(Path(a_dir), Path(b_dir), alpha=alpha)
    for key in sorted(set(a) | set(b), key=str):
        if key not in b or key not in a:
            side, rows = ("A", a[key]) if key in a else ("B", b[key])
            diff.unmatched.append(unmatched(side, key, rows, f"no such model in round {'B' if side == 'A' else 'A'}"))
            continue
        folds = sorted(set(a[key]) & set(b[key]))
        if not folds:
            for side, rows in (("A", a[key]), ("B", b[key])):
                diff.unmatched.append(unmatched(side, key, rows, "no fold in common with the other round"))
            continue
        diff.rows.append(matched_row(key, a[key], b[key], folds))
    if pair is not None:
        pair(diff)
    adjusted = holm([r["p_value"] for r in diff.rows])
    for row, p in zip(diff.rows, adjusted, strict=True):
        row["p_holm"] = p if finite(p) else None
        row["significant"] = bool(row["p_holm"] is not None and row["p_holm"] < alpha)
    for row, p in zip(diff.rows, holm([r["delta_fip2_p_value"] for r in diff.rows]), strict=True):
        row["delta_fip2_p_holm"] = p if finite(p) else None
    from pnetviz.rounds import difflimits  # noqa: PLC0415

    diff.limits = difflimits.compare(a_dir, b_dir, renames)
    return diff


def bound_of(row: dict, name: str) -> str:
    """">" or "<" when the value `name` of a diff row is a bound (diff.BOUNDED), else ""."""
    flag, sign = BOUNDED.get(name, ("", None))
    value = row.get(flag)
    return (sign if value is True else "") if sign else (value if value in (">", "<") else "")


def bounded_cells(row: dict) -> dict:
    """A diff row for its CSV: a rejection that is a lower limit, or a difference or ratio that is
    a bound, as "> X" / "< X" (full precision), as the campaign's CSV cells."""
    out = dict(row)
    for name in BOUNDED:
        sign = bound_of(row, name)
        if sign and isinstance(row.get(name), float) and math.isfinite(row[name]):
            out[name] = f"{sign} {row[name]!r}"
    return out


def unmatched(side: str, key: tuple, rows: dict[int, dict], why: str) -> dict:
    model = next(iter(rows.values())).get("model")
    return {"round": side, **dict(zip(KEY_FIELDS, key, strict=True)), "model": model,
            "folds": " ".join(map(str, sorted(rows))), "why": why}  # fmt: skip
