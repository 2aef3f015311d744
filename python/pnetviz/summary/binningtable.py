"""The campaign's binned sensitivity (issue 39): per (channel, signal point, kind, model, pair) the
binned objective of the fit binning (jobs.fitbins: edges chosen on train, evaluated on test) at
one K for all folds (the smallest K whose fold-mean train value is within 1% of the best fold
mean: never chosen on the test values it reports), and each model's one binning for the datacard
(summary.pooledbinning: the out-of-fold edges), mean and spread over folds; the binary vs multi-class comparison of that number per
background with the paired error (per-fold difference, its sample std over folds and the
standard error of the mean); maps over the mass grid. Read from the `binning.json` of every
binary set and the `signal_vs_<class>_binning.json` of every multi-class set.

Written as campaign_fit_binning.csv / _comparison.csv / .tex / .json and map_fit_binning_* in the
campaign set (hook in summary.summary.write), listed by the web report (web.site).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pnetviz import escape
from pnetviz.summary import pooledbinning, setfiles
from pnetviz.io import trainer
from pnetviz.io.layout import hyper_tag, signal_masses
from pnetviz.summary.ranking import ALPHA, adjust_family
from pnetviz.metrics.foldtests import corrected_paired_test
from pnetviz.metrics.rounding import pm
from pnetviz.metrics.folds import mean_std
from pnetviz.output.report import dumps, plain

WHAT = "the fit binning from this file"
CHOSEN_WITHIN = 0.01  # as metrics.fitbinning.CHOSEN_WITHIN, on the fold means of the train values
FIELDS = ("channel", "signal", "m_hc", "m_a", "kind", "model", "pair", "score", "objective", "yields", "folds", "k",
          "value_mean", "value_std", "train_mean", "optimism_mean", "efficiency_mean", "unbinned_limit_mean", "per_fold", *pooledbinning.FIELDS)  # fmt: skip
COMPARED = ("channel", "signal", "m_hc", "m_a", "tag", "background", "multiclass_class", "binary_model",
            "multiclass_model", "k_binary", "k_multiclass", "value_binary_mean", "value_multiclass_mean", "folds",
            "diff_mean", "diff_std", "diff_standard_error", "diff_t", "diff_p_value", "diff_p_holm", "diff_q_bh",
            "diff_t_naive", "diff_p_naive_t", "diff_test_train_ratio")  # fmt: skip
CONVENTION = ("binned sensitivity = the fit binning's objective (binned FIP, Valassi eq. 4) on the test split with the "
              "edges chosen on the train split, at one K per model and pair: the smallest K whose mean train value over folds is "
              "within 1% of the best mean (K never chosen on the test values); pooled_*: the model's one binning for the "
              "datacard, out of fold (edges and K chosen on the pooled validation or training events, value on the pooled "
              "test events); difference = multi-class minus binary per fold (the folds both have), "
              "mean, sample std over folds and the corrected resampled t test (Nadeau-Bengio: standard error std sqrt(1/n + n_test/n_train)), Holm- and BH-adjusted over every binary vs multi-class comparison of this table")  # fmt: skip


def set_documents(directory: Path, kind: str) -> list[dict]:
    """The fit-binning documents of one output set: binning.json (binary), every
    signal_vs_<class>_binning.json (multi-class, `signal vs all` included); a file that is not a
    JSON object with `by_k` rows is an InputError naming it."""
    names = ["binning.json"] if kind == "binary" else sorted(p.name for p in Path(directory).glob("signal_vs_*_binning.json"))
    out = []
    for name in names:
        path = Path(directory) / name
        doc = setfiles.read_object(path, WHAT, missing_ok=True)
        if doc is None or doc.get("chosen_k") is None and not doc.get("by_k"):
            continue
        rows = doc.get("by_k")
        if not isinstance(rows, list) or not all(isinstance(r, dict) and isinstance(r.get("k"), int) for r in rows):
            raise setfiles.damaged(path, "no 'by_k' list of rows with an integer 'k'", WHAT)
        out.append(doc)
    return out


def fold_rows(jobs: Sequence[dict]) -> list[dict]:
    """One row per (job, fold set, pair): the test value per K and what was binned."""
    rows = []
    for job in jobs:
        if job["status"] not in ("done", "up to date") or job["kind"] not in ("binary", "multiclass"):
            continue
        for directory in job["outputs"]:
            for doc in set_documents(Path(directory), job["kind"]):
                if str(doc.get("kind", "")).endswith("out of fold"):  # the folds/ set's pooled binning (pooledbinning)
                    continue
                by_k = {r["k"]: r for r in doc["by_k"] if setfiles.is_number(r.get("test"))}
                rows.append({"channel": job["channel"], "signal": job["signal"], "kind": job["kind"], "model": job["model"] or "",
                             "pair": str(doc.get("pair", "")).removeprefix("signal vs "), "fold": doc.get("fold"),
                             "score": doc.get("score", "P(signal)"), "objective": doc.get("objective", ""),
                             "yields": doc.get("yields", ""), "by_k": by_k, "unbinned_limit": doc.get("unbinned_limit")})  # fmt: skip
    return rows


def chosen_k(members: Sequence[dict]) -> int | None:
    """The smallest K (present in every fold) whose fold-mean train value (the split the edges were
    chosen on) is within 1% of the best."""
    common = set.intersection(*(set(m["by_k"]) for m in members)) if members else set()
    means = {k: float(np.mean([m["by_k"][k]["train"] for m in members])) for k in sorted(common)
             if all(setfiles.is_number(m["by_k"][k].get("train")) for m in members)}  # fmt: skip
    if not means:
        return None
    top = max(means.values())
    return next(k for k, v in means.items() if v >= top - CHOSEN_WITHIN * abs(top))


def aggregate(rows: Sequence[dict]) -> list[dict]:
    """Per (channel, signal, kind, model, pair): the chosen K and the test value at it over folds."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["channel"], r["signal"], r["kind"], r["model"], r["pair"]), []).append(r)
    out = []
    for (channel, signal, kind, model, pair), members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        members = sorted(members, key=lambda m: str(m["fold"]))
        k = chosen_k(members)
        mass = signal_masses(signal) or (None, None)
        at = [m["by_k"][k] for m in members] if k is not None else []
        values = [r["test"] for r in at]
        mean, std = mean_std(values) if values else (None, None)
        efficiency = [r["efficiency"] for r in at if setfiles.is_number(r.get("efficiency"))]
        limits = [m["unbinned_limit"] for m in members if setfiles.is_number(m["unbinned_limit"])]
        out.append({"channel": channel, "signal": signal, "m_hc": mass[0], "m_a": mass[1], "kind": kind, "model": model,
                    "pair": pair, "score": members[0]["score"], "objective": members[0]["objective"],
                    "yields": members[0]["yields"], "folds": ";".join("pilot" if m["fold"] is None else str(m["fold"]) for m in members),
                    "k": k, "value_mean": mean, "value_std": std,
                    "train_mean": float(np.mean([r["train"] for r in at])) if at else None,
                    "optimism_mean": float(np.mean([r["train"] - r["test"] for r in at])) if at else None,
                    "efficiency_mean": float(np.mean(efficiency)) if efficiency else None,
                    "unbinned_limit_mean": float(np.mean(limits)) if limits else None,
                    "per_fold": ";".join(f"{v:.6g}" for v in values),
                    "fold_values": {str(m["fold"]): r["test"] for m, r in zip(members, at)}})  # fmt: skip
    return out


