"""The across-signal-point view of a campaign: one table row per (channel, signal, kind, model,
pair, fold) read from the jobs' reports, mean +- std over folds, a LaTeX table for the analysis
note, and maps over the mass grid (TH2: x = m(H+), y = m(A)) with AUC-vs-m(A) graphs.

Compute first (rows, aggregates: plain data), then draw (figures); `write` publishes the set
`<output>/campaign/` through output.transaction like every other output set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas
from pnetviz.names import name as quantity, symbol
from pnetviz.errors import InputError
from pnetviz.io import trainer
from pnetviz.io.layout import hyper_tag, signal_masses
from pnetviz.summary.latex import latex_tables, leaderboard_tables, working_point_tables
from pnetviz.summary.workingpoints import FIELDS as WORKING_POINT_FIELDS, check_working_points, working_point_rows
from pnetviz import escape
from pnetviz.escape import csv_cell
from pnetviz.summary import ranking, setfiles
from pnetviz.summary.maps import SIGNIFICANCE, MapSpec, map_figure, share_ranges
from pnetviz.campaign.plan import Job, JobResult
from pnetviz.metrics.folds import Rejection, mean_std, paired_difference
from pnetviz.metrics.multiplicity import family_size
from pnetviz.draw.style import cmsstyle, cycle_color
from pnetviz.rootenv import set_title
from pnetviz.output.report import dumps, plain

ROW_FIELDS = ("channel", "signal", "m_hc", "m_a", "kind", "model", "pair", "fold", "auc_test", "auc_test_error",
              "auc_train", "rejection_0.5", "rejection_0.9", "eps_b_0.5", "eps_b_0.9", "fip2", "punzi", "yields", "ks_p_signal",
              "ks_p_background", "events_test_signal", "events_test_background", "n_eff_test_background",
              "auc_test_profiled", "events_train_signal", "events_train_background")  # fmt: skip
AGG_FIELDS = ("auc_test", "auc_train", "fip2", "punzi", "auc_test_profiled")
REJECTION_FIELDS = ("rejection_0.5", "rejection_0.9")  # 1/mean(eps_b) over folds, or a lower limit (never dropped)
GROUP_KEY = ("channel", "signal", "kind", "model", "pair")


masses = signal_masses  # (m(H+), m(A)) of a signal point name, or None


def _row(job: Job, fold, pair: str, metrics: dict, events: tuple, syst: dict | None, train_events: tuple = (None, None)) -> dict:
    test, train, ot = metrics["test"], metrics["train"], metrics["overtraining"]
    mass = masses(job.signal) or (None, None)
    return {
        "channel": job.channel, "signal": job.signal, "m_hc": mass[0], "m_a": mass[1], "kind": job.kind,
        "model": job.model or "", "pair": pair, "fold": "pilot" if fold is None else fold,
        "auc_test": test["auc"], "auc_test_error": test["auc_error"], "auc_train": train["auc"],
        "rejection_0.5": test["rejection"]["0.5"], "rejection_0.9": test["rejection"]["0.9"],
        "rejection_0.5_limit": test["rejection_lower_limit"]["0.5"], "rejection_0.9_limit": test["rejection_lower_limit"]["0.9"],
        "eps_b_0.5": test["background_efficiency"]["0.5"], "eps_b_0.9": test["background_efficiency"]["0.9"],
        "n_eff_test_background": test["rejection_limit"]["effective_background_events"],
        "fip2": test["fip2_hull"], "punzi": test["punzi"]["value"], "yields": metrics.get("yields", {}).get("kind", "relative"),
        "ks_p_signal": ot["ks_signal"]["p_value"], "ks_p_background": ot["ks_background"]["p_value"],
        "events_test_signal": events[0], "events_test_background": events[1],
        "auc_test_profiled": syst["profiled"]["auc"] if syst else None,
        "events_train_signal": train_events[0], "events_train_background": train_events[1],  # n_test/n_train of the fold tests
    }  # fmt: skip


REPORT_FILE = "summary_report.json"  # what every binary and multi-class fold set holds (output.report)
NUMBER_FIELDS = ("auc_test", "auc_test_error", "auc_train", "rejection_0.5", "rejection_0.9", "eps_b_0.5", "eps_b_0.9",
                 "fip2", "punzi", "ks_p_signal", "ks_p_background", "auc_test_profiled")  # a number, or null (not finite)
COUNT_FIELDS = ("n_eff_test_background", "events_test_signal", "events_test_background")  # always a number
TRAIN_FIELDS = ("events_train_signal", "events_train_background")  # a number, or absent (older reports)


WHAT = "numbers from this report"  # what the campaign takes from summary_report.json (setfiles.damaged)


def damaged(path: Path, problem: str) -> InputError:
    return setfiles.damaged(path, problem, WHAT)


def read_report(path: Path) -> dict:
    """The JSON object in `path`; InputError (`damaged`) if it is absent, not JSON or not an object."""
    return setfiles.read_object(path, WHAT)


def job_rows(job: Job) -> tuple[list[dict], dict]:
    """Rows of one finished binary or multi-class job, and its multi-class classes/groups. A fold
    set's summary_report.json that lacks what the rows need, or holds something else there (text
    for a number, a list for an object), is an InputError naming it (`damaged`), never a traceback."""
    rows, info = [], {}
    for fold, directory in zip(job.folds, job.outputs, strict=False):
        path = directory / REPORT_FILE
        report = read_report(path)
        try:
            if job.kind == "binary":
                ev, tr = report["events"]["test"], report["events"].get("train") or {}
                found = [_row(job, fold, job.pair, report["hep_metrics"], (ev["signal"], ev[job.pair]),
                              report.get("systematics"), (tr.get("signal"), tr.get(job.pair)))]  # fmt: skip
            else:
                info, found = _multiclass_rows(job, fold, report, path)
        except (KeyError, IndexError, TypeError, AttributeError) as err:
            what = f"no {err.args[0]!r:.60} entry" if isinstance(err, KeyError) else "a value of the wrong kind"
            raise damaged(path, f"{what} where the campaign reads events, hep_metrics, auc, classes or systematics") from None
        for row in found:
            bad = [k for k in NUMBER_FIELDS if row[k] is not None and not setfiles.is_number(row[k])]
            bad += [k for k in COUNT_FIELDS if not (setfiles.is_number(row[k]) and math.isfinite(row[k]))]
            bad += [k for k in TRAIN_FIELDS if row[k] is not None and not setfiles.is_number(row[k])]
            if bad:
                raise damaged(path, f"{bad[0]} of {row['pair']!r:.60} is {row[bad[0]]!r:.60}, not a number")
        rows += found
    return rows, info


def _multiclass_rows(job: Job, fold, report: dict, path: Path) -> tuple[dict, list[dict]]:
    classes = report["classes"]
    if not (isinstance(classes, list) and classes and all(isinstance(c, str) for c in classes)):
        raise damaged(path, f"classes is {classes!r:.60}, not a list of class names")
    groups = report.get("model", {}).get("background_info") or {}
    members = groups.get("groups") if isinstance(groups, dict) else None
    # "comment" (and any non-list value) is no group: the trainer drops it from every section
    if not isinstance(groups, dict) or not all(all(isinstance(s, str) for s in v) for v in
                                               (members.values() if isinstance(members, dict) else ()) if isinstance(v, list)):  # fmt: skip
        raise damaged(path, "model.background_info is not an object of group -> sample names")
    rows = []
    for pair, metrics in report["hep_metrics"].items():
        used, train = report["auc"][pair]["events_used"]["test"], report["auc"][pair]["events_used"].get("train") or {}
        rows.append(_row(job, fold, pair, metrics, (used[classes[0]], used[pair]), report.get("systematics", {}).get(pair),
                         (train.get(classes[0]), train.get(pair))))
    return {"classes": classes, "groups": groups}, rows


def check_reports(jobs: Sequence[Job]) -> None:
    """InputError (`damaged`) if the report or the working_points.json of an up-to-date binary or
    multi-class set in `jobs` cannot give its rows: checked before any job runs, not after the
    campaign's last."""
    for job in jobs:
        if job.kind in ("binary", "multiclass"):
            job_rows(job)
    check_working_points(jobs)


