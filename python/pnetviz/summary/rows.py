"""The round's rows: one per (channel, signal, kind, model, pair, fold) read from the fold sets'
summary_report.json (a damaged report is one error naming it), and their mean and std over folds."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.campaign.plan import Job
from pnetviz.errors import InputError
from pnetviz.io.layout import signal_masses
from pnetviz.metrics import hep
from pnetviz.metrics.folds import Rejection, mean_std
from pnetviz.summary import setfiles
from pnetviz.summary.workingpoints import check_working_points


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


WEIGHTED = "weighted_lr"  # a multi-class report's section of the weighted LR (metrics.weightedlr.NAME)
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
    weighted = report.get(WEIGHTED)
    for name, metrics in (weighted["hep_metrics"].items() if weighted is not None else ()):  # --score weighted-lr:
        events = weighted["pairs"][name]["events_used"]  # more rows, pair weighted_lr_all, weighted_lr_<class>
        used, train, other = events["test"], events.get("train") or {}, "background" if name == "all" else name
        rows.append(_row(job, fold, f"{WEIGHTED}_{name}", metrics, (used[classes[0]], used[other]), None,
                         (train.get(classes[0]), train.get(other))))
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
        raise_limits(entry)
        out.append(entry)
    return out


def raise_limits(entry: dict) -> None:
    """A fold-mean rejection that is a lower limit raised to every measured one at a larger eps_s
    (hep.monotone_limits: "> 4.55" at eps_s 0.5 beside a measured 10.13 at 0.9 reads "> 10.13"), as folds/ does."""
    eps = {name.split("_")[1]: name for name in REJECTION_FIELDS}
    raised = hep.monotone_limits({e: entry[f"{n}_mean"] for e, n in eps.items()}, {e: bool(entry[f"{n}_limit"]) for e, n in eps.items()})
    for e, name in eps.items():
        entry[f"{name}_mean"] = raised[e]
