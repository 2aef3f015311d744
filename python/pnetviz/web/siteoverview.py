"""The overview's first screens (issue 37, item 1): a headline per channel x signal point (best
model, the models compatible with it, the binary vs multi-class verdict with its Holm-adjusted p),
then the mass-grid maps grouped channel x background, binary | multi-class | difference side by side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pnetviz.web import parts
from pnetviz.web.siteaddress import signal_address
from pnetviz.errors import InputError
from pnetviz.escape import html
from pnetviz.io import readers
from pnetviz.io.layout import signal_masses
from pnetviz.metrics.rounding import pm

ALPHA = 0.05  # the level of the verdict (as the leaderboard's "compatible with the best")
COLUMNS = ("binary", "multiclass", "difference")


def _name(entry: dict) -> str:
    variant = entry.get("variant") or ""
    return html(entry.get("kind", "")) + (f" {html(variant)}" if variant else "")


def verdict(row: dict) -> str:
    """Binary vs multi-class in words: which is better (test AUC), or compatible, with p (Holm)."""
    diff, p_holm = row.get("auc_diff_mean"), row.get("auc_diff_p_holm")
    if not isinstance(diff, (int, float)):
        return ""
    text = pm(diff, row.get("auc_diff_standard_error"), "html", sign=True)
    p = f"p<sub>Holm</sub> = {p_holm:.3g}" if isinstance(p_holm, (int, float)) else "p<sub>Holm</sub> n/a"
    if isinstance(p_holm, (int, float)) and p_holm < ALPHA:
        word = "<strong>multi-class better</strong>" if diff > 0 else "<strong>binary better</strong>"
    else:
        word = "compatible"
    return f"{word} (&Delta;AUC = {text}, {p})"


def _mass_order(key: tuple[str, str, str]) -> tuple:
    """Channel, then the signal point by its masses (MHc130_MA90 before MHc130_MA100), then background."""
    channel, signal, background = key
    masses = signal_masses(signal)
    return (channel, *(masses if masses else (float("inf"), float("inf"))), signal, background)


def summary_sentence(compared: Sequence[dict]) -> str:
    """The round's binary vs multi-class answer in one sentence (Holm-adjusted p below ALPHA)."""
    tested = [c for c in compared if isinstance(c.get("auc_diff_p_holm"), (int, float))]
    if not tested:
        return ""
    better = {"multi-class": 0, "binary": 0}
    for c in tested:
        if c["auc_diff_p_holm"] < ALPHA:
            better["multi-class" if c.get("auc_diff_mean", 0) > 0 else "binary"] += 1
    n = len(tested)
    if not any(better.values()):
        return (f"<p class=\"verdict\"><strong>No significant difference between binary and multi-class in any of the {n} "
                f"comparisons</strong> (test AUC, Holm-adjusted p &lt; {ALPHA:g}).</p>")  # fmt: skip
    found = " and ".join(f"{kind} better in {k}" for kind, k in better.items() if k)
    return (f"<p class=\"verdict\"><strong>{found} of the {n} binary vs multi-class comparisons</strong>; no significant "
            f"difference in the other {n - sum(better.values())} (test AUC, Holm-adjusted p &lt; {ALPHA:g}).</p>")  # fmt: skip


def headline(data: dict, pages: Sequence[parts.ModelPage]) -> str:
    """The one-sentence verdict, then one row per channel, signal point (by mass) and background:
    the best where it is significantly better than another model (else "all compatible"), the
    models compatible with it, the binary vs multi-class verdict."""
    board = data.get("leaderboard", [])
    compared = {(c["channel"], c["signal"], c["background"]): c for c in data.get("binary_vs_multiclass", [])}
    keys = sorted({(e["channel"], e["signal"], e["background"]) for e in board} | set(compared), key=_mass_order)
    if not keys:
        return ""
    rows = []
    for channel, signal, background in keys:
        mine = [e for e in board if (e["channel"], e["signal"], e["background"]) == (channel, signal, background)]
        best = [e for e in mine if e.get("position", e.get("rank")) == 1]
        compatible = [_name(e) for e in mine if e.get("compatible_with_best") and e not in best]  # the best is compatible with itself
        significant = any(not e.get("compatible_with_best") for e in mine)  # a model the best is significantly better than
        named = ", ".join(_name(e) for e in best) if significant or len(mine) == 1 else "all compatible"
        point = f'<a href="{parts._link(signal_address(channel, signal))}">{html(channel)} / {html(signal)}</a>'
        cells = (point, html(background), named, ", ".join(compatible) or "none",
                 verdict(compared.get((channel, signal, background), {})))  # fmt: skip
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    head = ("Signal point", "Background", "Best (test AUC; where significantly better than another)",
            "Compatible with the best (Holm p &gt; 0.05)", "Binary vs multi-class")  # fmt: skip
    header = "".join(f'<th data-sort="{i}">{h}</th>' for i, h in enumerate(head))
    return (f"<h2>Headline</h2>{summary_sentence(list(compared.values()))}<div class=\"scrollbox\"><table id=\"headline\" "
            f'class="sortable"><thead><tr>{header}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')  # fmt: skip


