"""The three ways of using a classifier's score in the fit (issue 52), each built from the pooled
out-of-fold events of one pair (arrays in, `model.FitModel` out; docs/limits.md):

* `score-fit`: the score histogrammed in the pair's pooled optimal binning (its edges chosen on
  the non-test events, metrics.outoffold), templates from the test events;
* `cut-and-mass`: the mass histogrammed in a window around m(A) after a cut on the score; the cut
  is the best of 101 thresholds by the Asimov Z inside the window, scanned on the non-test
  events and applied to the test events;
* `mass-x-score`: the mass histogram in 2 or 3 score categories (boundaries from the same grid,
  chosen on the non-test events by the combined binned Asimov Z), one channel per category.

Pure computations: the events are `Columns` (scores, signal flags, yields-scaled weights, the
mass, each systematic's Up/Down weights); nothing is read or written here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from pnetviz.errors import InputError
from pnetviz.limits.model import Channel, FitModel, Sample

NAMES = ("score-fit", "cut-and-mass", "mass-x-score")
THRESHOLDS = 101  # the analysis' score-cut scan: 0, 0.01, ..., 1
WINDOW_FRACTION = 0.95  # default window: the central interval holding this much of the signal's non-test mass
RESOLUTION_FRACTION = 0.6827  # the resolution sigma: half the central interval holding this much of the signal's mass
MIN_BACKGROUND_EVENTS = 10  # background MC events a cut or a category must keep on the choice events
MAX_MASS_BINS = 20
MIN_FOLD_BIN_EVENTS = 5  # background MC events a mass bin is expected to hold in one fold's test events
CATEGORY_GAIN = 0.01  # 3 categories only if their combined Z beats 2 by more than this fraction


@dataclass(frozen=True)
class Columns:
    """Events of one pair: scores, signal flags, weights already scaled to the reported yields,
    the mass (None without --mass-column) and the systematics' Up/Down weights (scaled the same)."""

    scores: np.ndarray
    is_signal: np.ndarray
    weights: np.ndarray
    mass: np.ndarray | None = None
    systs: dict = field(default_factory=dict)

    def select(self, keep: np.ndarray) -> Columns:
        return Columns(self.scores[keep], self.is_signal[keep], self.weights[keep],
                       None if self.mass is None else self.mass[keep], {n: (u[keep], d[keep]) for n, (u, d) in self.systs.items()})  # fmt: skip


@dataclass(frozen=True)
class Built:
    """One strategy's fit model (None when it cannot be built: `error` says why), where its
    choices were made (`chosen_on`) and what they were (`choices`: thresholds, window, edges)."""

    name: str
    model: FitModel | None
    chosen_on: str
    choices: dict
    error: str | None = None


def parse_window(text: str) -> tuple[str, float]:
    """--mass-window: '10' (GeV half-width) -> ('GeV', 10.0); '2sigma' -> ('sigma', 2.0)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(sigma|GeV)?\s*", str(text))
    value = float(m.group(1)) if m else math.nan
    if not m or not (math.isfinite(value) and value > 0):
        raise InputError(f"--mass-window {text!r}: give a positive half-width in GeV (e.g. 10) or in units of the "
                         "signal's mass resolution (e.g. 2sigma).")  # fmt: skip
    return ("sigma" if m.group(2) == "sigma" else "GeV", value)


def mass_point(signal: str) -> float | None:
    """m(A) of a signal point named MHc<m(H+)>_MA<m(A)> (None for another name)."""
    found = re.search(r"MA(\d+(?:p\d+)?)", signal)
    return float(found.group(1).replace("p", ".")) if found else None


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q) -> np.ndarray:
    """Weighted quantiles (|weights|), by the midpoint rule on the sorted values."""
    order = np.argsort(values, kind="stable")
    v, w = values[order], np.abs(weights[order])
    cum = np.cumsum(w) - 0.5 * w
    return np.interp(np.asarray(q, float) * w.sum(), cum, v)


def resolution(mass: np.ndarray, weights: np.ndarray) -> float:
    """The signal's mass resolution: half the central interval holding 68.27 % of its weight."""
    lo, hi = weighted_quantile(mass, weights, [(1 - RESOLUTION_FRACTION) / 2, (1 + RESOLUTION_FRACTION) / 2])
    return float(hi - lo) / 2


