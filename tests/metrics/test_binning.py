"""The exact optimal binning (metrics.binning, macros/optimal_binning.h): the C++ dynamic
programme against a brute-force enumeration and the numpy reference, its limits (K = M, the
hull's FIP2) and its constraints."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pnetviz.metrics import binning as bn
from pnetviz.metrics import hep
from pnetviz.metrics.roc import binary_clf_curve


def random_fine(rng: np.random.Generator, m: int, classes: bool = False) -> bn.FineBins:
    """A small problem with some empty and some low-count fine bins."""
    nb = rng.integers(0, 8, m).astype(float)
    b = nb * rng.uniform(0.2, 2.0, m)
    w2 = b * b / np.maximum(nb, 1) * rng.uniform(0.5, 2.0, m)
    cls = None
    if classes:
        first = rng.binomial(nb.astype(int), 0.5).astype(float)
        cls = np.stack([first, nb - first], axis=1)
    return bn.FineBins(edges=np.linspace(0, 1, m + 1), s=rng.uniform(0, 3, m) * (rng.random(m) < 0.8), b=b, nb=nb,
                       w2=w2, classes=cls)  # fmt: skip


def brute_force(fine: bn.FineBins, k: int, objective: str, constraints: bn.Constraints) -> float:
    """The best sum over every partition of the fine bins into exactly k allowed bins (-inf if none)."""
    m, best = fine.size, -np.inf
    for inner in itertools.combinations(range(1, m), k - 1):
        cuts = (0, *inner, m)
        if all(bn.allowed(fine, lo, hi, constraints) for lo, hi in itertools.pairwise(cuts)):
            total = sum(float(bn.segment_objective(objective, fine.s[lo:hi].sum(), fine.b[lo:hi].sum(), fine.w2[lo:hi].sum()))
                        for lo, hi in itertools.pairwise(cuts))  # fmt: skip
            best = max(best, total)
    return best


CONSTRAINTS = (bn.Constraints(10, 0.3, 0), bn.Constraints(4, 0.5, 0), bn.Constraints(3, 0.0, 1), bn.NONE)


@pytest.mark.parametrize("objective", list(bn.OBJECTIVES))
def test_dp_equals_brute_force_on_random_small_problems(objective):
    rng = np.random.default_rng(39)
    checked = feasible = 0
    for trial in range(40):
        fine = random_fine(rng, int(rng.integers(2, 13)), classes=trial % 2 == 1)
        constraints = CONSTRAINTS[trial % len(CONSTRAINTS)]
        totals, cuts = bn.optimal_cuts(fine, 4, objective, constraints)
        reference = bn.optimal_numpy(fine, 4, objective, constraints)
        for k in range(1, 5):
            expected = brute_force(fine, k, objective, constraints) if k <= fine.size else -np.inf
            checked += 1
            if not np.isfinite(expected):
                assert totals[k - 1] == -np.inf and reference[k - 1] == -np.inf
                continue
            feasible += 1
            assert totals[k - 1] == pytest.approx(expected, rel=1e-12, abs=1e-12)
            assert reference[k - 1] == pytest.approx(expected, rel=1e-12, abs=1e-12)
            cut = cuts[k - 1, : k + 1]
            assert cut[0] == 0 and cut[-1] == fine.size and np.all(np.diff(cut) > 0)
            assert all(bn.allowed(fine, lo, hi, constraints) for lo, hi in itertools.pairwise(cut))
    assert checked == 160 and feasible > 40  # not vacuous


@pytest.mark.parametrize("objective", list(bn.OBJECTIVES))
def test_kernel_equals_numpy_reference_past_its_vector_lanes_and_blocks(objective):
    """M of a few hundred: the kernel's 8-lane, 64-candidate-block and tail paths (every n_i mod 8
    and mod 64) against the numpy recursion; each returned partition sums to its optimum, and
    among equal optima the first cut (smallest i) is kept."""
    rng = np.random.default_rng(7)
    for trial, m in enumerate((67, 130, 257, 300)):
        fine = random_fine(rng, m, classes=trial % 2 == 0)
        constraints = CONSTRAINTS[trial % len(CONSTRAINTS)]
        totals, cuts = bn.optimal_cuts(fine, 12, objective, constraints)
        reference = bn.optimal_numpy(fine, 12, objective, constraints)
        assert np.isfinite(totals).sum() >= 10
        np.testing.assert_allclose(totals, reference, rtol=1e-12, atol=1e-12)
        for k in range(1, 13):
            if not np.isfinite(totals[k - 1]):
                continue
            cut = cuts[k - 1, : k + 1]
            parts = [float(bn.segment_objective(objective, fine.s[lo:hi].sum(), fine.b[lo:hi].sum(), fine.w2[lo:hi].sum()))
                     for lo, hi in itertools.pairwise(cut)]  # fmt: skip
            assert sum(parts) == pytest.approx(totals[k - 1], rel=1e-10)
    # no signal at all: every partition is worth 0, the first allowed cut wins at every k
    flat = bn.FineBins(np.linspace(0, 1, 201), np.zeros(200), np.ones(200), np.ones(200), np.full(200, 0.01))
    totals, cuts = bn.optimal_cuts(flat, 3, "binned_fip", bn.Constraints(10, 0.0, 0))
    assert totals.tolist() == [0.0, 0.0, 0.0]
    assert cuts[1, :3].tolist() == [0, 10, 200] and cuts[2, :4].tolist() == [0, 10, 20, 200]


def binormal(n: int = 60_000, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    x = 1 / (1 + np.exp(-rng.normal(np.where(y, 1.2, -0.8), 1.0)))
    return x, y, rng.uniform(0.5, 1.5, n)


def test_binned_fip_at_k_equal_m_is_the_fine_histograms():
    x, y, w = binormal(5000)
    edges = np.linspace(0, 1, 13)
    fine = bn.fill(edges, x, y, w)
    k = fine.size
    parts = bn.partitions(fine, k, "binned_fip", bn.NONE)
    assert parts[-1].k == k and np.array_equal(parts[-1].cuts, np.arange(k + 1))
    s = np.histogram(x[y], edges, weights=w[y])[0]
    b = np.histogram(x[~y], edges, weights=w[~y])[0]
    assert parts[-1].value == pytest.approx(hep.binned_fip(s, b), rel=1e-12)


@pytest.mark.parametrize("objective", list(bn.OBJECTIVES))
def test_objective_never_decreases_with_k_when_every_fine_bin_is_allowed(objective):
    x, y, w = binormal(20_000)
    edges = np.r_[0.0, bn.weighted_quantiles(x[~y], w[~y], 60), 1.0]  # ~230 background events each
    fine = bn.fill(edges, x, y, w)
    constraints = bn.Constraints(10, 0.3, 0)
    assert all(bn.allowed(fine, j, j + 1, constraints) for j in range(fine.size))
    values = [p.total for p in bn.partitions(fine, 20, objective, constraints)]
    assert len(values) == 20
    assert np.all(np.diff(values) >= -1e-12) and values[-1] > values[0]


def test_constraints_hold_on_every_returned_bin_and_bind_where_they_matter():
    x, y, w = binormal(20_000)
    fine = bn.fill(bn.fine_edges(x, y, w, 400), x, y, w * np.where(y, 1.0, 0.05))
    strict = bn.Constraints(200, 0.1, 0)
    for part in bn.partitions(fine, 12, "binned_fip", strict):
        table = bn.bin_table(fine, part.cuts)
        assert min(table["background_mc_events"]) >= 200
        assert max(table["background_relative_error"]) <= 0.1 + 1e-12
        assert min(table["background"]) > 0
    loose = bn.partitions(fine, 12, "binned_fip", bn.NONE)
    tight = bn.partitions(fine, 12, "binned_fip", strict)
    assert tight[-1].value < loose[-1].value and "min_background_events" in tight[-1].binding


def test_binned_fip_below_fip2_on_the_hull_and_approaching_it_as_constraints_loosen():
    x, y, w = binormal()
    S, B = 50.0, 5000.0
    scale = (S / w[y].sum(), B / w[~y].sum())
    curve = binary_clf_curve(x, y, w)
    limit = hep.fip2(hep.convex_hull(curve), S, B)
    fine = bn.fill(bn.fine_edges(x, y, w, 1000), x, y, w, scale)
    best = [max(p.value for p in bn.partitions(fine, 20, "binned_fip", bn.Constraints(n, 0.0, 0))) for n in (3000, 300, 30)]
    assert all(v < limit for v in best)
    assert best[0] < best[1] < best[2]
    assert best[2] > 0.93 * limit > best[0]  # 20 bins under the loosest guard: within 7% of the unbinned limit


def split_events(n: int = 60_000):
    """Train and test Events of one binormal toy: disjoint halves of the same events, scaled to S = 50, B = 5000."""
    from pnetviz.metrics.fitbinning import Events  # noqa: PLC0415

    x, y, w = binormal(n)
    half = np.arange(n) % 2 == 0
    out = []
    for part in (half, ~half):
        xs, ys, ws = x[part], y[part], w[part]
        out.append(Events(xs, ys, ws, (50.0 / ws[ys].sum(), 5000.0 / ws[~ys].sum())))
    return out, (x, y, w, half)


def test_cross_validation_chooses_on_train_and_evaluates_on_disjoint_test_events():
    from pnetviz.metrics import fitbinning as fb  # noqa: PLC0415

    (train, test), (x, y, w, half) = split_events()
    assert not np.intersect1d(np.flatnonzero(half), np.flatnonzero(~half)).size
    doc = fb.pair_binning(train, test, k_max=8, fine_bins=600)
    assert doc["unbinned_limit"] == pytest.approx(hep.fip2(hep.convex_hull(binary_clf_curve(test.scores, test.is_signal, test.weights)), 50, 5000))
    for row in doc["by_k"]:
        edges = np.asarray(row["edges"])
        assert edges[0] == 0.0 and edges[-1] == 1.0 and np.all(np.diff(edges) > 0) and len(edges) == row["k"] + 1
        s = np.histogram(np.clip(test.scores[test.is_signal], 0, 1 - 1e-12), edges, weights=test.weights[test.is_signal])[0]
        b = np.histogram(np.clip(test.scores[~test.is_signal], 0, 1 - 1e-12), edges, weights=test.weights[~test.is_signal])[0]
        assert row["test"] == pytest.approx(hep.binned_fip(s * test.scale[0], b * test.scale[1]), rel=1e-9)
        assert row["optimism"] == pytest.approx(row["train"] - row["test"])
        assert row["efficiency"] == pytest.approx(row["test"] / doc["unbinned_limit"]) and row["efficiency"] < 1
    assert np.mean([r["optimism"] for r in doc["by_k"][3:]]) > 0  # chosen on train: biased upward there
    # K chosen on train as well: the smallest K within 1% of the best train value
    trains = [r["train"] for r in doc["by_k"]]
    assert doc["chosen_k"] == next(r["k"] for r in doc["by_k"] if r["train"] >= max(trains) - 0.01 * abs(max(trains)))
    best_k5 = doc["by_k"][4]["test"]
    assert best_k5 > doc["baselines"]["uniform"][4]["test"]
