"""The statistics of the campaign's tables: the leaderboard ranked on the folds its members
share, each member against the best by the corrected resampled t-test (metrics.foldtests),
Holm and Benjamini-Hochberg adjustment over each table's family of comparisons
(metrics.multiplicity), and ties: every member whose Holm-adjusted p-value against the best is
above ALPHA is "compatible with the best" and shares its rank ("1=").
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from pnetviz.metrics.foldtests import corrected_paired_test, events_ratio
from pnetviz.metrics.multiplicity import benjamini_hochberg, family_size, holm

ALPHA = 0.05  # adjusted p-values below it are "significant" (stars, colours, ties)
STAT_KEYS = ("folds", "mean", "standard_error", "t", "p_value", "t_naive", "p_naive_t", "test_train_ratio")


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fold_ratio(rows: Sequence[dict]) -> float | None:
    """n_test/n_train of fold rows (campaign summary rows: test and train events of the pair,
    signal plus background); None when no row has its training counts (foldtests.RATIO_CONVENTION)."""
    def total(r: dict, split: str):
        s, b = r.get(f"events_{split}_signal"), r.get(f"events_{split}_background")
        return s + b if _finite(s) and _finite(b) else None

    return events_ratio([total(r, "test") for r in rows], [total(r, "train") for r in rows])


def paired_statistics(a: dict, b: dict, folds: Sequence, value: str = "auc_test") -> dict:
    """Corrected paired test of `value` a - b over `folds` ({fold: row} each), n_test/n_train
    from both sides' rows of those folds."""
    ratio = fold_ratio([side[f] for f in folds for side in (a, b)])
    return corrected_paired_test([a[f][value] for f in folds], [b[f][value] for f in folds], ratio)


def shared_folds(per_fold: Sequence[dict]) -> list:
    """The folds where every member has a finite test AUC (fold order)."""
    sets = [{f for f, r in member.items() if _finite(r["auc_test"])} for member in per_fold]
    return sorted(set.intersection(*sets), key=str) if sets else []


def ranked(members: Sequence[dict], per_fold: Sequence[dict]) -> Iterator[tuple[int, dict, dict]]:
    """(position, member, fields) best first. Members are ranked by their mean test AUC over the
    folds all of them share, and compared with the best over those folds (a member evaluated on
    fewer folds cannot lead on folds the others lack); without such a fold, by their own means,
    each compared with the best over the folds the two have. `fields`: auc_test_mean_ranked,
    rank_folds, the diff_to_best_* statistics and a note (missing folds, why no test)."""
    shared = shared_folds(per_fold)
    union = sorted({f for member in per_fold for f in member}, key=str)

    def key(i: int) -> float:
        value = (sum(per_fold[i][f]["auc_test"] for f in shared) / len(shared)) if shared else members[i]["auc_test_mean"]
        return value if _finite(value) else -math.inf

    order = sorted(range(len(members)), key=lambda i: (-key(i), members[i]["kind"], members[i]["model"]))
    best = per_fold[order[0]]
    for position, i in enumerate(order, start=1):
        mine = per_fold[i]
        common = shared or sorted(set(best) & set(mine), key=str)
        missing = [f for f in union if f not in mine]
        notes = [f"missing folds {', '.join(map(str, missing))} (ranked on the {len(shared)} folds all members share)"
                 if missing and shared else ""]  # fmt: skip
        fields = {"auc_test_mean_ranked": key(i) if shared else members[i]["auc_test_mean"], "rank_folds": len(shared),
                  "diff_to_best_folds": len(common)}  # fmt: skip
        if position == 1:
            fields |= {"diff_to_best_mean": 0.0}
            notes.insert(0, "best")
        else:
            stats = paired_statistics(best, mine, common)
            fields |= {f"diff_to_best_{k}": stats[k] for k in STAT_KEYS if k != "folds"}
            if stats["p_value"] is None:
                fields["diff_to_best_p_value"] = "n/a"
                notes.insert(0, "no common folds with the best" if not common else "one common fold with the best"
                             if len(common) == 1 else "constant per-fold difference")  # fmt: skip
            elif stats["identical"]:
                notes.insert(0, "identical per-fold AUCs")
        fields["note"] = "; ".join(n for n in notes if n)
        yield position, members[i], fields


def adjust_family(entries: Sequence[dict], prefix: str) -> int:
    """Holm-adjusted p-values (`<prefix>_p_holm`) and Benjamini-Hochberg q-values (`<prefix>_q_bh`)
    over every entry whose `<prefix>_p_value` is a number: the family of one table. Entries
    without a test get None. Returns the family size."""
    p_values = [e.get(f"{prefix}_p_value") for e in entries]
    for e, p_holm, q_bh in zip(entries, holm(p_values), benjamini_hochberg(p_values), strict=True):
        e[f"{prefix}_p_holm"] = p_holm if math.isfinite(p_holm) else None
        e[f"{prefix}_q_bh"] = q_bh if math.isfinite(q_bh) else None
    return family_size(p_values)


def mark_ties(entries: Sequence[dict]) -> None:
    """`compatible_with_best` (Holm-adjusted p against the best above ALPHA; True for the best
    itself) and the shown `rank` of leaderboard entries (best first within each channel, signal
    point and background, with their `position`): "1=" for the best and every member compatible
    with it, the position otherwise."""
    groups: dict[tuple, list[dict]] = {}
    for e in entries:
        groups.setdefault((e["channel"], e["signal"], e["background"]), []).append(e)
    for members in groups.values():
        for e in members:
            p = e.get("diff_to_best_p_holm")
            e["compatible_with_best"] = e["position"] == 1 or (_finite(p) and p > ALPHA)
            if e["compatible_with_best"] and e["position"] != 1:
                e["note"] = "; ".join(n for n in ("compatible with the best", e.get("note", "")) if n)
        tied = any(e["compatible_with_best"] for e in members if e["position"] != 1)
        for e in members:
            e["rank"] = "1=" if tied and (e["position"] == 1 or e["compatible_with_best"]) else str(e["position"])


def leaderboard_family(size: int) -> str:
    """The leaderboard's family, for its captions and pages."""
    return (f"Holm-adjusted over the {size} comparisons with the best of this campaign's leaderboard (every model "
            "against the best of its channel, signal point and background)")  # fmt: skip


def compared_family(size: int) -> str:
    """The binary-vs-multi-class family, for its captions and pages."""
    return (f"Holm-adjusted over the {size} binary vs multi-class comparisons of this campaign (channels x signal "
            "points x backgrounds x variants)")  # fmt: skip