def window(signal_mass: np.ndarray, signal_weights: np.ndarray, peak: float | None,
           spec: tuple[str, float] | None) -> tuple[float, float, float]:  # fmt: skip
    """(low, high, sigma) of the mass window, from the signal's non-test mass: default the central
    interval holding 95 % of its weight; ('GeV', x): peak +- x; ('sigma', n): peak +- n sigma.
    The peak is m(A) of the signal point, else the signal's weighted median."""
    sigma = resolution(signal_mass, signal_weights)
    centre = float(weighted_quantile(signal_mass, signal_weights, 0.5)) if peak is None else peak
    if spec is None:
        lo, hi = weighted_quantile(signal_mass, signal_weights, [(1 - WINDOW_FRACTION) / 2, (1 + WINDOW_FRACTION) / 2])
        return float(lo), float(hi), sigma
    half = spec[1] if spec[0] == "GeV" else spec[1] * sigma
    return centre - half, centre + half, sigma


def mass_edges(lo: float, hi: float, sigma: float) -> np.ndarray:
    """Equal-width mass bins of about one resolution sigma across the window (1 to 20 bins)."""
    n = int(min(MAX_MASS_BINS, max(1, round((hi - lo) / sigma)))) if sigma > 0 else 1
    return np.linspace(lo, hi, n + 1)


def merged_edges(edges: np.ndarray, counts: list[np.ndarray], minimum: float) -> np.ndarray:
    """`edges` with neighbouring bins merged, left to right, until every bin holds at least
    `minimum` in each of `counts` (per bin; the background MC events of each category); a short
    remainder at the high end joins the last bin. One bin if the whole range holds less."""
    total = np.zeros((len(counts), edges.size - 1)) if not counts else np.vstack(counts)
    out, acc = [edges[0]], np.zeros(total.shape[0])
    for i in range(edges.size - 1):
        acc = acc + total[:, i]
        if (acc >= minimum).all() and i < edges.size - 2:
            out.append(edges[i + 1])
            acc = np.zeros(total.shape[0])
    if len(out) > 1 and not (acc >= minimum).all():
        out.pop()  # the remainder joins the last closed bin
    return np.array([*out, edges[-1]], float)


def background_counts(events: Columns, edges: np.ndarray) -> np.ndarray:
    """Background MC events per mass bin (inside the edges)."""
    m = events.mass[~events.is_signal]
    m = m[(m >= edges[0]) & (m < edges[-1])]
    return np.bincount(np.searchsorted(edges, m, side="right") - 1, minlength=edges.size - 1)[: edges.size - 1].astype(float)


def asimov_z(s, b):
    """The Asimov discovery significance sqrt(2((s+b) ln(1+s/b) - s)) (0 where b <= 0 or s <= 0)."""
    s, b = np.asarray(s, float), np.asarray(b, float)
    ok = (b > 0) & (s > 0)
    safe_b = np.where(ok, b, 1.0)
    z2 = np.where(ok, 2 * ((s + safe_b) * np.log1p(np.where(ok, s, 0.0) / safe_b) - s), 0.0)
    return np.sqrt(np.maximum(z2, 0.0))


def grid(scores: np.ndarray) -> np.ndarray:
    """The 101 thresholds: 0, 0.01, ..., 1 for scores in [0, 1], else equal steps over their range."""
    lo, hi = (0.0, 1.0) if scores.size == 0 or (scores.min() >= 0 and scores.max() <= 1) else (float(scores.min()), float(scores.max()))
    return np.linspace(lo, hi, THRESHOLDS)


