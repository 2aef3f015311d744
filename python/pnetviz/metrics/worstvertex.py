"""The worst grid vertex at every threshold for nuisances that move the weights of one class only
(the profiled ROC, metrics/profiled.py, with more than six nuisances).

At a fixed threshold such a nuisance changes its class's efficiency as a ratio of yields,
eps = (P + sum_i a_i(f_i)) / (T + sum_i b_i(f_i)), f_i in {-1, 0, +1} (a_i: the change of the passing
yield, b_i: of the total, at node f_i). The vertex with the highest background (lowest signal)
efficiency maximises (minimises) this ratio over the 3^n grid. Dinkelbach's iteration solves it
exactly: with lambda the current ratio, each nuisance independently takes the node maximising
a_i - lambda b_i (the problem is separable), lambda is updated, and the choice stops changing after a
few steps (a finite set: it terminates at the optimum). Vectorised over every threshold at once."""

from __future__ import annotations

import itertools

import numpy as np

MAX_STEPS = 100  # Dinkelbach's iteration stops long before (a handful of steps)


def _worst_nodes(passing: np.ndarray, total: float, da: np.ndarray, db: np.ndarray, highest: bool) -> np.ndarray:
    """Per threshold the node (0, +1, -1 as 0, 1, 2) of each nuisance giving the highest (or lowest)
    ratio (passing + sum da) / (total + sum db); da: (nuisances, 2, thresholds), db: (nuisances, 2)."""
    sign = 1.0 if highest else -1.0
    lam = passing / total
    choice = np.zeros((da.shape[0], passing.size), dtype=np.intp)
    for _ in range(MAX_STEPS):
        gains = np.concatenate([np.zeros((da.shape[0], 1, passing.size)), da - lam * db[:, :, None]], axis=1)
        new = np.argmax(sign * gains, axis=1)  # the first maximum: nominal at a tie
        num = passing + np.take_along_axis(np.concatenate([np.zeros_like(da[:, :1]), da], axis=1), new[:, None], 1)[:, 0].sum(0)
        den = total + np.concatenate([np.zeros((db.shape[0], 1)), db], axis=1)[np.arange(db.shape[0])[:, None], new].sum(0)
        lam_new = np.divide(num, den, out=lam.copy(), where=den > 0)
        done = np.array_equal(new, choice) or np.array_equal(lam_new, lam)  # the ratio cannot rise further
        choice, lam = new, lam_new
        if done:
            break
    return choice


def threshold_vertices(scores: np.ndarray, is_signal: np.ndarray, weights: np.ndarray,
                       changes: list[dict], one_class: list[bool]) -> list[tuple[int, ...]]:  # fmt: skip
    """The distinct grid vertices (theta / kappa per nuisance) that are the worst at some threshold
    of the nominal score order, for the nuisances with `one_class` (weights of one class only, no
    score, no sign flip; `changes`: per nuisance {+1: (d_score, d_weight), -1: ...} as profiled._Events);
    the other nuisances at nominal."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    s = np.asarray(scores)[order]
    last = np.r_[np.flatnonzero(s[1:] != s[:-1]), s.size - 1]
    sig = np.asarray(is_signal, dtype=bool)
    vertex = np.zeros((len(changes), last.size), dtype=np.int8)
    for cls, highest in ((~sig, True), (sig, False)):  # background: highest eps_b; signal: lowest eps_s
        members = [i for i, ok in enumerate(one_class) if ok and _touches(changes[i], cls)]
        if not members:
            continue
        w = np.where(cls, weights, 0.0)
        total = float(w.sum())
        if total <= 0:
            continue
        da = np.stack([np.stack([np.cumsum(np.where(cls, _dw(changes[i], f), 0.0)[order])[last] for f in (1, -1)])
                       for i in members])  # fmt: skip
        db = np.array([[float(np.sum(np.where(cls, _dw(changes[i], f), 0.0))) for f in (1, -1)] for i in members])
        nodes = _worst_nodes(np.cumsum(w[order])[last], total, da, db, highest)
        vertex[members] = np.array([0, 1, -1], dtype=np.int8)[nodes]
    return [tuple(int(f) for f in v) for v in np.unique(vertex.T, axis=0)]


def _dw(sides: dict, f: int) -> np.ndarray | float:
    dw = sides[f][1]
    return 0.0 if dw is None else dw


def _touches(sides: dict, cls: np.ndarray) -> bool:
    return any(dw is not None and bool(np.any(dw[cls] != 0)) for _, dw in sides.values())


def neighbours(vertex: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every grid vertex that differs from `vertex` in one or two nuisances (2n + 4 n(n-1)/2 of them)."""
    out = []
    for k in (1, 2):
        for which in itertools.combinations(range(len(vertex)), k):
            for values in itertools.product(*[[f for f in (1, 0, -1) if f != vertex[i]] for i in which]):
                c = list(vertex)
                for i, f in zip(which, values):
                    c[i] = f
                out.append(tuple(c))
    return out
