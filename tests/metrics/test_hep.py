"""HEP metrics: scikit-learn, brute force, closed forms and toy ensembles as references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score, roc_curve

from pnetviz.metrics import hep
from pnetviz.metrics.roc import binary_clf_curve, precision_recall


def gaussian_toy(n_s: int, n_b: int, seed: int, sep: float = 1.5):
    rng = np.random.default_rng(seed)
    s = np.r_[rng.normal(sep, 1.0, n_s), rng.normal(0.0, 1.0, n_b)]
    y = np.r_[np.ones(n_s, bool), np.zeros(n_b, bool)]
    return s, y, rng


def test_rejection_hand_example():
    # Curve points (eps_b, eps_s): (0,0) (0,1/3) (1/4,1) (1,1); eps_s = 0.5 lies 1/4 of the way
    # from (0,1/3) to (1/4,1): eps_b = 1/16, rejection 16.
    s = np.array([0.9, 0.5, 0.5, 0.1])
    y = np.array([1, 1, 0, 0])
    w = np.array([1.0, 2.0, 1.0, 3.0])
    curve = binary_clf_curve(s, y, w)
    assert hep.background_efficiency_at(curve, 0.5) == pytest.approx(1 / 16)
    assert hep.rejection_at(curve, 0.5) == pytest.approx(16.0)
    assert hep.rejection_at(curve, 0.3) == math.inf  # reached with no background selected


def test_rejection_matches_interpolated_sklearn_curve():
    s, y, rng = gaussian_toy(20000, 50000, 1)
    w = rng.exponential(size=s.size)
    curve = binary_clf_curve(s, y, w)
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    for eps in hep.REJECTION_EFFICIENCIES:
        k = np.searchsorted(tpr, eps)
        expected = fpr[k - 1] + (eps - tpr[k - 1]) / (tpr[k] - tpr[k - 1]) * (fpr[k] - fpr[k - 1])
        assert hep.background_efficiency_at(curve, eps) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("max_fpr", hep.PARTIAL_AUC_FPR)
def test_partial_auc_equals_sklearn_mcclish(max_fpr):
    s, y, rng = gaussian_toy(5000, 20000, 2)
    w = rng.exponential(size=s.size)
    got = hep.partial_auc(binary_clf_curve(s, y, w), max_fpr)
    assert got["mcclish"] == pytest.approx(roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr), abs=1e-12)
    assert 0 < got["raw"] < max_fpr


def test_convex_hull_is_concave_and_above_the_curve():
    s, y, _ = gaussian_toy(300, 700, 3)
    curve = binary_clf_curve(np.round(s, 1), y)
    hull = hep.convex_hull(curve)
    assert hull.fpr[0] == 0 and hull.tpr[0] == 0 and hull.fpr[-1] == 1 and hull.tpr[-1] == 1
    with np.errstate(divide="ignore"):  # the first hull segment may be vertical
        slopes = np.diff(hull.tpr) / np.diff(hull.fpr)
    assert np.all(np.diff(slopes) < 0)
    assert np.all(np.interp(curve.fpr, hull.fpr, hull.tpr) >= curve.tpr - 1e-12)
    np.testing.assert_array_equal(hull.thresholds, curve.thresholds[hull.index])


def test_prevalence_metrics_equal_brute_force():
    s, y, rng = gaussian_toy(400, 1600, 4)
    s = np.round(s, 1)
    w = rng.uniform(0.5, 2.0, s.size)
    scale = 3.0
    got = hep.prevalence_metrics(binary_clf_curve(s, y, w), signal_scale=scale)
    cuts = np.unique(s)
    sel = s[None, :] >= cuts[:, None]  # brute force over every cut
    S_sel, B_sel = scale * (sel * (w * y)).sum(1), (sel * (w * ~y)).sum(1)
    S, B = scale * w[y].sum(), w[~y].sum()
    fip1 = (S_sel / S) * S_sel / (S_sel + B_sel)
    punzi = (S_sel / S) / (1.5 + np.sqrt(B_sel))
    with np.errstate(divide="ignore"):  # cuts selecting no background: Z undefined, excluded
        z = np.where(B_sel > 0, np.sqrt(2 * ((S_sel + B_sel) * np.log1p(S_sel / B_sel) - S_sel)), np.nan)
    assert got["fip1"]["value"] == pytest.approx(fip1.max(), rel=1e-12)
    assert got["fip1"]["threshold"] == cuts[np.argmax(fip1)]
    assert got["punzi"]["value"] == pytest.approx(punzi.max(), rel=1e-12)
    assert got["asimov"]["value"] == pytest.approx(np.nanmax(z), rel=1e-12)
    assert got["signal_yield"] == pytest.approx(S) and got["background_yield"] == pytest.approx(B)
    assert 0 < got["fip1"]["value"] <= got["fip2_hull"] <= 1


def test_optimal_operating_point_maximises_weighted_accuracy():
    s, y, _ = gaussian_toy(1000, 3000, 5)
    s = np.round(s, 1)
    curve = binary_clf_curve(s, y)
    best = hep.prevalence_metrics(curve)["optimal_operating_point"]
    cuts = np.unique(s)
    acc = ((s[None, :] >= cuts[:, None]) == y[None, :]).mean(axis=1)
    assert best["accuracy"] == pytest.approx(max(acc.max(), y.mean(), 1 - y.mean()), rel=1e-12)


def test_binned_fip_equal_population_bins_matches_hull_fip2():
    # Smooth toy, 1e6 events: FIP of ~1000 equal-population bins vs eq. 5 on the hull, within 2%.
    s, y, _ = gaussian_toy(200_000, 800_000, 6, sep=1.2)
    curve = binary_clf_curve(s, y)
    fip2 = hep.prevalence_metrics(curve)["fip2_hull"]
    edges = np.quantile(s, np.linspace(0, 1, 1001))
    k = np.clip(np.searchsorted(edges, s, side="right") - 1, 0, 999)
    sk, bk = np.bincount(k[y], minlength=1000), np.bincount(k[~y], minlength=1000)
    binned = hep.binned_fip(sk, bk)
    assert binned == pytest.approx(fip2, rel=0.02)
    # Asimov error on the signal strength from the binned fit: 1/sqrt(sum s^2/n) = sqrt(1/(FIP S_tot)).
    sigma = 1 / math.sqrt(np.sum(sk**2 / (sk + bk)))
    assert sigma == pytest.approx(math.sqrt(1 / (binned * sk.sum())), rel=1e-12)


def test_toy_fit_ensemble_reproduces_asimov_error():
    # 20 score bins, expected s_k, b_k; Poisson pseudo-data; ML fit of mu in each toy (Newton).
    edges = np.linspace(-3, 5, 21)
    cdf = lambda x, mu: 0.5 * (1 + np.vectorize(math.erf)((x - mu) / math.sqrt(2)))  # noqa: E731
    sk = 150 * np.diff(cdf(edges, 1.5))
    bk = 3000 * np.diff(cdf(edges, 0.0))
    sigma = 1 / math.sqrt(np.sum(sk**2 / (sk + bk)))
    assert sigma == pytest.approx(math.sqrt(1 / (hep.binned_fip(sk, bk) * sk.sum())), rel=1e-12)
    rng = np.random.default_rng(7)
    data = rng.poisson(sk + bk, size=(4000, sk.size))
    mu = np.ones(len(data))
    for _ in range(30):  # Newton steps on the binned Poisson log-likelihood, all toys at once
        lam = mu[:, None] * sk + bk
        grad = np.sum(data * sk / lam - sk, axis=1)
        hess = -np.sum(data * sk**2 / lam**2, axis=1)
        mu = np.maximum(mu - grad / hess, -bk.min() / sk.max() + 1e-6)
    assert np.std(mu) == pytest.approx(sigma, rel=0.10)
    assert np.mean(mu) == pytest.approx(1.0, abs=3 * sigma / math.sqrt(len(mu)) + 0.01)


def test_precision_from_roc_and_prevalence_equals_direct_pr():
    s, y, rng = gaussian_toy(3000, 9000, 8)
    w = rng.exponential(size=s.size)
    curve = binary_clf_curve(s, y, w)
    direct = precision_recall(curve).precision[:-1][::-1]  # back to decreasing-threshold order
    np.testing.assert_allclose(hep.precision_from_roc(curve), direct, rtol=1e-12)


def test_bootstrap_error_matches_toy_spread():
    aucs, errors = [], []
    for seed in range(50):
        s, y, rng = gaussian_toy(2000, 4000, 100 + seed, sep=1.0)
        w = rng.exponential(size=s.size)
        aucs.append(binary_clf_curve(s, y, w).auc)
        if seed < 10:
            errors.append(hep.bootstrap(s, y, w, replicas=200, seed=seed).auc_error)
    assert np.mean(errors) == pytest.approx(np.std(aucs, ddof=1), rel=0.20)


def test_bootstrap_is_seeded_and_centred():
    s, y, rng = gaussian_toy(3000, 3000, 9)
    w = rng.exponential(size=s.size)
    a, b = hep.bootstrap(s, y, w, 50, seed=1), hep.bootstrap(s, y, w, 50, seed=1)
    np.testing.assert_array_equal(a.auc, b.auc)
    assert np.mean(a.auc) == pytest.approx(binary_clf_curve(s, y, w).auc, abs=3 * a.auc_error)
    iv = a.rejection_50_interval
    assert 0 < iv["low"] < 1 / hep.background_efficiency_at(binary_clf_curve(s, y, w), 0.5) < iv["high"]


def test_ks_uniform_under_null_and_zero_when_overtrained():
    rng = np.random.default_rng(10)
    p = []
    for _ in range(100):
        a, b = rng.normal(size=800), rng.normal(size=600)
        p.append(hep.weighted_ks(a, rng.uniform(0.5, 1.5, 800), b, rng.uniform(0.5, 1.5, 600))["p_value"])
    below = np.mean(np.array(p) < 0.1)
    assert 0.02 <= below <= 0.15
    over = hep.weighted_ks(rng.normal(0.3, 1, 5000), np.ones(5000), rng.normal(0, 1, 5000), np.ones(5000))
    assert over["p_value"] < 1e-6


def test_ks_statistic_equals_scipy_unweighted():
    from scipy.stats import ks_2samp

    rng = np.random.default_rng(11)
    a, b = np.round(rng.normal(size=500), 2), np.round(rng.normal(0.1, 1, size=400), 2)
    got = hep.weighted_ks(a, np.ones(500), b, np.ones(400))
    assert got["statistic"] == pytest.approx(ks_2samp(a, b).statistic, abs=1e-12)


def test_weight_modes_against_sklearn():
    s, y, rng = gaussian_toy(3000, 5000, 12)
    s = np.round(s, 2)
    w = rng.exponential(size=s.size) * np.where(rng.random(s.size) < 0.1, -1, 1)
    curve = binary_clf_curve(s, y, hep.mode_weights(w, "signed"))
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(curve.fpr, fpr, atol=1e-12)
    np.testing.assert_allclose(curve.tpr, tpr, atol=1e-12)
    assert curve.auc == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)
    assert hep.curve_flags(curve)["non_monotone"]
    keep = w > 0
    got = binary_clf_curve(s, y, hep.mode_weights(w, "drop")).auc
    assert got == pytest.approx(roc_auc_score(y[keep], s[keep], sample_weight=w[keep]), abs=1e-12)
    got = binary_clf_curve(s, y, hep.mode_weights(w, "abs"))
    assert got.auc == pytest.approx(roc_auc_score(y, s, sample_weight=np.abs(w)), abs=1e-12)
    assert not any(hep.curve_flags(got).values())
    with pytest.raises(ValueError, match="unknown weight mode"):
        hep.mode_weights(w, "square")


def test_effective_events():
    assert hep.effective_events(np.ones(100)) == pytest.approx(100)
    assert hep.effective_events(np.r_[np.ones(50), 3 * np.ones(50)]) == pytest.approx(200**2 / 500)


@pytest.mark.parametrize("n", [300_000, pytest.param(1_000_000, marks=pytest.mark.slow)])
def test_binned_bootstrap_matches_event_level_bootstrap(n):
    rng = np.random.default_rng(13)
    y = rng.random(n) < 0.3
    s = rng.normal(y * 1.0, 1.0).astype(np.float32)
    w = rng.exponential(size=n)
    exact = hep.bootstrap(s, y, w, 200, seed=5, binned=False)
    binned = hep.bootstrap(s, y, w, 200, seed=5, binned=True)
    assert binned.auc_error == pytest.approx(exact.auc_error, rel=0.10)
    width = {k: b.rejection_50_interval["high"] - b.rejection_50_interval["low"] for k, b in (("e", exact), ("b", binned))}
    assert width["b"] == pytest.approx(width["e"], rel=0.15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bootstrap_from_curve_chunks_equals_its_own_sort(dtype):
    rng = np.random.default_rng(15)
    n = 250_000
    y = rng.random(n) < 0.4
    s = np.round(rng.normal(y * 1.0, 1.0), 3).astype(dtype)  # ties: chunks cut only between scores
    w = rng.exponential(size=n) * (rng.random(n) > 0.05)  # zero weights are dropped before chunking
    chunk = hep.bootstrap_chunk_size(n)
    curve = binary_clf_curve(s, y, w, min_chunk=chunk)
    assert curve.chunks.shape[0] == 4 and n // chunk // 2 < curve.chunks.shape[1] <= n // chunk + 1
    np.testing.assert_allclose(curve.chunks[0].sum(), curve.total_signal, rtol=1e-12)
    np.testing.assert_allclose(curve.chunks[3].sum(), np.sum(w[~y] ** 2), rtol=1e-12)
    assert curve.auc == binary_clf_curve(s, y, w).auc
    own = hep.bootstrap(s, y, w, 50, seed=9, binned=True)
    reused = hep.bootstrap(s, y, w, 50, seed=9, chunks=curve.chunks)
    assert np.array_equal(own.auc, reused.auc) and np.array_equal(own.eps_b_50, reused.eps_b_50)


def test_auc_weight_modes_in_one_sort_equal_separate_curves():
    s, y, rng = gaussian_toy(4000, 6000, 14)
    s = np.round(s, 2).astype(np.float32)
    w = rng.exponential(size=s.size) * np.where(rng.random(s.size) < 0.15, -1, 1)
    got = hep.auc_weight_modes(s, y, w)
    for mode in hep.WEIGHT_MODES:
        assert got[mode] == pytest.approx(binary_clf_curve(s, y, hep.mode_weights(w, mode)).auc, abs=1e-12)
    assert got["abs"] == pytest.approx(roc_auc_score(y, s, sample_weight=np.abs(w)), abs=1e-12)


def test_weight_modes_shortcut_without_negative_weights_is_exact():
    s, y, rng = gaussian_toy(3000, 5000, 16)
    w = rng.exponential(size=s.size)
    curve = binary_clf_curve(s, y, w)
    assert set(hep.auc_weight_modes(s, y, w).values()) == {curve.auc}  # what hepsummary.auc_all_modes returns
