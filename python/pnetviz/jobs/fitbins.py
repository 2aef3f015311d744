"""The binning for the fit of each signal-vs-background pair of a fold (issue 39), shared by the
binary and multi-class jobs: `binning.json`, the objective-vs-K figure and the TH1s of each
process in the chosen binning (named by process, yields as the report's: ready for a
combine/TRExFitter shapes file). Numbers from metrics.fitbinning, figures from draw.binningplots."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.draw import binningplots, canvas
from pnetviz.draw.style import color
from pnetviz.metrics import binning as bn
from pnetviz.metrics.evaluate import SplitResult
from pnetviz.metrics.fitbinning import Events, pair_binning
from pnetviz.output.report import dumps, plain

FILE = "binning.json"
FORMAT = 1
TRAIN_TEST = ("train", "test")


def events(result: SplitResult, metrics: dict) -> Events:
    """One split's events with the factors that make their weights the metrics' yields."""
    sample = result.sample
    s, b = float(sample.used[sample.is_signal].sum()), float(sample.used[~sample.is_signal].sum())
    scale = (metrics["signal_yield"] / s if s else 1.0, metrics["background_yield"] / b if b else 1.0)
    return Events(sample.scores, sample.is_signal, sample.used, scale)


def pair_section(results: dict[str, SplitResult], metrics: dict, k_max: int = bn.K_MAX) -> dict | None:
    """The pair's binning document (metrics.fitbinning.pair_binning) with what its yields are;
    None without both splits."""
    if not all(s in results for s in TRAIN_TEST):
        return None
    doc = pair_binning(events(results["train"], metrics["train"]), events(results["test"], metrics["test"]), k_max=k_max)
    return {**doc, "yields": metrics.get("yields", {}).get("kind", "relative")}


def summary(doc: dict | None) -> dict | None:
    """The report's short `binning` entry: the chosen K, its test value and efficiency."""
    if doc is None:
        return None
    return {"file": FILE, "objective": doc["objective"], "chosen_k": doc["chosen_k"], "value": doc["value"],
            "efficiency": doc["efficiency"], "unbinned_limit": doc["unbinned_limit"]}  # fmt: skip


def chosen_histograms(doc: dict, test: Events, processes: tuple[str, str], labels: tuple[str, str],
                      key: str) -> list[tuple[str, object, str, int]]:  # fmt: skip
    """The test split's signal and background yields in the chosen binning, one TH1D per process."""
    row = next(r for r in doc["by_k"] if r["k"] == doc["chosen_k"])
    edges = np.asarray(row["edges"])
    idx = bn.bin_index(edges, test.scores)
    out = []
    for (process, label, col), sel, scale in zip(((processes[0], labels[0], color("signal")), (processes[1], labels[1], color("background"))),
                                                 (test.is_signal, ~test.is_signal), test.scale, strict=True):  # fmt: skip
        w = test.weights[sel] * scale
        sw = np.bincount(idx[sel], weights=w, minlength=edges.size - 1)
        sw2 = np.bincount(idx[sel], weights=w * w, minlength=edges.size - 1)
        hist = binningplots.fit_histogram(f"{key}_{process}", edges, sw, sw2, f"{label}: yield per bin")
        out.append((process, hist, label, col))
    return out


def figures(doc: dict | None, results: dict[str, SplitResult], metrics: dict, processes: tuple[str, str],
            labels: tuple[str, str], context: Sequence[str], suffix: str = "") -> list[canvas.Figure]:  # fmt: skip
    """binning_objective<suffix> and binning_histograms<suffix> (objects under binning<suffix>/ and
    fit_binning<suffix>/), nothing without a document or a chosen K."""
    if doc is None or doc["chosen_k"] is None:
        return []
    kind = "expected yields" if doc["yields"] == "expected" else "relative yields (training weights)"
    ctx = [*context, f"edges chosen on train, test events; {kind}"]
    hists = chosen_histograms(doc, events(results["test"], metrics["test"]), processes, labels, f"fit_binning{suffix}")
    ytitle = "Expected events per bin" if doc["yields"] == "expected" else "Yield per bin (relative)"
    return [binningplots.objective_figure(f"binning_objective{suffix}", f"binning{suffix}", doc, ctx),
            binningplots.histograms_figure(f"binning_histograms{suffix}", f"fit_binning{suffix}", hists, ytitle,
                                           [*context, f"K = {doc['chosen_k']} (smallest within 1% of the best), test events"])]  # fmt: skip


def document(kind: str, identity: dict, pairs: dict[str, dict | None]) -> str:
    """binning.json: one pair's document at the top level (binary), or {"pairs": {...}} (multi-class)."""
    body = next(iter(pairs.values())) if kind == "binary" and len(pairs) == 1 else {"pairs": pairs}
    return dumps(plain({"format": FORMAT, "kind": kind, **identity, **(body or {})})) + "\n"
