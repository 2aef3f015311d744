"""Observer branches (--observe) in `pnetviz compare`: performance versus each observer and the
sculpting check of both compared models, per pair.

For the pair (binary background b, multi-class class c) the comparison's ROC curves use two
discriminants on two sets of events: the binary model's score_signal on its own ntuple's test
events (signal vs b), and the multi-class likelihood ratio P(s)/(P(s)+P(c)) on the multi-class
ntuple's test events with true_label in {0, i}. Each gets the section of jobs.observers
(VarVsEff at a fixed signal efficiency, the background's shape after cuts) on exactly those
events and weights: the report's `pairs.<b>.observers.{binary,multiclass}.<observer>`, the
figures `signal_vs_<b>_{binary,multiclass}_observer_<name>_{signal_efficiency,rejection,sculpting}`
and their objects under `signal_vs_<b>/{binary,multiclass}/observers/<name>` in plots.root.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pnetviz.jobs import observers

KEY = "observers"  # in compare_pair's result until comparison.run moves it into the report
MODELS = ("binary", "multiclass")


def pair_observers(job, binary, keep_binary: np.ndarray, multi, lr: np.ndarray, keep_multi: np.ndarray) -> dict:
    """{KEY: (report, data)} for one pair's result, {} without --observe. `binary`/`multi`: the
    two ntuples' Predictions (read with observe=job.observe), `keep_*` the events each side's
    curve uses, `lr` the multi-class likelihood-ratio score (job: a comparison.ComparisonJob)."""
    if not job.observe:
        return {}
    report, data = {}, {}
    sides = ((binary, binary.scores[job.classes[0]], keep_binary), (multi, lr, keep_multi))
    for model, (preds, scores, keep) in zip(MODELS, sides, strict=True):
        report[model], data[model] = observers.section(job.observe, preds.extra, scores, preds.label == 0, preds.weight,
                                                       np.asarray(keep, dtype=bool), job.hep.weight_mode)  # fmt: skip
    return {KEY: (report, data)}


def take(pairs: dict) -> dict:
    """background -> (report, data), removed from the pairs' results (so that the fold results
    stored for the fold summary stay as they were)."""
    return {b: result.pop(KEY) for b, result in pairs.items() if KEY in result}


def figures(observed: dict, contexts: dict[str, Sequence[str]], labels: dict[str, str]) -> list:
    """The figures of every pair's observers, both models (`contexts`: background -> the pair's
    context lines; `labels`: --labels, for the x titles)."""
    from pnetviz.draw import observerplots  # noqa: PLC0415
    from pnetviz.names import name as quantity  # noqa: PLC0415

    out = []
    for b, (_, data) in observed.items():
        for model in MODELS:
            for name, (v, sc) in data[model].items():
                base, key = f"signal_vs_{b}_{model}_observer_{name}", f"signal_vs_{b}/{model}/observers/{name}"
                title, context = observerplots.axis_title(name, labels), [*contexts[b], quantity(model)]
                out += [observerplots.efficiency_figure(f"{base}_signal_efficiency", key, v, title, context),
                        observerplots.rejection_figure(f"{base}_rejection", key, v, title, context),
                        observerplots.sculpting_figure(f"{base}_sculpting", key, sc, title,
                                                       [*context, "test background events"])]  # fmt: skip
    return out
