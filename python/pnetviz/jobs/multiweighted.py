"""A multi-class fold's weighted likelihood ratio (`--score weighted-lr`, metrics.weightedlr):
evaluated as the pairwise LR scores are, as more "pairs" of a fold: signal vs all backgrounds
(each background class weighted to its share w_i) and signal vs each background, with their
HEP metrics, working points, figures (the weights on a context line of each) and fold curves."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.yields import pair_yields
from pnetviz.draw import canvas
from pnetviz.jobs import decisions
from pnetviz.jobs.multifigures import score_pair_figures
from pnetviz.metrics import pairmetrics, weightedlr
from pnetviz.metrics.evaluate import BinarySample, SplitResult, evaluate_samples
from pnetviz.metrics.folds import fold_curves

ALL = "all"  # the pair signal vs all backgrounds
SCORES = ("lr", "weighted-lr")  # --score


@dataclass(frozen=True)
class WeightedEvaluation:
    weights: weightedlr.Weights
    factors: dict[str, float]  # background class -> factor on its weights in the signal-vs-all sample
    pairs: dict[str, dict[str, SplitResult]]  # ALL or background -> split -> result
    hep: dict[str, dict]  # ALL or background -> pairmetrics.pair_metrics
    expected: dict[str, tuple[float, float] | None]  # ALL or background -> (S, B) expected, or None
    skipped: dict[str, str]


def check_scores(path, score: np.ndarray, events: np.ndarray) -> None:
    """InputError naming the events whose denominator s0 + sum w_i s_i is 0 (or not finite)."""
    bad = ~np.isfinite(score)
    if np.any(bad):
        entries = ", ".join(str(e) for e in events[bad][:5])
        raise InputError(f"{path}: {int(bad.sum())} events have s0 + sum_i w_i s_i = 0 (or not finite), so their weighted "
                         f"likelihood ratio is undefined (entries {entries}). Fix: scores must be probabilities (non-negative).")  # fmt: skip


def samples(preds, used: np.ndarray, selections: dict[str, np.ndarray], class_masks: list[np.ndarray],
            weights: weightedlr.Weights, factors: dict[str, float]) -> dict[str, dict[str, BinarySample]]:  # fmt: skip
    """ALL and each background -> split -> BinarySample of the weighted score. Signal vs all: every
    event of the split, a background class's weights times its factor; signal vs background i:
    the events with true_label in {0, i}, weights as stored."""
    classes = preds.classes
    score = weightedlr.score(preds.scores[classes[0]], [preds.scores[b] for b in weights.weights], weights.vector)
    factor = np.ones(len(classes))
    for k, c in enumerate(classes[1:], start=1):
        factor[k] = factors[c]
    out: dict[str, dict[str, BinarySample]] = {ALL: {}}
    for split, sel in selections.items():
        events = np.flatnonzero(sel)
        check_scores(preds.path, score[events], events)
        f = factor[preds.label[events]]
        out[ALL][split] = BinarySample(scores=score[events], is_signal=class_masks[0][events],
                                       weights=preds.weight[events] * f, used=used[events] * f)  # fmt: skip
    for i, background in enumerate(classes[1:], start=1):
        out[background] = {}
        for split, sel in selections.items():
            events = np.flatnonzero(sel & (class_masks[0] | class_masks[i]))
            out[background][split] = BinarySample(scores=score[events], is_signal=class_masks[0][events],
                                                  weights=preds.weight[events], used=used[events])  # fmt: skip
    return out


def evaluate(job, preds, used: np.ndarray, selections: dict[str, np.ndarray], class_masks: list[np.ndarray],
             keep: np.ndarray | None) -> WeightedEvaluation | None:  # fmt: skip
    """The weighted score's pairs of one fold (None unless --score weighted-lr)."""
    if job.score != "weighted-lr":
        return None
    totals = weightedlr.class_totals(job.classes, preds.label, used, keep)
    yields = job.hep.expected_yields
    weights = weightedlr.resolve(job.classes[1:], yields, totals, str(preds.path))
    factors = weightedlr.mixture_factors(weights, totals)
    signal = job.classes[0]
    expected = {b: pair_yields(yields, signal, b) for b in job.classes[1:]}
    expected[ALL] = None if yields is None else (expected[job.classes[1]][0], sum(expected[b][1] for b in job.classes[1:]))
    full = {b: (totals[signal], totals[b]) for b in job.classes[1:]} | {ALL: (totals[signal], sum(totals[b] for b in job.classes[1:]))}
    pairs, hep, skipped = {}, {}, {}
    for name, per_split in samples(preds, used, selections, class_masks, weights, factors).items():
        what = f"weighted LR, signal vs {'all backgrounds' if name == ALL else name}" + (f", {job.subset}" if job.subset else "")
        try:
            pairs[name] = evaluate_samples(preds.path, per_split, what, (job.names[0], "Backgrounds" if name == ALL else name))
        except InputError as err:  # a class absent from a split: the other pairs are still evaluated
            skipped[name] = str(err)
            warnings.warn(f"weighted LR, signal vs {name} skipped: {err}", stacklevel=2)
            continue
        hep[name] = pairmetrics.pair_metrics(pairs[name], job.hep, full[name], expected[name])
    return WeightedEvaluation(weights, factors, pairs, hep, expected, skipped)


