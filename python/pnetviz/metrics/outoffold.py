"""Out-of-fold evaluation of a k-fold model (issue 51): the test splits of every fold pooled, each
event scored by the fold model that did not train on it, as an analysis uses the folds.

Pure computations on arrays: the pooled sample of one signal-vs-background pair, its exact ROC
with bootstrap errors over the pooled events, the rejections at the working points with their
intervals, and one binning for the fit chosen on the pooled non-test events (validation splits,
else training splits) and judged on the pooled test events, where the binning's guard is checked
again. Yields: relative (the pooled weights as they are: each event once, the whole sample), or
expected (`--expected-yields`): each fold's test split scaled by its share of the pooled test
weight, which is the pooled weights times expected / pooled weight per class (docs/out-of-fold.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pnetviz.metrics import binning as bn
from pnetviz.metrics import hep
from pnetviz.metrics.fitbinning import Events, pair_binning
from pnetviz.metrics.roc import BinaryCurve, binary_clf_curve
from pnetviz.io.kernels import kernels

SEED = 20251001  # as the per-fold bootstrap's default seed
CHOICE_SPLITS = ("valid", "train")  # where the pooled binning is chosen, in order of preference


@dataclass(frozen=True)
class Split:
    """One split's events of a pair: scores, signal flags, the weights the metrics use; for the
    limits (issue 52) the mass observable (--mass-column) and the weights under each systematic's
    Up and Down variation (`weight__<syst>Up/Down` over `weight`, times `weights`), when read."""

    scores: np.ndarray
    is_signal: np.ndarray
    weights: np.ndarray
    mass: np.ndarray | None = None
    systs: dict = field(default_factory=dict)  # syst name -> (up weights, down weights)

    @property
    def size(self) -> int:
        return int(np.size(self.scores))

    @staticmethod
    def concat(parts: list[Split]) -> Split:
        """The parts one after the other; the mass and a systematic only where every part has them."""
        mass = np.concatenate([p.mass for p in parts]) if all(p.mass is not None for p in parts) else None
        names = [n for n in parts[0].systs if all(n in p.systs for p in parts)] if parts else []
        systs = {n: tuple(np.concatenate([np.asarray(p.systs[n][i], float) for p in parts]) for i in (0, 1)) for n in names}
        return Split(np.concatenate([p.scores for p in parts]), np.concatenate([np.asarray(p.is_signal, bool) for p in parts]),
                     np.concatenate([np.asarray(p.weights, float) for p in parts]), mass, systs)  # fmt: skip


@dataclass(frozen=True)
class FoldPair:
    """What one fold contributes to a pair's pooled evaluation: its test split, the split the
    binning is chosen on (`choice_split`: valid or train), and the expected (signal, background)
    yields when --expected-yields was given."""

    test: Split
    choice: Split
    choice_split: str
    expected: tuple[float, float] | None = None


@dataclass(frozen=True)
class Pooled:
    folds: list[int]
    test: Split
    choice: Split
    choice_split: str
    expected: tuple[float, float] | None
    fold_events: dict[int, int]  # fold -> its test events

    @property
    def scale(self) -> tuple[float, float]:
        """The factors that make the pooled test weights the reported yields (1, 1: relative)."""
        if self.expected is None:
            return (1.0, 1.0)
        s, b = _sums(self.test)
        return (self.expected[0] / s if s else 1.0, self.expected[1] / b if b else 1.0)


def _sums(split: Split) -> tuple[float, float]:
    sig = np.asarray(split.is_signal, bool)
    return float(split.weights[sig].sum()), float(split.weights[~sig].sum())


def pool(per_fold: dict[int, FoldPair]) -> Pooled:
    """The pair's folds pooled (in fold order). The choice split is the validation split when
    every fold has one, else the training split. Expected yields: the folds' (all the same)."""
    folds = sorted(per_fold)
    if not folds:
        raise ValueError("no fold to pool")
    split = "valid" if all(per_fold[f].choice_split == "valid" for f in folds) else "train"
    if split == "train" and any(per_fold[f].choice_split != "train" for f in folds):
        raise ValueError("folds chose on different splits: every fold must store its training split then")
    expected = per_fold[folds[0]].expected
    return Pooled(folds, Split.concat([per_fold[f].test for f in folds]), Split.concat([per_fold[f].choice for f in folds]),
                  split, expected, {f: per_fold[f].test.size for f in folds})  # fmt: skip


def rejection_replicas(split: Split, eps_s: float, replicas: int, seed: int) -> np.ndarray:
    """eps_b at signal efficiency `eps_s` in each Poisson-bootstrap replica of `split` (the C++
    kernel of hep.bootstrap, exact per-event replicas; NaN where a replica has no signal or no
    background)."""
    scores = np.ascontiguousarray(split.scores, dtype=np.float64)
    labels = np.ascontiguousarray(np.asarray(split.is_signal) != 0).view(np.uint8)
    w = np.ascontiguousarray(split.weights, dtype=np.float64)
    auc, eps_b = np.empty(replicas), np.empty(replicas)
    if replicas > 0:
        chunk = max(1, hep.bootstrap_chunk_size(scores.size))
        kernels().roc_bootstrap_f64(scores, w, labels, scores.size, replicas, seed, float(eps_s), chunk, auc, eps_b)
    ok = np.isfinite(auc) & np.isfinite(eps_b)
    return np.maximum(eps_b[ok], 0.0)


