"""The binning for the fit of a multi-class model (issue 39): per background pair the binning of
the fit score (`--fit-score lr`: the pair's likelihood ratio P(sig) / (P(sig) + P(bkg_i)), as
the pair's ROC uses; `signal`: P(signal) of the pair's events), and with `--fit-score signal`
also the one P(signal) histogram an analysis fits against all backgrounds together, under the
per-class guard (each background class >= 1 MC event per bin, as CMS's `flatsguarded`).

Files per pair `signal_vs_<bkg>_binning.json` (and `signal_vs_all_binning.json`), named as the
job's other per-pair outputs; figures `signal_vs_<bkg>_binning_objective`/`_binning_histograms`,
TH1s under `fit_binning_signal_vs_<bkg>/` in plots.root (jobs.fitbins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.draw import canvas
from pnetviz.draw.style import color, cycle_color
from pnetviz.jobs import fitbins
from pnetviz.names import name as quantity
from pnetviz.metrics import binning as bn
from pnetviz.metrics.fitbinning import Events, pair_binning

FIT_SCORES = ("lr", "signal")
ALL = "all"  # the pair name of P(signal) against every background together
CONSTRAINTS = bn.Constraints(min_class_events=1.0)
CLASS_GUARD = "each background class >= 1 MC event per bin (the flatsguarded guard)"
PAIR_GUARD = f"{CLASS_GUARD}; one background class per pair, where >= N_min background MC events imply it"


def tag(background: str) -> str:
    """The per-pair stem of files and figures: signal_vs_<bkg> (signal_vs_all)."""
    return f"signal_vs_{background}"


def file_name(background: str) -> str:
    return f"{tag(background)}_{fitbins.FILE}"


@dataclass(frozen=True)
class MultiBinning:
    """The binning documents per background (and ALL) and the test events each was evaluated on."""

    fit_score: str
    docs: dict[str, dict | None]
    test: dict[str, Events]
    groups: dict[str, list[tuple[str, str, int, np.ndarray, float]]]  # name -> histogram groups of `test`


def pair_events(ev, index: int, split: str) -> np.ndarray:
    """The events of signal vs class `index` in `split`, in the order of the pair's samples."""
    return np.flatnonzero(ev.selections[split] & (ev.class_masks[0] | ev.class_masks[index]))


def compute(job, preds, ev, fit_score: str) -> MultiBinning:
    """Every binning of the model (`job`, `preds`, `ev`: jobs.multiclass's job, predictions and Evaluation)."""
    signal = preds.scores[job.classes[0]]
    docs, tests, groups = {}, {}, {}
    for i, background in enumerate(job.classes[1:], start=1):
        if background not in ev.pairs or background not in ev.hep:
            continue  # a pair skipped by the evaluation (a class absent from a split): no binning, said in its report
        results, metrics = ev.pairs[background], ev.hep[background]
        scores = {s: signal[pair_events(ev, i, s)] for s in fitbins.TRAIN_TEST} if fit_score == "signal" else None
        doc = fitbins.pair_section(results, metrics, constraints=CONSTRAINTS, scores=scores)
        docs[background] = described(doc, score_text(job, fit_score, background), (job.classes[0], background))
        if doc is not None:
            tests[background] = fitbins.events(results["test"], metrics["test"], None if scores is None else scores["test"])
            t = tests[background]
            groups[background] = [(job.classes[0], job.display[0], color("signal"), t.is_signal, t.scale[0]),
                                  (background, job.display[i], color("background"), ~t.is_signal, t.scale[1])]  # fmt: skip
    if fit_score == "signal" and all(all(s in ev.pairs[b] for s in fitbins.TRAIN_TEST) for b in ev.pairs):
        split_events = {s: combined_events(job, preds, ev, s) for s in fitbins.TRAIN_TEST}
        doc = pair_binning(*split_events.values(), constraints=CONSTRAINTS)
        yields = next(iter(ev.hep.values())).get("yields", {}).get("kind", "relative")
        docs[ALL] = described({**doc, "yields": yields}, f"P({job.classes[0]})", (job.classes[0], *job.classes[1:]))
        t = tests[ALL] = split_events["test"]
        groups[ALL] = [(job.classes[0], job.display[0], color("signal"), t.is_signal, 1.0)] + [
            (c, job.display[k], cycle_color(k), ~t.is_signal & (t.classes == k), 1.0) for k, c in enumerate(job.classes) if k]  # fmt: skip
    return MultiBinning(fit_score, docs, tests, groups)


def score_text(job, fit_score: str, background: str) -> str:
    s = job.classes[0]
    return f"P({s}) / (P({s}) + P({background}) + 1e-10)" if fit_score == "lr" else f"P({s})"


def described(doc: dict | None, score: str, processes: Sequence[str]) -> dict | None:
    """The document with the score binned, the processes (signal first) and the class guard."""
    if doc is None:
        return None
    return {**doc, "score": score, "processes": list(processes), "class_guard": CLASS_GUARD if len(processes) > 2 else PAIR_GUARD}


def combined_events(job, preds, ev, split: str) -> Events:
    """Signal and every background class of `split` on P(signal), each class's weights scaled to
    its pair's yields (those of the report; signal from the first pair), with its class index."""
    events = np.flatnonzero(ev.selections[split] & np.logical_or.reduce(ev.class_masks))
    label = preds.label[events]
    weights = ev.used[events].astype(float)
    for k, name in enumerate(job.classes):
        metrics = ev.hep[job.classes[1] if k == 0 else name][split]
        mask = label == k
        total = float(weights[mask].sum())
        weights[mask] *= (metrics["signal_yield"] if k == 0 else metrics["background_yield"]) / total if total else 1.0
    return Events(preds.scores[job.classes[0]][events], label == 0, weights, (1.0, 1.0), classes=label)


def report(mb: MultiBinning) -> dict:
    """The report's `binning` entry: the fit score, the guard, and each pair's short summary."""
    return {"fit_score": mb.fit_score, "class_guard": CLASS_GUARD,
            "pairs": {f"signal vs {b}": {**(fitbins.summary(d) or {}), "file": file_name(b)} if d else None
                      for b, d in mb.docs.items()}}  # fmt: skip


def files(identity: dict, mb: MultiBinning) -> dict[str, str]:
    """One binning file per pair (`file_name`), each the pair's document at the top level."""
    return {file_name(b): fitbins.document("multiclass", identity, {f"signal vs {b}": d}) for b, d in mb.docs.items()}


def what(job, fit_score: str, name: str) -> str:
    """The plot context's second line's head: which pair and which score."""
    if name == ALL:
        return f"{quantity('p_signal')} vs all backgrounds"
    return f"vs {job.label(name)}, {quantity('lr_score' if fit_score == 'lr' else 'p_signal')}"


def figures(job, mb: MultiBinning, context_lines) -> list[canvas.Figure]:
    """Per pair the objective-vs-K and the chosen-binning histograms (`context_lines(job, what)`:
    the job's plot context)."""
    figs = []
    for name, doc in mb.docs.items():
        if doc is None or doc["chosen_k"] is None:
            continue
        hists = fitbins.process_histograms(doc, mb.test[name], mb.groups[name], f"fit_binning_{tag(name)}")
        figs += fitbins.figures_of(doc, hists, context_lines(job, what(job, mb.fit_score, name)), tag(name))
    return figs
