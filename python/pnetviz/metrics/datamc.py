"""Data against the stacked simulation in one binning: pure computations on arrays (`pnetviz datamc`).

Conventions (docs/datamc.md, "Statistics"):

* Histograms: the sum of weights per bin (under- and overflow counted in the first and last bin).
  MC statistical error per bin: sqrt(sum w^2) of all processes.
* Systematics: each variation (trees `<syst>_Up`/`<syst>_Down`) enters as the signed symmetrised
  shift delta_s = (up - down) / 2 per bin of the total simulation (a process without the variation
  contributes its Central tree to both); its sign across bins is kept, so delta_s delta_s^T is the
  variation's fully correlated covariance. Band: sqrt(mc_stat^2 + sum_s delta_s^2) per bin.
* Data: event counts with Garwood (central, 68.27 %) Poisson intervals.
* chi2 = r^T V^-1 r with r = data - mu over the unmasked bins with mu > 0, and
  V = diag(mu + sum w^2) + sum_s delta_s delta_s^T: the data's Poisson variance is taken from the
  expectation mu (Pearson's convention, defined for empty data bins), plus the MC statistical
  variance, plus one rank-one term per systematic. ndf = those bins (nothing is fitted); p from
  the chi2 distribution (ROOT's Math::chisquared_cdf_c).
* Pull per bin: (data - mu) / sqrt(V_ii).
* Kolmogorov: the weighted two-sample KS (metrics.hep.weighted_ks) of the data's scores against
  the simulation's, over the events outside masked bins.
* Working points: a cut score >= t; data efficiency N_pass / N with the binomial error
  sqrt(eps (1 - eps) / N); the simulation's sum_pass w / sum w with the ratio-of-sums error of
  metrics.workingpoints (hep.ratio_error); their ratio (a scale factor) with both errors added in
  quadrature relative.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pnetviz.metrics import hep
from pnetviz.rootenv import root

CL = 0.682689492137086  # the central interval of one Gaussian sigma
AGREE_P = 0.05  # a (Holm-adjusted) p-value below this: the verdict says "disagree"


def binned(values: np.ndarray, weights: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sum w, sum w^2) per bin of `edges`; values outside the range are counted in the first or
    last bin (no event is lost from the normalisation)."""
    edges = np.asarray(edges, dtype=np.float64)
    index = np.clip(np.searchsorted(edges, np.asarray(values, dtype=np.float64), side="right") - 1, 0, edges.size - 2)
    w = np.asarray(weights, dtype=np.float64)
    n = edges.size - 1
    return np.bincount(index, weights=w, minlength=n), np.bincount(index, weights=w * w, minlength=n)


