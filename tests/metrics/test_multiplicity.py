"""Holm and Benjamini-Hochberg adjustment against scipy and a hand computation on a fixed list;
non-tests (None, NaN) excluded from the family and left NaN; the empty family."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pnetviz.metrics import multiplicity

P = [0.01, 0.04, 0.03, 0.005, 0.20]


def test_holm_by_hand():
    # sorted: 0.005 (x5) 0.01 (x4) 0.03 (x3) 0.04 (x2) 0.20 (x1) -> 0.025 0.04 0.09 0.08->0.09 0.20
    np.testing.assert_allclose(multiplicity.holm(P), [0.04, 0.09, 0.09, 0.025, 0.20], rtol=1e-14)


def test_benjamini_hochberg_by_hand_and_scipy():
    # m p_(j)/j: 0.005*5/1 = 0.025, 0.01*5/2 = 0.025, 0.03*5/3 = 0.05, 0.04*5/4 = 0.05, 0.2; running min from the top
    expected = [0.025, 0.05, 0.05, 0.025, 0.20]
    np.testing.assert_allclose(multiplicity.benjamini_hochberg(P), expected, rtol=1e-14)
    np.testing.assert_allclose(multiplicity.benjamini_hochberg(P), stats.false_discovery_control(P, method="bh"), rtol=1e-14)
    rng = np.random.default_rng(3)
    many = rng.uniform(0, 0.2, 40)
    np.testing.assert_allclose(multiplicity.benjamini_hochberg(many), stats.false_discovery_control(many, method="bh"))


def test_non_tests_are_excluded_from_the_family():
    holm = multiplicity.holm([0.01, None, float("nan"), 0.04, "n/a"])
    assert holm[0] == pytest.approx(0.02) and holm[3] == pytest.approx(0.04)  # a family of two, not five
    assert all(math.isnan(x) for x in (holm[1], holm[2], holm[4]))
    bh = multiplicity.benjamini_hochberg([None, 0.03, 0.02])
    assert math.isnan(bh[0]) and bh[1:] == pytest.approx([0.03, 0.03])
    assert multiplicity.family_size([0.1, None, float("nan"), 1.0]) == 2
    assert multiplicity.holm([]) == [] and multiplicity.benjamini_hochberg([None]) == [0] * 0 + [pytest.approx(math.nan, nan_ok=True)]


def test_adjusted_values_capped_at_one():
    assert multiplicity.holm([0.5, 0.6, 0.9]) == pytest.approx([1.0, 1.0, 1.0])
    assert max(multiplicity.benjamini_hochberg([0.9, 0.95, 1.0])) == 1.0