def tag(name: str) -> str:
    """The file-name stem of a weighted pair: weighted_lr_signal_vs_all, weighted_lr_signal_vs_ttX."""
    return f"{weightedlr.NAME}_signal_vs_{name}"


def pair_text(job, name: str) -> str:
    """The pair on its plots: "vs all backgrounds, weighted LR", "vs t#bar{t}X, weighted LR"."""
    return f"vs {'all backgrounds' if name == ALL else job.label(name)}, weighted LR"


def decide(job, wev: WeightedEvaluation) -> dict[str, decisions.PairDecisions]:
    """Working points and the cut scan of each weighted pair."""
    text = weightedlr.formula(job.classes[1:], job.classes[0])
    return {name: decisions.pair_decisions(results, wev.hep[name], job.hep, text, wev.expected[name])
            for name, results in wev.pairs.items()}  # fmt: skip


def report(job, wev: WeightedEvaluation, decided: dict[str, decisions.PairDecisions]) -> dict:
    """summary_report.json's `weighted_lr` section."""
    return {
        **wev.weights.report(job.hep.weight_mode),
        "pairs": {name: {"selection": "every event of the split" if name == ALL else f"true_label in {{0, {job.classes.index(name)}}}",
                         **{s: r.curve.auc for s, r in results.items()},
                         "events_used": {s: {job.names[0]: int(r.sample.is_signal.sum()),
                                             "background" if name == ALL else name: int((~r.sample.is_signal).sum())}
                                         for s, r in results.items()}}
                  for name, results in wev.pairs.items()},
        "background_mixture": ("signal vs all: each background class's event weights times its factor, so that its share "
                               "of the background is w_i (the total background weight kept)"),
        "factors": dict(wev.factors),
        "hep_metrics": wev.hep,
        "working_points": {name: {**d.meta, "points": d.points} for name, d in decided.items()},
        "skipped_pairs": dict(wev.skipped),
    }  # fmt: skip


def curves(job, wev: WeightedEvaluation, decided: dict[str, decisions.PairDecisions]) -> tuple[dict, dict]:
    """The fold summary's curves of the weighted pairs (RunOutput.curves) and their display text:
    the pair, then the weights (a line of its own on the summary's plots)."""
    out, display = {}, {}
    # the summary's line: the weights of --expected-yields, the same in every fold; the ntuple's totals
    # may differ from fold to fold (each fold set's figures and report give its own)
    summary_line = weights_line(job, wev) if wev.weights.source == weightedlr.FROM_YIELDS else "w: each fold's ntuple class totals"
    for name, results in wev.pairs.items():
        key = f"{job.signal} vs {'all backgrounds' if name == ALL else name} (weighted LR)"
        out[key] = (f"{tag(name)}_", {s: decisions.with_wp_scalars(fold_curves(job.fold, r, wev.hep[name][s]),
                                                                  decided[name].points, s) for s, r in results.items()})  # fmt: skip
        display[key] = f"{pair_text(job, name)}\n{summary_line}"
    return out, display


def weights_line(job, wev: WeightedEvaluation) -> str:
    return wev.weights.line({c: job.label(c) for c in job.classes})


def figures(job, wev: WeightedEvaluation, decided: dict[str, decisions.PairDecisions],
            extra: list[str]) -> list[canvas.Figure]:  # fmt: skip
    """Each weighted pair's ROC, rejection, score distribution and cut scan; the weights are a
    context line of every one (`extra`: the lines after the job's context, e.g. the weight mode)."""
    figs = []
    xtitle = weightedlr.AXIS
    for name, results in wev.pairs.items():
        ctx = [*job.context(pair_text(job, name)), weights_line(job, wev), *extra]
        label = "Backgrounds" if name == ALL else job.label(name)
        figs += score_pair_figures(job, tag(name), results, wev.hep[name], label, xtitle, ctx, decided[name], "score")
    return figs


def out_of_fold_pairs(job, preds, wev: WeightedEvaluation | None) -> dict[str, dict]:
    """The weighted pairs' test (and binning-choice) events of one fold, stored beside the pairwise
    ones for the out-of-fold evaluation (jobs.outoffold), under the fold summary's names: signal vs
    all backgrounds with each class's weights times its share factor, signal vs each background."""
    from pnetviz.jobs import outoffold  # noqa: PLC0415

    if wev is None:
        return {}
    classes = preds.classes
    score = weightedlr.score(preds.scores[classes[0]], [preds.scores[b] for b in wev.weights.weights], wev.weights.vector)
    factor = np.array([1.0] + [wev.factors[c] for c in classes[1:]])
    keep = preds.subsets[job.subset] if job.subset else None
    out = {}
    for name, results in wev.pairs.items():
        if not all(s in results for s in ("train", "test")):
            continue
        if name == ALL:
            mask, per_event = keep, factor[preds.label]
        else:
            mask, per_event = (preds.label == 0) | (preds.label == classes.index(name)), None
            mask = mask if keep is None else mask & keep
        valid = outoffold.valid_split(preds, mask, score, job.hep.weight_mode, per_event)
        key = f"{job.signal} vs {'all backgrounds' if name == ALL else name} (weighted LR)"
        out[key] = {"prefix": f"{tag(name)}_", "background": "Backgrounds" if name == ALL else name,
                    "pair": outoffold.with_limit_columns(outoffold.fold_pair(results, wev.hep[name], valid), preds, mask,
                                                         job.mass_column)}  # fmt: skip
    return out
