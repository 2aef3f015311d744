"""Issue 34, item 4: a rejection over folds is 1/mean(eps_b) with the asymmetric fold interval
R exp(+-s), s = std(ln eps_b); positive, containing R, in every table (CSV, LaTeX, site)."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest

from pnetviz.web import site
from pnetviz.summary import latex, summary
from pnetviz.metrics import hep
from pnetviz.metrics.folds import Rejection

EPS_B = np.array([0.001, 0.004, 0.02, 0.05, 0.1])  # two decades over five folds


def hand(eps: np.ndarray) -> tuple[float, float, float]:
    r = 1.0 / eps.mean()
    s = float(np.std(np.log(eps), ddof=1))
    return r, r * math.exp(-s), r * math.exp(s)


def test_interval_over_two_decades_is_positive_and_equals_hand_computation():
    rej = Rejection.over_folds(EPS_B, 500.0)
    value, lower, upper = hand(EPS_B)
    assert rej.value == pytest.approx(value) and not rej.lower_limit
    assert (rej.lower, rej.upper) == pytest.approx((lower, upper), rel=1e-12)
    assert 0 < rej.lower < rej.value < rej.upper
    assert rej.upper - rej.value > rej.value - rej.lower  # asymmetric: longer towards high rejection


def test_a_fold_without_passing_background_enters_with_its_limit():
    eps = np.array([0.0, 0.01, 0.1])
    rej = Rejection.over_folds(eps, 300.0)
    floor = hep.eps_b_limit(100.0)  # the folds' mean N_eff
    assert rej.value == pytest.approx(1 / eps.mean())
    s = float(np.std(np.log([floor, 0.01, 0.1]), ddof=1))
    assert (rej.lower, rej.upper) == pytest.approx((math.exp(-s) / eps.mean(), math.exp(s) / eps.mean()))
    limit = Rejection.over_folds(np.zeros(3), 300.0)
    assert limit.lower_limit and limit.lower is None and limit.upper is None
    assert limit.value == pytest.approx(1 / hep.eps_b_limit(300.0))


def rows(eps: np.ndarray) -> list[dict]:
    base = {"channel": "Run3Mu", "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "kind": "binary", "model": "PN",
            "pair": "ttZ", "auc_test": 0.9, "auc_train": 0.9, "fip2": 0.1, "punzi": 0.1, "auc_test_profiled": None,
            "ks_p_signal": 0.5, "ks_p_background": 0.5, "n_eff_test_background": 100.0, "eps_b_0.9": 0.5}
    return [base | {"fold": k, "eps_b_0.5": e, "rejection_0.5": 1 / e, "auc_test": 0.9 + 0.001 * k} for k, e in enumerate(eps)]


def test_tables_show_the_interval_never_a_plus_minus_larger_than_the_value():
    (agg,) = summary.aggregate(rows(EPS_B))
    value, lower, upper = hand(EPS_B)
    assert (agg["rejection_0.5_mean"], agg["rejection_0.5_lower"], agg["rejection_0.5_upper"]) == pytest.approx((value, lower, upper))
    assert "rejection_0.5_std" not in agg
    text = summary.csv_text([agg], ["rejection_0.5_mean", "rejection_0.5_lower", "rejection_0.5_upper"])
    (cells,) = csv.DictReader(io.StringIO(text))
    assert [float(cells[k]) for k in cells] == pytest.approx([value, lower, upper])
    # value 28.57, +158.57 -24.21 (hand): the smaller side to 2 significant digits
    assert (value, upper - value, value - lower) == pytest.approx((28.5714, 158.574, 24.2094), rel=1e-5)
    assert latex.interval_tex(value, lower, upper) == f"${value:.0f}^{{+{upper - value:.0f}}}_{{-{value - lower:.0f}}}$"
    assert latex.interval_tex(value, lower, upper) == "$29^{+159}_{-24}$"
    assert latex.interval_tex(value, None, None, True) == "$>28.6$"
    html = site._rejection_html(agg, "rejection_0.5")
    assert html == "29<sup>+159</sup><sub>&minus;24</sub>" and "&plusmn;" not in html