def scan_cut(choice: Columns, in_window: np.ndarray) -> tuple[float, float] | None:
    """The threshold of the 101 that maximises the Asimov Z of the events in the window passing
    score >= threshold (at least MIN_BACKGROUND_EVENTS background MC events kept; the lowest
    threshold of equal Z), and that Z; None if no threshold keeps enough background."""
    thresholds = grid(choice.scores)
    sel = choice.select(in_window)

    def above(mask: np.ndarray, weights: np.ndarray) -> np.ndarray:  # sum of weights with score >= each threshold
        order = np.sort(sel.scores[mask])
        cum = np.concatenate([[0.0], np.cumsum(weights[mask][np.argsort(sel.scores[mask], kind="stable")][::-1])])
        return cum[order.size - np.searchsorted(order, thresholds, side="left")]

    s = above(sel.is_signal, sel.weights)
    b = above(~sel.is_signal, sel.weights)
    nb = above(~sel.is_signal, np.ones_like(sel.weights))
    z = np.where(nb >= MIN_BACKGROUND_EVENTS, asimov_z(s, b), -1.0)
    if z.max() < 0:
        return None
    k = int(np.argmax(z))
    return float(thresholds[k]), float(z[k])


def categories(choice: Columns, edges: np.ndarray) -> tuple[list[float], float] | None:
    """Score boundaries of 2 or 3 categories from the 101-point grid, chosen by the combined binned
    Asimov Z (sqrt of the sum of Z^2 over the categories' mass bins) of the choice events in the
    mass `edges`, every category keeping MIN_BACKGROUND_EVENTS background MC events; 3 only if
    it beats 2 by more than 1 %. Returns the inner boundaries and the combined Z."""
    inside = (choice.mass >= edges[0]) & (choice.mass < edges[-1])
    sel = choice.select(inside)
    thresholds = grid(choice.scores)
    cell = np.clip(np.searchsorted(thresholds, sel.scores, side="right") - 1, 0, THRESHOLDS - 1)
    mbin = np.clip(np.searchsorted(edges, sel.mass, side="right") - 1, 0, edges.size - 2)
    shape = (THRESHOLDS, edges.size - 1)
    s = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    np.add.at(s[0], (cell[sel.is_signal], mbin[sel.is_signal]), sel.weights[sel.is_signal])
    np.add.at(s[1], (cell[~sel.is_signal], mbin[~sel.is_signal]), sel.weights[~sel.is_signal])
    np.add.at(s[2], (cell[~sel.is_signal], mbin[~sel.is_signal]), 1.0)
    # cumulative from the top: above[k] = the events with score >= thresholds[k]
    above = [np.vstack([np.cumsum(a[::-1], axis=0)[::-1], np.zeros((1, shape[1]))]) for a in s]

    # z2[k1, k2]: sum over mass bins of Z^2 for thresholds[k1] <= score < thresholds[k2] (k2 = 101: no upper end)
    sig, bkg, n = ((a[:, None, :] - a[None, :, :]) for a in above)
    z2 = (asimov_z(sig, bkg) ** 2).sum(axis=2)
    z2 = np.where(n.sum(axis=2) >= MIN_BACKGROUND_EVENTS, z2, -math.inf)
    top = THRESHOLDS
    best: dict[int, tuple[float, list[float]]] = {}
    two = z2[0, 1:top] + z2[1:top, top]  # boundary k = 1 .. 100
    if np.isfinite(two).any():
        k = 1 + int(np.argmax(two))
        best[2] = (float(two[k - 1]), [float(thresholds[k])])
    k1, k2 = np.meshgrid(np.arange(1, top), np.arange(1, top), indexing="ij")
    three = np.where(k2 > k1, z2[0, k1] + z2[k1, k2] + z2[k2, top], -math.inf)
    if np.isfinite(three).any():
        i, j = np.unravel_index(int(np.argmax(three)), three.shape)
        best[3] = (float(three[i, j]), [float(thresholds[i + 1]), float(thresholds[j + 1])])
    if 2 not in best:
        return None
    pick = 3 if 3 in best and math.sqrt(best[3][0]) > (1 + CATEGORY_GAIN) * math.sqrt(best[2][0]) else 2
    return best[pick][1], math.sqrt(best[pick][0])


