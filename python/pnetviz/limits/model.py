"""The fit model of the limits package: binned templates per channel (one signal, its
backgrounds, their MC statistics and shape systematics), and what a fit of it answers.

`expected(model)` gives the expected discovery significance and the expected 95 % CLs upper
limit (asymptotic, median and bands) on the Asimov data; `write_outputs` writes the Combine
datacard with its shapes.root, the HS3 JSON workspace (written by ROOT) and the pyhf JSON
workspace. The likelihood and the conventions are in docs/limits.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
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


def expected(model: FitModel) -> Expected:
    """The expected significance and CLs limit of `model` (asymptotic, Asimov data)."""
    raise NotImplementedError


def write_outputs(model: FitModel, directory: Path, stem: str) -> dict[str, str]:
    """datacard (<stem>.txt), shapes (<stem>_shapes.root), HS3 JSON (<stem>_hs3.json), pyhf JSON
    (<stem>_pyhf.json); returns {"datacard","shapes","hs3","pyhf"} relative file names."""
    raise NotImplementedError