def aggregate(rows: Sequence[dict]) -> list[dict]:
    """Mean and sample std (ddof=1, as folds/) of the fold rows of each (channel, signal, kind, model, pair)."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in GROUP_KEY), []).append(row)
    out = []
    for key, members in groups.items():
        entry = dict(zip(GROUP_KEY, key)) | {"m_hc": members[0]["m_hc"], "m_a": members[0]["m_a"],
                                             "folds": [m["fold"] for m in members]}  # fmt: skip
        for name in AGG_FIELDS:
            entry[f"{name}_mean"], entry[f"{name}_std"] = mean_std([m[name] for m in members])
        ks = [m[k] for m in members for k in ("ks_p_signal", "ks_p_background") if isinstance(m.get(k), (int, float))]
        entry["ks_p_min"] = min(ks) if ks else float("nan")  # the worst train-vs-test KS p-value over folds
        for name in REJECTION_FIELDS:
            eps = np.array([m[f"eps_b_{name.split('_')[1]}"] for m in members], dtype=float)
            rej = Rejection.over_folds(eps, sum(m["n_eff_test_background"] for m in members))
            entry[f"{name}_mean"], entry[f"{name}_limit"] = rej.value, rej.lower_limit
            entry[f"{name}_lower"], entry[f"{name}_upper"] = rej.lower, rej.upper  # folds.REJECTION_INTERVAL_RULE
        out.append(entry)
    return out


@dataclass(frozen=True)
class Pairing:
    """Which multi-class class each binary background is compared with, per (channel, signal)."""

    table: dict[tuple[str, str, str], list[tuple[str, str]]]  # (channel, signal, binary bkg) -> [(mc model, class)]


def pairings(mc_info: dict[tuple[str, str, str], dict], binary_pairs: set[tuple[str, str, str]],
             pair: dict[str, str] | None = None) -> Pairing:  # fmt: skip
    """Each binary background's multi-class class: --pair (`pair`, binary -> class) where it names a
    class of the model, else the trainer's rule (`trainer.pairing`)."""
    table = {}
    for channel, signal, background in binary_pairs:
        for (c, s, model), info in mc_info.items():
            if (c, s) != (channel, signal):
                continue
            groups = info["groups"].get("groups") if isinstance(info["groups"].get("groups"), dict) else {}
            given = (pair or {}).get(background)
            target = given if given in info["classes"][1:] else trainer.pairing(background, tuple(info["classes"]), groups)
            if target:
                table.setdefault((channel, signal, background), []).append((model, target))
    return Pairing(table)


