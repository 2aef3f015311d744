"""Issue 34, item 9: the cut scan's optima only where the passing background has N_eff >= a
stated minimum (--cut-scan-min-events, default 10); the rest drawn as statistically empty."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.cli import common
from pnetviz.errors import InputError
from pnetviz.metrics import hep
from pnetviz.metrics import workingpoints as wp
from pnetviz.metrics.roc import binary_clf_curve


def toy():
    """Signal high, background low, and one background MC event at the very top: without the
    constraint the Asimov optimum sits where that one event (or none) passes."""
    rng = np.random.default_rng(3)
    n_s, n_b = 2000, 3000
    s = np.r_[np.clip(rng.normal(0.75, 0.1, n_s), 0, 1), np.clip(rng.normal(0.3, 0.12, n_b - 1), 0, 0.9), 0.999]
    y = np.r_[np.ones(n_s, bool), np.zeros(n_b, bool)]
    w = np.r_[rng.uniform(0.5, 1.5, n_s), rng.uniform(0.5, 1.5, n_b)]
    return s, y, w


def brute_force(s, y, w, S, B, minimum):
    cuts = np.unique(s)[::-1]
    sel_s = np.array([w[y & (s >= c)].sum() for c in cuts]) / w[y].sum() * S
    wb = [w[~y & (s >= c)] for c in cuts]
    sel_b = np.array([x.sum() for x in wb]) / w[~y].sum() * B
    n_eff = np.array([x.sum() ** 2 / (x**2).sum() if x.size else 0.0 for x in wb])
    z = hep.asimov(sel_s, sel_b)
    return cuts, n_eff, z


def test_constrained_optimum_equals_brute_force_and_has_ten_background_events():
    s, y, w = toy()
    S, B = 20.0, 500.0
    curve = binary_clf_curve(s, y, w)
    n_eff = wp.passing_background_events(s, y, w, curve.thresholds[1:])
    scan = wp.cut_scan(curve, S, B, n_eff, 10.0)
    cuts, n_eff_bf, z = brute_force(s, y, w, S, B, 10.0)
    np.testing.assert_allclose(scan["scan"]["threshold"], cuts)
    np.testing.assert_allclose(scan["scan"]["background_n_eff"], n_eff_bf, rtol=1e-10)
    free = scan["optimum_unconstrained"]["asimov"]
    assert n_eff_bf[np.flatnonzero(cuts == free["threshold"])[0]] < 2  # one MC background event left (or about)
    allowed = np.where(n_eff_bf >= 10.0, z, np.nan)
    k = int(np.nanargmax(allowed))
    best = scan["optimum"]["asimov"]
    assert best["threshold"] == cuts[k] and best["value"] == pytest.approx(allowed[k], rel=1e-10)
    assert n_eff_bf[k] >= 10.0 and best["threshold"] < free["threshold"]
    report = wp.scan_report(scan, curve, "expected")
    assert report["constraint"]["min_background_n_eff"] == 10.0 and report["optimum"] == scan["optimum"]


def test_option_is_validated_and_defaults_to_ten():
    args = type("Args", (), {"bootstrap": 10, "signal_scale": 1.0, "seed": 1, "weights": "abs", "working_points": None,
                             "wp_from": "train", "cut_scan_min_events": None})()  # fmt: skip
    assert common.hep_options(args).cut_scan_min_events == 10.0
    args.cut_scan_min_events = 25.0
    assert common.hep_options(args).cut_scan_min_events == 25.0
    args.cut_scan_min_events = -1.0
    with pytest.raises(InputError, match="--cut-scan-min-events"):
        common.hep_options(args)
