"""The figures of `pnetviz diff`: difference maps over the mass grid (the campaign's conventions,
summary.maps: value printed in each cell, colour = difference / its error, `*` where the
Holm-adjusted p is below alpha) and, per matched model, the two rounds' fold-mean ROC and
rejection curves overlaid with a ratio panel (B over A; jobs.foldsummary.band_figures, the fold
summaries' own figures), read from each fold set's fold_results.json."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

from pnetviz.rounds.diff import Diff, finite
from pnetviz.summary.maps import MapSpec, map_figure
from pnetviz.draw import canvas
from pnetviz.escape import tlatex
from pnetviz.draw.style import cycle_color
from pnetviz.jobs.foldsummary import RESULTS_FILE, band_figures, curves_of, read_results
from pnetviz.metrics.folds import FoldCurves
from pnetviz.errors import InputError
from pnetviz.io.readers import read_json
from pnetviz.io.rootnames import name_problem, root_literal
from pnetviz.io.trainer import signal_label

MAPS = (("auc", "delta_auc", "delta_auc_standard_error", "#DeltaAUC (B #minus A)", "+.3f", "#DeltaAUC / #sigma_{#Delta}"),
        ("fip2", "delta_fip2", "delta_fip2_standard_error", "#DeltaFIP2 (B #minus A)", "+.2f", "#DeltaFIP2 / #sigma_{#Delta}"))  # fmt: skip


def sets_root(summary_dir: Path) -> Path:
    """Where the fold sets of the round whose campaign summary is `summary_dir` sit: beside the
    summary (`<plots>/<round>/campaign` of a --round campaign) or `<plots>/<round name>/`."""
    parent = Path(summary_dir).parent
    try:
        name = read_json(Path(summary_dir) / ".pnetviz-set.json", "output set marker").get("round", {}).get("name")
    except (InputError, OSError, AttributeError):
        name = None
    for candidate in ([parent / name] if isinstance(name, str) and name else []) + [parent / "results", parent]:
        if candidate.is_dir() and any(candidate.glob(f"*/*/*/*/fold-*/{RESULTS_FILE}")):
            return candidate
    return parent


def round_label(summary_dir: Path) -> str:
    """The round's name as its campaign summary records it, else its directory's path."""
    try:
        name = read_json(Path(summary_dir) / ".pnetviz-set.json", "output set marker").get("round", {}).get("name")
    except (InputError, OSError, AttributeError):
        name = None
    return name if isinstance(name, str) and name else str(Path(summary_dir).parent)


def model_curves(root: Path, row: dict, model: str, folds: Sequence[int]) -> list[FoldCurves] | None:
    """The test curves of one model and pair over `folds` (None if a fold set lacks them, or the
    summary row names no model)."""
    if not model:
        return None
    out = []
    for fold in folds:
        stored = read_results(root / row["channel"] / row["kind"] / row["signal"] / model / f"fold-{fold}", row["kind"], fold)
        if stored is None:
            return None
        curves, _ = curves_of(fold, stored)
        name = next((n for n in curves if n == f"{row['signal']} vs {row['pair']}" or
                     n.startswith(f"{row['signal']} vs {row['pair']} (")), None)  # fmt: skip
        if name is None or "test" not in curves[name][1]:
            return None
        out.append(curves[name][1]["test"])
    return out


def overlay_prefix(diff: Diff, i: int) -> str:
    """The file-name prefix of the overlays of matched model `i` (diff.rows[i]):
    `<channel>_<kind>_<signal>_vs_<pair>[_V<n>]_` (n: its variant's number when the rounds have
    several, as the maps'), `model<i>_` when that is no plain file name."""
    row = diff.rows[i]
    variants = sorted({r["variant"] for r in diff.rows})
    tag = f"_V{variants.index(row['variant']) + 1}" if len(variants) > 1 else ""
    prefix = f"{row['channel']}_{row['kind']}_{row['signal']}_vs_{row['pair']}{tag}_"
    plain = not name_problem(prefix + "rejection_curve_folds") and root_literal(prefix) and len(prefix) < 120
    return prefix if plain else f"model{i:03d}_"


def overlay_figures(diff: Diff, names: tuple[str, str]) -> list[canvas.Figure]:
    """Per matched model with curves in both rounds: `<prefix>roc_curve_folds` and
    `<prefix>rejection_curve_folds` (overlay_prefix), A the reference."""
    roots = (sets_root(diff.a), sets_root(diff.b))
    figs = []
    for i, row in enumerate(diff.rows):
        folds = [int(f) for f in row["folds"].split()]
        a = model_curves(roots[0], row, row["model_a"], folds)
        b = model_curves(roots[1], row, row["model_b"], folds)
        row["curves"] = a is not None and b is not None
        if not row["curves"]:
            continue
        # the signal point as every figure names it (m(H^{#pm}), m(A)): a raw name's "_" would be a TLatex subscript
        context = [signal_label(row["signal"]), f"vs {tlatex(row['pair'])}, {tlatex(row['kind'])}, {tlatex(row['channel'])}"]
        figs += band_figures(overlay_prefix(diff, i), {"A": a, "B": b}, context, reference="A",
                             labels={"A": f"Round A ({tlatex(names[0])})", "B": f"Round B ({tlatex(names[1])})"},
                             colors={"A": cycle_color(0), "B": cycle_color(1)})  # fmt: skip
    return figs


def map_specs(diff: Diff) -> list[MapSpec]:
    """One difference map of delta AUC and one of delta FIP2 per (channel, kind, pair, variant)
    with at least two matched signal points on the mass grid."""
    groups: dict[tuple, list[dict]] = {}
    for row in diff.rows:
        if finite(row.get("m_hc")) and finite(row.get("m_a")):
            groups.setdefault((row["channel"], row["kind"], row["pair"], row["variant"]), []).append(row)
    variants = sorted({k[3] for k in groups})
    specs = []
    for (channel, kind, pair, variant), rows in sorted(groups.items()):
        if len(rows) < 2:  # one signal point is no map (the table holds it)
            continue
        tag = f"_V{variants.index(variant) + 1}" if len(variants) > 1 else ""
        for what, value, error, ztitle, fmt, pull_title in MAPS:
            points = {(r["m_hc"], r["m_a"]): r[value] for r in rows if finite(r.get(value))}
            if not points:
                continue
            errors = {(r["m_hc"], r["m_a"]): r[error] for r in rows if finite(r.get(error))}
            flag = "significant" if what == "auc" else "fip2_significant"
            significant = tuple((r["m_hc"], r["m_a"]) for r in rows if r.get(flag))
            short = f"{kind} vs {pair}, {channel}" + (f", variant V{variants.index(variant) + 1}" if tag else "")
            specs.append(MapSpec(f"diff_map_{what}_{kind}_{channel}_{pair}{tag}", f"{ztitle}: {short}", ztitle, points,
                                 fmt, diverging=True, errors=errors, significant=significant, short=short,
                                 pull_title=pull_title, star="paired test"))  # fmt: skip
    return specs


def map_figures(diff: Diff) -> list[canvas.Figure]:
    return [map_figure(spec) for spec in map_specs(diff)]


def mark_fip2(diff: Diff) -> None:
    """`fip2_significant` on each row: its Holm-adjusted delta FIP2 p below alpha."""
    for row in diff.rows:
        p = row.get("delta_fip2_p_holm")
        row["fip2_significant"] = bool(finite(p) and p < diff.alpha and not math.isnan(p))
