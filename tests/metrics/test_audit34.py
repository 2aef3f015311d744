"""Issue 34 audit items: one prevalence, relative cut-scan labels, binned FIP error, monotone lower
limits, numpy's binning edge, CSV cells, a skipped multi-class pair, the calibration prevalence note."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import contract_columns, load_script, write_ntuple
from pnetviz.summary.summary import _cell
from pnetviz.cli.common import run
from pnetviz.draw import plots
from pnetviz.escape import csv_table
from pnetviz.jobs.multiclass import class_tables
from pnetviz.metrics import hep, pairmetrics, workingpoints as wp
from pnetviz.metrics.calibration import prevalence_note, reliability
from pnetviz.metrics.evaluate import N_BINS, BinarySample, binned_sums, equal_bins
from pnetviz.metrics.roc import binary_clf_curve


def toy(n=4000, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    return np.clip(rng.normal(np.where(y, 0.65, 0.4), 0.15), 0, 1), y, rng.uniform(0.5, 1.5, n)


def test_analysis_prevalence_curve_uses_the_operating_points_yields():
    """Class-dependent split fractions: the test split holds 10% of the signal weight and 40% of the
    background's, so its own S/B is 4x below the full sample's. The analysis-prevalence PR curve and the
    operating points must use one prevalence: the full sample's (the report's signal/background_yield)."""
    s, y, w = toy()
    curve = binary_clf_curve(s, y, w)
    S, B = curve.total_signal / 0.1, curve.total_background / 0.4  # the full sample's weight sums
    precision = hep.precision_from_roc(curve, yields=(2.0 * S, B))  # --signal-scale 2
    k = int(np.argmax(curve.tpr[1:] >= 0.5))
    point = hep.operating_point(curve.tpr[1 + k], curve.fpr[1 + k], 2.0 * S, B)
    assert precision[k] == pytest.approx(point["precision"], rel=1e-12)
    own = hep.precision_from_roc(curve, 2.0)  # the test split's own S/B: what the figure drew before
    assert own[k] < precision[k] - 0.05  # 0.904 against 0.974


def scan(kind):
    s, y, w = toy()
    curve = binary_clf_curve(s, y, w)
    fig = plots.cut_scan_figure("cut_scan", "cut_scan", wp.cut_scan(curve, 50.0 * curve.total_signal, curve.total_background),
                                "cut", ["toy"], kind)  # fmt: skip
    legends = [o for o in fig.extras if o.InheritsFrom("TLegend")]
    return [*fig.labels.values(), *(e.GetLabel() for leg in legends for e in leg.GetListOfPrimitives())]


def test_cut_scan_shows_significances_only_with_expected_yields():
    relative = " | ".join(scan("relative"))
    assert "(max " not in relative and "Z_{A}" not in relative  # no value, no Asimov
    assert [t for t in scan("relative") if t.startswith("S/#sqrt{S+B}, max at ")]  # its optimum: the one Z drawn
    expected = scan("expected")
    assert [t for t in expected if t.startswith("Z_{A} (max ") and " at " in t]  # the optimum in Z_A's own entry
    assert not [t for t in expected if "max at" in t.lower()]  # no entry of its own for the dotted line


def test_binned_fip_has_a_bootstrap_error_and_a_hull_flag():
    s, y, w = toy(600, 3)
    sample = BinarySample(s, y, w, w)
    err = pairmetrics.binned_fip_error(sample, (1.0, 1.0), 200, 5)
    values = []  # brute force: the same replicas written out
    rng, bins = np.random.default_rng(5), equal_bins(s, N_BINS)
    for _ in range(200):
        c = rng.poisson(1.0, s.size) * w
        values.append(hep.binned_fip(np.bincount(bins[y], c[y], N_BINS), np.bincount(bins[~y], c[~y], N_BINS)))
    assert err == pytest.approx(np.std(values, ddof=1), rel=1e-12) and 0.005 < err < 0.1


def test_lower_limits_are_monotone_in_the_signal_efficiency():
    """One background event at 0.905, among 90 signal events in [0.9, 0.99]: eps_b(0.5) = 0 (a lower limit
    1/eps_b_limit(N_eff) = 33.9), while eps_b(0.9) ~ 1/100 is measured: R(0.5) >= R(0.9) ~ 100."""
    s = np.r_[np.linspace(0.9, 0.99, 90), np.linspace(0.1, 0.5, 10), np.linspace(0.0, 0.5, 99), 0.905]
    y = np.r_[np.ones(100, bool), np.zeros(100, bool)]
    curve = binary_clf_curve(s, y, np.ones(200))
    out = pairmetrics.rejections(curve, 100.0)
    assert out["rejection_lower_limit"]["0.5"] and not out["rejection_lower_limit"]["0.9"]
    r09 = out["rejection"]["0.9"]
    assert r09 > 1 / hep.eps_b_limit(100.0) and out["rejection"]["0.5"] == pytest.approx(r09, rel=1e-12)
    assert hep.monotone_limits({"0.5": 4.55, "0.9": 10.13}, {"0.5": True, "0.9": False}) == {"0.5": 10.13, "0.9": 10.13}


def test_an_edge_value_is_binned_as_numpy_does():
    values = np.round(np.arange(0.0, 1.0001, 0.01), 2)
    for nbins in (10, 50):
        assert np.array_equal(equal_bins(values, nbins), [np.histogram([v], nbins, (0, 1))[0].argmax() for v in values])
    assert equal_bins(np.array([0.58]), 50)[0] == 29  # 0.58 * 50 = 28.999999999999996
    sums, _ = binned_sums(np.array([0.58]), np.ones(1))
    assert sums[29] == 1.0
    rel = reliability(np.array([0.3, 0.6, 0.7]), np.ones(3, bool), np.ones(3))  # 10 bins: the edge 3 * 0.1 > 0.3
    assert list(np.flatnonzero(rel.sum_weights)) == [2, 5, 6] == [np.histogram([v], 10, (0, 1))[0].argmax() for v in (0.3, 0.6, 0.7)]
    scores = np.array([[0.58, 0.7], [0.42, 0.3]])  # C++ tables (rows = classes): 0.58 in bin 29, 0.7 in 34 as numpy
    tables = class_tables(scores, np.array([0, 0]), np.ones(2), np.ones(2, bool))
    assert list(np.flatnonzero(tables.hist[0, 0])) == [29, 34] == [np.histogram([v], 50, (0, 1))[0].argmax() for v in (0.58, 0.7)]


def test_csv_lower_limits_full_precision_and_nan_empty():
    limit = 1 / hep.eps_b_limit(123.4)
    assert _cell({"r": limit, "r_limit": True}, "r") == f"> {limit!r}"
    assert float(_cell({"r": limit, "r_limit": True}, "r")[2:]) == limit
    assert _cell({"r": float("nan")}, "r") == ""
    assert csv_table([{"a": float("nan"), "b": 1.5}], ["a", "b"]).splitlines()[1] == ",1.5"


def test_calibration_note_on_class_dependent_splits():
    s, y, w = toy()
    train, test = np.arange(s.size) % 2 == 0, np.arange(s.size) % 2 == 1
    test &= ~y | (np.arange(s.size) % 4 == 1)  # half the test signal dropped: a prevalence change only
    per = {k: reliability(s[m], y[m], w[m]) for k, m in (("train", train), ("test", test))}
    assert "prevalence change alone" in prevalence_note(per)
    assert prevalence_note({"train": per["train"], "test": reliability(s[train], y[train], w[train])}) is None


def test_multiclass_pair_with_an_absent_class_is_skipped_not_fatal(tmp_path):
    cols = contract_columns(600, seed=4)
    cols["train_mask"] = cols["train_mask"] & (cols["true_label"] != 2)  # no diboson in train
    path = write_ntuple(tmp_path / "pred.root", cols)
    with pytest.warns(UserWarning, match="pair signal vs diboson skipped"):
        code = run(load_script("visualizeMultiClass").main, ["--predictions", str(path), "--output", str(tmp_path / "o"),
                                                             "--formats", "png", "--bootstrap", "0", "-q"])  # fmt: skip
    assert code == 0
    report = json.loads((tmp_path / "o" / "summary_report.json").read_text())
    assert list(report["skipped_pairs"]) == ["diboson"] and "train split" in report["skipped_pairs"]["diboson"]
    assert set(report["hep_metrics"]) >= {"nonprompt", "ttZ"} and "diboson" not in report["hep_metrics"]
    assert any("diboson skipped" in n for n in report["notes"])