def comparisons(agg: Sequence[dict], compared: Sequence[dict]) -> list[dict]:
    """Binary vs multi-class per background (the campaign's pairing, `compared`): each side at its
    own chosen K, the per-fold difference over the folds both have, with the corrected resampled
    t test (metrics.foldtests, n_test/n_train of the AUC comparison) and Holm/BH over the table."""
    index = {(a["channel"], a["signal"], a["kind"], a["model"], a["pair"]): a for a in agg}
    out = []
    for c in compared:
        b = index.get((c["channel"], c["signal"], "binary", c["binary_model"], c["background"]))
        m = index.get((c["channel"], c["signal"], "multiclass", c["multiclass_model"], c["multiclass_class"]))
        if b is None or m is None or b["k"] is None or m["k"] is None:
            continue
        folds = sorted(set(b["fold_values"]) & set(m["fold_values"]))
        stats = corrected_paired_test([m["fold_values"][f] for f in folds], [b["fold_values"][f] for f in folds],
                                      c.get("auc_diff_test_train_ratio"))
        out.append({**{k: c[k] for k in ("channel", "signal", "m_hc", "m_a", "tag", "background", "multiclass_class",
                                          "binary_model", "multiclass_model")},
                    "k_binary": b["k"], "k_multiclass": m["k"], "value_binary_mean": b["value_mean"],
                    "value_multiclass_mean": m["value_mean"], "folds": len(folds), "diff_mean": stats["mean"],
                    "diff_std": stats["std"], "diff_standard_error": stats["standard_error"], "diff_t": stats["t"],
                    "diff_p_value": stats["p_value"], "diff_t_naive": stats["t_naive"],
                    "diff_p_naive_t": stats["p_naive_t"], "diff_test_train_ratio": stats["test_train_ratio"]})  # fmt: skip
    adjust_family(out, "diff")  # diff_p_holm, diff_q_bh over this table's comparisons
    return out


