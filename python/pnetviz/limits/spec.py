"""The fit model's data classes: binned templates per channel (one signal, its backgrounds,
their MC statistics and shape systematics), and what a fit of it answers. The public surface is
limits/model.py (which re-exports these); the other limits modules import them from here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np


@dataclass(frozen=True)
class Sample:
    """One process in one channel."""

    name: str  # process name as written to the datacard (checked there)
    contents: np.ndarray  # float64 bin contents (weighted yields), len = nbins
    sumw2: np.ndarray  # float64 sum of w^2 per bin (MC statistics)
    shape_systs: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Channel:
    name: str
    edges: np.ndarray  # bin edges of the observable (score or mass)
    observable: str  # axis title, e.g. "score" or "m(#mu#mu) [GeV]"
    signal: Sample
    backgrounds: tuple[Sample, ...]


@dataclass(frozen=True)
class FitModel:
    channels: tuple[Channel, ...]
    mc_stat: bool = True  # Barlow-Beeston lite (one gamma per bin, Combine's autoMCStats 10 threshold)


@dataclass(frozen=True)
class Limit:
    """An expected 95 % CLs upper limit on mu: the median and the -2, -1, +1, +2 sigma band edges."""

    median: float
    m2: float
    m1: float
    p1: float
    p2: float


@dataclass(frozen=True)
class Expected:
    significance: float | None  # expected discovery Z on the Asimov background+signal (mu=1) data
    limit: Limit | None  # expected 95% CLs upper limit on mu (asymptotic), bands
    nuisances: tuple[str, ...] = ()  # names of the nuisance parameters in the fit
    error: str | None = None  # None, or one line saying why the fit failed (then significance/limit None)
    negative_bins: tuple[str, ...] = ()  # the negative-bin policy's report lines (one per template touched)


def nbins(channel: Channel) -> int:
    return len(channel.edges) - 1


def samples(channel: Channel) -> tuple[Sample, ...]:
    """The channel's processes in the datacard's order: the signal (index 0), then the backgrounds."""
    return (channel.signal, *channel.backgrounds)


def background_sum(channel: Channel) -> np.ndarray:
    """The blind Asimov observation of `channel`: the sum of its backgrounds."""
    return np.sum([np.asarray(b.contents, dtype=np.float64) for b in channel.backgrounds], axis=0)


def syst_names(model: FitModel) -> tuple[str, ...]:
    """The shape systematics of `model`, each once, in the order they first appear."""
    return tuple(dict.fromkeys(name for ch in model.channels for s in samples(ch) for name in s.shape_systs))


def check_shapes(model: FitModel) -> None:
    """ValueError (a caller's bug, not a user's mistake) unless every array has its channel's bin count."""
    if not model.channels:
        raise ValueError("a FitModel needs at least one channel")
    for ch in model.channels:
        n = nbins(ch)
        if n < 1 or not np.all(np.diff(ch.edges) > 0):
            raise ValueError(f"channel {ch.name!r}: the edges must increase ({len(ch.edges)} given)")
        if not ch.backgrounds:
            raise ValueError(f"channel {ch.name!r}: no background")
        for s in samples(ch):
            arrays = [s.contents, s.sumw2, *(a for pair in s.shape_systs.values() for a in pair)]
            if any(np.shape(a) != (n,) or not np.all(np.isfinite(a)) for a in arrays):
                raise ValueError(f"channel {ch.name!r}, process {s.name!r}: every array needs {n} finite values")
            if np.any(np.asarray(s.sumw2) < 0):
                raise ValueError(f"channel {ch.name!r}, process {s.name!r}: a sum of w^2 is negative")
