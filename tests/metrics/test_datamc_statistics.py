"""metrics/datamc.py and metrics/blinding.py against hand computations and scipy (the oracle, in
tests only): histograms, Garwood intervals, the chi2 with the full covariance and its p-value
(uniform over well-modelled pseudo-data, tiny for a mismodelled one), pulls, efficiencies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pnetviz.metrics import blinding, datamc


def test_binned_counts_outside_values_in_the_edge_bins():
    sumw, sumw2 = datamc.binned(np.array([-1.0, 0.1, 0.5, 0.99, 1.0, 7.0]), np.array([1, 2, 3, 4, 5, 6.0]),
                                np.array([0.0, 0.5, 1.0]))  # fmt: skip
    assert sumw.tolist() == [3.0, 18.0] and sumw2.tolist() == [5.0, 9 + 16 + 25 + 36.0]


def test_garwood_and_chi2_survival_against_scipy():
    n = np.array([0, 1, 2, 5, 17, 120])
    low, high = datamc.garwood(n)
    alpha = (1 - datamc.CL) / 2
    assert np.allclose(low, np.where(n > 0, stats.chi2.ppf(alpha, 2 * np.maximum(n, 1)) / 2, 0.0), rtol=1e-9)
    assert np.allclose(high, stats.chi2.ppf(1 - alpha, 2 * n + 2) / 2, rtol=1e-9)
    for x, k in [(0.5, 1), (11.2, 10), (57.4, 10), (3.0, 25), (200.0, 30)]:
        assert datamc.chi2_survival(x, k) == pytest.approx(stats.chi2.sf(x, k), rel=1e-9, abs=1e-300)


def _comparison(data, mu, sumw2, deltas, masked=None) -> datamc.Comparison:
    n = len(mu)
    deltas = {k: np.asarray(v, float) for k, v in deltas.items()}
    return datamc.Comparison(np.linspace(0, 1, n + 1), np.asarray(data, float), {"bkg": np.asarray(mu, float)},
                             np.asarray(sumw2, float), deltas, {k: (np.asarray(mu) + v, np.asarray(mu) - v) for k, v in deltas.items()},
                             np.zeros(n, bool) if masked is None else np.asarray(masked, bool))  # fmt: skip


def test_chi2_with_the_full_covariance_by_hand():
    mu, w2, d = np.array([100.0, 50.0, 20.0]), np.array([4.0, 2.0, 1.0]), np.array([5.0, -2.0, 1.0])
    data = np.array([110.0, 45.0, 26.0])
    comp = _comparison(data, mu, w2, {"jes": d})
    v = np.diag(mu + w2) + np.outer(d, d)
    r = data - mu
    expected = float(r @ np.linalg.inv(v) @ r)
    got = comp.chi2()
    assert got["chi2"] == pytest.approx(expected, rel=1e-12) and got["ndf"] == 3
    assert got["p_value"] == pytest.approx(stats.chi2.sf(expected, 3), rel=1e-9)
    assert np.allclose(comp.pulls(), r / np.sqrt(np.diag(v)), rtol=1e-12)
    assert np.allclose(comp.band, np.sqrt(w2 + d**2), rtol=1e-12)
    masked = _comparison(data, mu, w2, {"jes": d}, masked=[False, True, False])
    sub = np.ix_([0, 2], [0, 2])
    assert masked.chi2()["chi2"] == pytest.approx(float(r[[0, 2]] @ np.linalg.inv(v[sub]) @ r[[0, 2]]), rel=1e-12)
    assert masked.chi2()["ndf"] == 2 and np.isnan(masked.pulls()[1]) and np.isnan(masked.ratio()[0][1])


def test_compare_symmetrises_each_variation():
    edges = np.array([0.0, 0.5, 1.0])
    s, w = np.array([0.2, 0.7, 0.8]), np.array([1.0, 2.0, 3.0])
    up, down = {"a": (s, w * 1.2)}, {"a": (s, w * 0.9)}
    comp = datamc.compare(edges, np.array([0.1, 0.6]), {"a": (s, w)}, {"jes": (up, down)}, np.zeros(2, bool))
    assert np.allclose(comp.deltas["jes"], [(1.2 - 0.9) / 2 * 1.0, (1.2 - 0.9) / 2 * 5.0], rtol=1e-12)
    assert comp.data.tolist() == [1.0, 1.0] and comp.mc_sumw2.tolist() == [1.0, 13.0]


def test_chi2_p_values_are_uniform_over_well_modelled_pseudo_data():
    rng = np.random.default_rng(53)
    mu = np.array([400.0, 320.0, 250.0, 180.0, 120.0, 90.0, 60.0, 40.0])
    sumw2 = 0.02 * mu
    deltas = {"a": 0.04 * mu * np.linspace(1, -1, mu.size), "b": 0.03 * mu}
    p = []
    for _ in range(200):
        truth = mu + rng.normal(0, np.sqrt(sumw2)) + sum(rng.normal() * d for d in deltas.values())
        p.append(_comparison(rng.poisson(truth), mu, sumw2, deltas).chi2()["p_value"])
    assert stats.kstest(p, "uniform").pvalue > 0.01


def test_a_mismodelled_region_disagrees():
    rng = np.random.default_rng(7)
    mu = np.array([400.0, 320.0, 250.0, 180.0, 120.0, 90.0, 60.0, 40.0])
    comp = _comparison(rng.poisson(mu * np.linspace(0.75, 1.5, mu.size)), mu, 0.02 * mu, {"b": 0.03 * mu})
    result = comp.chi2()
    assert result["p_value"] < 1e-3
    assert datamc.verdict(result, None).startswith("disagree: chi2/ndf = ")
    assert datamc.verdict({"chi2": 11.2, "ndf": 10, "p_value": 0.34}, None) == "agree: chi2/ndf = 11.2/10, p = 0.34"
    # the Holm-adjusted p decides and is shown beside the test's own
    assert datamc.verdict({"chi2": 11.2, "ndf": 10, "p_value": 0.34}, 1.0) == "agree: chi2/ndf = 11.2/10, p = 0.34, Holm p = 1"
    assert datamc.verdict({"chi2": 30.0, "ndf": 10, "p_value": 0.0009}, 0.0027) == \
        "disagree: chi2/ndf = 30.0/10, p = 9.0e-04, Holm p = 0.0027"
    assert datamc.verdict({"chi2": 18.0, "ndf": 10, "p_value": 0.02}, 0.06).startswith("agree: ")


def test_efficiencies_and_thresholds():
    data = np.array([0.1, 0.4, 0.6, 0.9])
    mc, w = np.array([0.2, 0.5, 0.7, 0.95]), np.array([1.0, 2.0, 3.0, 4.0])
    eff = datamc.efficiency(data, mc, w, 0.5)
    assert eff["data"] == 0.5 and eff["data_error"] == pytest.approx(math.sqrt(0.25 / 4), rel=1e-12)
    e = 9.0 / 10.0
    assert eff["mc"] == pytest.approx(e, rel=1e-12)
    assert eff["mc_error"] == pytest.approx(math.sqrt((1 - e) ** 2 * (4 + 9 + 16) + e**2 * 1) / 10, rel=1e-12)
    assert eff["ratio"] == pytest.approx(0.5 / e, rel=1e-12)
    t = datamc.signal_thresholds(np.array([0.9, 0.8, 0.8, 0.1]), np.ones(4), (0.25, 0.5, 0.9))
    assert t == {0.25: 0.9, 0.5: 0.8, 0.9: 0.1}  # ties select together


def test_kolmogorov_uses_the_weighted_ks():
    ks = datamc.kolmogorov(np.array([0.1, 0.2, 0.3]), np.array([0.1, 0.2, 0.3]), np.ones(3))
    assert ks["statistic"] == pytest.approx(0.0, abs=1e-12)
    data, mc = np.linspace(0.0, 0.5, 50), np.linspace(0.5, 1.0, 50)
    ks = datamc.kolmogorov(data, mc, np.ones(50))
    assert ks["statistic"] == pytest.approx(stats.ks_2samp(data, mc).statistic, abs=1e-12)
    assert datamc.kolmogorov(np.zeros(0), mc, np.ones(50))["p_value"] is None


def test_blinding_rules():
    assert blinding.is_blind("SR3Mu", blinding.DEFAULT_PATTERNS) and blinding.is_blind("Run1E2Mu", blinding.DEFAULT_PATTERNS)
    assert not blinding.is_blind("WZ3Mu", blinding.DEFAULT_PATTERNS) and not blinding.is_blind("ZG1E2Mu", blinding.DEFAULT_PATTERNS)
    edges = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    s, b = np.array([0.1, 0.5, 2.0, 3.0]), np.array([100.0, 100.0, 100.0, 0.0])
    assert blinding.mask(edges, s, b, None, 0.1).tolist() == [False, False, True, True]
    assert blinding.mask(edges, s, b, 0.3, 0.1).tolist() == [False, True, True, True]
    assert blinding.mask(edges, None, b, None).all()