def rejections(curve: BinaryCurve, split: Split, targets, replicas: int, seed: int) -> dict:
    """Per working point (signal efficiency): eps_b, the rejection 1/eps_b (a lower limit where no
    background passes, hep.rejection_value) and its central bootstrap interval over the pooled events."""
    sig = np.asarray(split.is_signal, bool)
    n_eff = hep.effective_events(split.weights[~sig])
    out = {}
    for target in targets:
        eps_b = hep.background_efficiency_at(curve, float(target))
        value, limit = hep.rejection_value(eps_b, n_eff)
        out[f"{float(target):g}"] = {"eps_s": float(target), "eps_b": eps_b, "threshold": threshold_at(curve, float(target)),
                                     "rejection": value, "lower_limit": limit,
                                     "interval": hep.rejection_interval(rejection_replicas(split, target, replicas, seed))}  # fmt: skip
    return out


def threshold_at(curve: BinaryCurve, eps_s: float) -> float:
    """The score cut whose selection first reaches signal efficiency eps_s (the last threshold if none does)."""
    reached = curve.tpr >= eps_s
    k = int(np.argmax(reached)) if reached.any() else curve.thresholds.size - 1
    return float(curve.thresholds[max(k, 1)])


def guard_check(edges, test: Events, constraints: bn.Constraints) -> list[str]:
    """The binning's guard checked again on the pooled test events: one line per bin that breaks
    it (too few background MC events, a relative MC error above the limit, no background yield)."""
    f = test.fill(np.asarray(edges, float))
    out = []
    for i in range(f.s.size):
        where = f"bin {i + 1} [{f.edges[i]:.4g}, {f.edges[i + 1]:.4g})"
        if f.b[i] <= 0:
            out.append(f"{where}: background yield {f.b[i]:.4g} <= 0")
            continue
        rel = math.sqrt(f.w2[i]) / f.b[i]
        if constraints.min_background_events > 0 and f.nb[i] < constraints.min_background_events:
            out.append(f"{where}: {int(f.nb[i])} background MC events < {constraints.min_background_events:g}")
        if constraints.max_relative_error > 0 and rel > constraints.max_relative_error:
            out.append(f"{where}: background relative MC error {rel:.3f} > {constraints.max_relative_error:g}")
    return out


def choice_constraints(constraints: bn.Constraints, multiplicity: float) -> bn.Constraints:
    """The guard applied on the choice events, where each distinct event may appear `multiplicity`
    times (the training splits of k folds hold every event k - 1 times): MC-event thresholds times
    the multiplicity, the relative-error limit over its square root (the closed form for copies)."""
    m = max(1.0, multiplicity)
    return bn.Constraints(constraints.min_background_events * m, constraints.max_relative_error / math.sqrt(m),
                          constraints.min_class_events * m)  # fmt: skip


def pooled_binning(pooled: Pooled, curve: BinaryCurve, constraints: bn.Constraints = bn.Constraints(),
                   k_max: int = bn.K_MAX) -> dict:  # fmt: skip
    """One binning for the pair: edges and K chosen on the pooled choice events (metrics.fitbinning,
    K by the choice split's value), judged on the pooled test events with the guard checked again."""
    scale = pooled.scale
    s_test, b_test = _sums(pooled.test)
    s_choice, b_choice = _sums(pooled.choice)
    # the choice events' weights scaled to the same yields as the test events' (the objective needs yields)
    choice_scale = (s_test * scale[0] / s_choice if s_choice else 1.0, b_test * scale[1] / b_choice if b_choice else 1.0)
    multiplicity = pooled.choice.size / pooled.test.size if pooled.test.size else 1.0
    used = choice_constraints(constraints, multiplicity)
    choice = Events(pooled.choice.scores, pooled.choice.is_signal, pooled.choice.weights, choice_scale)
    test = Events(pooled.test.scores, pooled.test.is_signal, pooled.test.weights, scale)
    doc = pair_binning(choice, test, constraints=used, k_max=k_max, test_curve=curve)
    doc["chosen_on"] = pooled.choice_split
    doc["choice_multiplicity"] = multiplicity
    doc["constraints"] = constraints.report()
    doc["constraints_on_choice"] = used.report()
    chosen = next((r for r in doc["by_k"] if r["k"] == doc["chosen_k"]), None)
    doc["edges"] = chosen["edges"] if chosen else None
    doc["yields"] = "expected" if pooled.expected else "relative"
    doc["template_scale"] = {"signal": scale[0], "background": scale[1]}  # the pooled test weights times these
    doc["guard_on_test"] = guard_check(chosen["edges"], test, constraints) if chosen else []
    return doc


def evaluate(pooled: Pooled, targets=hep.REJECTION_EFFICIENCIES, replicas: int = 200, seed: int = SEED,
             constraints: bn.Constraints = bn.Constraints(), binning: bool = True) -> tuple[dict, BinaryCurve]:  # fmt: skip
    """The pair's out-of-fold numbers (the `out_of_fold.json` entry) and its pooled ROC curve."""
    test = pooled.test
    curve = binary_clf_curve(test.scores, test.is_signal, test.weights)
    boot = hep.bootstrap(test.scores, test.is_signal, test.weights, replicas, seed)
    s, b = _sums(test)
    scale = pooled.scale
    doc = {"events": test.size, "folds": pooled.folds, "fold_events": {str(f): n for f, n in pooled.fold_events.items()},
           "signal_weight": s, "background_weight": b,
           "yields": {"kind": "expected" if pooled.expected else "relative", "signal_scale": scale[0], "background_scale": scale[1],
                      "signal": s * scale[0], "background": b * scale[1]},
           "auc": curve.auc, "auc_error": boot.auc_error, "auc_error_method": boot.auc_error_method,
           "bootstrap_replicas": replicas, "rejection": rejections(curve, test, targets, replicas, seed)}  # fmt: skip
    if binning:
        doc["binning"] = pooled_binning(pooled, curve, constraints)
    return doc, curve
