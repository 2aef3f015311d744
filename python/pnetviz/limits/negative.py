"""The negative-bin policy: what a fit receives where a weighted template went negative.

Negative event weights (NLO generators) can leave a bin, or a whole template, below zero; a
Poisson mean cannot be. Combine's convention, which the analysis follows, is applied to every
template (each nominal and each shape systematic's Up and Down):
- a bin whose content is below zero is set to FLOOR (1e-10); its sum of w^2 is kept (the MC
  statistical uncertainty of a bin that cancelled is real);
- a template whose integral was negative before that is named as such in the report.
Each template touched gives one report line (`Expected.negative_bins`), never a silent clip;
the datacard, the shapes file and both workspaces carry the contents after the policy.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pnetviz.limits.spec import Channel, FitModel, Sample

FLOOR = 1e-10  # Combine's convention for a bin (or template) that must stay positive


def _fix(contents: np.ndarray, what: str, report: list[str]) -> np.ndarray:
    values = np.asarray(contents, dtype=np.float64)
    negative = np.flatnonzero(values < 0)
    if not negative.size:
        return values
    integral = float(values.sum())
    bins = ", ".join(str(int(i) + 1) for i in negative[:10]) + (", ..." if negative.size > 10 else "")
    line = (f"{what}: {negative.size} negative bin{'s' * (negative.size > 1)} ({bins}; sum "
            f"{float(values[negative].sum()):.4g}) set to {FLOOR:g}")
    if integral < 0:
        line += f"; its integral was negative ({integral:.4g})"
    report.append(line)
    return np.where(values < 0, FLOOR, values)


def _sample(sample: Sample, channel: str, report: list[str]) -> Sample:
    where = f"{channel}/{sample.name}"
    contents = _fix(sample.contents, where, report)
    systs = {name: (_fix(up, f"{where} {name}Up", report), _fix(down, f"{where} {name}Down", report))
             for name, (up, down) in sample.shape_systs.items()}
    return replace(sample, contents=contents,
                   sumw2=np.asarray(sample.sumw2, dtype=np.float64), shape_systs=systs)


def apply_policy(model: FitModel) -> tuple[FitModel, tuple[str, ...]]:
    """`model` with every negative bin floored, and the report: one line per template touched
    ("<channel>/<process>[ <syst>Up|Down]: ..."), in the model's order."""
    report: list[str] = []
    channels = tuple(replace(ch, signal=_sample(ch.signal, ch.name, report),
                             backgrounds=tuple(_sample(b, ch.name, report) for b in ch.backgrounds))
                     for ch in model.channels)
    return replace(model, channels=channels), tuple(report)


def unreported(contents: np.ndarray) -> bool:
    """A bin left below zero (what the datacard validator refuses)."""
    return bool(np.any(np.asarray(contents) < 0))