DIFFERENCE_CONVENTION = ("difference = multi-class minus binary test AUC per fold (the folds both have); corrected "
                         "resampled t over folds (Nadeau-Bengio: variance var (1/k + n_test/n_train)) with its two-sided "
                         "p-value (p_value), the naive paired Student t for reference (t_naive, p_naive_t), Holm-adjusted "
                         "(p_holm) and Benjamini-Hochberg (q_bh) over every binary vs multi-class comparison of the "
                         "campaign; inverse-variance combination with the per-fold errors sqrt(e_binary^2 + "
                         "e_multiclass^2)")  # fmt: skip


def fold_statistics(rows: Sequence[dict], c: dict) -> dict:
    """Paired statistics of the test-AUC difference (multi-class minus binary) over the folds that
    both models of comparison `c` have (ranking.paired_statistics: the corrected resampled t, the
    naive t; folds.paired_difference: the inverse-variance combination), as flat `auc_diff_*` fields."""
    def per_fold(kind: str, model: str, pair: str) -> dict:
        return {r["fold"]: r for r in rows if (r["channel"], r["signal"], r["kind"], r["model"], r["pair"]) ==
                (c["channel"], c["signal"], kind, model, pair)}  # fmt: skip

    b = per_fold("binary", c["binary_model"], c["background"])
    m = per_fold("multiclass", c["multiclass_model"], c["multiclass_class"])
    folds = sorted(set(b) & set(m), key=str)
    stats = paired_difference([m[f]["auc_test"] for f in folds], [b[f]["auc_test"] for f in folds],
                              [math.hypot(b[f]["auc_test_error"] or math.nan, m[f]["auc_test_error"] or math.nan)
                               for f in folds])  # fmt: skip
    stats |= ranking.paired_statistics(m, b, folds)
    return {f"auc_diff_{k}": stats[k] for k in (*ranking.STAT_KEYS, "combined", "combined_error")}


COMPARED_FIELDS = ("channel", "signal", "m_hc", "m_a", "variant", "tag", "background", "multiclass_class", "binary_model",
                   "multiclass_model", "auc_test_binary_mean", "auc_test_binary_std", "auc_test_multiclass_mean",
                   "auc_test_multiclass_std", "auc_diff_folds", "auc_diff_mean", "auc_diff_standard_error", "auc_diff_t",
                   "auc_diff_p_value", "auc_diff_p_holm", "auc_diff_q_bh", "auc_diff_t_naive", "auc_diff_p_naive_t",
                   "auc_diff_test_train_ratio", "auc_diff_combined", "auc_diff_combined_error", "rejection_0.5_binary_mean",
                   "rejection_0.5_binary_lower", "rejection_0.5_binary_upper",                    "rejection_0.5_multiclass_mean",
                   "rejection_0.5_multiclass_lower", "rejection_0.5_multiclass_upper")  # fmt: skip


# --- short variant names and the leaderboard ---