def garwood(counts: np.ndarray, cl: float = CL) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) Garwood interval of Poisson counts n: chi2_quantile((1 - cl)/2, 2n) / 2 and
    chi2_quantile((1 + cl)/2, 2n + 2) / 2 (lower 0 for n = 0)."""
    quantile = root().Math.chisquared_quantile
    alpha = (1.0 - cl) / 2.0
    low = np.array([0.0 if n <= 0 else quantile(alpha, 2.0 * n) / 2.0 for n in np.asarray(counts, float)])
    high = np.array([quantile(1.0 - alpha, 2.0 * n + 2.0) / 2.0 for n in np.asarray(counts, float)])
    return low, high


def chi2_survival(chi2: float, ndf: int) -> float:
    """P(X >= chi2) for X ~ chi2(ndf) (ROOT's Math::chisquared_cdf_c: no scipy at run time)."""
    return float(root().Math.chisquared_cdf_c(float(chi2), float(ndf)))


@dataclass
class Comparison:
    """One region and score in one binning: everything datamc.json and plots.root hold."""

    edges: np.ndarray
    data: np.ndarray  # counts per bin
    mc: dict[str, np.ndarray]  # process -> sum w per bin (stacking order)
    mc_sumw2: np.ndarray  # sum w^2 per bin over all processes
    deltas: dict[str, np.ndarray]  # systematic -> signed symmetrised shift (up - down) / 2 per bin
    up_down: dict[str, tuple[np.ndarray, np.ndarray]]  # systematic -> (up, down) totals per bin
    masked: np.ndarray  # bool per bin: data hidden (blinding)
    data_low: np.ndarray = field(init=False)
    data_high: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.data_low, self.data_high = garwood(self.data)

    @property
    def total(self) -> np.ndarray:
        return np.sum(list(self.mc.values()), axis=0) if self.mc else np.zeros(self.edges.size - 1)

    @property
    def mc_stat(self) -> np.ndarray:
        return np.sqrt(self.mc_sumw2)

    @property
    def syst(self) -> np.ndarray:
        """sqrt(sum_s delta_s^2) per bin."""
        return np.sqrt(np.sum([d * d for d in self.deltas.values()], axis=0)) if self.deltas else np.zeros_like(self.mc_sumw2)

    @property
    def band(self) -> np.ndarray:
        return np.sqrt(self.mc_sumw2 + self.syst**2)

    def covariance(self) -> np.ndarray:
        """V = diag(mu + sum w^2) + sum_s delta_s delta_s^T over every bin."""
        v = np.diag(self.total + self.mc_sumw2)
        for d in self.deltas.values():
            v += np.outer(d, d)
        return v

    @property
    def used(self) -> np.ndarray:
        """The bins of the chi2: not masked, with a positive expectation."""
        return ~self.masked & (self.total > 0)

    def pulls(self) -> np.ndarray:
        """(data - mu) / sqrt(V_ii) per bin; NaN where masked or V_ii = 0."""
        v = np.diag(self.covariance())
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (self.data - self.total) / np.sqrt(v)
        return np.where(self.masked | (v <= 0), np.nan, out)

    def ratio(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(data / mu, its lower and upper errors from the Garwood interval / mu); NaN where masked or mu <= 0."""
        mu = self.total
        bad = self.masked | (mu <= 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(bad, np.nan, self.data / mu)
            low = np.where(bad, np.nan, (self.data - self.data_low) / mu)
            high = np.where(bad, np.nan, (self.data_high - self.data) / mu)
        return r, low, high

    def relative_band(self) -> np.ndarray:
        """band / mu per bin (0 where mu <= 0): the ratio panel's band around 1."""
        mu = self.total
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(mu > 0, self.band / mu, 0.0)

    def chi2(self) -> dict:
        """The chi2 with the full covariance over the used bins, ndf and p; None values when no bin is used."""
        used = self.used
        ndf = int(used.sum())
        if ndf == 0:
            return {"chi2": None, "ndf": 0, "p_value": None}
        r = (self.data - self.total)[used]
        v = self.covariance()[np.ix_(used, used)]
        value = float(r @ np.linalg.solve(v, r))
        return {"chi2": value, "ndf": ndf, "p_value": chi2_survival(value, ndf)}


def compare(edges: np.ndarray, data_scores: np.ndarray, mc: dict[str, tuple[np.ndarray, np.ndarray]],
            variations: dict[str, tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[str, tuple[np.ndarray, np.ndarray]]]],
            masked: np.ndarray) -> Comparison:  # fmt: skip
    """The comparison from events: `mc` process -> (scores, weights) of the Central trees,
    `variations` systematic -> (process -> (scores, weights) Up, the same Down) (every process,
    its Central tree where it has no such variation), `masked` the blinded bins."""
    data, _ = binned(data_scores, np.ones(len(data_scores)), edges)
    hists = {p: binned(s, w, edges) for p, (s, w) in mc.items()}
    sumw2 = np.sum([h[1] for h in hists.values()], axis=0)
    deltas, up_down = {}, {}
    for syst, (up, down) in variations.items():
        u = np.sum([binned(s, w, edges)[0] for s, w in up.values()], axis=0)
        d = np.sum([binned(s, w, edges)[0] for s, w in down.values()], axis=0)
        deltas[syst], up_down[syst] = (u - d) / 2.0, (u, d)
    return Comparison(np.asarray(edges, float), data, {p: h[0] for p, h in hists.items()}, sumw2, deltas, up_down,
                      np.asarray(masked, bool))  # fmt: skip


def kolmogorov(data_scores: np.ndarray, mc_scores: np.ndarray, mc_weights: np.ndarray) -> dict:
    """The weighted two-sample KS of data (weight 1 each) against the simulation; None values
    when either side is empty or the simulation's total weight is not positive."""
    if len(data_scores) == 0 or len(mc_scores) == 0 or float(np.sum(mc_weights)) <= 0:
        return {"statistic": None, "p_value": None}
    ks = hep.weighted_ks(np.asarray(data_scores, float), np.ones(len(data_scores)), np.asarray(mc_scores, float),
                         np.asarray(mc_weights, float))  # fmt: skip
    return {"statistic": ks["statistic"], "p_value": ks["p_value"]}


def signal_thresholds(scores: np.ndarray, weights: np.ndarray, targets: Sequence[float]) -> dict[float, float]:
    """target -> the highest score value t of the signal sample with sum_{s >= t} w / sum w >= target."""
    order = np.argsort(-np.asarray(scores, float), kind="stable")
    s, w = np.asarray(scores, float)[order], np.asarray(weights, float)[order]
    total = float(w.sum())
    out = {}
    if s.size == 0 or total <= 0:
        return out
    ends = np.r_[np.flatnonzero(np.diff(s) != 0), s.size - 1]  # ties select together
    eff = np.cumsum(w)[ends] / total
    for target in targets:
        reached = np.flatnonzero(eff >= target - 1e-12)
        out[float(target)] = float(s[ends[reached[0]]] if reached.size else s[-1])
    return out


def efficiency(data_scores: np.ndarray, mc_scores: np.ndarray, mc_weights: np.ndarray, threshold: float) -> dict:
    """Data and simulation efficiency of score >= threshold with their errors and the ratio."""
    n = len(data_scores)
    k = int(np.count_nonzero(np.asarray(data_scores) >= threshold))
    eps_d = k / n if n else math.nan
    err_d = math.sqrt(eps_d * (1.0 - eps_d) / n) if n else math.nan
    w = np.asarray(mc_weights, float)
    passing = np.asarray(mc_scores) >= threshold
    total = float(w.sum())
    eps_m = float(w[passing].sum()) / total if total > 0 else math.nan
    err_m = hep.ratio_error(eps_m, float(np.sum(w[passing] ** 2)), float(np.sum(w[~passing] ** 2)), total) if total > 0 else math.nan
    ratio = eps_d / eps_m if eps_m and math.isfinite(eps_m) and n else math.nan
    rel = math.hypot(err_d / eps_d if eps_d else math.nan, err_m / eps_m if eps_m else math.nan)
    return {"threshold": threshold, "data": _num(eps_d), "data_error": _num(err_d), "data_pass": k, "data_events": n,
            "mc": _num(eps_m), "mc_error": _num(err_m), "ratio": _num(ratio), "ratio_error": _num(ratio * rel)}  # fmt: skip


def _num(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def verdict(chi2: dict, holm_p: float | None) -> str:
    """"agree: chi2/ndf = 11.2/10, p = 0.34" (the test's own p), with the Holm-adjusted p of the
    family when given ("p = 0.34, Holm p = 1"), which decides: "disagree: ..." below AGREE_P;
    "no test: every bin blinded or empty" when no bin entered."""
    if chi2["chi2"] is None:
        return "no test: every bin blinded or empty"
    decides = chi2["p_value"] if holm_p is None else holm_p
    word = "agree" if decides >= AGREE_P else "disagree"
    line = f"{word}: chi2/ndf = {chi2['chi2']:.1f}/{chi2['ndf']}, p = {_p_text(chi2['p_value'])}"
    return line + (f", Holm p = {_p_text(holm_p)}" if holm_p is not None else "")


def _p_text(p: float) -> str:
    """Two significant digits, scientific below 1e-3."""
    return f"{p:.2g}" if p >= 1e-3 else f"{p:.1e}"
