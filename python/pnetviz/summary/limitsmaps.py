"""Maps over the mass grid of the expected limits (issue 52, item 4), drawn and stored by
summary.maps (CMS style, one bin per mass value, `maps/<name>` in campaign.root):

- `map_expected_limit_<strategy>_<channel>_<kind>-<pair>[_<variant>]`: the expected limit (median)
  per signal point, the bin error the fold standard error std/sqrt(k); the strategies of one model
  and pair share one colour scale;
- `map_expected_limit_ratio_<channel>_<kind>-<pair>[_<variant>]`: the best strategy's limit over
  the score-fit limit (1: the score fit is best; below 1: cutting or categorising in mass helps;
  which strategy is best: the leaderboard, campaign_limits_leaderboard.csv).

`<kind>-<pair>` (binary-signal_vs_ttZ) keeps these maps out of the overview's binary | multi-class |
difference grid (web.siteoverview.group_maps): the web report's limits page shows them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pnetviz.io import trainer
from pnetviz.summary.limitsrows import OK, REFERENCE, strategy_key
from pnetviz.summary.leaderboard import variant_names


def _limit_rows(rows: Sequence[dict]) -> list[dict]:
    return [r for r in rows if r["status"] == OK and r.get("m_hc") is not None and r.get("expected_limit") is not None]


def _standard_error(row: dict) -> float:
    std, k = row.get("expected_limit_fold_std"), row.get("folds") or 0
    return float(std) / math.sqrt(k) if isinstance(std, (int, float)) and k > 1 else math.nan


def _label(kind: str, pair: str) -> str:
    what = "binary" if kind == "binary" else "multi-class"
    vs = "all backgrounds" if pair in ("all", "") else trainer.display_label(pair.removeprefix("signal_vs_"), {})
    return f"{what}, signal vs {vs}"


def map_specs(sec: dict) -> list:
    """The limit maps per strategy and the best-over-score-fit ratio maps (module docstring)."""
    from pnetviz.summary.maps import MapSpec, share_ranges  # noqa: PLC0415 - ROOT on first use

    rows = _limit_rows(sec["rows"])
    tags = {r.get("variant", "") for r in rows}
    names = variant_names(tags)
    specs = []
    models = sorted({(r["channel"], r["kind"], r.get("variant", ""), r["pair"]) for r in rows})
    for channel, kind, tag, pair in models:
        sel = [r for r in rows if (r["channel"], r["kind"], r.get("variant", ""), r["pair"]) == (channel, kind, tag, pair)]
        suffix = f"_{names[tag]}" if len(tags) > 1 and names.get(tag) else ""
        context = f"{_label(kind, pair)}, {trainer.channel_label(channel)}"
        for strategy in sorted({r["strategy"] for r in sel}, key=strategy_key):
            these = [r for r in sel if r["strategy"] == strategy]
            specs.append(MapSpec(f"map_expected_limit_{strategy}_{channel}_{kind}-{pair}{suffix}",
                                 f"Expected 95% CL limit on #mu, {strategy}, {context}", "Expected limit on #mu (median)",
                                 {(r["m_hc"], r["m_a"]): r["expected_limit"] for r in these}, ".3g",
                                 errors={(r["m_hc"], r["m_a"]): _standard_error(r) for r in these},
                                 short=f"{strategy}, {context}", group=f"limit_{kind}_{channel}_{pair}{suffix}"))  # fmt: skip
        ratios = ratio_points(sel)
        if ratios:
            specs.append(MapSpec(f"map_expected_limit_ratio_{channel}_{kind}-{pair}{suffix}",
                                 f"Expected limit, best strategy / {REFERENCE}, {context}", f"Best / {REFERENCE} limit",
                                 {cell: value for cell, (value, _) in ratios.items()}, ".3f",
                                 short=f"best / {REFERENCE}, {context}"))  # fmt: skip
    return share_ranges(specs)


def ratio_points(sel: Sequence[dict]) -> dict[tuple[int, int], tuple[float, str]]:
    """(m_hc, m_a) -> (lowest limit over the strategies / the score-fit limit, the best strategy),
    for the signal points of one model and pair that have a score-fit limit."""
    out = {}
    for cell in sorted({(r["m_hc"], r["m_a"]) for r in sel}):
        here = [r for r in sel if (r["m_hc"], r["m_a"]) == cell]
        reference = next((r["expected_limit"] for r in here if r["strategy"] == REFERENCE), None)
        if not reference or reference <= 0:
            continue
        best = min(here, key=lambda r: (r["expected_limit"], strategy_key(r["strategy"])))
        out[cell] = (best["expected_limit"] / reference, best["strategy"])
    return out


def figures(sec: dict) -> list:
    """The maps' figures (summary.maps.map_figure)."""
    from pnetviz.summary.maps import map_figure  # noqa: PLC0415

    return [map_figure(s) for s in map_specs(sec)]