def variant_names(tags) -> dict[str, str]:
    """Hyperparameter tag (layout.hyper_tag: the model name without its background part) -> a short
    stable name: the `-`-separated parts that differ between the tags (`nNodes64`, `nNodes64-RMSprop`),
    in name order; "" when there is one tag. Parts only some names have count as differing. Two tags
    with the same short name (or one of none) keep their full tag. Computed from the names alone:
    the same set of models always gives the same names (a new variant can lengthen them)."""
    tags = sorted({t for t in tags})
    if len(tags) < 2:
        return {t: "" for t in tags}
    parts = {t: t.split("-") for t in tags}
    same_length = len({len(p) for p in parts.values()}) == 1
    if same_length:  # position by position: nNodes128 vs nNodes64 at the same place
        columns = list(zip(*parts.values(), strict=True))
        differ = [i for i, column in enumerate(columns) if len(set(column)) > 1]
        short = {t: "-".join(parts[t][i] for i in differ) for t in tags}
    else:  # the parts not every name has
        common = set.intersection(*(set(p) for p in parts.values()))
        short = {t: "-".join(x for x in parts[t] if x not in common) for t in tags}
    counts: dict[str, int] = {}
    for name in short.values():
        counts[name] = counts.get(name, 0) + 1
    return {t: short[t] if short[t] and counts[short[t]] == 1 else t for t in tags}


def _variants(agg: Sequence[dict]) -> dict[str, str]:
    return variant_names(hyper_tag(a["model"]) for a in agg)


LEADERBOARD_FIELDS = ("channel", "signal", "m_hc", "m_a", "background", "rank", "compatible_with_best", "kind", "variant",
                      "pair", "folds", "auc_test_mean", "auc_test_std", "auc_test_standard_error", "rank_folds",
                      "auc_test_mean_ranked", "diff_to_best_folds", "diff_to_best_mean", "diff_to_best_standard_error",
                      "diff_to_best_t", "diff_to_best_p_value", "diff_to_best_p_holm", "diff_to_best_q_bh",
                      "diff_to_best_t_naive", "diff_to_best_p_naive_t", "diff_to_best_test_train_ratio",
                      "rejection_0.5_mean", "rejection_0.5_lower", "rejection_0.5_upper", "rejection_0.9_mean",
                      "rejection_0.9_lower", "rejection_0.9_upper", "model", "note")  # fmt: skip
LEADERBOARD_CONVENTION = ("per (channel, signal point, background): every model and variant (binary models trained "
                          "against the background, multi-class likelihood ratios of the class holding it) ranked by "
                          "mean test AUC over the folds all of them share (rank_folds; members missing folds named in "
                          "note), best first; standard error = std/sqrt(folds); difference to the best = best minus "
                          "this over those folds, corrected resampled t (Nadeau-Bengio) with its two-sided p-value "
                          "(n/a with fewer than two common folds), the naive paired t for reference, Holm (p_holm) and "
                          "Benjamini-Hochberg (q_bh) over every comparison of the leaderboard; rank '1=': the best and "
                          "every member compatible with it (p_holm > 0.05); rejection = 1/mean(eps_b) over folds, "
                          "'> X' a lower limit")  # fmt: skip


def leaderboard(rows: Sequence[dict], agg: Sequence[dict], pairing: Pairing) -> list[dict]:
    """The leaderboard rows (LEADERBOARD_FIELDS), grouped by (channel, signal, background), best first."""
    names = _variants(agg)
    per_fold: dict[tuple, dict] = {}
    for r in rows:
        per_fold.setdefault(tuple(r[k] for k in GROUP_KEY), {})[r["fold"]] = r
    classes = {(c, s, m, cls): b for (c, s, b), targets in pairing.table.items() for m, cls in targets}
    groups: dict[tuple, list[dict]] = {}
    for a in agg:
        if a["kind"] == "binary":
            backgrounds = [a["pair"]]
        else:  # the binary backgrounds this class is compared with, else the class itself
            backgrounds = [b for (c, s, m, cls), b in classes.items()
                           if (c, s, m, cls) == (a["channel"], a["signal"], a["model"], a["pair"])] or [a["pair"]]  # fmt: skip
        for b in backgrounds:
            groups.setdefault((a["channel"], a["signal"], b), []).append(a)
    out = []
    for (channel, signal, background), members in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        for rank, a, fields in ranking.ranked(members, [per_fold[tuple(m[k] for k in GROUP_KEY)] for m in members]):
            n = len(a["folds"])
            entry = {"channel": channel, "signal": signal, "m_hc": a["m_hc"], "m_a": a["m_a"], "background": background,
                     "position": rank, "kind": a["kind"], "variant": names.get(hyper_tag(a["model"]), ""), "pair": a["pair"],
                     "model": a["model"], "folds": n, "auc_test_mean": a["auc_test_mean"], "auc_test_std": a["auc_test_std"],
                     "auc_test_standard_error": a["auc_test_std"] / math.sqrt(n) if n > 1 else math.nan,
                     **{f"{k}_{s}": a.get(f"{k}_{s}") for k in REJECTION_FIELDS for s in ("mean", "lower", "upper", "limit")}}  # fmt: skip
            out.append(entry | fields)
    ranking.adjust_family(out, "diff_to_best")  # the leaderboard's family: every comparison with a best
    ranking.mark_ties(out)
    return out


