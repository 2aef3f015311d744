"""limits.strategies on hand-worked toys: the 101-threshold scan picks the known threshold, the
window and resolution rules, the mass binning, the categories, the templates' sums."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.errors import InputError
from pnetviz.limits import strategies as st


def cols(scores, is_signal, weights, mass=None, systs=None) -> st.Columns:
    return st.Columns(np.asarray(scores, float), np.asarray(is_signal, bool), np.asarray(weights, float),
                      None if mass is None else np.asarray(mass, float), systs or {})  # fmt: skip


def test_parse_window():
    assert st.parse_window("10") == ("GeV", 10.0)
    assert st.parse_window("2.5sigma") == ("sigma", 2.5)
    assert st.parse_window("7GeV") == ("GeV", 7.0)
    for bad in ("", "-3", "0", "2 sigmas", "nan", "x"):
        with pytest.raises(InputError, match="--mass-window"):
            st.parse_window(bad)


def test_mass_point():
    assert st.mass_point("MHc130_MA90") == 90.0
    assert st.mass_point("MHc160_MA155") == 155.0
    assert st.mass_point("signal") is None


def test_asimov_z_closed_form():
    s, b = 5.0, 20.0
    assert st.asimov_z(s, b) == pytest.approx(math.sqrt(2 * ((s + b) * math.log(1 + s / b) - s)), rel=1e-12)
    assert st.asimov_z(0.0, 3.0) == 0.0 and st.asimov_z(3.0, 0.0) == 0.0


def test_window_rules_on_a_uniform_signal():
    # signal mass uniform on [80, 100] (10001 equal-weight points): the central 95 % is [80.5, 99.5],
    # the 68.27 % interval is 13.654 GeV wide: sigma = 6.827
    mass = np.linspace(80.0, 100.0, 10001)
    w = np.ones_like(mass)
    lo, hi, sigma = st.window(mass, w, 90.0, None)
    assert (lo, hi) == pytest.approx((80.5, 99.5), abs=2e-3)
    assert sigma == pytest.approx(0.6827 * 10.0, abs=2e-3)
    assert st.window(mass, w, 90.0, ("GeV", 4.0))[:2] == pytest.approx((86.0, 94.0))
    assert st.window(mass, w, 90.0, ("sigma", 2.0))[:2] == pytest.approx((90 - 2 * sigma, 90 + 2 * sigma))
    assert st.window(mass, w, None, ("GeV", 1.0))[:2] == pytest.approx((89.0, 91.0), abs=2e-3)  # median as centre


def test_mass_edges_one_sigma_wide():
    edges = st.mass_edges(80.0, 100.0, 5.0)
    assert edges.tolist() == [80.0, 85.0, 90.0, 95.0, 100.0]
    assert st.mass_edges(0.0, 100.0, 1.0).size == st.MAX_MASS_BINS + 1
    assert st.mass_edges(0.0, 1.0, 5.0).tolist() == [0.0, 1.0]


def test_scan_picks_the_known_threshold():
    # background uniform in score, signal all at 0.9: Z grows while the cut removes background
    # and keeps the signal; the best cut is the highest grid point at or below 0.9 that keeps at
    # least 10 background events: background events at 0.005, 0.015, ..., 0.995 (100 of them);
    # score >= 0.9 keeps 10 of them (0.905 .. 0.995), score >= 0.91 keeps 9: threshold 0.9
    bkg = np.arange(100) / 100 + 0.005
    scores = np.concatenate([bkg, np.full(20, 0.9)])
    is_signal = np.arange(120) >= 100
    c = cols(scores, is_signal, np.ones(120), np.full(120, 90.0))
    threshold, z = st.scan_cut(c, np.ones(120, bool))
    assert threshold == pytest.approx(0.9)
    assert z == pytest.approx(st.asimov_z(20.0, 10.0))
    # the window: background outside it does not count
    window = np.ones(120, bool)
    window[90:100] = False  # the 10 highest-score background events leave the window
    assert st.scan_cut(c, window)[0] == pytest.approx(0.8)  # 0.805 .. 0.895 kept: 10 events


def test_scan_needs_enough_background():
    c = cols([0.1, 0.9, 0.95], [False, True, True], [1.0, 1.0, 1.0], [90.0] * 3)
    assert st.scan_cut(c, np.ones(3, bool)) is None


def test_categories_on_a_three_population_toy():
    # in one mass bin: 50 background events at score 0.15 (weight 1), 50 at 0.55 (weight 0.2),
    # 50 at 0.95 (weight 0.02); signal 10 at 0.55 and 10 at 0.95 (weight 1). Three categories
    # [0, 0.2), [0.2, 0.6), [0.6, 1] separate the populations: combined Z^2 = Z(10, 10)^2 + Z(10, 1)^2
    bkg = np.repeat([0.15, 0.55, 0.95], 50)
    scores = np.concatenate([bkg, np.repeat([0.55, 0.95], 10)])
    is_signal = np.arange(scores.size) >= 150
    weights = np.concatenate([np.repeat([1.0, 0.2, 0.02], 50), np.ones(20)])
    c = cols(scores, is_signal, weights, np.full(scores.size, 90.0))
    bounds, z = st.categories(c, np.array([80.0, 100.0]))
    assert len(bounds) == 2
    assert 0.15 < bounds[0] <= 0.55 and 0.55 < bounds[1] <= 0.95
    assert z == pytest.approx(math.hypot(st.asimov_z(10, 10), st.asimov_z(10, 1)), rel=1e-9)


def test_categories_two_when_three_do_not_help():
    # one background population only at 0.2 and signal only at 0.8: 2 categories are optimal
    scores = np.concatenate([np.full(40, 0.2), np.full(40, 0.8), np.full(10, 0.8)])
    is_signal = np.arange(90) >= 80
    c = cols(scores, is_signal, np.ones(90), np.full(90, 90.0))
    bounds, z = st.categories(c, np.array([80.0, 100.0]))
    assert len(bounds) == 1 and 0.2 < bounds[0] <= 0.8
    assert z == pytest.approx(st.asimov_z(10, 40), rel=1e-9)


def toy_pair(n=4000, seed=3):
    rng = np.random.default_rng(seed)
    is_signal = rng.random(n) < 0.3
    scores = np.clip(np.where(is_signal, rng.normal(0.75, 0.15, n), rng.normal(0.35, 0.2, n)), 0, 1)
    mass = np.where(is_signal, rng.normal(90, 5, n), 20 + rng.exponential(60, n))
    w = rng.uniform(0.5, 1.5, n)
    systs = {"shape": (w * 1.1, w * 0.9)}
    return cols(scores, is_signal, w, mass, systs)


def test_build_all_templates_and_choices():
    choice, test = toy_pair(seed=3), toy_pair(seed=4)
    built = {b.name: b for b in st.build_all(choice, test, "valid", ("signal", "t t+Z"), [0.0, 0.5, 0.8, 1.0], "MHc130_MA90")}
    assert list(built) == list(st.NAMES) and all(b.error is None and b.chosen_on == "valid" for b in built.values())
    fit = built["score-fit"].model
    (ch,) = fit.channels
    assert ch.backgrounds[0].name == "t_t_Z"  # datacard-safe
    assert ch.signal.contents.sum() == pytest.approx(test.weights[test.is_signal].sum())  # every test event kept
    assert ch.backgrounds[0].sumw2.sum() == pytest.approx((test.weights[~test.is_signal] ** 2).sum())
    up, down = ch.signal.shape_systs["shape"]
    assert up.sum() == pytest.approx(1.1 * ch.signal.contents.sum()) and down.sum() == pytest.approx(0.9 * ch.signal.contents.sum())
    cm = built["cut-and-mass"]
    lo, hi = cm.choices["window"]
    keep = (test.scores >= cm.choices["threshold"]) & (test.mass >= lo) & (test.mass < hi)
    (ch,) = cm.model.channels
    assert ch.signal.contents.sum() == pytest.approx(test.weights[keep & test.is_signal].sum())
    assert ch.edges.tolist() == cm.choices["mass_edges"]
    mxs = built["mass-x-score"].model
    assert len(mxs.channels) in (2, 3)
    in_window = (test.mass >= lo) & (test.mass < hi)
    total = sum(c.backgrounds[0].contents.sum() for c in mxs.channels)
    assert total == pytest.approx(test.weights[in_window & ~test.is_signal].sum())  # categories partition the window


def test_mass_strategies_without_mass_say_why():
    c = toy_pair()
    c = st.Columns(c.scores, c.is_signal, c.weights)
    built = st.build_all(c, c, "train", ("signal", "ttZ"), [0.0, 1.0], "MHc130_MA90")
    assert built[0].error is None and built[0].model is not None
    assert [b.error for b in built[1:]] == ["no mass observable (give --mass-column)"] * 2
    assert all(b.model is None for b in built[1:])


def test_mass_bins_merged_until_each_holds_the_minimum():
    edges = np.array([0.0, 1, 2, 3, 4, 5])
    assert st.merged_edges(edges, [np.array([3.0, 2, 5, 1, 1])], 5).tolist() == [0.0, 2, 5]  # 3+2 | 5 (+1+1 joins)
    # every category must hold the minimum
    two = [np.array([5.0, 5, 5, 5, 5]), np.array([0.0, 5, 0, 5, 5])]
    assert st.merged_edges(edges, two, 5).tolist() == [0.0, 2, 4, 5]
    assert st.merged_edges(edges, [np.ones(5)], 100).tolist() == [0.0, 5]  # too few anywhere: one bin
    c = cols([0.5] * 4, [False, False, True, False], [1.0] * 4, [0.5, 1.5, 1.5, 7.0])
    assert st.background_counts(c, edges).tolist() == [1.0, 1, 0, 0, 0]  # 7.0 is outside


def test_scan_equals_a_brute_force_scan():
    rng = np.random.default_rng(7)
    n = 3000
    is_signal = rng.random(n) < 0.2
    scores = np.round(np.clip(np.where(is_signal, rng.normal(0.7, 0.2, n), rng.normal(0.3, 0.2, n)), 0, 1), 3)  # ties
    w = rng.uniform(0.1, 2.0, n)
    window = rng.random(n) < 0.6
    c = cols(scores, is_signal, w, np.zeros(n))
    thresholds = np.linspace(0, 1, 101)
    z = []
    for t in thresholds:
        keep = window & (scores >= t)
        nb = (keep & ~is_signal).sum()
        z.append(st.asimov_z(w[keep & is_signal].sum(), w[keep & ~is_signal].sum()) if nb >= st.MIN_BACKGROUND_EVENTS else -1.0)
    k = int(np.argmax(z))
    threshold, best = st.scan_cut(c, window)
    assert threshold == pytest.approx(thresholds[k]) and best == pytest.approx(z[k], rel=1e-12)

