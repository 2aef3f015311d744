"""The across-signal-point view of a campaign: one table row per (channel, signal, kind, model,
pair, fold) read from the jobs' reports, mean +- std over folds, a LaTeX table for the analysis
note, and maps over the mass grid (TH2: x = m(H+), y = m(A)) with AUC-vs-m(A) graphs.

Compute first (rows, aggregates: plain data), then draw (figures); `write` publishes the set
`<output>/campaign/` through output.transaction like every other output set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.draw import canvas
from pnetviz.errors import InputError
from pnetviz.io import trainer
from pnetviz.io.layout import hyper_tag, signal_masses
from pnetviz.campaign.latex import latex_tables, leaderboard_tables, working_point_tables
from pnetviz.campaign.workingpoints import FIELDS as WORKING_POINT_FIELDS, check_working_points, working_point_rows
from pnetviz import escape
from pnetviz.escape import csv_cell
from pnetviz.campaign import setfiles
from pnetviz.campaign.plan import Job, JobResult
from pnetviz.metrics.folds import Rejection, mean_std, paired_difference
from pnetviz.draw.style import cmsstyle, cycle_color
from pnetviz.rootenv import set_title
from pnetviz.output.report import dumps, plain

ROW_FIELDS = ("channel", "signal", "m_hc", "m_a", "kind", "model", "pair", "fold", "auc_test", "auc_test_error",
              "auc_train", "rejection_0.5", "rejection_0.9", "eps_b_0.5", "eps_b_0.9", "fip2", "punzi", "yields", "ks_p_signal",
              "ks_p_background", "events_test_signal", "events_test_background", "n_eff_test_background",
              "auc_test_profiled")  # fmt: skip
AGG_FIELDS = ("auc_test", "auc_train", "fip2", "punzi", "auc_test_profiled")
REJECTION_FIELDS = ("rejection_0.5", "rejection_0.9")  # 1/mean(eps_b) over folds, or a lower limit (never dropped)
GROUP_KEY = ("channel", "signal", "kind", "model", "pair")
SIGNIFICANCE = 0.05  # difference-map cells marked "*" below this two-sided p-value


masses = signal_masses  # (m(H+), m(A)) of a signal point name, or None


def _row(job: Job, fold, pair: str, metrics: dict, events: dict, syst: dict | None) -> dict:
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
    }  # fmt: skip


REPORT_FILE = "summary_report.json"  # what every binary and multi-class fold set holds (output.report)
NUMBER_FIELDS = ("auc_test", "auc_test_error", "auc_train", "rejection_0.5", "rejection_0.9", "eps_b_0.5", "eps_b_0.9",
                 "fip2", "punzi", "ks_p_signal", "ks_p_background", "auc_test_profiled")  # a number, or null (not finite)
COUNT_FIELDS = ("n_eff_test_background", "events_test_signal", "events_test_background")  # always a number


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
                ev = report["events"]["test"]
                found = [_row(job, fold, job.pair, report["hep_metrics"], (ev["signal"], ev[job.pair]),
                              report.get("systematics"))]  # fmt: skip
            else:
                info, found = _multiclass_rows(job, fold, report, path)
        except (KeyError, IndexError, TypeError, AttributeError) as err:
            what = f"no {err.args[0]!r:.60} entry" if isinstance(err, KeyError) else "a value of the wrong kind"
            raise damaged(path, f"{what} where the campaign reads events, hep_metrics, auc, classes or systematics") from None
        for row in found:
            bad = [k for k in NUMBER_FIELDS if row[k] is not None and not setfiles.is_number(row[k])]
            bad += [k for k in COUNT_FIELDS if not (setfiles.is_number(row[k]) and math.isfinite(row[k]))]
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
    if not isinstance(groups, dict) or not all(isinstance(v, list) and all(isinstance(s, str) for s in v)
                                               for v in (members.values() if isinstance(members, dict) else ())):  # fmt: skip
        raise damaged(path, "model.background_info is not an object of group -> sample names")
    rows = []
    for pair, metrics in report["hep_metrics"].items():
        used = report["auc"][pair]["events_used"]["test"]
        rows.append(_row(job, fold, pair, metrics, (used[classes[0]], used[pair]), report.get("systematics", {}).get(pair)))
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
            entry[f"{name}_mean"], entry[f"{name}_std"], entry[f"{name}_limit"] = rej.value, rej.std, rej.lower_limit
        out.append(entry)
    return out


@dataclass(frozen=True)
class Pairing:
    """Which multi-class class each binary background is compared with, per (channel, signal)."""

    table: dict[tuple[str, str, str], list[tuple[str, str]]]  # (channel, signal, binary bkg) -> [(mc model, class)]


def pairings(mc_info: dict[tuple[str, str, str], dict], binary_pairs: set[tuple[str, str, str]]) -> Pairing:
    table = {}
    for channel, signal, background in binary_pairs:
        for (c, s, model), info in mc_info.items():
            if (c, s) != (channel, signal):
                continue
            groups = info["groups"].get("groups") if isinstance(info["groups"].get("groups"), dict) else {}
            target = trainer.pairing(background, tuple(info["classes"]), groups)
            if target:
                table.setdefault((channel, signal, background), []).append((model, target))
    return Pairing(table)


DIFFERENCE_CONVENTION = ("difference = multi-class minus binary test AUC per fold (the folds both have); paired "
                         "Student t over folds with its two-sided p-value; inverse-variance combination with the "
                         "per-fold errors sqrt(e_binary^2 + e_multiclass^2)")  # fmt: skip


def fold_statistics(rows: Sequence[dict], c: dict) -> dict:
    """Paired statistics of the test-AUC difference (multi-class minus binary) over the folds that
    both models of comparison `c` have (folds.paired_difference), as flat `auc_diff_*` fields."""
    def per_fold(kind: str, model: str, pair: str) -> dict:
        return {r["fold"]: r for r in rows if (r["channel"], r["signal"], r["kind"], r["model"], r["pair"]) ==
                (c["channel"], c["signal"], kind, model, pair)}  # fmt: skip

    b = per_fold("binary", c["binary_model"], c["background"])
    m = per_fold("multiclass", c["multiclass_model"], c["multiclass_class"])
    folds = sorted(set(b) & set(m), key=str)
    stats = paired_difference([m[f]["auc_test"] for f in folds], [b[f]["auc_test"] for f in folds],
                              [math.hypot(b[f]["auc_test_error"] or math.nan, m[f]["auc_test_error"] or math.nan)
                               for f in folds])  # fmt: skip
    return {f"auc_diff_{k}": stats[k] for k in ("folds", "mean", "standard_error", "t", "p_value", "combined", "combined_error")}


COMPARED_FIELDS = ("channel", "signal", "m_hc", "m_a", "variant", "tag", "background", "multiclass_class", "binary_model",
                   "multiclass_model", "auc_test_binary_mean", "auc_test_binary_std", "auc_test_multiclass_mean",
                   "auc_test_multiclass_std", "auc_diff_folds", "auc_diff_mean", "auc_diff_standard_error", "auc_diff_t",
                   "auc_diff_p_value", "auc_diff_combined", "auc_diff_combined_error", "rejection_0.5_binary_mean",
                   "rejection_0.5_multiclass_mean")  # fmt: skip


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


LEADERBOARD_FIELDS = ("channel", "signal", "m_hc", "m_a", "background", "rank", "kind", "variant", "pair", "folds",
                      "auc_test_mean", "auc_test_std", "auc_test_standard_error", "diff_to_best_folds",
                      "diff_to_best_mean", "diff_to_best_standard_error", "diff_to_best_t", "diff_to_best_p_value",
                      "rejection_0.5_mean", "rejection_0.9_mean", "model", "note")  # fmt: skip
LEADERBOARD_CONVENTION = ("per (channel, signal point, background): every model and variant (binary models trained "
                          "against the background, multi-class likelihood ratios of the class holding it) ranked by "
                          "mean test AUC over folds, best first; standard error = std/sqrt(folds); difference to the "
                          "best = best minus this, per common fold, paired Student t over those folds with its "
                          "two-sided p-value (n/a with fewer than two common folds); rejection = 1/mean(eps_b) over "
                          "folds, '> X' a lower limit")  # fmt: skip


def leaderboard(rows: Sequence[dict], agg: Sequence[dict], pairing: Pairing) -> list[dict]:
    """The leaderboard rows (LEADERBOARD_FIELDS), grouped by (channel, signal, background), best first."""
    names = _variants(agg)
    per_fold: dict[tuple, dict] = {}
    for r in rows:
        per_fold.setdefault(tuple(r[k] for k in GROUP_KEY), {})[r["fold"]] = r["auc_test"]
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
        ranked = sorted(members, key=lambda a: (-a["auc_test_mean"] if math.isfinite(a["auc_test_mean"]) else math.inf,
                                                a["kind"], a["model"]))  # fmt: skip
        best = per_fold[tuple(ranked[0][k] for k in GROUP_KEY)]
        for rank, a in enumerate(ranked, start=1):
            mine = per_fold[tuple(a[k] for k in GROUP_KEY)]
            common = sorted(set(best) & set(mine), key=str)
            stats = paired_difference([best[f] for f in common], [mine[f] for f in common])
            n = len(a["folds"])
            entry = {"channel": channel, "signal": signal, "m_hc": a["m_hc"], "m_a": a["m_a"], "background": background,
                     "rank": rank, "kind": a["kind"], "variant": names.get(hyper_tag(a["model"]), ""), "pair": a["pair"],
                     "model": a["model"], "folds": n, "auc_test_mean": a["auc_test_mean"], "auc_test_std": a["auc_test_std"],
                     "auc_test_standard_error": a["auc_test_std"] / math.sqrt(n) if n > 1 else math.nan,
                     **{f"{k}_{s}": a.get(f"{k}_{s}") for k in REJECTION_FIELDS for s in ("mean", "std", "limit")}}  # fmt: skip
            if rank == 1:
                entry |= {"diff_to_best_folds": len(common), "diff_to_best_mean": 0.0, "note": "best"}
            else:
                entry |= {f"diff_to_best_{k}": stats[k] for k in ("mean", "standard_error", "t", "p_value")}
                entry["diff_to_best_folds"] = len(common)
                if stats["p_value"] is None:
                    entry["diff_to_best_p_value"] = "n/a"
                    entry["note"] = ("no common folds with the best" if not common else
                                     "one common fold with the best" if len(common) == 1 else "identical per-fold AUCs")
            out.append(entry)
    return out


DONE, UP_TO_DATE, OTHER_OPTIONS = 0, -1, -3  # JobResult codes of sets the summary describes (failures are > 0)
STATUS = {DONE: "done", UP_TO_DATE: "up to date", OTHER_OPTIONS: "other options"}


def summary(results: Sequence[JobResult]) -> dict:
    """Rows, aggregates, binary-vs-multi-class pairs and the job list of a finished campaign, in
    job-name order whatever order the jobs finished in (two runs give identical files)."""
    results = sorted(results, key=lambda r: r.job.name)
    rows, mc_info = [], {}
    for r in results:
        if r.code in (DONE, UP_TO_DATE) and r.job.kind in ("binary", "multiclass"):  # not other options' sets
            job_rows_, info = job_rows(r.job)
            rows += job_rows_
            if r.job.kind == "multiclass":
                mc_info[(r.job.channel, r.job.signal, r.job.model or "")] = info
    agg = aggregate(rows)
    binary_pairs = {(a["channel"], a["signal"], a["pair"]) for a in agg if a["kind"] == "binary"}
    pairing = pairings(mc_info, binary_pairs)
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
                             **{f"{k}_{side}_{s}": src[f"{k}_{s}"] for k in ("auc_test", "rejection_0.5")
                                for side, src in (("binary", b), ("multiclass", m)) for s in ("mean", "std")},
                             **{f"rejection_0.5_{side}_limit": src["rejection_0.5_limit"]
                                for side, src in (("binary", b), ("multiclass", m))},
                             "n_folds_binary": len(b["folds"]), "n_folds_multiclass": len(m["folds"])})  # fmt: skip
    for c in compared:
        c.update(fold_statistics(rows, c))
    names = _variants(agg)
    for entry in (*agg, *compared):
        entry["variant"] = names.get(hyper_tag(entry.get("model") or entry.get("binary_model")), "")
    jobs = [{"job": r.job.name, "status": STATUS.get(r.code, "failed"), "message": r.message,
             "seconds": round(r.seconds, 3), "outputs": [str(p) for p in r.job.outputs], "kind": r.job.kind,
             "channel": r.job.channel, "signal": r.job.signal, "model": r.job.model, "pair": r.job.pair} for r in results]  # fmt: skip
    return {"rows": rows, "aggregates": agg, "binary_vs_multiclass": compared, "jobs": jobs,
            "working_points": working_point_rows(jobs),
            "leaderboard": leaderboard(rows, agg, pairing), "leaderboard_convention": LEADERBOARD_CONVENTION,
            "std_convention": "sample standard deviation over folds (ddof=1)", "difference_convention": DIFFERENCE_CONVENTION}  # fmt: skip


def _cell(row: dict, key: str):
    """A CSV cell: a rejection that is a lower limit reads "> X" (its `_limit` flag, per fold, or
    of the fold mean `<name>_mean` -> `<name>_limit`); missing values stay empty."""
    value = row.get(key)
    flag = row.get(f"{key}_limit", row.get(key.removesuffix("_mean") + "_limit") if key.endswith("_mean") else None)
    if value is None:
        return ""
    return f"> {value:.6g}" if flag else csv_cell(value)


def csv_text(rows: Sequence[dict], fields: Sequence[str]) -> str:
    """A campaign CSV: `fields` of `rows`, lower limits as "> value" (_cell)."""
    return escape.csv_table(rows, fields, _cell)


@dataclass(frozen=True)
class MapSpec:
    name: str  # file stem
    title: str  # what the values are (the ROOT object's title)
    ztitle: str
    points: dict[tuple[int, int], float]  # (m_hc, m_a) -> value
    fmt: str
    diverging: bool = False
    bounds: dict[tuple[int, int], str] = field(default_factory=dict)  # cell -> ">" or "<": the value is a limit
    undefined: tuple[tuple[int, int], ...] = ()  # signal points with no value (a difference of two lower limits)
    significant: tuple[tuple[int, int], ...] = ()  # cells whose difference has p < SIGNIFICANCE (paired t over folds)
    short: str = ""  # the context line on the figure (short enough for 8 cm); the title otherwise


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
                label = "binary" if side == "binary" else "multi-class LR"
                vs = trainer.display_label(background if side == "binary" else cls, {})
                specs.append(MapSpec(f"map_{key.replace('.', 'p')}_{side}_{channel}_{pair}{suffix}",
                                     f"{what}, {label}, signal vs {vs}, {trainer.channel_label(channel)}",
                                     what, {(c["m_hc"], c["m_a"]): c[f"{key}_{side}_mean"] for c in sel}, fmt,
                                     bounds={(c["m_hc"], c["m_a"]): ">" for c in sel if limit(c, side)},
                                     short=f"{label}, signal vs {vs}, {trainer.channel_label(channel)}"))  # fmt: skip
            # multi-class minus binary: a lower limit on the multi-class side bounds it from below, on
            # the binary side from above; both limits: no statement, the cell stays empty
            diff = {(c["m_hc"], c["m_a"]): c[f"{key}_multiclass_mean"] - c[f"{key}_binary_mean"] for c in sel
                    if not (limit(c, "multiclass") and limit(c, "binary"))}  # fmt: skip
            bounds = {(c["m_hc"], c["m_a"]): ">" if limit(c, "multiclass") else "<" for c in sel
                      if limit(c, "multiclass") != limit(c, "binary")}  # fmt: skip
            significant = ({(c["m_hc"], c["m_a"]) for c in sel if (c.get("auc_diff_p_value") or 1.0) < SIGNIFICANCE}
                           if key == "auc_test" else set())  # fmt: skip
            specs.append(MapSpec(f"map_{key.replace('.', 'p')}_difference_{channel}_{pair}{suffix}",
                                 f"{what}: multi-class ({trainer.display_label(cls, {})}) minus binary "
                                 f"({trainer.display_label(background, {})}), {channel}", f"#Delta {what}",
                                 diff, "+.4f" if key == "auc_test" else "+.1f", diverging=True, bounds=bounds,
                                 significant=tuple(sorted(significant)),
                                 undefined=tuple((c["m_hc"], c["m_a"]) for c in sel if (c["m_hc"], c["m_a"]) not in diff),
                                 short=f"Multi-class minus binary, vs {trainer.display_label(background, {})}, {trainer.channel_label(channel)}"))  # fmt: skip
    return specs


def map_figure(spec: MapSpec) -> canvas.Figure:
    """COLZ map over the mass grid, one bin per mass value, the value printed in each cell."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    cells = {*spec.points, *spec.undefined}
    xs = sorted({m[0] for m in cells})
    ys = sorted({m[1] for m in cells})
    fig = canvas.matrix_figure(spec.name, 1, [str(y) for y in ys])
    hist = ROOT.TH2D(spec.name, "", len(xs), 0, len(xs), len(ys), 0, len(ys))
    set_title(hist, spec.title, "m(H^{+}) [GeV]", "m(A) [GeV]", spec.ztitle)  # whole, a ';' in a name too
    hist.SetStats(False)
    for i, x in enumerate(xs):
        hist.GetXaxis().SetBinLabel(i + 1, str(x))
    for j, y in enumerate(ys):
        hist.GetYaxis().SetBinLabel(j + 1, str(y))
    values = np.array(list(spec.points.values()), dtype=float)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if spec.diverging:
        lo, hi = -max(abs(lo), abs(hi), 1e-6), max(abs(lo), abs(hi), 1e-6)
    pad = 0.02 * (hi - lo or 1.0)
    hist.SetMinimum(lo - pad)
    hist.SetMaximum(hi + pad)
    for i in range(len(xs)):  # cells without a signal point: below the minimum, left blank by COLZ
        for j in range(len(ys)):
            hist.SetBinContent(i + 1, j + 1, lo - 100 * pad)
    for (x, y), v in spec.points.items():
        if math.isfinite(v):
            hist.SetBinContent(xs.index(x) + 1, ys.index(y) + 1, v)
    for axis, title in ((hist.GetXaxis(), "m(H^{+}) [GeV]"), (hist.GetYaxis(), "m(A) [GeV]")):
        axis.SetTitle(title)
        axis.SetLabelSize(canvas.BIN_LABEL_SIZE["matrix"])
        axis.SetTitleSize(canvas.MATRIX_LABEL_SIZE)
    hist.SetBit(ROOT.TH1.kNoTitle)
    hist.GetXaxis().SetTitleOffset(1.3)
    hist.GetYaxis().SetTitleOffset(1.6)
    hist.GetZaxis().SetTitle(spec.ztitle)
    hist.GetZaxis().SetTitleOffset(1.55)
    hist.GetZaxis().SetTitleSize(canvas.MATRIX_LABEL_SIZE)
    hist.GetZaxis().SetLabelSize(canvas.MATRIX_LABEL_SIZE)
    hist.GetZaxis().SetNoExponent(True)  # no "x10^-3" over the run text
    hist.GetZaxis().SetNdivisions(505)
    pad_obj = fig.pads[0]
    pad_obj.cd()
    pad_obj.SetRightMargin(0.25)  # the palette, its labels (up to 6 characters) and the z title
    # the palette travels with the canvas (a TExec runs when it is painted, in a plain session too):
    # a diverging one centred on zero for differences, a sequential one otherwise
    palette = ROOT.TExec("palette", f"gStyle->SetPalette({87 if spec.diverging else 57});")  # kLightTemperature, kBird
    hist.Draw("COLZ")
    pad_obj.GetListOfPrimitives().AddFirst(palette)  # painted before the cells
    fig.extras.append(palette)
    canvas.place_palette(hist, pad_obj)
    for (x, y), v in spec.points.items():
        label = format(v, spec.fmt) if math.isfinite(v) else "n/a"
        if (x, y) in spec.bounds:
            label = f"{spec.bounds[(x, y)]} {label}"
        if (x, y) in spec.significant:
            label += "*"
        text = ROOT.TLatex(xs.index(x) + 0.5, ys.index(y) + 0.5, label)
        text.SetTextAlign(22)
        text.SetTextFont(42)
        text.SetTextSize(canvas.MATRIX_LABEL_SIZE)
        # white on the palettes' dark ends: both ends of the diverging one, the low end of the sequential one
        where = (v - lo) / (hi - lo) if hi > lo and math.isfinite(v) else 0.5
        dark = abs(where - 0.5) > 0.35 if spec.diverging else where < 0.3
        text.SetTextColor(ROOT.kWhite if dark else ROOT.kBlack)
        text.Draw()
        fig.extras.append(text)
    for x, y in spec.undefined:  # both sides lower limits: no difference to state
        text = ROOT.TLatex(xs.index(x) + 0.5, ys.index(y) + 0.5, "both limits")
        text.SetTextAlign(22)
        text.SetTextFont(42)
        text.SetTextSize(canvas.CONTEXT_SIZE["matrix"])
        text.Draw()
        fig.extras.append(text)
    note = f" (* p < {SIGNIFICANCE:g}, paired t over folds)" if spec.diverging and "AUC" in spec.title else ""
    lines = [spec.short or spec.title, note.strip(" ()")] if note else [spec.short or spec.title]
    canvas.add_text(fig, lines, 0.02, 0.03 + 1.45 * canvas.CONTEXT_SIZE["matrix"] * (len(lines) - 1), pad=0, align=11, size=canvas.CONTEXT_SIZE["matrix"])
    # for the ROOT file: the same z range, cells without a signal point below it, so that COLZ leaves
    # them empty when the map is drawn alone (a stored 0 would read as a value, e.g. "no difference")
    stored = hist.Clone(f"{spec.name}_values")
    set_title(stored, f"{spec.short or spec.title} (blank: no signal point)", "m(H^{+}) [GeV]", "m(A) [GeV]", spec.ztitle)
    stored.SetBit(ROOT.TH1.kNoTitle, False)
    fig.extras.append(hist)
    fig.keep(f"maps/{spec.name}", stored)
    return fig


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
    what = "binary" if kind == "binary" else "multi-class LR"

    def draw(fig: canvas.Figure, frame: canvas.Frame) -> None:
        cmsstyle().GetCmsCanvasHist(fig.canvas).GetXaxis().SetNdivisions(505)
        for i, mhc in enumerate(sorted({a["m_hc"] for a in sel})):
            pts = sorted((a for a in sel if a["m_hc"] == mhc), key=lambda a: a["m_a"])
            x = np.array([a["m_a"] for a in pts], dtype=float)
            y = np.array([a["auc_test_mean"] for a in pts])
            e = np.array([a["auc_test_std"] for a in pts])
            key = f"graphs/{name}_MHc{mhc}"
            graph = canvas.add_error_points(fig, key, x, y, e, f"m(H^{{+}}) = {mhc} GeV", marker_color=cycle_color(i),
                                            marker=20 + i)  # fmt: skip
            set_title(graph, f"Test AUC vs m(A), m(H^{{+}}) = {mhc} GeV, {what}, signal vs {trainer.display_label(pair, {})}, "
                             f"{trainer.channel_label(channel)}", "m(A) [GeV]", "Test AUC (mean #pm std over folds)")  # fmt: skip
            graph.SetLineColor(cycle_color(i))
            graph.Draw("LP SAME")

    # fitted to the points, then with the lower part free for the box; a bounded quantity: the axis ends at 1.1 at most
    frames = [canvas.Frame((min(mas) - 8.0, max(mas) + 8.0), (lo - room * span, min(hi + 0.2 * span, 1.1)), "m(A) [GeV]",
                           "Test AUC") for room in (0.2, 1.1)]  # fmt: skip
    context = [f"vs {trainer.display_label(pair, {})} ({what}), {trainer.channel_label(channel)}", "mean #pm std over folds"]
    if variant:  # the short variant name (summary.variant_names), escaped for TLatex
        context[1] = f"{escape.tlatex(variant)}, {context[1]}"
    return canvas.boxed_figure(lambda fr: canvas.figure(name, fr, y_title_offset=1.45, cms_pos=0),
                               frames, draw, context)  # fmt: skip