DONE, UP_TO_DATE, OTHER_OPTIONS = 0, -1, -3  # JobResult codes of sets the summary describes (failures are > 0)
NO_NTUPLE = -4  # a model with JSON files but no trees/<model>.root: named, not evaluated, not a failure
STATUS = {DONE: "done", UP_TO_DATE: "up to date", OTHER_OPTIONS: "other options", NO_NTUPLE: "no ntuple"}


def _job_entry(r: JobResult) -> dict:
    """The summary's record of one job (its `jobs` list, the failure list, the site's pages)."""
    return {"job": r.job.name, "status": STATUS.get(r.code, "failed"), "message": r.message,
            "seconds": round(r.seconds, 3), "outputs": [str(p) for p in r.job.outputs], "kind": r.job.kind,
            "channel": r.job.channel, "signal": r.job.signal, "model": r.job.model, "pair": r.job.pair}  # fmt: skip


def _checked(r: JobResult) -> tuple[JobResult, list[dict], dict]:
    """(result, rows, multi-class info) of one job; a finished job whose sets cannot give its rows
    or working points is failed with its one line (code 2; any other error, a bug, as an internal
    error, code 1), so that one set never stops the summary and its failure list."""
    if r.code not in (DONE, UP_TO_DATE) or r.job.kind not in ("binary", "multiclass"):  # not other options' sets
        return r, [], {}
    try:
        found, info = job_rows(r.job)
        working_point_rows([_job_entry(r)])
    except InputError as err:
        return replace(r, code=2, message=escape.printable(err)), [], {}
    except Exception as err:  # noqa: BLE001 - listed as an internal error (exit 1), never silent
        return replace(r, code=1, message=escape.printable(f"internal error reading its sets: {err!r}")), [], {}
    return r, found, info


def readable(results: Sequence[JobResult]) -> list[JobResult]:
    """`results` in job-name order, messages printable, each finished job whose sets cannot give
    the summary its rows turned into a failure (`_checked`)."""
    ordered = sorted((replace(r, message=escape.printable(r.message)) for r in results), key=lambda r: r.job.name)
    return [_checked(r)[0] for r in ordered]


def summary(results: Sequence[JobResult], pair: dict[str, str] | None = None) -> dict:
    """Rows, aggregates, binary-vs-multi-class pairs and the job list of a finished campaign, in
    job-name order whatever order the jobs finished in (two runs give identical files). A job
    whose sets cannot give its rows is listed as failed (`readable`), never the summary's end.
    `pair`: --pair (binary background -> multi-class class), for every table."""
    results = sorted((replace(r, message=escape.printable(r.message)) for r in results), key=lambda r: r.job.name)
    rows, mc_info, checked = [], {}, []
    for r in results:
        r, found, info = _checked(r)
        checked.append(r)
        rows += found
        if found and r.job.kind == "multiclass":
            mc_info[(r.job.channel, r.job.signal, r.job.model or "")] = info
    results = checked
    agg = aggregate(rows)
    binary_pairs = {(a["channel"], a["signal"], a["pair"]) for a in agg if a["kind"] == "binary"}
    pairing = pairings(mc_info, binary_pairs, pair)
    compared = []
    index = {(a["channel"], a["signal"], a["kind"], a["model"], a["pair"]): a for a in agg}
    for b in (a for a in agg if a["kind"] == "binary"):
        for model, target in pairing.table.get((b["channel"], b["signal"], b["pair"]), []):
            m = index.get((b["channel"], b["signal"], "multiclass", model, target))
            if m is None or hyper_tag(model) != hyper_tag(b["model"]):
                continue
            compared.append({"channel": b["channel"], "signal": b["signal"], "m_hc": b["m_hc"], "m_a": b["m_a"],
                             "tag": hyper_tag(b["model"]), "binary_model": b["model"], "multiclass_model": model,
                             "background": b["pair"], "multiclass_class": target,
                             **{f"{k}_{side}_{s}": src[f"{k}_{s}"] for k, stats in (("auc_test", ("mean", "std")),
                                ("rejection_0.5", ("mean", "lower", "upper"))) for side, src in (("binary", b), ("multiclass", m))
                                for s in stats},
                             **{f"rejection_0.5_{side}_limit": src["rejection_0.5_limit"]
                                for side, src in (("binary", b), ("multiclass", m))},
                             "n_folds_binary": len(b["folds"]), "n_folds_multiclass": len(m["folds"])})  # fmt: skip
    for c in compared:
        c.update(fold_statistics(rows, c))
    compared_tests = ranking.adjust_family(compared, "auc_diff")  # one family: every binary vs multi-class comparison
    names = _variants(agg)
    for entry in (*agg, *compared):
        entry["variant"] = names.get(hyper_tag(entry.get("model") or entry.get("binary_model")), "")
    jobs = [_job_entry(r) for r in results]
    board = leaderboard(rows, agg, pairing)
    families = {"leaderboard": ranking.leaderboard_family(family_size([e.get("diff_to_best_p_value") for e in board])),
                "binary_vs_multiclass": ranking.compared_family(compared_tests)}  # fmt: skip
    return {"rows": rows, "aggregates": agg, "binary_vs_multiclass": compared, "jobs": jobs,
            "working_points": working_point_rows(jobs), "families": families,
            "leaderboard": board, "leaderboard_convention": LEADERBOARD_CONVENTION,
            "std_convention": "sample standard deviation over folds (ddof=1)", "difference_convention": DIFFERENCE_CONVENTION}  # fmt: skip


