"""metrics.closure: the deployment closure's tests, order check and verdict on softmax toys.

The toy: 4 classes; an event of class c has logits N(mu_c, 1) with mu_c = 2.5 on node c and 0
elsewhere, scores = softmax(logits). The samples and the trainer's predictions are drawn from the
same model (unswapped) or with two output columns of the samples exchanged (swapped)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ks_2samp, kstwobign

from pnetviz.metrics import closure as cl
from pnetviz.metrics.hep import weighted_ks

NODES = ("signal", "nonprompt", "diboson", "ttZ")
PROCESSES = (("MHc130_MA90", "signal"), ("nonprompt", "nonprompt"), ("diboson", "diboson"), ("ttX", "ttX"))


def softmax_events(rng: np.random.Generator, klass: int, n: int, shift: float = 2.5) -> np.ndarray:
    logits = rng.normal(0.0, 1.0, (n, 4))
    logits[:, klass] += shift
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def toy(seed: int, n_samples: int = 600, n_reference: int = 800, swap: tuple[int, int] | None = None,
        weighted: bool = True, scale: float = 1.0) -> list[cl.Comparison]:  # fmt: skip
    rng = np.random.default_rng(seed)
    out = []
    for k, (process, klass) in enumerate(PROCESSES):
        a, b = softmax_events(rng, k, n_samples), softmax_events(rng, k, n_reference)
        if swap is not None:
            a[:, list(swap)] = a[:, list(swap[::-1])]
        a = a * scale
        wa = rng.uniform(0.2, 3.0, n_samples) * 1e-3 if weighted else np.ones(n_samples)  # physics weights: any scale
        wb = rng.uniform(0.5, 1.5, n_reference) * 40.0 if weighted else np.ones(n_reference)
        out.append(cl.Comparison(process, klass, a, wa, b, wb))
    return out


def test_unswapped_passes_and_swapped_pair_is_named():
    good = cl.closure(toy(1), NODES)
    assert good["verdict"] == "pass" and good["line"].startswith("closure: pass (16 tests, min Holm p = ")
    assert good["order"]["best_assignment"] == list(NODES) and good["order"]["swapped"] == []
    assert len(good["tests"]) == 16 and min(t["p_holm"] for t in good["tests"]) >= 0.05

    bad = cl.closure(toy(1, swap=(2, 3)), NODES)
    assert bad["verdict"] == "fail"
    assert bad["order"]["swapped"] == [["diboson", "ttZ"]]
    assert bad["order"]["best_assignment"] == ["signal", "nonprompt", "ttZ", "diboson"]
    assert "outputs 'diboson' and 'ttZ' look swapped" in bad["line"]
    assert bad["reordered"]["passes"] and "reordered, the 16 tests pass" in bad["line"]
    assert bad["unmatched"] == []
    pair = next(p for p in bad["order"]["pairs"] if p["nodes"] == ["diboson", "ttZ"])
    assert pair["swap_better"] and pair["swapped_distance"] < pair["identity_distance"]
    assert [p["swap_better"] for p in bad["order"]["pairs"]].count(True) == 1


def test_three_cycle_is_named_as_permuted():
    comparisons = toy(3)
    for c in comparisons:  # samples' node 1 holds output 2, node 2 output 3, node 3 output 1
        c.sample_scores[:, [1, 2, 3]] = c.sample_scores[:, [2, 3, 1]].copy()
    got = cl.closure(comparisons, NODES)
    assert got["verdict"] == "fail" and got["order"]["permuted"] == [["nonprompt", "diboson", "ttZ"]]
    assert "outputs 'nonprompt', 'diboson', 'ttZ' look permuted ('nonprompt' holds 'diboson'" in got["line"]


@pytest.mark.slow  # 120 closures of 64 KS tests each: ~12 s
def test_false_alarm_rate_near_nominal():
    """100 unswapped toys: Holm over 16 tests at 0.05 keeps the family-wise error <= 0.05 (the
    asymptotic KS p is conservative): at least 90 pass. 100 swapped toys: all fail naming the pair."""
    passes = sum(cl.closure(toy(100 + s, 300, 400), NODES)["verdict"] == "pass" for s in range(100))
    assert 90 <= passes <= 100
    named = sum(cl.closure(toy(300 + s, 300, 400, swap=(0, 1)), NODES)["order"]["swapped"] == [["signal", "nonprompt"]]
                for s in range(20))  # fmt: skip
    assert named == 20


def test_alike_outputs_are_not_named_swapped_when_the_closure_fails_elsewhere():
    """Nodes 1 and 2 carry the same noise in every class (alike: their best assignment may swap
    them by chance); process 0's samples differ in node 0. The closure fails, naming the node-0
    tests, never a swap of 1 and 2 (they match their own outputs)."""
    raw_swaps = 0
    for seed in range(8):
        rng = np.random.default_rng(40 + seed)
        comparisons = []
        for k in range(2):
            a, b = rng.random((800, 3)), rng.random((900, 3))
            a[:, 0], b[:, 0] = rng.beta(2 + 3 * k, 2, 800), rng.beta(2 + 3 * k, 2, 900)
            if k == 0:
                a[:, 0] = rng.beta(2.8, 2, 800)  # the samples of process 0 differ in node 0
            comparisons.append(cl.Comparison(f"p{k}", f"c{k}", a, np.ones(800), b, np.ones(900)))
        got = cl.closure(comparisons, ("n0", "n1", "n2"))
        assert got["verdict"] == "fail" and got["order"]["swapped"] == [] and "swapped" not in got["line"]
        assert "p0/n0" in got["line"]
        raw_swaps += got["order"]["best_assignment"] != ["n0", "n1", "n2"]
    assert raw_swaps >= 1  # the raw minimum did swap the alike nodes at least once: the rule was needed


def test_node_that_matches_nothing_is_named():
    comparisons = toy(5)
    for c in comparisons:  # the samples' 'ttZ' column computed from wrongly normalised inputs: squeezed towards 0.5
        c.sample_scores[:, 3] = 0.5 + 0.2 * (c.sample_scores[:, 3] - 0.5)
    got = cl.closure(comparisons, NODES)
    assert got["verdict"] == "fail" and got["unmatched"] == ["ttZ"]
    assert "output 'ttZ' matches none of the model's outputs" in got["line"]
    assert got["order"]["swapped"] == [] and got["matches"]["signal"] == ["signal"]


def test_ks_equals_scipy_on_unweighted_data():
    """D is scipy's ks_2samp statistic; p is Kolmogorov's limit at D sqrt(n m / (n + m))
    (scipy's kstwobign), within 0.02 of ks_2samp's finite-n asymptotic p (kstwo at round(en))."""
    comparisons = toy(7, weighted=False)
    d, p, n_eff = cl.ks_matrices(comparisons, 4)
    en = 600 * 800 / 1400
    for k, c in enumerate(comparisons):
        for i, j in ((0, 0), (1, 1), (1, 2), (3, 3)):
            ref = ks_2samp(c.sample_scores[:, i], c.reference_scores[:, j], method="asymp")
            assert d[k, i, j] == pytest.approx(ref.statistic, abs=1e-12)
            assert p[k, i, j] == pytest.approx(kstwobign.sf(np.sqrt(en) * ref.statistic), rel=1e-9, abs=1e-15)  # ROOT: 0 far out
            assert abs(p[k, i, j] - ref.pvalue) < 0.02
        assert n_eff[k] == pytest.approx([600, 800])


def brute_force_ks(a, wa, b, wb) -> float:
    """max over every value x of |F_a(x) - F_b(x)|, F the weighted ECDF sum(w [v <= x]) / sum(w)."""
    grid = np.union1d(a, b)
    fa = np.array([wa[a <= x].sum() for x in grid]) / wa.sum()
    fb = np.array([wb[b <= x].sum() for x in grid]) / wb.sum()
    return float(np.max(np.abs(fa - fb)))


def test_ks_equals_brute_force_weighted_ecdf():
    rng = np.random.default_rng(8)
    comparisons = toy(8, n_samples=300, n_reference=250)
    d, _, _ = cl.ks_matrices(comparisons, 4)
    for k, c in enumerate(comparisons):
        a, b = np.round(c.sample_scores, 2), np.round(c.reference_scores, 2)  # ties inside and across the samples
        wa = c.sample_weights * np.where(rng.random(a.shape[0]) < 0.1, -1.0, 1.0)  # signed physics weights
        rounded = cl.Comparison(c.process, c.klass, a, wa, b, c.reference_weights)
        dr, pr, n_eff = cl.ks_matrices([rounded], 4)
        for i in range(4):
            for j in range(4):
                want = brute_force_ks(a[:, i], wa, b[:, j], c.reference_weights)
                assert dr[0, i, j] == pytest.approx(want, abs=1e-12)
        z = dr[0, 1, 1] * np.sqrt(n_eff[0][0] * n_eff[0][1] / (n_eff[0][0] + n_eff[0][1]))
        assert pr[0, 1, 1] == pytest.approx(kstwobign.sf(z), rel=1e-6)
        assert n_eff[0][0] == pytest.approx(wa.sum() ** 2 / (wa**2).sum())
        assert d[k, 0, 0] == pytest.approx(weighted_ks(c.sample_scores[:, 0], c.sample_weights,
                                                        c.reference_scores[:, 0], c.reference_weights)["statistic"])  # fmt: skip


def test_renormalisation_leaves_the_tests_unchanged():
    """Weights renormalised per process and class: scaling one side's weights changes nothing."""
    a = cl.closure(toy(9), NODES)
    scaled = [cl.Comparison(c.process, c.klass, c.sample_scores, c.sample_weights * 1e4, c.reference_scores,
                            c.reference_weights * 3.0) for c in toy(9)]  # fmt: skip
    b = cl.closure(scaled, NODES)
    assert [t["p_value"] for t in a["tests"]] == pytest.approx([t["p_value"] for t in b["tests"]], rel=1e-12)


def test_best_assignment_and_cycles():
    total = np.array([[0.1, 0.9, 0.8], [0.7, 0.6, 0.05], [0.9, 0.04, 0.7]])
    assert cl.best_assignment(total) == (0, 2, 1)
    assert cl.cycles((0, 2, 1)) == [[1, 2]] and cl.cycles((1, 2, 0)) == [[0, 1, 2]] and cl.cycles((0, 1)) == []
    assert cl.best_assignment(np.ones((3, 3))) == (0, 1, 2)  # ties keep the identity
    big = np.full((10, 10), 1.0)
    np.fill_diagonal(big, 0.1)
    big[[3, 7], [3, 7]], big[3, 7], big[7, 3] = 1.0, 0.0, 0.0
    assert cl.best_assignment(big) == (0, 1, 2, 7, 4, 5, 6, 3, 8, 9)  # beyond EXACT_NODES: pairwise swaps


def test_holm_family_is_every_process_and_node():
    got = cl.closure(toy(10, swap=(2, 3)), NODES)
    raw = np.array([t["p_value"] for t in got["tests"]])
    m = raw.size
    order = np.argsort(raw)
    expected = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * raw[order]))
    np.testing.assert_allclose(np.array([t["p_holm"] for t in got["tests"]])[order], expected, rtol=1e-12)


def test_bad_arrays_raise():
    c = toy(11)[0]
    with pytest.raises(ValueError, match="weight sum"):
        cl.closure([cl.Comparison("p", "k", c.sample_scores, -c.sample_weights, c.reference_scores, c.reference_weights)], NODES)
    with pytest.raises(ValueError, match="expected"):
        cl.closure([cl.Comparison("p", "k", c.sample_scores[:, :3], c.sample_weights, c.reference_scores,
                                  c.reference_weights)], NODES)  # fmt: skip
