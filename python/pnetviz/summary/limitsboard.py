"""Rankings by expected limit (issue 52, item 4): the leaderboard (every model and strategy of a
signal point and channel ranked by its expected limit, lowest first: rank 1 is the round's answer
there) and the binary vs multi-class verdict per signal point (the best of each kind).

Uncertainty of a ratio of two expected limits (here, in `pnetviz diff` and in the verdict): each
limit's relative error is its fold spread as a standard error, std / mean(per-fold medians) /
sqrt(k) (std / median / sqrt(k) without per-fold medians), the two added in quadrature,
the sides taken as independent (RATIO_CONVENTION).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from pnetviz.escape import text_line
from pnetviz.metrics.rounding import pm
from pnetviz.summary.limitsrows import OK, REFERENCE, strategy_key

RATIO_CONVENTION = ("ratio = limit B / limit A; its error = ratio * hypot(e_A, e_B), e = fold std of the limit / mean of "
                    "the per-fold limits / sqrt(k folds) (the sides taken as independent)")  # fmt: skip
BOARD_FIELDS = ("channel", "signal", "m_hc", "m_a", "rank", "kind", "model", "pair", "strategy", "expected_limit",
                "expected_limit_fold_std", "expected_limit_text", "expected_significance", "ratio_to_best",
                "score_fit_limit", "ratio_to_score_fit")  # fmt: skip
VERDICT_FIELDS = ("channel", "signal", "m_hc", "m_a", "better_expected_limit", "binary_model", "binary_pair",
                  "binary_strategy", "binary_expected_limit", "multiclass_model", "multiclass_pair", "multiclass_strategy",
                  "multiclass_expected_limit", "ratio_multiclass_to_binary", "ratio_error")  # fmt: skip


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def relative_error(row: dict) -> float | None:
    """The relative error of a row's expected limit from its fold spread (module docstring); None without one."""
    std, median, k = row.get("expected_limit_fold_std"), row.get("expected_limit"), row.get("folds") or 0
    folds = [v for v in row.get("fold_limits") or [] if _finite(v)]
    scale = sum(folds) / len(folds) if folds else median
    if not (_finite(std) and _finite(scale) and scale > 0 and k > 1):
        return None
    return float(std) / float(scale) / math.sqrt(k)


def ratio(a: dict, b: dict) -> tuple[float | None, float | None]:
    """(limit b / limit a, its error by RATIO_CONVENTION); (None, None) where either has no limit."""
    la, lb = a.get("expected_limit"), b.get("expected_limit")
    if not (_finite(la) and _finite(lb) and la > 0):
        return None, None
    r = float(lb) / float(la)
    ea, eb = relative_error(a), relative_error(b)
    return r, (r * math.hypot(ea, eb) if ea is not None and eb is not None else None)


def usable(rows: Sequence[dict]) -> list[dict]:
    return [r for r in rows if r["status"] == OK and _finite(r.get("expected_limit"))]


def leaderboard(rows: Sequence[dict]) -> list[dict]:
    """Per (channel, signal), every usable row ranked by expected limit (lowest first; equal limits
    share a rank, listed by strategy order, model, pair), with its ratio to the best and to its own
    score-fit limit."""
    groups: dict[tuple, list[dict]] = {}
    for r in usable(rows):
        groups.setdefault((r["channel"], r["signal"]), []).append(r)
    reference = {(r["channel"], r["signal"], r["kind"], r["model"], r["pair"]): r["expected_limit"]
                 for r in usable(rows) if r["strategy"] == REFERENCE}  # fmt: skip
    out = []
    for members in groups.values():  # rows come sorted (limits.row_key): the groups in mass order
        ranked = sorted(members, key=lambda r: (r["expected_limit"], strategy_key(r["strategy"]), r["model"], r["pair"]))
        best = ranked[0]["expected_limit"]
        for r in ranked:
            ref = reference.get((r["channel"], r["signal"], r["kind"], r["model"], r["pair"]))
            rank = 1 + sum(o["expected_limit"] < r["expected_limit"] for o in ranked)  # equal limits, equal rank
            out.append({**{k: r.get(k) for k in BOARD_FIELDS if k in r}, "rank": rank,
                        "ratio_to_best": r["expected_limit"] / best if best > 0 else None,
                        "score_fit_limit": ref, "ratio_to_score_fit": r["expected_limit"] / ref if ref else None})  # fmt: skip
    return out