def _cell(row: dict, key: str):
    """A CSV cell: a rejection that is a lower limit reads "> X" (its `_limit` flag, per fold, or
    of the fold mean `<name>_mean` -> `<name>_limit`); missing and undefined (NaN) values stay empty."""
    value = row.get(key)
    flag = row.get(f"{key}_limit", row.get(key.removesuffix("_mean") + "_limit") if key.endswith("_mean") else None)
    if value is None:
        return ""
    return f"> {float(value)!r}" if flag and value == value else csv_cell(value)  # full precision, as other cells


def csv_text(rows: Sequence[dict], fields: Sequence[str]) -> str:
    """A campaign CSV: `fields` of `rows`, lower limits as "> value" (_cell)."""
    return escape.csv_table(rows, fields, _cell)


def fold_standard_error(c: dict, key: str, side: str) -> float:
    """The fold standard error of the mean of `key` ("auc_test" or "rejection_0.5") of one side of
    a comparison record: std/sqrt(k); for a rejection R ln(upper/R)/sqrt(k), the log-space fold
    spread (folds.Rejection) carried to R; nan when there is none (one fold, a lower limit)."""
    k = c.get(f"n_folds_{side}") or 0
    if key == "auc_test":
        std = c.get(f"{key}_{side}_std")
    else:
        value, upper = c.get(f"{key}_{side}_mean"), c.get(f"{key}_{side}_upper")
        std = value * math.log(upper / value) if isinstance(upper, (int, float)) and value and value > 0 else None
    return float(std) / math.sqrt(k) if isinstance(std, (int, float)) and k > 1 and math.isfinite(std) else math.nan


