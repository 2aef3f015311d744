"""Deployment closure (issue 53, item 4): is the model whose scores the analysis' samples carry the
model the trainer evaluated? Pure computations on arrays; the job (jobs.closure) reads the files.

For one mass point, each process of the samples that is a training class (its events with their
physics weights) is compared with the trainer's test events of that class (their stored weights),
output node by output node. Weights are renormalised to unit sum per process and per class: only
shapes are compared. The weighted two-sample Kolmogorov-Smirnov test (metrics.hep.weighted_ks:
D = max |F_a - F_b| of the weighted ECDFs with the weights as given, signed; p from Kolmogorov's
asymptotic distribution at D sqrt(n_a n_b / (n_a + n_b)), n the effective event counts
(sum w)^2 / sum w^2) is made for every (process, node); Holm's adjustment runs over that family.

The verdict: **pass** when every Holm-adjusted p is at least `alpha`. Otherwise **fail**, with a
diagnosis from the matrix of KS distances D_p[i][j] (samples' node i against the predictions'
node j, process p) summed over the processes, T[i][j]:
- the class order: the assignment of sample nodes to prediction nodes with the smallest total
  distance (every permutation, up to EXACT_NODES nodes; beyond, pairwise swaps from the identity
  until none helps). Its cycles whose nodes all fail to match their own output (below) are named:
  2-cycles as swapped ("outputs 'diboson' and 'ttZ' look swapped"), longer ones as permuted; the
  tests are made again under them (the family's Holm p says whether the reordering explains the
  samples). A cycle of outputs that do match their own (alike in every process) is not named;
- per pair of nodes (i, j) the table of identity distance T[i][i] + T[j][j] against swapped
  distance T[i][j] + T[j][i] (`pairs`), for reading;
- a node whose distribution matches nothing: node i matches prediction node j when no process's
  KS test of (i, j) rejects at `alpha` after Holm over the whole matrix (processes x nodes x
  nodes); a node whose test fails in every process under the best assignment and that matches no
  j (a wrong normalisation, feature order or checkpoint: all processes differ, not one process'
  sample) is named;
- the failing (process, node) tests left under the best assignment.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pnetviz.metrics.hep import weighted_ks
from pnetviz.metrics.multiplicity import holm

ALPHA = 0.05
EXACT_NODES = 8  # every permutation up to this many output nodes (8! = 40320 sums of 8 numbers)
SHOWN = 3  # failing tests named in the verdict line


@dataclass(frozen=True)
class Comparison:
    """One process of the samples against its training class in the trainer's test predictions.
    scores: (N, C) the deployed model's outputs, columns in node order; weights: (N,)."""

    process: str
    klass: str
    sample_scores: np.ndarray
    sample_weights: np.ndarray
    reference_scores: np.ndarray
    reference_weights: np.ndarray


def _unit(weights: np.ndarray, what: str) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    total = float(w.sum())
    if not (math.isfinite(total) and total > 0):
        raise ValueError(f"{what}: weight sum {total:g}, not positive: no distribution to compare")
    return w / total


