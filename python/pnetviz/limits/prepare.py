"""The model as every output and fit receives it: names escaped (limits/cardnames.py), the
negative-bin policy applied (limits/negative.py), bins that are empty in every template of
their channel merged into a neighbour (they carry no information; a Poisson term of mean 0 is
0/0 for some tools), and the one thing no fit can answer checked: a bin with signal and no
background (its Asimov significance is unbounded)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from pnetviz.limits import cardnames, negative
from pnetviz.limits.asymptotic import closed_form_limit
from pnetviz.limits.spec import Channel, FitModel, Sample, background_sum, check_shapes, samples


@dataclass(frozen=True)
class Prepared:
    model: FitModel
    negative_bins: tuple[str, ...]
    problem: str | None  # one line: why no fit can give an answer, or None


def _arrays(s: Sample):
    return [s.contents, s.sumw2, *(a for pair in s.shape_systs.values() for a in pair)]


def _merge_empty(ch: Channel) -> Channel:
    """`ch` with every bin that is zero in all its templates merged into its left neighbour
    (the first into its right one): the edge between them goes, the contents do not change."""
    empty = np.all([np.asarray(a) == 0 for s in samples(ch) for a in _arrays(s)], axis=0)
    if not empty.any() or empty.all():
        return ch
    keep = ~empty
    edges = np.asarray(ch.edges, dtype=np.float64)
    kept = np.flatnonzero(keep)
    new_edges = np.concatenate([[edges[0]], edges[kept[1:]], [edges[-1]]])

    def cut(a):
        return np.asarray(a, dtype=np.float64)[keep]

    def sample(s: Sample) -> Sample:
        return replace(s, contents=cut(s.contents), sumw2=cut(s.sumw2),
                       shape_systs={k: (cut(u), cut(d)) for k, (u, d) in s.shape_systs.items()})
    return replace(ch, edges=new_edges, signal=sample(ch.signal), backgrounds=tuple(map(sample, ch.backgrounds)))


def _problem(model: FitModel) -> str | None:
    if sum(float(np.sum(ch.signal.contents)) for ch in model.channels) <= 0:
        return "the signal has no positive yield in any channel: no significance or limit"
    for ch in model.channels:
        b = background_sum(ch)
        bad = np.flatnonzero((b <= 0) & (np.asarray(ch.signal.contents) > 0))
        if bad.size:
            return (f"channel {ch.name}: bin {int(bad[0]) + 1} has signal but no background (sum {float(b[bad[0]]):.3g}): "
                    "its Asimov significance is unbounded; fix: a binning whose every signal bin has background")
    return None


def prepare(model: FitModel) -> Prepared:
    check_shapes(model)
    model, report = negative.apply_policy(cardnames.escaped(model))
    model = replace(model, channels=tuple(_merge_empty(ch) for ch in model.channels))
    return Prepared(model, report, _problem(model))


def totals(model: FitModel) -> tuple[np.ndarray, np.ndarray]:
    """The signal and background yields of all channels' bins, concatenated."""
    return (np.concatenate([np.asarray(ch.signal.contents, dtype=np.float64) for ch in model.channels]),
            np.concatenate([background_sum(ch) for ch in model.channels]))


def mu_scale(model: FitModel) -> float:
    """The +2 sigma expected limit without nuisance parameters: where the root finding starts
    (its median) and what the POI's range must hold (x 10 in the written workspaces)."""
    s, b = totals(model)
    return closed_form_limit(s, b).p2


def has_nuisances(model: FitModel) -> bool:
    return model.mc_stat or any(s.shape_systs for ch in model.channels for s in samples(ch))