def map_specs(agg: Sequence[dict], compared: Sequence[dict]) -> list[MapSpec]:
    """Mean test AUC and rejection at eps_s = 0.5 per channel and pair, binary, multi-class and
    multi-class minus binary."""
    specs = []
    quantities = (("auc_test", "Mean test AUC", ".4f"), ("rejection_0.5", "Rejection at #varepsilon_{s} = 0.5", ".1f"))
    tags = {hyper_tag(a["model"]) for a in agg} | {c["tag"] for c in compared}
    names = variant_names(tags)
    for channel, tag, background, cls in sorted({(c["channel"], c["tag"], c["background"], c["multiclass_class"])
                                                 for c in compared}):  # fmt: skip
        sel = [c for c in compared if (c["channel"], c["tag"], c["background"], c["multiclass_class"]) ==
               (channel, tag, background, cls) and c["m_hc"] is not None]  # fmt: skip
        suffix = f"_{names[tag]}" if len(tags) > 1 and names.get(tag) else ""  # the short variant name (nNodes64)
        pair = background if cls == background else f"{background}_vs_{cls}"
        for key, what, fmt in quantities:
            limit = (lambda c, side: c.get(f"{key}_{side}_limit", False))  # noqa: E731 - a rejection's lower limit
            for side in ("binary", "multiclass"):
                label = quantity(side).lower()
                vs = trainer.display_label(background if side == "binary" else cls, {})
                specs.append(MapSpec(f"map_{key.replace('.', 'p')}_{side}_{channel}_{pair}{suffix}",
                                     f"{what}, {label}, signal vs {vs}, {trainer.channel_label(channel)}",
                                     what, {(c["m_hc"], c["m_a"]): c[f"{key}_{side}_mean"] for c in sel}, fmt,
                                     bounds={(c["m_hc"], c["m_a"]): ">" for c in sel if limit(c, side)},
                                     short=f"{label}, signal vs {vs}, {trainer.channel_label(channel)}",
                                     errors={(c["m_hc"], c["m_a"]): fold_standard_error(c, key, side) for c in sel},
                                     group=f"{key}_{background}{suffix}"))  # fmt: skip
            # multi-class minus binary: a lower limit on the multi-class side bounds it from below, on
            # the binary side from above; both limits: no statement, the cell stays empty
            diff = {(c["m_hc"], c["m_a"]): c[f"{key}_multiclass_mean"] - c[f"{key}_binary_mean"] for c in sel
                    if not (limit(c, "multiclass") and limit(c, "binary"))}  # fmt: skip
            bounds = {(c["m_hc"], c["m_a"]): ">" if limit(c, "multiclass") else "<" for c in sel
                      if limit(c, "multiclass") != limit(c, "binary")}  # fmt: skip
            significant = ({(c["m_hc"], c["m_a"]) for c in sel if (c.get("auc_diff_p_holm") or 1.0) < SIGNIFICANCE}
                           if key == "auc_test" else set())  # fmt: skip
            specs.append(MapSpec(f"map_{key.replace('.', 'p')}_difference_{channel}_{pair}{suffix}",
                                 f"{what}: multi-class ({trainer.display_label(cls, {})}) minus binary "
                                 f"({trainer.display_label(background, {})}), {channel}", f"#Delta {what}",
                                 diff, "+.4f" if key == "auc_test" else "+.1f", diverging=True, bounds=bounds,
                                 significant=tuple(sorted(significant)),
                                 undefined=tuple((c["m_hc"], c["m_a"]) for c in sel if (c["m_hc"], c["m_a"]) not in diff),
                                 errors={(c["m_hc"], c["m_a"]): (c.get("auc_diff_standard_error") or math.nan) if key == "auc_test"
                                         else math.hypot(*(fold_standard_error(c, key, s) for s in ("binary", "multiclass")))
                                         for c in sel},
                                 pull_title=f"#Delta {'AUC' if key == 'auc_test' else 'rejection'} / #sigma_{{#Delta}}",
                                 short=f"Multi-class minus binary, vs {trainer.display_label(background, {})}, {trainer.channel_label(channel)}"))  # fmt: skip
    return share_ranges(specs)  # one quantity, one background: one colour scale (binary, multi-class, every channel)


def graph_figures(agg: Sequence[dict]) -> list[canvas.Figure]:
    """Test AUC vs m(A), one line per m(H+), errors = std over folds; per channel, kind, model, pair."""
    figs = []
    keys = sorted({(a["channel"], a["kind"], a["model"], a["pair"]) for a in agg if a["m_hc"] is not None})
    names = _variants(agg)
    for channel, kind, model, pair in keys:
        sel = [a for a in agg if (a["channel"], a["kind"], a["model"], a["pair"]) == (channel, kind, model, pair)
               and a["m_hc"] is not None and math.isfinite(a["auc_test_mean"])]  # fmt: skip
        if sel:
            variant = names.get(hyper_tag(model), "")
            suffix = f"_{variant}" if variant else ""
            figs.append(_auc_vs_ma_figure(f"auc_vs_mA_{kind}_{channel}_{pair}{suffix}", sel, kind, channel, pair, variant))
    return figs