def process_name(name: str) -> str:
    """A datacard-safe process name: letters, digits and _ (others become _)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name) or "background"


def histogram(values: np.ndarray, weights: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """sum of weights per bin; values outside the edges go to the first or last bin (none is lost)."""
    idx = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2)
    return np.bincount(idx, weights=weights, minlength=edges.size - 1).astype(float)


def channel(name: str, observable: str, values: np.ndarray, events: Columns, edges: np.ndarray,
            names: tuple[str, str]) -> Channel:  # fmt: skip
    """The channel of `events` histogrammed in `values` (their score or mass): the signal and the
    background templates (sum w, sum w^2) and each systematic's Up/Down templates."""

    def sample(mask: np.ndarray, proc: str) -> Sample:
        v, w = values[mask], events.weights[mask]
        systs = {syst: (histogram(v, up[mask], edges), histogram(v, down[mask], edges)) for syst, (up, down) in events.systs.items()}
        return Sample(process_name(proc), histogram(v, w, edges), histogram(v, w * w, edges), systs)

    return Channel(name, np.asarray(edges, float), observable, sample(events.is_signal, names[0]),
                   (sample(~events.is_signal, names[1]),))  # fmt: skip


MASS_AXIS = "m [GeV]"


def score_fit(test: Columns, edges, chosen_on: str, names: tuple[str, str]) -> Built:
    """The score in the pair's pooled binning, templates from the test events."""
    if edges is None or len(edges) < 2:
        return Built("score-fit", None, chosen_on, {}, "no pooled binning for this pair (--binning none, or none chosen)")
    choices = {"edges": np.asarray(edges, float).tolist()}
    return Built("score-fit", apply("score-fit", choices, test, names), chosen_on, choices)


@dataclass(frozen=True)
class MassChoice:
    """The window, its mass edges and the resolution, from the signal's non-test mass."""

    low: float
    high: float
    sigma: float
    edges: np.ndarray

    def report(self) -> dict:
        return {"window": [self.low, self.high], "resolution": self.sigma, "mass_edges": self.edges.tolist()}

    def merged(self, counts: list[np.ndarray], minimum: float) -> MassChoice:
        return MassChoice(self.low, self.high, self.sigma, merged_edges(self.edges, counts, minimum))


def mass_choice(choice: Columns, peak: float | None, spec: tuple[str, float] | None) -> MassChoice | str:
    """The window and mass binning (or one line why there is none)."""
    if choice.mass is None:
        return "no mass observable (give --mass-column)"
    sig = choice.is_signal
    if not sig.any() or np.abs(choice.weights[sig]).sum() <= 0:
        return "no signal events to choose the mass window on"
    lo, hi, sigma = window(choice.mass[sig], choice.weights[sig], peak, spec)
    if not hi > lo:
        return f"empty mass window [{lo:.4g}, {hi:.4g}]"
    return MassChoice(lo, hi, sigma, mass_edges(lo, hi, sigma))


