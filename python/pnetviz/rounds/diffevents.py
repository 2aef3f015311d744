"""Event-paired errors of `pnetviz diff`: where both rounds evaluated the same test events in every
common fold (both ntuples hold `event_id`: the same ids and labels; else by position, the trainer's
ntuples without `event_id`: the same number of test events with the same true_label, weight and
observer sequences, rounds.diffposition), delta AUC gets the error of
a paired Poisson bootstrap (metrics.hep.paired_bootstrap: each event's weight multiplied by the same
Poisson(1) count in both rounds, so the correlation of the two rounds' AUCs is kept) instead of
the corrected fold test. Binary models only (a multi-class pair's score is not a branch).

Per fold k the bootstrap gives the variance v_k of AUC_B - AUC_A; over the common folds the
difference is the mean of the per-fold differences, its error sqrt(sum v_k)/k, and the p-value
two-sided from the normal distribution of the difference over its error: p = erfc(|z| / sqrt 2)
(math.erfc; scipy's 2 norm.sf(|z|) to the last bits, without needing scipy at run time).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pnetviz.rounds import diffposition
from pnetviz.rounds.diff import Diff
from pnetviz.errors import InputError
from pnetviz.io.ntuple import read_predictions
from pnetviz.io.treefile import branch_types
from pnetviz.escape import text_line
from pnetviz.io import readers
from pnetviz.metrics.hep import WEIGHT_MODES, mode_weights, paired_bootstrap
from pnetviz.io.readers import read_json

METHOD = "event-paired Poisson bootstrap (the same test events in both rounds, matched by event_id)"
METHOD_POSITION = "event-paired (by position)"  # the same test events in entry order: rounds.diffposition
NOT_PAIRED = "not event-paired, the corrected fold test"
REPLICAS = 200
SEED = 20251001


def two_sided_normal(z: float) -> float:
    """The two-sided p-value of a standard normal deviate `z`: P(|Z| >= |z|) = erfc(|z| / sqrt 2)."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def fold_input(root: Path, row: dict, model: str, fold: int) -> tuple[Path, str] | None:
    """(prediction ntuple, weight mode) a fold set of round `root` was made from (its
    summary_report.json), or None without a readable report; BadFile for a report whose weight_mode
    is none of the modes."""
    if not model:  # a summary row without its model's name: no set to find
        return None
    report = root / row["channel"] / row["kind"] / row["signal"] / model / f"fold-{fold}" / "summary_report.json"
    try:
        data = read_json(report, "fold report")
    except (InputError, OSError):
        return None
    mode = data.get("weight_mode") or "abs"
    if mode not in WEIGHT_MODES:  # a list, a number or another word: the report is damaged
        raise readers.BadFile(text_line(report), f"weight_mode {text_line(repr(mode))[:40]} is not one of "
                              f"{', '.join(WEIGHT_MODES)}", "re-run `pnetviz campaign` for this round")  # fmt: skip
    path = data.get("input")
    return (Path(path), mode) if isinstance(path, str) and Path(path).is_file() else None


