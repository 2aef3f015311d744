"""The campaign's working-point table: per (channel, signal point, kind, model, pair, target
signal efficiency), the threshold of every fold with its mean and spread, and the test signal
efficiency, background efficiency and rejection over folds, from the `working_points.json` of
every finished binary and multi-class fold set. Written as `campaign_working_points.csv` and
`campaign_working_points.tex` (summary.latex, written by summary.summary)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz.io.layout import signal_masses
from pnetviz.summary import setfiles
from pnetviz.errors import InputError
from pnetviz.metrics import hep
from pnetviz.metrics.folds import Rejection, mean_std

WP_FILE = "working_points.json"  # as jobs.decisions.WP_FILE (the campaign reads what the jobs wrote)
FIELDS = ("channel", "signal", "m_hc", "m_a", "kind", "model", "pair", "target_eps_s", "wp_from", "folds", "thresholds",
          "threshold_mean", "threshold_std", "eps_s_test_mean", "eps_s_test_std", "eps_b_test_mean", "eps_b_test_std",
          "rejection_test", "rejection_test_lower", "rejection_test_upper", "expected_signal_test_mean", "expected_background_test_mean")  # fmt: skip


WHAT = "working points from this file"  # what the campaign takes from working_points.json (setfiles.damaged)


def damaged(path: Path, problem: str) -> InputError:
    return setfiles.damaged(path, problem, WHAT)


def _fold_points(directory: Path) -> dict | None:
    """One fold set's working_points.json (None when the set has none); a file that is not JSON,
    not an object with `pairs`, or whose points lack what the table needs, is an InputError
    naming it (`damaged`), never a traceback and never silently left out of the table."""
    path = Path(directory) / WP_FILE
    doc = setfiles.read_object(path, WHAT, missing_ok=True)
    if doc is None:
        return None
    if not isinstance(doc.get("pairs"), dict):
        raise damaged(path, "no 'pairs' object (pair -> working points)")
    for pair, entry in doc["pairs"].items():
        points = entry.get("points", []) if isinstance(entry, dict) else None
        if not isinstance(points, list) or not all(_point_ok(p) for p in points):
            raise damaged(path, f"the working points of {pair!r:.60} lack target_eps_s, threshold or test eps_s, eps_b "
                                "and effective_events")  # fmt: skip
    return doc


def check_working_points(jobs: Sequence) -> None:
    """InputError (`damaged`) if the working_points.json of a binary or multi-class set of `jobs`
    (campaign.plan.Job: the sets not redone) cannot give its rows: checked before any job runs,
    not after the campaign's last."""
    for job in jobs:
        if job.kind in ("binary", "multiclass"):
            for directory in job.outputs:
                _fold_points(Path(directory))


def _point_ok(point: object) -> bool:
    if not isinstance(point, dict) or not all(setfiles.is_number(point.get(k)) for k in ("target_eps_s", "threshold")):
        return False
    test = point.get("test")
    n_eff = test.get("effective_events") if isinstance(test, dict) else None
    return (isinstance(test, dict) and all(setfiles.is_number(test.get(k)) for k in ("eps_s", "eps_b")) and isinstance(n_eff, dict)
            and setfiles.is_number(n_eff.get("background")))  # fmt: skip


def working_point_rows(jobs: Sequence[dict]) -> list[dict]:
    """One row per (channel, signal, kind, model, pair, target) over the folds of the finished
    binary and multi-class jobs (`jobs`: the campaign summary's job list)."""
    groups: dict[tuple, list[tuple[int, dict, str]]] = {}
    for job in jobs:
        if job["status"] not in ("done", "up to date") or job["kind"] not in ("binary", "multiclass"):
            continue
        for directory in job["outputs"]:
            doc = _fold_points(Path(directory))
            if doc is None or doc.get("kind") != job["kind"]:
                continue
            for pair_name, entry in doc["pairs"].items():
                pair = pair_name.removeprefix("signal vs ")
                for point in entry.get("points", []):
                    key = (job["channel"], job["signal"], job["kind"], job["model"] or "", pair, point["target_eps_s"])
                    groups.setdefault(key, []).append((doc.get("fold"), point, entry.get("wp_from", "")))
    rows = []
    for (channel, signal, kind, model, pair, target), members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        mass = signal_masses(signal) or (None, None)
        tests = [p["test"] for _, p, _ in members]
        thresholds = [p["threshold"] for _, p, _ in members]
        eps_b = np.array([t["eps_b"] for t in tests], dtype=float)
        n_eff = sum(t["effective_events"]["background"] for t in tests)
        rej = Rejection.over_folds(eps_b, n_eff)  # asymmetric fold interval (folds.REJECTION_INTERVAL_RULE)
        row = {"channel": channel, "signal": signal, "m_hc": mass[0], "m_a": mass[1], "kind": kind, "model": model,
               "pair": pair, "target_eps_s": target, "wp_from": members[0][2],
               "folds": ";".join("pilot" if f is None else str(f) for f, _, _ in members),
               "thresholds": ";".join(f"{t:.6g}" for t in thresholds),
               "rejection_test": rej.value, "rejection_test_lower": rej.lower, "rejection_test_upper": rej.upper,
               "rejection_test_limit": rej.lower_limit}  # fmt: skip
        row["threshold_mean"], row["threshold_std"] = mean_std(thresholds)
        for name in ("eps_s", "eps_b"):
            row[f"{name}_test_mean"], row[f"{name}_test_std"] = mean_std([t[name] for t in tests])
        for name in ("expected_signal", "expected_background"):
            values = [t[name] for t in tests if name in t]
            row[f"{name}_test_mean"] = mean_std(values)[0] if values else None
        rows.append(row)
    raise_limits(rows)
    return rows


def raise_limits(rows: Sequence[dict]) -> None:
    """Each model's and pair's rejection lower limits raised to its measured rejections at larger
    target eps_s (hep.monotone_limits, as folds/ does): a looser cut never rejects more."""
    models: dict[tuple, list[dict]] = {}
    for row in rows:
        models.setdefault(tuple(row[k] for k in ("channel", "signal", "kind", "model", "pair")), []).append(row)
    for members in models.values():
        by_target = {str(r["target_eps_s"]): r for r in members}
        raised = hep.monotone_limits({t: r["rejection_test"] for t, r in by_target.items()},
                                     {t: bool(r["rejection_test_limit"]) for t, r in by_target.items()})  # fmt: skip
        for target, row in by_target.items():
            row["rejection_test"] = raised[target]
