"""The corrected resampled t-test (Nadeau & Bengio, Machine Learning 52 (2003) 239) against a hand
computation and scipy.stats.ttest_rel (its naive part, and the corrected one when the correction
factor k (1/k + n_test/n_train) is 1); identical folds up to rounding give no difference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pnetviz.metrics import folds, foldtests

A = [0.9481, 0.9512, 0.9430, 0.9466, 0.9502]
B = [0.9416, 0.9470, 0.9441, 0.9400, 0.9455]


def test_corrected_t_by_hand():
    d = np.array(A) - np.array(B)  # 0.0065 0.0042 -0.0011 0.0066 0.0047
    out = foldtests.corrected_paired_test(A, B, 0.25)
    se = np.std(d, ddof=1) * math.sqrt(1 / 5 + 0.25)  # var x 2.25/5 instead of var/5
    assert out["standard_error"] == pytest.approx(se, rel=1e-12)
    assert out["t"] == pytest.approx(d.mean() / se, rel=1e-12)
    assert out["p_value"] == pytest.approx(2 * stats.t.sf(abs(d.mean() / se), 4), rel=1e-9)
    naive = stats.ttest_rel(A, B)
    assert out["t_naive"] == pytest.approx(naive.statistic, rel=1e-12) and out["p_naive_t"] == pytest.approx(naive.pvalue, rel=1e-9)
    assert out["t_naive"] / out["t"] == pytest.approx(1.5, rel=1e-12)  # 5 folds, n_test/n_train = 1/4
    assert out["p_value"] > out["p_naive_t"] and out["dof"] == 4 and out["test_train_ratio"] == 0.25


def test_corrected_equals_ttest_rel_when_the_factor_is_one():
    # k (1/k + r) = 1 needs r = 0: no correction, the naive paired t
    out = foldtests.corrected_paired_test(A, B, 0.0)
    ref = stats.ttest_rel(A, B)
    assert out["t"] == pytest.approx(ref.statistic, rel=1e-12) and out["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)


def test_ratio_from_event_counts_and_the_k_fold_default():
    assert foldtests.events_ratio([100, 120, None], [400, 360, 500]) == pytest.approx((0.25 + 1 / 3) / 2)
    assert foldtests.events_ratio([None], [None]) is None
    assert foldtests.corrected_paired_test(A, B, None)["test_train_ratio"] == pytest.approx(0.25)  # 1/(k-1), k = 5


def test_identical_folds_up_to_rounding_are_no_difference():
    a = [0.93, 0.94, 0.95]
    b = [np.nextafter(0.93, 1.0), 0.94, np.nextafter(0.95, 0.0)]  # 1 ulp apart
    for out in (foldtests.corrected_paired_test(a, b, 0.5), folds.paired_difference(a, b)):
        assert out["t"] == 0.0 and out["p_value"] == 1.0 and out["standard_error"] == 0.0
    assert foldtests.corrected_paired_test(a, b, 0.5)["identical"] and foldtests.identical([1e-300], [0.0]) is False
    assert not foldtests.identical(a, [0.93, 0.94, 0.9501])  # a real difference stays one


def test_undefined_cases_are_none():
    one = foldtests.corrected_paired_test([0.9], [0.8], 0.25)
    assert one["t"] is None and one["p_value"] is None and one["dof"] is None and one["mean"] == pytest.approx(0.1)
    constant = foldtests.corrected_paired_test([0.9, 0.8], [0.875, 0.775], 0.25)  # d = 0.025 every fold
    assert constant["p_value"] is None or constant["p_value"] < 1e-6