def section(data: dict) -> dict:
    """The campaign's fit-binning section from its summary data (`jobs`, `binary_vs_multiclass`)."""
    agg = aggregate(fold_rows(data["jobs"]))
    pooledbinning.attach(agg, data["jobs"])
    return {"rows": agg, "comparison": comparisons(agg, data["binary_vs_multiclass"]), "convention": CONVENTION}


def _pm(mean, std, fmt: str = ".4f") -> str:
    """A LaTeX cell: mean +- error by the PDG rounding rule (metrics.rounding.pm); "--" without a value."""
    if mean is None or not math.isfinite(mean):
        return "--"
    return pm(mean, std, "latex", fallback=fmt, sign=fmt.startswith("+"))


def latex_table(sec: dict) -> str:
    """Two tables (escape.latex on every name): the binned sensitivity per signal point, model and
    pair; the multi-class minus binary difference with its standard error."""
    head = [r"% pnetviz: binned sensitivity of the fit binning (issue 39); needs \usepackage{booktabs}", ""]
    lines = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize",
             rf"\caption{{Binned sensitivity (binned FIP, test split, edges chosen on train) at the chosen number of "
             rf"bins $K$, mean $\pm$ std over folds, and its efficiency against the unbinned limit. "
             rf"{escape.latex(CONVENTION)}.}}",
             r"\label{tab:pnetviz-fit-binning}", r"\begin{tabular}{llllrcc}", r"\toprule",
             r"Channel & Signal & Kind & Pair & $K$ & Binned FIP & Efficiency \\", r"\midrule"]  # fmt: skip
    for r in sec["rows"]:
        kind = "binary" if r["kind"] == "binary" else "multi-class"
        eff = f"${r['efficiency_mean']:.3f}$" if r["efficiency_mean"] is not None else "--"
        lines.append(" & ".join([escape.latex(r["channel"]), escape.latex(r["signal"]), kind, escape.latex(r["pair"]),
                                 str(r["k"]) if r["k"] is not None else "--", _pm(r["value_mean"], r["value_std"]), eff]) + r" \\")  # fmt: skip
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    comp = [r"\begin{table}[htbp]", r"\centering", r"\footnotesize",
            r"\caption{Binned sensitivity, multi-class minus binary per background: per-fold difference, mean $\pm$ "
            r"standard error of the mean over the folds both have.}", r"\label{tab:pnetviz-fit-binning-comparison}",
            r"\begin{tabular}{lllcccr}", r"\toprule",
            r"Channel & Signal & Background & Binary & Multi-class & Difference & Folds \\", r"\midrule"]  # fmt: skip
    for c in sec["comparison"]:
        comp.append(" & ".join([escape.latex(c["channel"]), escape.latex(c["signal"]), escape.latex(c["background"]),
                                _pm(c["value_binary_mean"], None), _pm(c["value_multiclass_mean"], None),
                                _pm(c["diff_mean"], c["diff_standard_error"], "+.4f"), str(c["folds"])]) + r" \\")  # fmt: skip
    comp += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(head + lines + comp)


def files(sec: dict) -> dict[str, str]:
    """The section's CSV, LaTeX and JSON files for the campaign set."""
    return {"campaign_fit_binning.csv": escape.csv_table(sec["rows"], FIELDS),
            "campaign_fit_binning_comparison.csv": escape.csv_table(sec["comparison"], COMPARED),
            "campaign_fit_binning.tex": latex_table(sec),
            "campaign_fit_binning.json": dumps(plain(sec)) + "\n"}  # fmt: skip