def _auc_vs_ma_figure(name: str, sel: Sequence[dict], kind: str, channel: str, pair: str, variant: str = "") -> canvas.Figure:
    """One graph per m(H+) of the mean test AUC (std over folds as errors) against m(A)."""
    mas = [a["m_a"] for a in sel]
    aucs = np.array([a["auc_test_mean"] for a in sel])
    errs = np.array([a["auc_test_std"] for a in sel])
    lo, hi = float((aucs - errs).min()), float((aucs + errs).max())
    span = max(hi - lo, 0.01)
    what = quantity("binary" if kind == "binary" else "multiclass").lower()

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        cmsstyle().GetCmsCanvasHist(fig.canvas).GetXaxis().SetNdivisions(505)
        for i, mhc in enumerate(sorted({a["m_hc"] for a in sel})):
            pts = sorted((a for a in sel if a["m_hc"] == mhc), key=lambda a: a["m_a"])
            x = np.array([a["m_a"] for a in pts], dtype=float)
            y = np.array([a["auc_test_mean"] for a in pts])
            e = np.array([a["auc_test_std"] for a in pts])
            key = f"graphs/{name}_MHc{mhc}"
            graph = canvas.add_error_points(fig, key, x, y, e, f"{symbol('mhc')} = {mhc} GeV", marker_color=cycle_color(i),
                                            marker=20 + i)  # fmt: skip
            set_title(graph, f"Test AUC vs {symbol('ma')}, {symbol('mhc')} = {mhc} GeV, {what}, signal vs {trainer.display_label(pair, {})}, "
                             f"{trainer.channel_label(channel)}", quantity("ma"), "Test AUC (mean #pm std over folds)")  # fmt: skip
            graph.SetLineColor(cycle_color(i))
            graph.Draw("LP SAME")

    # fitted to the points, then with the lower part free for the box; a bounded quantity: the axis ends at 1.1 at most
    frames = [canvas.Frame((min(mas) - 8.0, max(mas) + 8.0), (lo - room * span, min(hi + 0.2 * span, 1.1)), quantity("ma"),
                           "Test AUC") for room in (0.2, 1.1)]  # fmt: skip
    context = [f"vs {trainer.display_label(pair, {})} ({what}), {trainer.channel_label(channel)}", "mean #pm std over folds"]
    if variant:  # the short variant name (summary.variant_names), escaped for TLatex
        context[1] = f"{escape.tlatex(variant)}, {context[1]}"
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, y_title_offset=1.45, cms_pos=0),
                               frames, draw, context)  # fmt: skip


def figures(data: dict) -> list[canvas.Figure]:
    from pnetviz.summary import binningtable  # noqa: PLC0415 - issue 39

    return [map_figure(s) for s in map_specs(data["aggregates"], data["binary_vs_multiclass"])] + graph_figures(data["aggregates"]) + binningtable.figures(data)


def working_point_files(rows: Sequence[dict]) -> dict[str, str]:
    """campaign_working_points.csv and .tex of campaign.workingpoints rows (none: headers only)."""
    return {"campaign_working_points.csv": csv_text(rows, WORKING_POINT_FIELDS),
            "campaign_working_points.tex": working_point_tables(rows)}


def write(directory: Path, data: dict, formats: Sequence[str], style, site: tuple[Path, str] | None = None) -> list[Path]:
    """Write the campaign set into `directory` (a staging directory of output.transaction); with
    `site` = (output root, JSROOT source), the web report's pages into its site/."""
    from pnetviz.output.publish import write_set  # noqa: PLC0415

    extra = {
        "campaign_summary.csv": csv_text(data["rows"], ROW_FIELDS),
        "campaign_summary_folds_mean.csv": csv_text(data["aggregates"], [*GROUP_KEY, "variant", "m_hc", "m_a", "folds",
                                                           *(f"{k}_{s}" for k in AGG_FIELDS for s in ("mean", "std")),
                                                    *(f"{k}_{s}" for k in REJECTION_FIELDS for s in ("mean", "lower", "upper"))]),
        "campaign_binary_vs_multiclass.csv": csv_text(data["binary_vs_multiclass"], COMPARED_FIELDS),
        "campaign_leaderboard.csv": csv_text(data.get("leaderboard", []), LEADERBOARD_FIELDS),
        "campaign_leaderboard.tex": leaderboard_tables(data.get("leaderboard", [])),
        "campaign_summary.json": dumps(plain(data)) + "\n",
        "campaign_summary.tex": latex_tables(data["binary_vs_multiclass"], data["aggregates"]),
    }  # fmt: skip
    extra |= working_point_files(data["working_points"])
    from pnetviz.summary import binningtable  # noqa: PLC0415 - issue 39: the binned sensitivity (table, maps, web section)

    extra |= binningtable.attach(data)
    from pnetviz.summary import gatable  # noqa: PLC0415 - issue 36: the GA searches' decisions side by side

    extra |= gatable.attach(data)
    report = {"jobs": {k: sum(j["status"] == k for j in data["jobs"]) for k in STATUS.values()} | {
                  "failed": sum(j["status"] == "failed" for j in data["jobs"])},
              "failed": [j for j in data["jobs"] if j["status"] == "failed"],
              "no_ntuple": [j for j in data["jobs"] if j["status"] == STATUS[NO_NTUPLE]],
              "binary_vs_multiclass": data["binary_vs_multiclass"], "std_convention": data["std_convention"],
              "families": data.get("families", {})}  # fmt: skip
    written = write_set(directory, formats, style, lambda: figures(data), report, "pnetviz campaign summary", extra,
                        root_name="campaign.root")  # fmt: skip
    if site is not None:
        from pnetviz.web.site import site_files  # noqa: PLC0415

        for rel, text in site_files(data, site[0], Path(directory), site[1]).items():
            (Path(directory) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(directory) / rel).write_text(text)
            written.append(Path(directory) / rel)
    return written