def group_maps(names: Sequence[str], channels: Sequence[str]) -> dict[tuple[str, str], dict[str, dict[str, str]]]:
    """map_<metric>_<binary|multiclass|difference>_<channel>_<background> names ->
    {(channel, background): {metric: {column: name}}} (a name of another shape is left out)."""
    groups: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
    pattern = re.compile(r"^map_(.+?)_(binary|multiclass|difference)_(.+)$")
    for name in names:
        match = pattern.match(name)
        if not match:
            continue
        metric, column, rest = match.groups()
        channel = next((c for c in sorted(channels, key=len, reverse=True) if rest.startswith(c + "_")), None)
        if channel is None:
            continue
        groups.setdefault((channel, rest[len(channel) + 1:]), {}).setdefault(metric, {})[column] = name
    return groups


def maps_section(figures: Sequence[str], channels: Sequence[str], campaign_dir: Path) -> str:
    """The maps, channel x background, each metric one row: binary | multi-class | difference."""
    groups = group_maps([n for n in figures if n.startswith("map_")], channels)
    if not groups:
        return ""
    from pnetviz.web.sitepages import figure  # noqa: PLC0415

    out = ["<h2>Mass-grid maps (binary | multi-class | multi-class &minus; binary)</h2>"]
    for (channel, background), metrics in sorted(groups.items()):
        out.append(f"<h3>{html(channel)}, {html(background)}</h3>")
        for metric, columns in sorted(metrics.items()):
            figs = "".join(figure("campaign", columns[c], campaign_dir, parts.TO_ROOT, 400, f"{metric}: {c}", campaign_dir)
                           for c in COLUMNS if c in columns)  # fmt: skip
            out.append(f'<div class="figures">{figs}</div>')
    return "".join(out)


def ga_section(pages: Sequence[parts.ModelPage], plots_root: Path) -> str:
    """GA hyperparameter searches: each run's best model over all iterations (from its set's
    summary_report.json), whether the trainer reported another, and a link to its page."""
    rows = []
    for page in (p for p in pages if p.kind == "ga"):
        try:
            report = readers.read_json(plots_root / page.directory / "ga" / "summary_report.json", "GA report", finite=False)
        except InputError:
            report = {}
        # an edited report of another shape reads as an unreadable one: blank cells, not a traceback
        report = report if isinstance(report, dict) else {}
        best, tc = (v if isinstance(v, dict) else {} for v in (report.get("best"), report.get("trainer_choice")))
        duplicates = report.get("duplicates", [])
        duplicates = len(duplicates) if report and isinstance(duplicates, list) else ""
        text = f"GA-iter{best.get('iteration')}/{best.get('model')}" if best else ""
        other = ("another model: " + str(tc.get("model"))) if tc.get("names_a_different_model") else ("the same" if tc else "")
        cells = (html(page.channel), html(page.signal), f'<a href="{parts._link(page.page)}">{html(page.model)}</a>', html(text),
                 parts._number(best.get("fitness"), ".6f"), html(other), html(duplicates),
                 html(page.status) + (f": {html(page.message)}" if page.message else ""))  # fmt: skip
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    if not rows:
        return ""
    head = ("Channel", "Signal", "GA search", "Best model (all iterations)", "Fitness", "Trainer's best_chromosome",
            "Duplicates", "Status")  # fmt: skip
    header = "".join(f'<th data-sort="{i}">{h}</th>' for i, h in enumerate(head))
    return (f'<h2>GA hyperparameter searches</h2><table id="ga" class="sortable"><thead><tr>{header}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')  # fmt: skip
