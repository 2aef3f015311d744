"""The binning for the fit computed for every K (or every edge set) at once gives, to the last
bit, the numbers of the one-at-a-time code it replaced (issue 33: the binning's CPU time, its
binning.json unchanged)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.metrics import binning as bn
from pnetviz.metrics import fitbinning as fb


def random_fine(rng: np.random.Generator, m: int) -> bn.FineBins:
    """Fine bins with some empty ones (no signal, no background, or neither)."""
    nb = rng.integers(0, 6, m).astype(float)
    b = nb * rng.uniform(0.1, 3.0, m)
    s = rng.exponential(1.0, m) * (rng.random(m) < 0.7)
    edges = np.r_[0.0, np.sort(rng.uniform(0.0, 1.0, m - 1)), 1.0]
    return bn.FineBins(edges=edges, s=s, b=b, nb=nb, w2=b * b / np.maximum(nb, 1.0) * rng.uniform(0.5, 2.0, m))


def transfo_d_one_k(fine: bn.FineBins, k: int) -> np.ndarray:
    """TransfoD for one k as pnetviz computed it before (one k at a time)."""
    S, B = fine.s.sum(), fine.b.sum()
    z = (0.5 * k * (fine.b / B + fine.s / S)).tolist()
    cuts, acc = [fine.size], 0.0
    for j in range(fine.size - 1, 0, -1):
        acc += z[j]
        if acc >= 1.0:
            cuts.append(j)
            acc = 0.0
    if acc > 0 and len(cuts) > 1:
        cuts.pop()
    return fine.edges[sorted({0, fine.size, *cuts})]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # m = 1 without signal: S = 0, as before
@pytest.mark.parametrize("m", [1, 2, 7, 45, 400])
def test_transfo_d_sets_are_each_k_alone(m):
    rng = np.random.default_rng(m)
    for _ in range(5):
        fine = random_fine(rng, m)
        sets = fb.transfo_d_sets(fine, 20)
        assert len(sets) == 20
        for k, edges in enumerate(sets, start=1):
            want = transfo_d_one_k(fine, k)
            assert edges.tobytes() == want.tobytes()
            assert fb.transfo_d_edges(fine, k).tobytes() == want.tobytes()
        assert fb.baseline_sets("transfo_d", fine, 20)[-1].size > 2 or m < 20
    assert fb.transfo_d_sets(fine, 0) == [] and fb.baseline_sets("transfo_d", fine, 0) == []


def test_bin_tables_are_bin_table_of_each_partition():
    rng = np.random.default_rng(7)
    fine = random_fine(rng, 60)
    fine.b[[5, 6, 40]] = 0.0  # bins without background: an infinite relative error
    cuts = [np.array([0, 60]), np.array([0, 6, 7, 60]), np.array([0, 5, 7, 41, 59, 60])]
    cuts += [np.r_[0, np.sort(rng.choice(np.arange(1, 60), k - 1, replace=False)), 60] for k in range(2, 21)]
    tables = bn.bin_tables(fine, cuts)
    assert tables == [bn.bin_table(fine, c) for c in cuts]
    assert math.isinf(tables[1]["background_relative_error"][1])
    assert bn.bin_tables(fine, []) == []


@pytest.mark.parametrize("objective", list(bn.OBJECTIVES))
def test_reported_values_are_report_value_of_each_total(objective):
    totals = np.array([0.0, 1.5, 3.25e-7, -2.0, math.nan, math.inf, -math.inf, 17.125, -0.0])
    got = fb._reported(objective, totals, 4.75)
    want = [bn.report_value(objective, float(v), 4.75) for v in totals]
    assert np.array_equal(got, want, equal_nan=True)
    assert [math.copysign(1.0, v) for v in got if v == 0.0] == [math.copysign(1.0, v) for v in want if v == 0.0]
    assert all(type(v) is float for v in got)


def test_reported_values_without_signal_fail_as_report_value_does():
    with pytest.raises(ZeroDivisionError):
        bn.report_value("binned_fip", 1.0, 0.0)
    with pytest.raises(ZeroDivisionError):
        fb._reported("binned_fip", np.array([1.0]), 0.0)
    assert np.isnan(fb._reported("binned_fip", np.array([math.nan]), 0.0)[0])


@pytest.mark.parametrize(("score_dtype", "weight_dtype"), [(np.float32, np.float32), (np.float64, np.float64)])
def test_fine_edges_and_sums_from_the_sorted_runs_are_those_of_the_argsort(score_dtype, weight_dtype):
    """Events.fine_edges and Events.sums (the kernel's sorted runs, no argsort) give the bits of
    binning.fine_edges and of the prefix table numpy.cumsum made over the stable argsort (issue 55)."""
    rng = np.random.default_rng(11)
    n = 30_000
    y = rng.random(n) < 0.35
    x = np.round(np.clip(rng.normal(0.4 + 0.3 * y, 0.2), 0.0, 1.0), 3).astype(score_dtype)  # ties, 0 and 1
    w = rng.normal(1.0, 0.8, n).astype(weight_dtype)  # negative weights
    w[rng.random(n) < 0.02] = 0.0
    scale = (0.37, 12.5)
    events = fb.Events(x, y, w, scale)
    edges = events.fine_edges(500)
    assert edges.tobytes() == bn.fine_edges(x, y, w, 500).tobytes()
    order = np.argsort(x, kind="stable")
    sig, v = y[order], np.asarray(w, float)[order]
    table = np.cumsum(np.column_stack([np.where(sig, v * scale[0], 0.0), np.where(sig, 0.0, v * scale[1]),
                                       (~sig).astype(float), np.where(sig, 0.0, (v * scale[1]) ** 2)]), axis=0)  # fmt: skip
    table = np.vstack([np.zeros(4), table])
    pos = np.searchsorted(x[order].astype(float), edges, side="left")
    pos[0], pos[-1] = 0, n
    assert events.sums(edges).tobytes() == (table[pos[1:]] - table[pos[:-1]]).tobytes()
