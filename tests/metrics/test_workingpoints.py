"""Working points and the cut scan: a hand-worked toy, brute force over the sample's scores, and
the HEP metrics' own optimum as references."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.errors import InputError
from pnetviz.metrics import hep, workingpoints as wp
from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.roc import binary_clf_curve

# Train: signal scores 0.9 0.8 0.7 0.6 0.4 with weights 1 1 2 1 1 (total 6); background 0.85 0.5 0.3 0.2.
TRAIN = (np.array([0.9, 0.8, 0.7, 0.6, 0.4, 0.85, 0.5, 0.3, 0.2]), np.array([1, 1, 1, 1, 1, 0, 0, 0, 0], bool),
         np.array([1, 1, 2, 1, 1, 1, 1, 1, 1], float))  # fmt: skip
# Test: signal 0.95 0.65 0.45 0.1; background 0.75 0.6 0.55 0.35 0.05 (0.6 sits exactly on a train threshold).
TEST = (np.array([0.95, 0.65, 0.45, 0.1, 0.75, 0.6, 0.55, 0.35, 0.05]), np.array([1, 1, 1, 1, 0, 0, 0, 0, 0], bool),
        np.ones(9))  # fmt: skip


def toy_points(targets, wp_from="train", expected=None):
    curves = {"train": binary_clf_curve(*TRAIN), "test": binary_clf_curve(*TEST)}
    n_eff = {"train": (hep.effective_events(TRAIN[2][TRAIN[1]]), hep.effective_events(TRAIN[2][~TRAIN[1]])),
             "test": (4.0, 5.0)}  # fmt: skip
    samples = {"train": BinarySample(*TRAIN, TRAIN[2]), "test": BinarySample(*TEST, TEST[2])}
    return wp.working_points(curves, n_eff, samples, targets, wp_from, expected)


def test_hand_worked_thresholds_and_efficiencies():
    # Train signal weight above each cut: 0.9 -> 1, 0.8 -> 2, 0.7 -> 4 (4/6 >= 0.5), 0.6 -> 5 (5/6 >= 0.7),
    # 0.4 -> 6 (>= 0.9). Test at 0.7: signal 0.95 (1/4), background 0.75 (1/5); at 0.6: signal 0.95 0.65
    # (2/4), background 0.75 and 0.6 itself (s >= t: 2/5); at 0.4: signal 3/4, background 0.75 0.6 0.55 (3/5).
    points = toy_points((0.5, 0.7, 0.9))
    assert [p["threshold"] for p in points] == [0.7, 0.6, 0.4]
    expected_train = [(4 / 6, 1 / 4), (5 / 6, 1 / 4), (1.0, 2 / 4)]
    expected_test = [(1 / 4, 1 / 5), (2 / 4, 2 / 5), (3 / 4, 3 / 5)]
    for p, (ts, tb), (es, eb) in zip(points, expected_train, expected_test):
        assert (p["train"]["eps_s"], p["train"]["eps_b"]) == pytest.approx((ts, tb), abs=1e-15)
        assert (p["test"]["eps_s"], p["test"]["eps_b"]) == pytest.approx((es, eb), abs=1e-15)
        assert p["test"]["rejection"] == pytest.approx(1 / eb)
        assert p["test"]["rejection_lower_limit"] is False
    # ratio-of-sums errors = binomial for unit weights: test signal 4 events, background 5
    t07 = points[1]["test"]
    assert t07["eps_s_error"] == pytest.approx(math.sqrt(0.5 * 0.5 / 4))
    assert t07["eps_b_error"] == pytest.approx(math.sqrt(0.4 * 0.6 / 5))
    assert t07["rejection_error"] == pytest.approx(math.sqrt(0.4 * 0.6 / 5) / 0.4**2)
    # train signal at 0.7: passing weights 1 1 2 (sum w^2 = 6), failing 1 1 (2), total 6:
    # sqrt((2/6)^2 6 + (4/6)^2 2) / 6 = 0.2079 (the binomial with N_eff = 4.5 said 0.2222)
    assert points[0]["train"]["eps_s_error"] == pytest.approx(math.sqrt((2 / 6) ** 2 * 6 + (4 / 6) ** 2 * 2) / 6, abs=1e-15)


def test_thresholds_from_the_test_split():
    # Test signal (unit weights): 0.95 -> 1/4, 0.65 -> 2/4 (>= 0.5), 0.45 -> 3/4 (>= 0.7), 0.1 -> 4/4 (>= 0.9)
    points = toy_points((0.5, 0.7, 0.9), wp_from="test")
    assert [p["threshold"] for p in points] == [0.65, 0.45, 0.1]
    assert points[0]["train"]["eps_s"] == pytest.approx(4 / 6)  # train signal >= 0.65: 0.9 0.8 0.7(w2)


def test_no_background_passing_is_a_lower_limit_with_expected_yields():
    # target 1/6: train threshold 0.9; no test background event reaches 0.9
    (point,) = toy_points((1 / 6,), expected=(10.0, 200.0))
    assert point["threshold"] == 0.9
    test = point["test"]
    assert test["eps_b"] == 0.0 and test["rejection_lower_limit"] is True and test["rejection_error"] is None
    assert test["rejection"] == pytest.approx(1 / hep.eps_b_limit(5.0))
    assert test["expected_signal"] == pytest.approx(10.0 * 0.25) and test["expected_background"] == 0.0
    assert "expected_signal" not in toy_points((0.5,))[0]["test"]


def test_threshold_is_the_highest_score_reaching_the_target_brute_force():
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(size=4000), 2)  # many ties
    y = rng.random(s.size) < 0.4
    w = rng.exponential(size=s.size)
    curve = binary_clf_curve(s, y, w)
    for target in (0.1, 0.5, 0.7, 0.9, 0.99, 1.0):
        t = wp.threshold_for(curve, target)
        eff = lambda cut: w[y & (s >= cut)].sum() / w[y].sum()  # noqa: E731
        assert t in set(s.tolist())
        assert eff(t) >= target - 1e-12
        higher = np.unique(s[s > t])
        assert all(eff(u) < target for u in higher)
        assert hep.at_threshold(curve, t) == pytest.approx((eff(t), w[~y & (s >= t)].sum() / w[~y].sum()), abs=1e-12)


def test_parse_targets():
    assert wp.parse_targets("0.9, 0.5,0.7,0.5") == (0.5, 0.7, 0.9)
    for bad in ("", "0", "1.5", "a,0.5"):
        with pytest.raises(InputError, match="--working-points"):
            wp.parse_targets(bad)


def test_fold_scalars_round_trip():
    points = toy_points((0.5, 0.9))
    scalars = wp.fold_scalars(points, "test")
    assert scalars["wp_0.5_threshold"] == 0.7 and scalars["wp_0.9_eps_b"] == pytest.approx(0.6)
    assert wp.targets_in(scalars) == ["0.5", "0.9"]


def test_cut_scan_brute_force_and_hep_optimum():
    rng = np.random.default_rng(8)
    n = 3000
    y = rng.random(n) < 0.3
    s = np.clip(rng.normal(np.where(y, 0.65, 0.4), 0.15), 0, 1)
    w = rng.uniform(0.5, 1.5, n)
    curve = binary_clf_curve(s, y, w)
    S, B = 25.0, 900.0
    scan = wp.cut_scan(curve, S, B)
    cuts = np.unique(s)[::-1]
    sel_s = np.array([w[y & (s >= c)].sum() for c in cuts]) / w[y].sum() * S
    sel_b = np.array([w[~y & (s >= c)].sum() for c in cuts]) / w[~y].sum() * B
    np.testing.assert_allclose(scan["scan"]["threshold"], cuts)
    np.testing.assert_allclose(scan["scan"]["purity"], sel_s / (sel_s + sel_b), rtol=1e-10)
    z = sel_s / np.sqrt(sel_s + sel_b)
    np.testing.assert_allclose(scan["scan"]["s_over_sqrt_s_plus_b"], z, rtol=1e-10)
    best = scan["optimum"]["s_over_sqrt_s_plus_b"]
    assert best["value"] == pytest.approx(z.max()) and best["threshold"] == cuts[np.argmax(z)]
    za = np.where(sel_b > 0, np.sqrt(np.maximum(0, 2 * ((sel_s + sel_b) * np.log1p(sel_s / np.where(sel_b > 0, sel_b, 1)) - sel_s))), np.nan)
    assert scan["optimum"]["asimov"]["value"] == pytest.approx(np.nanmax(za), rel=1e-10)
    hep_best = hep.prevalence_metrics(curve, scale=(S / curve.total_signal, B / curve.total_background))["asimov"]
    assert scan["optimum"]["asimov"]["threshold"] == hep_best["threshold"]
    report = wp.scan_report(scan, curve, "expected")
    k = 50  # cut 0.5
    assert report["grid"]["cut"][k] == 0.5
    assert report["grid"]["eps_s"][k] == pytest.approx(w[y & (s >= 0.5)].sum() / w[y].sum(), abs=1e-12)


def test_best_cut_takes_the_largest_finite_value():
    """hep.best_cut (the cut scan's and the HEP optima's search): +inf and NaN never win; the first
    of equal maxima; every column read at that cut; NaN everywhere when nothing is finite."""
    t, es, eb = np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.9, 0.8, 0.7, 0.6]), np.array([0.5, 0.3, 0.2, 0.1])
    best = hep.best_cut(np.array([1.0, np.inf, 2.0, 2.0]), t, es, eb, purity=np.array([0.6, 0.7, 0.8, 0.9]))
    assert best == {"value": 2.0, "threshold": 0.3, "eps_s": 0.7, "eps_b": 0.2, "purity": 0.8}
    empty = hep.best_cut(np.array([np.nan, np.inf]), t[:2], es[:2], eb[:2])
    assert all(np.isnan(v) for v in empty.values()) and set(empty) == {"value", "threshold", "eps_s", "eps_b"}


def test_errors_cover_when_a_heavy_process_passes_the_cut():
    """A grouped background: a light process (weight 1, 5% pass) and a heavy one (weight 20, 60% pass).
    Over 2000 Poisson-fluctuated toys, eps_b +- its error covers the true eps_b in 68% +- 3% of them with
    the ratio-of-sums error; the binomial with the class's N_eff covered about 45%."""
    rng = np.random.default_rng(4)
    light, heavy = 3000, 60
    true = (0.05 * light + 0.6 * heavy * 20) / (light + heavy * 20)
    covered = 0
    for _ in range(2000):
        n_l, n_h = rng.poisson(light), rng.poisson(heavy)
        scores = np.r_[rng.random(n_l) < 0.05, rng.random(n_h) < 0.6].astype(float)
        w = np.r_[np.ones(n_l), np.full(n_h, 20.0)]
        sample = BinarySample(np.r_[scores, 1.0], np.r_[np.zeros(scores.size, bool), True], np.r_[w, 1.0], np.r_[w, 1.0])
        curve = binary_clf_curve(sample.scores, sample.is_signal, sample.used)
        point = wp.working_points({"test": curve}, {"test": (1.0, hep.effective_events(w))}, {"test": sample},
                                  (1.0,), "test")[0]["test"]  # fmt: skip
        covered += abs(point["eps_b"] - true) <= point["eps_b_error"]
    assert 0.65 <= covered / 2000 <= 0.71