def cut_and_mass(choice: Columns, test: Columns, chosen_on: str, names: tuple[str, str], mass: MassChoice | str,
                 minimum: float = 0.0) -> Built:  # fmt: skip
    """The mass in the window after the score cut scanned on the choice events (mass bins merged
    until each keeps `minimum` background MC events of the choice events above the cut)."""
    if isinstance(mass, str):
        return Built("cut-and-mass", None, chosen_on, {}, mass)
    in_window = (choice.mass >= mass.low) & (choice.mass < mass.high)
    cut = scan_cut(choice, in_window)
    if cut is None:
        return Built("cut-and-mass", None, chosen_on, mass.report(),
                     f"no score cut keeps {MIN_BACKGROUND_EVENTS} background MC events in the mass window")  # fmt: skip
    passing = choice.select(choice.scores >= cut[0])
    mass = mass.merged([background_counts(passing, mass.edges)], minimum)
    choices = {**mass.report(), "threshold": cut[0], "choice_z": cut[1]}
    return Built("cut-and-mass", apply("cut-and-mass", choices, test, names), chosen_on, choices)


def mass_x_score(choice: Columns, test: Columns, chosen_on: str, names: tuple[str, str], mass: MassChoice | str,
                 minimum: float = 0.0) -> Built:  # fmt: skip
    """The mass in the window in 2 or 3 score categories chosen on the choice events, one channel
    each (mass bins merged until each keeps `minimum` background MC events in every category)."""
    if isinstance(mass, str):
        return Built("mass-x-score", None, chosen_on, {}, mass)
    found = categories(choice, mass.edges)
    if found is None:
        return Built("mass-x-score", None, chosen_on, mass.report(),
                     f"no two score categories keep {MIN_BACKGROUND_EVENTS} background MC events each in the mass window")  # fmt: skip
    cuts = [-math.inf, *found[0], math.inf]
    counts = [background_counts(choice.select((choice.scores >= cuts[i]) & (choice.scores < cuts[i + 1])), mass.edges)
              for i in range(len(cuts) - 1)]  # fmt: skip
    mass = mass.merged(counts, minimum)
    choices = {**mass.report(), "category_bounds": found[0], "choice_z": found[1]}
    return Built("mass-x-score", apply("mass-x-score", choices, test, names), chosen_on, choices)


def apply(name: str, choices: dict, test: Columns, names: tuple[str, str]) -> FitModel:
    """The fit model of strategy `name` with its `choices` (as Built.choices holds them) on the
    events `test`: how each fold's test events alone are templated for the per-fold numbers."""
    if name == "score-fit":
        edges = np.asarray(choices["edges"], float)
        return FitModel((channel("score", "score", test.scores, test, edges, names),))
    lo, hi = choices["window"]
    edges = np.asarray(choices["mass_edges"], float)
    in_window = (test.mass >= lo) & (test.mass < hi)
    if name == "cut-and-mass":
        kept = test.select(in_window & (test.scores >= choices["threshold"]))
        return FitModel((channel("mass", MASS_AXIS, kept.mass, kept, edges, names),))
    cuts = [-math.inf, *choices["category_bounds"], math.inf]
    channels = []
    for i in range(len(cuts) - 1):
        kept = test.select(in_window & (test.scores >= cuts[i]) & (test.scores < cuts[i + 1]))
        channels.append(channel(f"mass_cat{i}", MASS_AXIS, kept.mass, kept, edges, names))
    return FitModel(tuple(channels))


def build_all(choice: Columns, test: Columns, chosen_on: str, names: tuple[str, str], edges, signal: str,
              spec: tuple[str, float] | None = None, folds: int = 1) -> list[Built]:  # fmt: skip
    """The three strategies of one pair (`names`: the signal and background process names;
    `folds`: how many folds the test events pool, for the mass bins' guard: each bin keeps, on
    the choice events, what is expected to be MIN_FOLD_BIN_EVENTS background MC events in one
    fold's test events)."""
    mass = mass_choice(choice, mass_point(signal), spec)
    minimum = MIN_FOLD_BIN_EVENTS * choice.scores.size / max(test.scores.size / max(folds, 1), 1.0)
    return [score_fit(test, edges, chosen_on, names), cut_and_mass(choice, test, chosen_on, names, mass, minimum),
            mass_x_score(choice, test, chosen_on, names, mass, minimum)]  # fmt: skip
