"""The pairing of each binary background with a multi-class class, the paired statistics of their
test-AUC difference over folds, the models' short variant names and the leaderboard (summary.summary
builds the round's tables from these)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pnetviz.io import trainer
from pnetviz.io.layout import hyper_tag
from pnetviz.metrics.folds import paired_difference
from pnetviz.summary import ranking
from pnetviz.summary.rows import GROUP_KEY, REJECTION_FIELDS


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
                         "campaign; auc_diff_combined_unpaired (_error_unpaired): the inverse-variance combination with "
                         "the per-fold errors sqrt(e_binary^2 + e_multiclass^2), which treats the two models' errors as "
                         "independent although they share their test events: an upper bound on the error, several times the "
                         "paired one (auc_diff_standard_error; the comparison job's event-paired bootstrap per fold)")  # fmt: skip


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
    return {f"auc_diff_{k}": stats[k] for k in ranking.STAT_KEYS} | \
        {f"auc_diff_{k}_unpaired": stats[k] for k in ("combined", "combined_error")}  # fmt: skip


COMPARED_FIELDS = ("channel", "signal", "m_hc", "m_a", "variant", "tag", "background", "multiclass_class", "binary_model",
                   "multiclass_model", "auc_test_binary_mean", "auc_test_binary_std", "auc_test_multiclass_mean",
                   "auc_test_multiclass_std", "auc_diff_folds", "auc_diff_mean", "auc_diff_standard_error", "auc_diff_t",
                   "auc_diff_p_value", "auc_diff_p_holm", "auc_diff_q_bh", "auc_diff_t_naive", "auc_diff_p_naive_t",
                   "auc_diff_test_train_ratio", "auc_diff_combined_unpaired", "auc_diff_combined_error_unpaired", "rejection_0.5_binary_mean",
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
        else:  # the binary backgrounds this class (or its weighted LR's row) is compared with, else the pair itself
            cls_of = a["pair"].removeprefix("weighted_lr_")
            backgrounds = [b for (c, s, m, cls), b in classes.items()
                           if (c, s, m, cls) == (a["channel"], a["signal"], a["model"], cls_of)] or [a["pair"]]  # fmt: skip
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