def test_events(path: Path, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(event ids, signal scores, is signal, weights of `mode`) of the test events, sorted by id;
    None without event_id (or a file that cannot be read as a binary model)."""
    try:
        if "event_id" not in branch_types(path, "Events"):  # the trainer's ntuples: paired by position, if at all
            return None
        preds = read_predictions(path, classes=("signal", "background"), score_classes=("signal",), binary=True,
                                 with_event_id=True)  # fmt: skip
    except InputError:
        return None
    if preds.event_id is None:
        return None
    test = preds.masks["test"]
    ids = preds.event_id[test]
    order = np.argsort(ids, kind="stable")
    return (ids[order], preds.scores["signal"][test][order], (preds.label[test] == 0)[order],
            mode_weights(preds.weight[test], mode)[order])  # fmt: skip


def fold_variance(a: tuple, b: tuple, replicas: int, seed: int) -> float | None:
    """The bootstrap variance of AUC_B - AUC_A of one fold; None unless the same events."""
    if a[0].size != b[0].size or not np.array_equal(a[0], b[0]) or not np.array_equal(a[2], b[2]):
        return None
    if np.unique(a[0]).size != a[0].size:
        return None
    auc_a, auc_b = paired_bootstrap(a[1], b[1], a[2], a[3], b[3], replicas, seed)
    return float(np.var(auc_b - auc_a, ddof=1))


def fold_pairing(roots: tuple[Path, Path], row: dict, fold: int, replicas: int, seed: int) -> tuple[str, float] | str:
    """("id" or "position", the bootstrap variance of AUC_B - AUC_A) of one fold whose test events
    both rounds hold (by event_id where both ntuples have it, else by position:
    rounds.diffposition), or why not (one phrase naming the fold)."""
    inputs = (fold_input(roots[0], row, row["model_a"], fold), fold_input(roots[1], row, row["model_b"], fold))
    if None in inputs:
        side = "A" if inputs[0] is None else "B"
        return f"fold {fold}: round {side}'s fold report or its ntuple not found"
    events = [test_events(*i) for i in inputs]
    if None not in events:
        v = fold_variance(events[0], events[1], replicas, seed + fold)
        return ("id", v) if v is not None else f"fold {fold}: the two rounds' test events differ by event_id"
    same = diffposition.same_events(inputs[0][0], inputs[1][0], (inputs[0][1], inputs[1][1]))
    if isinstance(same, str):
        return f"fold {fold}: {same}"
    (sa, is_signal, wa), (sb, _, wb) = same
    auc_a, auc_b = paired_bootstrap(sa, sb, is_signal, wa, wb, replicas, seed + fold)
    return "position", float(np.var(auc_b - auc_a, ddof=1))


def pairing_text(folds: list[int], hows: list[str]) -> str:
    """"by position in folds 0 1 2" (or by event_id, or both, each with its folds)."""
    parts = []
    for how, name in (("id", "event_id"), ("position", "position")):
        chosen = [str(f) for f, h in zip(folds, hows, strict=True) if h == how]
        if chosen:
            parts.append(f"by {name} in fold{'s' * (len(chosen) > 1)} {' '.join(chosen)}")
    return "event-paired " + ", ".join(parts)


def pair_events(diff: Diff, roots: tuple[Path, Path], replicas: int = REPLICAS, seed: int = SEED) -> int:
    """Replace the fold test of every binary row whose folds all hold the same test events in both
    rounds (by event_id, else by position) by the event-paired bootstrap (before Holm's
    adjustment); every row's `pairing` says how its folds were paired or why they were not.
    Returns how many rows were paired."""
    paired = 0
    for row in diff.rows:
        if row["kind"] != "binary":
            row["pairing"] = f"{NOT_PAIRED}: a multi-class pair's score is no branch (binary models only)"
            continue
        folds = [int(f) for f in row["folds"].split()]
        found = []
        for fold in folds:
            result = fold_pairing(roots, row, fold, replicas, seed)
            if isinstance(result, str):
                row["pairing"] = f"{NOT_PAIRED}: {result}"
                break
            found.append(result)
        if len(found) != len(folds):
            continue
        by_id = all(how == "id" for how, _ in found)
        se = math.sqrt(sum(v for _, v in found)) / len(folds)
        delta = row["delta_auc"]
        p = 1.0 if delta == 0 else (two_sided_normal(delta / se) if se > 0 else 0.0)
        row |= {"delta_auc_standard_error": se, "t": delta / se if se > 0 else (0.0 if delta == 0 else None),
                "dof": None, "p_value": p, "error_method": METHOD if by_id else METHOD_POSITION,
                "pairing": pairing_text(folds, [how for how, _ in found])}  # fmt: skip
        paired += 1
    return paired
