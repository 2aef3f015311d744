"""Weighted DeLong AUC error (the bootstrap's fallback) and degenerate bootstrap replicas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.metrics import hep
from pnetviz.metrics.delong import delong_error


def test_unweighted_delong_equals_the_hand_computation():
    # signal 0.9 0.8 0.4, background 0.7 0.5 0.8 0.2 (one tie at 0.8): V10 = 1, 3.5/4, 1/4 (AUC 2.125/3);
    # V01 = 2/3, 2/3, 1.5/3, 1; S10 = 0.3229167 / 2, S01 = 0.1319444 / 3; Var = S10/3 + S01/4 = 0.0648148
    scores = np.array([0.9, 0.8, 0.4, 0.7, 0.5, 0.8, 0.2])
    is_signal = np.array([1, 1, 1, 0, 0, 0, 0], bool)
    auc = 2.125 / 3
    s10 = sum((v - auc) ** 2 for v in (1.0, 0.875, 0.25)) / 2
    s01 = sum((v - auc) ** 2 for v in (2 / 3, 2 / 3, 0.5, 1.0)) / 3
    assert s10 / 3 + s01 / 4 == pytest.approx(0.0648148, abs=1e-7)
    assert delong_error(scores, is_signal, np.ones(7)) == pytest.approx(math.sqrt(s10 / 3 + s01 / 4), abs=1e-15)


def test_weighted_delong_equals_brute_force_over_pairs():
    rng = np.random.default_rng(3)
    scores = np.round(rng.random(9), 1)  # ties
    is_signal = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0], bool)
    w = rng.uniform(0.2, 3.0, 9)
    s, ws, b, wb = scores[is_signal], w[is_signal], scores[~is_signal], w[~is_signal]
    psi = np.array([[1.0 if x > y else 0.5 if x == y else 0.0 for y in b] for x in s])
    auc = float(ws @ psi @ wb / (ws.sum() * wb.sum()))
    v10, v01 = psi @ wb / wb.sum(), ws @ psi / ws.sum()
    n_s, n_b = ws.sum() ** 2 / (ws**2).sum(), wb.sum() ** 2 / (wb**2).sum()
    var = (n_s / (n_s - 1) * np.sum(ws**2 * (v10 - auc) ** 2) / ws.sum() ** 2
           + n_b / (n_b - 1) * np.sum(wb**2 * (v01 - auc) ** 2) / wb.sum() ** 2)  # fmt: skip
    assert delong_error(scores, is_signal, w) == pytest.approx(math.sqrt(var), rel=1e-12)


def test_tiny_sample_gets_a_finite_error_and_counts_dropped_replicas():
    """6 signal and 5 background events: some Poisson replicas have no signal or no background (no AUC);
    they are dropped and counted, and the error stays finite (before: NaN, an empty auc_test_error)."""
    scores = np.array([0.9, 0.85, 0.7, 0.6, 0.45, 0.3, 0.8, 0.5, 0.4, 0.2, 0.1])
    is_signal = np.r_[np.ones(6, bool), np.zeros(5, bool)]
    boot = hep.bootstrap(scores, is_signal, np.ones(11), 200, 7)
    assert boot.dropped > 0
    assert boot.auc_error_method == "bootstrap" and 0.03 < boot.auc_error < 0.3
    assert boot.auc_error == pytest.approx(np.std(boot.auc[np.isfinite(boot.auc)], ddof=1))
    assert boot.rejection_50_interval["replicas_dropped"] == boot.dropped
    two_signal = hep.bootstrap(scores[4:], is_signal[4:], np.ones(7), 20, 7)  # 20 asked, some without signal
    assert two_signal.dropped > 0 and two_signal.auc_error_method == "delong"
    assert two_signal.auc_error == pytest.approx(delong_error(scores[4:], is_signal[4:], np.ones(7)), rel=1e-15)
    assert math.isfinite(two_signal.auc_error)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_error_from_per_score_sums_equals_the_events_one(seed):
    """The streamed evaluation's AUC error (per-score sums of w and w^2, metrics.summaries) equals
    the event-level weighted DeLong error: scores with ties (rounded to 0.02), weights of both signs."""
    from pnetviz.metrics import summaries  # noqa: PLC0415
    from pnetviz.metrics.delong import delong_error_from_sums  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    y = rng.random(3000) < 0.4
    s = np.round(np.clip(rng.normal(0.35 + 0.3 * y, 0.15), 0, 1) / 0.02) * 0.02
    w = rng.uniform(-0.2, 1.5, s.size)
    summary = summaries.of_events(s.astype(np.float32), y, w)
    from_sums = delong_error_from_sums(*(summary.column(c) for c in summaries.COLUMNS))
    assert from_sums == pytest.approx(delong_error(s.astype(np.float32), y, w), rel=1e-12)
    assert 0.005 < from_sums < 0.05
