"""Reliability bins against numpy by hand and scikit-learn's calibration_curve; the pairwise AUC
matrix against scikit-learn's roc_auc_score per pair."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score

from pnetviz.metrics.calibration import CALIBRATION_BINS, pairwise_auc, reliability


def test_reliability_hand_toy():
    # bin [0.1, 0.2): p 0.15 (class, w 2), 0.15 (other, w 1): f = 2/3, mean p 0.15,
    # sigma^2 = ((1/3)^2 * 4 + (2/3)^2 * 1) / 9; bin [0.9, 1]: p 1.0 (class, w 1) and 0.95 (class, w 3): f = 1,
    # mean p = (1 + 2.85) / 4, sigma 0; every other bin empty (NaN)
    r = reliability(np.array([0.15, 0.15, 1.0, 0.95]), np.array([1, 0, 1, 1], bool), np.array([2.0, 1.0, 1.0, 3.0]))
    assert r.fraction[1] == pytest.approx(2 / 3) and r.mean_predicted[1] == pytest.approx(0.15)
    assert r.fraction_error[1] == pytest.approx(math.sqrt((4 / 9 + 4 / 9) / 9))
    assert r.fraction[9] == 1.0 and r.mean_predicted[9] == pytest.approx(3.85 / 4) and r.fraction_error[9] == 0.0
    assert np.isnan(r.fraction[0]) and list(r.events) == [0, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    # ECE: (3 * |2/3 - 0.15| + 4 * |1 - 0.9625|) / 7
    assert r.expected_calibration_error == pytest.approx((3 * (2 / 3 - 0.15) + 4 * (1 - 3.85 / 4)) / 7)


def test_reliability_weighted_equals_numpy():
    rng = np.random.default_rng(11)
    p = rng.random(20000)
    y = rng.random(p.size) < p**1.3
    w = rng.exponential(size=p.size)
    r = reliability(p, y, w)
    idx = np.minimum((p * CALIBRATION_BINS).astype(int), CALIBRATION_BINS - 1)
    for b in range(CALIBRATION_BINS):
        m = idx == b
        W, P = w[m].sum(), w[m & y].sum()
        f = P / W
        assert r.fraction[b] == pytest.approx(f, rel=1e-12)
        assert r.mean_predicted[b] == pytest.approx(np.average(p[m], weights=w[m]), rel=1e-12)
        err = math.sqrt(((1 - f) ** 2 * np.sum(w[m & y] ** 2) + f**2 * np.sum(w[m & ~y] ** 2))) / W
        assert r.fraction_error[b] == pytest.approx(err, rel=1e-12)
        assert r.sum_weights[b] == pytest.approx(W, rel=1e-12)


def test_reliability_unweighted_equals_sklearn():
    rng = np.random.default_rng(12)
    p = rng.random(5000)
    y = rng.random(p.size) < p
    prob_true, prob_pred = calibration_curve(y, p, n_bins=CALIBRATION_BINS, strategy="uniform")
    r = reliability(p, y, np.ones(p.size))
    np.testing.assert_allclose(r.fraction[r.filled], prob_true, rtol=1e-12)
    np.testing.assert_allclose(r.mean_predicted[r.filled], prob_pred, rtol=1e-12)
    # binomial limit of the sum-w^2 error for unit weights: sqrt(f (1 - f) / n)
    np.testing.assert_allclose(r.fraction_error, np.sqrt(r.fraction * (1 - r.fraction) / r.events), rtol=1e-10)


def test_pairwise_auc_equals_sklearn_per_pair():
    rng = np.random.default_rng(13)
    n, k = 6000, 4
    label = rng.integers(0, k, n)
    raw = rng.random((n, k)) + 0.3 * (1 + np.arange(k)) / k * np.eye(k)[label]
    probs = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    w = rng.uniform(-0.2, 1.0, n)
    m = pairwise_auc([probs[:, c] for c in range(k)], label, np.abs(w))
    for i in range(k):
        assert np.isnan(m[i, i])
        for j in range(k):
            if i == j:
                continue
            sel = (label == i) | (label == j)
            score = probs[sel, i].astype(np.float64) / (probs[sel, i] + probs[sel, j].astype(np.float64) + 1e-10)
            ref = roc_auc_score(label[sel] == i, score, sample_weight=np.abs(w[sel]))
            assert m[i, j] == pytest.approx(ref, abs=1e-12), (i, j)
    assert 0.55 < np.nanmin(m) and np.nanmax(m) < 0.99


def test_pairwise_auc_class_without_events_is_nan():
    label = np.array([0, 0, 1, 1])
    scores = [np.array([0.9, 0.8, 0.3, 0.1]), np.array([0.1, 0.2, 0.7, 0.9]), np.full(4, 0.0)]
    m = pairwise_auc(scores, label, np.ones(4))
    assert m[0, 1] == 1.0 and m[1, 0] == 1.0
    assert np.isnan(m[0, 2]) and np.isnan(m[2, 1])
