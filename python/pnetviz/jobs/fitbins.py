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
from pnetviz.metrics.eventsums import edge_bin_sums
from pnetviz.metrics.pairsweeps import class_totals
from pnetviz.metrics.fitbinning import Events, pair_binning
from pnetviz.output.report import dumps, plain
from pnetviz.rootenv import set_title

FILE = "binning.json"
FORMAT = 1
TRAIN_TEST = ("train", "test")


def events(result: SplitResult, metrics: dict, scores: np.ndarray | None = None) -> Events:
    """One split's events with the factors that make their weights the metrics' yields (`scores`:
    another score of the same events, in the sample's order, instead of the sample's)."""
    sample = result.sample
    s, _, b, _ = (float(v) for v in class_totals(sample.used, sample.is_signal))  # np.sum(used[cls]), no copies
    scale = (metrics["signal_yield"] / s if s else 1.0, metrics["background_yield"] / b if b else 1.0)
    return Events(sample.scores if scores is None else scores, sample.is_signal, sample.used, scale)


def pair_section(results: dict[str, SplitResult], metrics: dict, k_max: int = bn.K_MAX,
                 constraints: bn.Constraints = bn.Constraints(), scores: dict[str, np.ndarray] | None = None) -> dict | None:  # fmt: skip
    """The pair's binning document (metrics.fitbinning.pair_binning) with what its yields are;
    None without both splits. `scores`: split -> another score of the pair's events (the sample's
    by default, whose test ROC curve is then reused for the unbinned limit)."""
    if not all(s in results for s in TRAIN_TEST):
        return None
    train, test = (events(results[s], metrics[s], None if scores is None else scores[s]) for s in TRAIN_TEST)
    doc = pair_binning(train, test, k_max=k_max, constraints=constraints,
                       test_curve=results["test"].curve if scores is None else None)  # fmt: skip
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
    groups = [(processes[0], labels[0], color("signal"), test.is_signal, test.scale[0]),
              (processes[1], labels[1], color("background"), ~test.is_signal, test.scale[1])]  # fmt: skip
    return process_histograms(doc, test, groups, key)


def process_histograms(doc: dict, test: Events, groups: Sequence[tuple[str, str, int, np.ndarray, float]],
                       key: str) -> list[tuple[str, object, str, int]]:  # fmt: skip
    """The test split's yields in the chosen binning, one TH1D per group (process, label, colour,
    event mask, weight factor), named `key`_process."""
    row = next(r for r in doc["by_k"] if r["k"] == doc["chosen_k"])
    edges = np.asarray(row["edges"], dtype=np.float64)
    out = []
    wide = np.asarray(test.weights).dtype == np.float64  # (w scale) in float64, as numpy's product of float64 weights
    idx = None if wide else bn.bin_index(edges, test.scores)
    for process, label, col, sel, scale in groups:  # np.bincount of (w scale)[sel] in bn.bin_index's bins, one pass
        if wide:
            sw, sw2 = edge_bin_sums(edges, test.scores, test.weights, sel, scale)
        else:
            w = test.weights[sel] * scale
            sw, sw2 = (np.bincount(idx[sel], weights=v, minlength=edges.size - 1) for v in (w, w * w))
        hist = binningplots.fit_histogram(f"{key}_{process}", edges, sw, sw2, f"{label}: yield per bin")
        out.append((process, hist, label, col))
    return out


def figures(doc: dict | None, results: dict[str, SplitResult], metrics: dict, processes: tuple[str, str],
            labels: tuple[str, str], context: Sequence[str], tag: str = "") -> list[canvas.Figure]:  # fmt: skip
    """[tag_]binning_objective and [tag_]binning_histograms (objects under [tag/]binning/ and
    fit_binning[_tag]/), nothing without a document or a chosen K."""
    if doc is None or doc["chosen_k"] is None:
        return []
    test = events(results["test"], metrics["test"])
    hists = chosen_histograms(doc, test, processes, labels, "fit_binning" + (f"_{tag}" if tag else ""))
    return figures_of(doc, hists, context, tag)


def figures_of(doc: dict, hists: list, context: Sequence[str], tag: str = "") -> list[canvas.Figure]:
    """The objective-vs-K figure and the histograms figure of `hists` (chosen_histograms) for `doc`."""
    kind = "expected yields" if doc["yields"] == "expected" else "relative yields"
    ctx = [*context, f"train-chosen edges, test events, {kind}"]
    ytitle = "Expected events per bin" if doc["yields"] == "expected" else "Yield per bin (relative)"
    stem, sub = (f"{tag}_", f"{tag}/") if tag else ("", "")
    key = "fit_binning" + (f"_{tag}" if tag else "")
    histograms = binningplots.histograms_figure(f"{stem}binning_histograms", key, hists, ytitle,
                                                [*context, f"K = {doc['chosen_k']} (chosen on train), test events"])  # fmt: skip
    # a datacard's observation beside the processes (stored, not drawn): the background sum, i.e.
    # the background-only Asimov data set, so that `shapes * * plots.root <key>/$PROCESS` finds data_obs
    observed = background_sum(hists, f"{key}_{OBSERVED}")
    observed.GetXaxis().SetTitle("Score (chosen binning)")  # as the figure's frame names the drawn ones (not drawn itself)
    observed.GetYaxis().SetTitle(ytitle)
    histograms.keep(f"{key}/{OBSERVED}", observed, OBSERVED_TITLE)
    return [binningplots.objective_figure(f"{stem}binning_objective", f"{sub}binning", doc, ctx), histograms]


OBSERVED = "data_obs"  # combine's name of the observation
OBSERVED_TITLE = "Observed: background sum (Asimov)"


def background_sum(hists: Sequence[tuple[str, object, str, int]], name: str) -> object:
    """The sum of the background TH1s of `hists` (every entry after the first, the signal), named `name`."""
    total = hists[1][1].Clone(name)
    for _, hist, _, _ in hists[2:]:
        total.Add(hist)
    set_title(total, OBSERVED_TITLE)  # its own title, not the first background's that Clone copied
    return total


def document(kind: str, identity: dict, pairs: dict[str, dict | None]) -> str:
    """binning.json: one pair's document at the top level with its `pair` name, or {"pairs": {...}}."""
    body = {"pair": next(iter(pairs)), **(next(iter(pairs.values())) or {})} if len(pairs) == 1 else {"pairs": pairs}
    return finite_json({"format": FORMAT, "kind": kind, **identity, **body}) + "\n"


def finite_json(value) -> str:
    """Compact JSON (report.dumps) of a binning document, NaN/inf as null (report.plain): the
    document itself by json's C encoder, its complete plain() copy only where the encoder finds a
    NaN/inf or a numpy value."""
    try:
        return dumps(value, allow_nan=False)
    except (ValueError, TypeError):
        return dumps(plain(value))