def best_of(rows: Sequence[dict]) -> dict | None:
    """The row of lowest expected limit (ties: strategy order, model, pair), None without one."""
    found = usable(rows)
    return min(found, key=lambda r: (r["expected_limit"], strategy_key(r["strategy"]), r["model"], r["pair"])) if found else None


def verdict(binary: dict | None, multiclass: dict | None) -> str:
    """'binary', 'multiclass' (the lower expected limit), 'tie', or 'missing' (a side without a limit)."""
    if binary is None or multiclass is None:
        return "missing"
    if multiclass["expected_limit"] == binary["expected_limit"]:
        return "tie"
    return "multiclass" if multiclass["expected_limit"] < binary["expected_limit"] else "binary"


def binary_vs_multiclass(rows: Sequence[dict]) -> list[dict]:
    """Per (channel, signal) with limits of either kind: the best binary and the best multi-class
    row (any model, pair and strategy), which is better, and their ratio with its error."""
    points = {(r["channel"], r["signal"]): (r["m_hc"], r["m_a"]) for r in rows}
    out = []
    for (channel, signal), (m_hc, m_a) in points.items():  # in the rows' (mass) order
        here = [r for r in rows if (r["channel"], r["signal"]) == (channel, signal)]
        b = best_of([r for r in here if r["kind"] == "binary"])
        m = best_of([r for r in here if r["kind"] != "binary"])
        value, error = ratio(b, m) if b and m else (None, None)
        out.append({"channel": channel, "signal": signal, "m_hc": m_hc, "m_a": m_a, "better_expected_limit": verdict(b, m),
                    **{f"{side}_{k}": (src or {}).get(k) for side, src in (("binary", b), ("multiclass", m))
                       for k in ("model", "pair", "strategy", "expected_limit")},
                    "ratio_multiclass_to_binary": value, "ratio_error": error})  # fmt: skip
    return out


def verdict_line(v: dict) -> str:
    """One line of a summary: which kind gives the better expected limit at a signal point."""
    where = f"{v['channel']} {v['signal']}"
    if v["better_expected_limit"] == "missing":
        sides = [s for s, k in (("binary", "binary_expected_limit"), ("multi-class", "multiclass_expected_limit")) if v[k] is None]
        return text_line(f"{where}: expected limit: no {' and no '.join(sides)} model has one (missing)")
    b = f"binary {v['binary_expected_limit']:.3g} ({v['binary_model']} {v['binary_pair']}, {v['binary_strategy']})"
    m = (f"multi-class {v['multiclass_expected_limit']:.3g} ({v['multiclass_model']} {v['multiclass_pair']}, "
         f"{v['multiclass_strategy']})")  # fmt: skip
    better = {"binary": "binary is better", "multiclass": "multi-class is better", "tie": "a tie"}[v["better_expected_limit"]]
    spread = ""
    if v["ratio_error"] is not None and v["ratio_multiclass_to_binary"] is not None:
        within = abs(v["ratio_multiclass_to_binary"] - 1) <= v["ratio_error"]
        spread = f"; ratio {v['ratio_multiclass_to_binary']:.3f} +- {v['ratio_error']:.3f}{' (within the fold spread)' if within else ''}"
    return text_line(f"{where}: expected limit {b} vs {m}: {better}{spread}")


COMPARED_FIELDS = ("better_expected_limit", "expected_limit_binary", "expected_limit_binary_strategy",
                   "expected_limit_multiclass", "expected_limit_multiclass_pair", "expected_limit_multiclass_strategy",
                   "expected_limit_ratio_multiclass_to_binary", "expected_limit_ratio_error")  # fmt: skip


def _pairs_of(cls: str) -> set[str]:
    """The limits.json pair names of a comparison's multi-class class: its LR pair `signal_vs_<class>`,
    or a weighted LR row's (`weighted_lr_<all|class>`) `weighted_lr_signal_vs_<all|class>`."""
    if cls.startswith("weighted_lr_"):
        rest = cls.removeprefix("weighted_lr_")
        return {cls, f"weighted_lr_signal_vs_{rest}"}
    return {cls, f"signal_vs_{cls}"}


