"""The Poisson bootstrap's replicas computed eight at a time (macros/roc_bootstrap.h, bootstrap_lanes:
one vector lane a replica) are, bit for bit, the replicas computed one at a time: replica r of a
run of n events takes draws r * n to (r + 1) * n - 1 of one splitmix64 stream, so a single replica seeded where that stream
stands after r * n draws (seed + r * n * golden, modulo 2^64) is replica r alone, by the scalar
path (fewer replicas than a group of eight). And a closed-form check of the stream itself."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.metrics import hep

GOLDEN = 0x9E3779B97F4A7C15
SEED = 20251001


def _sample(n: int, kind: str, rng: np.random.Generator):
    scores = rng.random(n)
    if kind == "ties":
        scores = np.round(scores, 1)
    if kind == "float32":
        scores = scores.astype(np.float32)
    return scores, rng.random(n) < 0.4, rng.exponential(1.0, n) + 0.01


@pytest.mark.parametrize("n, kind", [(1, "plain"), (2, "plain"), (7, "ties"), (333, "plain"), (1000, "ties"),
                                     (2500, "float32")])  # fmt: skip
@pytest.mark.parametrize("replicas", [4, 8, 11, 17])
def test_lanes_are_the_replicas_one_by_one(n: int, kind: str, replicas: int) -> None:
    scores, is_signal, weights = _sample(n, kind, np.random.default_rng(n + replicas))
    together = hep.bootstrap(scores, is_signal, weights, replicas=replicas, seed=SEED)
    for r in range(replicas):
        alone = hep.bootstrap(scores, is_signal, weights, replicas=1, seed=(SEED + r * n * GOLDEN) % 2**64)
        assert alone.auc.tobytes() == together.auc[r : r + 1].tobytes()
        assert alone.eps_b_50.tobytes() == together.eps_b_50[r : r + 1].tobytes()


def _splitmix_poisson(seed: int, draws: int) -> np.ndarray:
    """Poisson(1) counts from splitmix64 by the CDF table (numpy's uint64 arithmetic wraps)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, draws + 1, dtype=np.uint64) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    cdf, p, thresholds = 0.0, np.exp(-1.0), []
    for k in range(12):
        cdf += p
        p /= k + 1
        thresholds.append(np.uint64(2**64 - 1) if cdf >= 1.0 else np.uint64(int(cdf * 2.0**64)))
    return sum((z >= t).astype(np.int64) for t in thresholds)


def test_replicas_follow_the_stream() -> None:
    """Each replica's AUC is that of the weights times the stream's counts (scikit-free closed
    form: the weighted Mann-Whitney statistic, no ties), to rounding."""
    rng = np.random.default_rng(5)
    scores, is_signal, weights = _sample(300, "plain", rng)
    boot = hep.bootstrap(scores, is_signal, weights, replicas=6, seed=SEED)
    order = np.argsort(-scores, kind="stable")
    counts = _splitmix_poisson(SEED, 6 * 300).reshape(6, 300)
    for r in range(6):
        w = np.zeros(300)
        w[order] = counts[r] * weights[order]  # counts are drawn in the sorted order
        ws, wb = np.where(is_signal, w, 0.0), np.where(is_signal, 0.0, w)
        by_score = np.argsort(scores)
        below_b = np.cumsum(wb[by_score]) - wb[by_score]  # background weight below each event
        auc = np.sum(ws[by_score] * below_b) / (ws.sum() * wb.sum())
        assert boot.auc[r] == pytest.approx(auc, rel=1e-12)
