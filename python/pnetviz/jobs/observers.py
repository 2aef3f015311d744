"""Observer branches (--observe m_mumu,pt_lead) in a fold's evaluation: the report section and
the figures of each observer (metrics.observers, draw.observerplots), from the test events.

The discriminant is the signal score (score_signal; in a multi-class model the signal class's
score, every other class the background); the weights are the evaluation's (--weights).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pnetviz.errors import InputError
from pnetviz.metrics import observers
from pnetviz.metrics.hep import mode_weights

DOC = "docs/observers.md"


def parse(text: str | None) -> tuple[str, ...]:
    """The branch names of `--observe a,b` (InputError naming the option for anything else)."""
    if text is None:
        return ()
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",")))
    for name in names:
        if not name.isidentifier():
            raise InputError(f"--observe {text!r}: {name!r} is not a branch name. Fix: give float branches separated by "
                             "commas, e.g. --observe m_mumu,pt_lead.")  # fmt: skip
    return names


def section(names: Sequence[str], values: dict[str, np.ndarray], scores: np.ndarray, is_signal: np.ndarray,
            weights: np.ndarray, test: np.ndarray, weight_mode: str) -> tuple[dict, dict]:  # fmt: skip
    """The report's `observers` section and, per observer, (VarVsEff, Sculpting) for the figures.
    `values`: observer name -> value per event; `test`: the events to use (test split, subset)."""
    used = mode_weights(weights[test], weight_mode)
    s, sig = scores[test], is_signal[test]
    report, data = {"score": "signal score", "events": "test split", "doc": DOC}, {}
    for name in names:
        x = values[name][test]
        finite = np.isfinite(x)
        v = observers.var_vs_eff(x[finite], s[finite], sig[finite], used[finite])
        sc = observers.sculpting(x[finite], s[finite], sig[finite], used[finite])
        report[name] = {"var_vs_eff": v.report(), "sculpting": sc.report(), "non_finite_events": int((~finite).sum())}
        data[name] = (v, sc)
    return report, data


def figures(data: dict, context: Sequence[str], labels: dict[str, str]) -> list:
    """Every observer's figures (draw.observerplots; `labels`: --labels, for the x titles)."""
    from pnetviz.draw import observerplots  # noqa: PLC0415

    return [fig for name, (v, sc) in data.items() for fig in observerplots.figures(name, v, sc, context, labels)]


def attach(report: dict, figs: Callable[[], list], job, preds, scores: np.ndarray, keep: np.ndarray | None,
           context: Sequence[str]) -> Callable[[], list]:  # fmt: skip
    """Adds the `observers` section of `job.observe` to `report` and returns `figs` extended by
    the observers' figures (job: a driver.FoldJob)."""
    names = job.observe
    if not names:
        return figs
    test = preds.masks["test"] if keep is None else preds.masks["test"] & keep
    report["observers"], data = section(names, preds.extra, scores, preds.label == 0, preds.weight, test, job.hep.weight_mode)
    return lambda: [*figs(), *figures(data, context, job.label_overrides)]