def annotate(compared: Sequence[dict], rows: Sequence[dict]) -> None:
    """Each binary vs multi-class comparison of the campaign (summary.summary) gets COMPARED_FIELDS:
    the lowest expected limit of its binary model and of its multi-class pair over the strategies,
    which is better ('missing' where a side has none) and their ratio with its error."""
    for c in compared:
        here = [r for r in rows if (r["channel"], r["signal"]) == (c["channel"], c["signal"])]
        b = best_of([r for r in here if r["kind"] == "binary" and r["model"] == c["binary_model"]])
        m = best_of([r for r in here if r["kind"] != "binary" and r["model"] == c["multiclass_model"]
                     and r["pair"] in _pairs_of(c["multiclass_class"])])  # fmt: skip
        value, error = ratio(b, m) if b and m else (None, None)
        c.update({"better_expected_limit": verdict(b, m), "expected_limit_binary": (b or {}).get("expected_limit"),
                  "expected_limit_binary_strategy": (b or {}).get("strategy"),
                  "expected_limit_multiclass": (m or {}).get("expected_limit"),
                  "expected_limit_multiclass_pair": (m or {}).get("pair"),
                  "expected_limit_multiclass_strategy": (m or {}).get("strategy"),
                  "expected_limit_ratio_multiclass_to_binary": value, "expected_limit_ratio_error": error})  # fmt: skip


def _no_limit(label: str, rows: Sequence[dict]) -> str:
    """Why a model has no expected limit: no folds/limits.json, or every strategy failed (the first error)."""
    if all(r["status"] == "missing" for r in rows):
        return f"the {label} model has no folds/limits.json: run it with --fold all"
    error = next((r.get("error") for r in rows if r.get("error")), "no expected limit")
    return f"no {label} strategy gave a limit: {error}"


def compare_lines(channel: str, signal: str, binary: dict[str, tuple[Path, str]], multiclass: tuple[Path, str],
                  pairs: dict[str, str]) -> list[str]:
    """`pnetviz compare`'s lines on the expected limit, one per compared background: `binary`:
    background -> (the binary model's folds/ directory, its model name); `multiclass`: the same of
    the multi-class model; `pairs`: background -> its multi-class class. Read from the models'
    folds/limits.json as they are on disk (written by `pnetviz binary`/`multiclass --fold all`)."""
    from pnetviz.summary.limitsrows import model_rows  # noqa: PLC0415

    mc_rows = model_rows(multiclass[0], channel, signal, "multiclass", multiclass[1])
    lines = []
    for background, cls in pairs.items():
        b_rows = model_rows(binary[background][0], channel, signal, "binary", binary[background][1])
        c = {"channel": channel, "signal": signal, "binary_model": binary[background][1], "multiclass_model": multiclass[1],
             "multiclass_class": cls}  # fmt: skip
        annotate([c], [*b_rows, *mc_rows])
        if c["better_expected_limit"] == "missing":
            why = [_no_limit(label, rows) for label, value, rows in
                   (("binary", c["expected_limit_binary"], b_rows), ("multi-class", c["expected_limit_multiclass"], mc_rows))
                   if value is None]  # fmt: skip
            lines.append(text_line(f"expected limit, signal vs {background}: missing ({'; '.join(why)})"))
            continue
        better = {"binary": "binary is better", "multiclass": "multi-class is better", "tie": "a tie"}[c["better_expected_limit"]]
        ratio_text = pm(c["expected_limit_ratio_multiclass_to_binary"], c["expected_limit_ratio_error"], fallback=".3f")
        lines.append(text_line(f"expected limit, signal vs {background}: binary {c['expected_limit_binary']:.3g} "
                               f"({c['expected_limit_binary_strategy']}) vs multi-class {c['expected_limit_multiclass']:.3g} "
                               f"({c['expected_limit_multiclass_pair']}, {c['expected_limit_multiclass_strategy']}): {better} "
                               f"(multi-class / binary {ratio_text})"))  # fmt: skip
    return lines