def map_specs(sec: dict) -> list:
    """Maps over the mass grid: the binned sensitivity per channel, kind, model variant and pair,
    and the multi-class minus binary difference per background."""
    from pnetviz.summary.leaderboard import variant_names  # noqa: PLC0415
    from pnetviz.summary.maps import MapSpec, share_ranges  # noqa: PLC0415 - ROOT on first use

    rows = [r for r in sec["rows"] if r["m_hc"] is not None and r["value_mean"] is not None]
    tags = {hyper_tag(r["model"]) for r in rows}
    names = variant_names(tags)
    specs = []
    for channel, kind, tag, pair in sorted({(r["channel"], r["kind"], hyper_tag(r["model"]), r["pair"]) for r in rows}):
        sel = [r for r in rows if (r["channel"], r["kind"], hyper_tag(r["model"]), r["pair"]) == (channel, kind, tag, pair)]
        suffix = f"_{names[tag]}" if len(tags) > 1 and names.get(tag) else ""
        label = "binary" if kind == "binary" else "multi-class"
        vs = "all backgrounds" if pair == "all" else trainer.display_label(pair, {})
        specs.append(MapSpec(f"map_fit_binning_{kind}_{channel}_{pair}{suffix}",
                             f"Binned FIP at the chosen K, {label}, signal vs {vs}, {trainer.channel_label(channel)}",
                             "Binned FIP (test)", {(r["m_hc"], r["m_a"]): r["value_mean"] for r in sel}, ".3f",
                             errors={(r["m_hc"], r["m_a"]): fold_standard_error(r) for r in sel},
                             short=f"Binned FIP, {label}, vs {vs}, {trainer.channel_label(channel)}", group=f"fip_{pair}{suffix}"))  # fmt: skip
    comp = [c for c in sec["comparison"] if c["m_hc"] is not None and c["diff_mean"] is not None]
    for channel, tag, background, cls in sorted({(c["channel"], c["tag"], c["background"], c["multiclass_class"]) for c in comp}):
        sel = [c for c in comp if (c["channel"], c["tag"], c["background"], c["multiclass_class"]) == (channel, tag, background, cls)]
        suffix = f"_{names[tag]}" if len(tags) > 1 and names.get(tag) else ""
        pair = background if cls == background else f"{background}_vs_{cls}"
        vs = trainer.display_label(background, {})
        cell = lambda c: (c["m_hc"], c["m_a"])  # noqa: E731
        specs.append(MapSpec(f"map_fit_binning_difference_{channel}_{pair}{suffix}",
                             f"Binned FIP: multi-class ({trainer.display_label(cls, {})}) minus binary ({vs}), {channel}",
                             "#Delta binned FIP", {cell(c): c["diff_mean"] for c in sel}, "+.3f", diverging=True,
                             errors={cell(c): c["diff_standard_error"] for c in sel if setfiles.is_number(c["diff_standard_error"])},
                             significant=tuple(sorted(cell(c) for c in sel if setfiles.is_number(c["diff_p_holm"])
                                                      and c["diff_p_holm"] < ALPHA)),
                             pull_title="#Delta binned FIP / #sigma_{#Delta}", star="corrected t",
                             short=f"Binned FIP, multi-class minus binary, vs {vs}, {trainer.channel_label(channel)}"))  # fmt: skip
    return share_ranges(specs)  # one colour scale per background (binary, multi-class, every channel)


def fold_standard_error(row: dict) -> float:
    """The fold standard error of an aggregated row's mean value, std/sqrt(k); nan with one fold."""
    k = len(row.get("fold_values") or {})
    std = row.get("value_std")
    return float(std) / math.sqrt(k) if setfiles.is_number(std) and k > 1 else math.nan


def attach(data: dict) -> dict[str, str]:
    """The hook for summary.summary.write: the section into `data["fit_binning"]` (for the maps
    and the web report) and its files."""
    data["fit_binning"] = section(data)
    return files(data["fit_binning"])


def figures(data: dict) -> list:
    """The section's maps (summary.maps.map_figure); the section from `data` if not attached."""
    from pnetviz.summary.maps import map_figure  # noqa: PLC0415

    return [map_figure(s) for s in map_specs(data.get("fit_binning") or section(data))]