def _check(c: Comparison, n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The comparison's arrays as float64 with unit weight sums; ValueError on wrong shapes."""
    a, b = np.asarray(c.sample_scores, dtype=np.float64), np.asarray(c.reference_scores, dtype=np.float64)
    for what, s, w in (("samples", a, c.sample_weights), ("predictions", b, c.reference_weights)):
        if s.ndim != 2 or s.shape[1] != n_nodes or s.shape[0] != np.size(w) or s.shape[0] == 0:
            raise ValueError(f"process {c.process!r}: {what} scores of shape {s.shape} with {np.size(w)} weights; "
                             f"expected (N > 0, {n_nodes}) and N weights")  # fmt: skip
    return a, _unit(c.sample_weights, f"process {c.process!r} (samples)"), b, _unit(c.reference_weights, f"class {c.klass!r} (predictions)")


def ks_matrices(comparisons: Sequence[Comparison], n_nodes: int) -> tuple[np.ndarray, np.ndarray, list[list[float]]]:
    """(D, p, n_eff): D[k, i, j] and p[k, i, j] the weighted KS distance and p-value of the samples'
    node i against the predictions' node j for comparison k; n_eff[k] = [samples, predictions]."""
    n = len(comparisons)
    d, p, n_eff = np.empty((n, n_nodes, n_nodes)), np.empty((n, n_nodes, n_nodes)), []
    for k, c in enumerate(comparisons):
        a, wa, b, wb = _check(c, n_nodes)
        for i in range(n_nodes):
            for j in range(n_nodes):
                ks = weighted_ks(a[:, i], wa, b[:, j], wb)
                d[k, i, j], p[k, i, j] = ks["statistic"], ks["p_value"]
        n_eff.append([float(x) for x in ks["n_eff"]])
    return d, p, n_eff


def best_assignment(total: np.ndarray) -> tuple[int, ...]:
    """The permutation pi (sample node i -> prediction node pi[i]) with the smallest sum of
    total[i, pi[i]]: every permutation up to EXACT_NODES nodes, the identity first (kept on ties);
    beyond, improving pairwise swaps from the identity."""
    n = total.shape[0]
    rows = np.arange(n)
    if n <= EXACT_NODES:
        perms = np.array(list(itertools.permutations(range(n))), dtype=np.intp)
        sums = total[rows, perms].sum(axis=1)
        return tuple(int(x) for x in perms[int(np.argmin(sums))])  # argmin: the first minimum, the identity first
    pi = list(range(n))
    improved = True
    while improved:
        improved = False
        for i, j in itertools.combinations(range(n), 2):
            if total[i, pi[j]] + total[j, pi[i]] < total[i, pi[i]] + total[j, pi[j]]:
                pi[i], pi[j] = pi[j], pi[i]
                improved = True
    return tuple(pi)


def cycles(pi: Sequence[int]) -> list[list[int]]:
    """The cycles of length > 1 of permutation `pi`, each from its smallest node."""
    seen, out = set(), []
    for start in range(len(pi)):
        if start in seen or pi[start] == start:
            continue
        cycle, k = [], start
        while k not in seen:
            seen.add(k)
            cycle.append(k)
            k = pi[k]
        out.append(cycle)
    return out


def _tests(comparisons: Sequence[Comparison], nodes: Sequence[str], d: np.ndarray, p: np.ndarray,
           pi: Sequence[int]) -> list[dict]:  # fmt: skip
    """The (process, node) tests under assignment `pi`, Holm-adjusted over all of them."""
    rows = [{"process": c.process, "class": c.klass, "node": nodes[i], "prediction_node": nodes[pi[i]],
             "ks_d": float(d[k, i, pi[i]]), "p_value": float(p[k, i, pi[i]])}
            for k, c in enumerate(comparisons) for i in range(len(nodes))]  # fmt: skip
    for row, adjusted in zip(rows, holm([r["p_value"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
    return rows


def _min_holm(rows: Sequence[dict]) -> float:
    return min((r["p_holm"] for r in rows), default=1.0)


def matches(p: np.ndarray, alpha: float) -> np.ndarray:
    """matches[i, j]: no process's KS test of the samples' node i against the predictions' node j
    rejects at `alpha` after Holm over every cell of the matrix (processes x nodes x nodes)."""
    adjusted = np.asarray(holm(p.ravel().tolist())).reshape(p.shape)
    return adjusted.min(axis=0) >= alpha


def supported(pi: Sequence[int], matched: np.ndarray) -> tuple[int, ...]:
    """`pi` with the cycles the tests do not support undone: a cycle is kept only where none of
    its nodes matches its own output (matched[i, i] false), so that two outputs alike in every
    process are not named as swapped when the closure fails elsewhere."""
    out = list(range(len(pi)))
    for cycle in cycles(pi):
        if not any(matched[i, i] for i in cycle):
            for i in cycle:
                out[i] = pi[i]
    return tuple(out)


def order_names(pi: Sequence[int], nodes: Sequence[str]) -> list[str]:
    """Each cycle of `pi` said in words: a 2-cycle as a swapped pair, a longer one as permuted."""
    out = []
    for cycle in cycles(pi):
        if len(cycle) == 2:
            out.append(f"outputs '{nodes[cycle[0]]}' and '{nodes[cycle[1]]}' look swapped")
        else:
            said = ", ".join(f"'{nodes[i]}' holds '{nodes[pi[i]]}'" for i in cycle)
            out.append(f"outputs {', '.join(repr(nodes[i]) for i in cycle)} look permuted ({said})")
    return out


def closure(comparisons: Sequence[Comparison], nodes: Sequence[str], alpha: float = ALPHA) -> dict:
    """The closure of one mass point (see the module's doc): tests, distances, order check,
    unmatched nodes, verdict and its line. `nodes`: the output nodes' names in column order."""
    nodes = list(nodes)
    if not comparisons:
        raise ValueError("no process to compare")
    d, p, n_eff = ks_matrices(comparisons, len(nodes))
    identity = tuple(range(len(nodes)))
    tests = _tests(comparisons, nodes, d, p, identity)
    for k, c in enumerate(comparisons):
        for row in tests[k * len(nodes):(k + 1) * len(nodes)]:
            row["n_eff_samples"], row["n_eff_predictions"] = n_eff[k]
    total = d.sum(axis=0)
    best = best_assignment(total)
    matched = matches(p, alpha)
    pi = supported(best, matched)
    pairs = [{"nodes": [nodes[i], nodes[j]], "identity_distance": float(total[i, i] + total[j, j]),
              "swapped_distance": float(total[i, j] + total[j, i]),
              "swap_better": bool(total[i, j] + total[j, i] < total[i, i] + total[j, j])}
             for i, j in itertools.combinations(range(len(nodes)), 2)]  # fmt: skip
    passed = _min_holm(tests) >= alpha
    out: dict = {"nodes": nodes, "alpha": alpha, "tests": tests,
                 "distances": {c.process: d[k].tolist() for k, c in enumerate(comparisons)},
                 "order": {"total_distance": total.tolist(), "identity_distance": float(np.trace(total)),
                           "best_assignment": [nodes[j] for j in best],
                           "best_distance": float(total[np.arange(len(nodes)), list(best)].sum()), "pairs": pairs,
                           "named_assignment": [nodes[j] for j in pi],
                           "swapped": [[nodes[a] for a in cyc] for cyc in cycles(pi) if len(cyc) == 2],
                           "permuted": [[nodes[a] for a in cyc] for cyc in cycles(pi) if len(cyc) > 2]},
                 "matches": {nodes[i]: [nodes[j] for j in range(len(nodes)) if matched[i, j]] for i in range(len(nodes))},
                 "unmatched": []}  # fmt: skip
    out["verdict"] = "pass" if passed else "fail"
    out["min_p_holm"] = _min_holm(tests)
    if passed:
        out["line"] = f"closure: pass ({len(tests)} tests, min Holm p = {out['min_p_holm']:.2g})"
        return out
    reasons, after = order_names(pi, nodes), tests
    if pi != identity:
        after = _tests(comparisons, nodes, d, p, pi)
        out["reordered"] = {"tests": after, "min_p_holm": _min_holm(after), "passes": _min_holm(after) >= alpha}
        if out["reordered"]["passes"]:
            reasons[-1] += f"; reordered, the {len(after)} tests pass (min Holm p = {_min_holm(after):.2g})"
    failing = {n: {r["process"] for r in after if r["node"] == n and r["p_holm"] < alpha} for n in nodes}
    everywhere = {n for n, procs in failing.items() if len(procs) == len(comparisons)}
    out["unmatched"] = [n for i, n in enumerate(nodes) if n in everywhere and not matched[i].any()]
    reasons += [f"output '{n}' matches none of the model's outputs (a wrong normalisation, feature order or checkpoint?)"
                for n in out["unmatched"]]  # fmt: skip
    left = sorted((r for r in after if r["p_holm"] < alpha and r["node"] not in out["unmatched"]), key=lambda r: r["p_holm"])
    if left:
        said = ", ".join(f"{r['process']}/{r['node']} (Holm p {r['p_holm']:.2g})" for r in left[:SHOWN])
        more = f" and {len(left) - SHOWN} more" if len(left) > SHOWN else ""
        reasons.append(f"{len(left)} of {len(after)} tests fail{' after the reordering' if after is not tests else ''}: {said}{more}")
    out["reasons"] = reasons
    out["line"] = f"closure: fail ({len(tests)} tests, min Holm p = {out['min_p_holm']:.2g}): " + "; ".join(reasons)
    return out