def figures(data: dict) -> list[canvas.Figure]:
    from pnetviz.campaign import binningtable  # noqa: PLC0415 - issue 39

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
                                                    *(f"{k}_{s}" for k in (*AGG_FIELDS, *REJECTION_FIELDS)
                                                      for s in ("mean", "std"))]),
        "campaign_binary_vs_multiclass.csv": csv_text(data["binary_vs_multiclass"], COMPARED_FIELDS),
        "campaign_leaderboard.csv": csv_text(data.get("leaderboard", []), LEADERBOARD_FIELDS),
        "campaign_leaderboard.tex": leaderboard_tables(data.get("leaderboard", [])),
        "campaign_summary.json": dumps(plain(data), indent=1) + "\n",
        "campaign_summary.tex": latex_tables(data["binary_vs_multiclass"], data["aggregates"]),
    }  # fmt: skip
    extra |= working_point_files(data["working_points"])
    from pnetviz.campaign import binningtable  # noqa: PLC0415 - issue 39: the binned sensitivity (table, maps, web section)

    extra |= binningtable.attach(data)
    report = {"jobs": {k: sum(j["status"] == k for j in data["jobs"]) for k in STATUS.values()} | {
                  "failed": sum(j["status"] == "failed" for j in data["jobs"])},
              "failed": [j for j in data["jobs"] if j["status"] == "failed"],
              "binary_vs_multiclass": data["binary_vs_multiclass"], "std_convention": data["std_convention"]}  # fmt: skip
    written = write_set(directory, formats, style, lambda: figures(data), report, "pnetviz campaign summary", extra,
                        root_name="campaign.root")  # fmt: skip
    if site is not None:
        from pnetviz.campaign.site import site_files  # noqa: PLC0415

        for rel, text in site_files(data, site[0], Path(directory), site[1]).items():
            (Path(directory) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(directory) / rel).write_text(text)
            written.append(Path(directory) / rel)
    return written


