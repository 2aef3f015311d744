"""Physics audit, round 2: each defect reproduced on its toy (these tests fail on the code
before the fix) and recomputed independently (scipy's convex hull, numpy, closed forms)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from conftest import gaussian_toy
from pnetviz.metrics import hep
from pnetviz.metrics.roc import binary_clf_curve

# The audit's 10-event toy (true_label 0 = signal), all in one split, signed weights.
D1_SCORES = np.array([0.82, 0.49, 0.96, 0.99, 0.36, 0.79, 0.27, 0.0, 0.99, 0.57])
D1_SIGNAL = np.array([True] * 5 + [False] * 5)
D1_WEIGHTS = np.array([-0.3, 0.2, 0.4, 0.5, 0.4, 0.3, 0.7, 0.7, 1.0, -0.3])


def upper_hull_fip2(fpr: np.ndarray, tpr: np.ndarray, S: float, B: float) -> float:
    """FIP2 on the upper convex hull of the points, found by scipy (Qhull), independently."""
    pts = np.unique(np.c_[fpr, tpr], axis=0)
    hull = ConvexHull(pts)
    vertices = pts[hull.vertices]
    left, right = vertices[:, 0].min(), vertices[:, 0].max()
    # the upper chain: vertices on or above the chord between the leftmost-highest and rightmost-highest points
    a = vertices[vertices[:, 0] == left][:, 1].max()
    b = vertices[vertices[:, 0] == right][:, 1].max()
    lo = np.array([left, vertices[vertices[:, 0] == left][:, 1].min()])
    chord = lambda x: a + (b - a) * (x - left) / (right - left)  # noqa: E731
    upper = vertices[vertices[:, 1] >= chord(vertices[:, 0]) - 1e-12]
    upper = upper[np.lexsort((upper[:, 1], upper[:, 0]))]
    if lo[1] < a:  # the vertical segment at the left end (pure signal) belongs to the hull's chain
        upper = np.vstack([lo, upper])
    ds, db = np.diff(upper[:, 1]), np.diff(upper[:, 0])
    s, bb = S * ds, B * db
    rho = np.divide(s, s + bb, out=np.zeros_like(s), where=(s + bb) > 0)
    return float(np.sum(rho * ds))


def test_d1_fip2_on_the_true_hull_with_signed_weights():
    curve = binary_clf_curve(D1_SCORES, D1_SIGNAL, D1_WEIGHTS)
    S, B = curve.total_signal, curve.total_background
    assert (S, B) == pytest.approx((1.2, 2.4))
    hull = hep.convex_hull(curve)
    # the audit's hand-worked hull, in yields (B, S): (0, 0) -> (1.0, 1.2) -> (2.4, 1.2)
    assert np.c_[hull.fpr * B, hull.tpr * S] == pytest.approx(np.array([[0, 0], [1.0, 1.2], [2.4, 1.2]]))
    assert hep.prevalence_metrics(curve)["fip2_hull"] == pytest.approx(6 / 11, abs=1e-12)


def test_d1_fip2_equals_scipys_hull_on_a_large_signed_toy():
    s, y, w = gaussian_toy(40_000, 0.3, 1.2, seed=11)
    rng = np.random.default_rng(12)
    w = np.where(rng.random(w.size) < 0.1, -w, w)  # 10% negative weights
    curve = binary_clf_curve(s, y, w)
    assert np.any(np.diff(curve.fpr) < 0)  # the sweep is not monotone in eps_b
    ours = hep.prevalence_metrics(curve)["fip2_hull"]
    assert ours == pytest.approx(upper_hull_fip2(curve.fpr, curve.tpr, curve.total_signal, curve.total_background), abs=1e-9)
    # non-negative weights: the same as before (the sweep is already ordered)
    plain = binary_clf_curve(s, y, np.abs(w))
    assert hep.prevalence_metrics(plain)["fip2_hull"] == pytest.approx(
        upper_hull_fip2(plain.fpr, plain.tpr, plain.total_signal, plain.total_background), abs=1e-9)


def test_item7_hull_excess_against_the_auc_error():
    # a smooth binormal ROC at 1e5 events: its exact curve has dents of a few 1e-4 (the old
    # 1e-9 test called it non-concave), well inside the AUC's bootstrap error
    s, y, w = gaussian_toy(100_000, 0.5, 1.0, seed=21)
    curve = binary_clf_curve(s, y, w)
    error = hep.bootstrap(s, y, w, 100, seed=3).auc_error
    smooth = hep.hull_excess(curve, error)
    assert 0 < smooth["value"] < error and smooth["concave_within_errors"] is True
    assert smooth["in_auc_errors"] == pytest.approx(smooth["value"] / error)
    # a genuinely non-concave ROC: the top 10% of background at the highest scores
    rng = np.random.default_rng(5)
    y2 = rng.random(20_000) < 0.5
    s2 = np.where(y2, rng.normal(1.0, 1.0, y2.size), rng.normal(0.0, 1.0, y2.size))
    s2[(~y2) & (rng.random(y2.size) < 0.1)] = 10.0
    bent = binary_clf_curve(s2, y2)
    e2 = hep.bootstrap(s2, y2, np.ones(y2.size), 100, seed=4).auc_error
    excess = hep.hull_excess(bent, e2)
    assert excess["concave_within_errors"] is False and excess["in_auc_errors"] > 5
    assert hep.hull_excess(bent, float("nan"))["concave_within_errors"] is None


def _fold(fold: int, eps_b_05: float, n_eff: float = 400.0):
    from pnetviz.metrics.folds import EFF_GRID, FoldCurves

    scalars = {k: 0.9 for k in ("auc", "average_precision", "partial_auc_0.1", "fip1", "fip2_hull", "punzi", "asimov")}
    scalars |= {"rejection_0.5": eps_b_05, "rejection_0.9": 0.2}
    return FoldCurves(fold, np.linspace(0, 1, 5), np.full(EFF_GRID.size, eps_b_05), n_eff, scalars)


def test_d3_infinite_rejections_are_averaged_through_eps_b():
    from pnetviz.metrics.folds import aggregate

    # the audit's folds [inf, inf, 348.95]: eps_b = 0, 0, 1/348.95
    agg = aggregate([_fold(0, 0.0), _fold(1, 0.0), _fold(2, 1 / 348.95)])
    assert agg.mean["rejection_0.5"] == pytest.approx(3 * 348.95, rel=1e-12)  # 1/mean(eps_b), not 348.95 +- 0
    assert agg.mean_lower_limit["rejection_0.5"] is False
    spread = np.std(np.log([1 - 0.05 ** (1 / 400), 1 - 0.05 ** (1 / 400), 1 / 348.95]), ddof=1)  # zeros at their limit
    assert agg.interval["rejection_0.5"] == pytest.approx((3 * 348.95 * np.exp(-spread), 3 * 348.95 * np.exp(spread)))
    limit = 1 / (1 - 0.05 ** (1 / 400))  # one fold: Clopper-Pearson, 0 of N_eff = 400 at 95% CL
    assert agg.table["rejection_0.5"]["0"] == pytest.approx(limit) and agg.lower_limits["rejection_0.5"]["0"]
    assert limit == pytest.approx(400 / 2.9957, rel=0.01)  # ~ N_eff / -ln(0.05)
    # every fold without background: a lower limit from the summed effective events, never a placeholder
    none = aggregate([_fold(k, 0.0) for k in range(3)])
    assert none.mean_lower_limit["rejection_0.5"] and none.std["rejection_0.5"] is None
    assert none.mean["rejection_0.5"] == pytest.approx(1 / (1 - 0.05 ** (1 / 1200)))
    assert np.all(np.isfinite(none.rejection_mean)) and np.all(np.isfinite(none.rejection_band[1]))


def test_d3_reports_never_drop_a_rejection_and_count_every_replica():
    from pnetviz.metrics import pairmetrics
    from pnetviz.metrics.evaluate import BinarySample, evaluate_split

    # perfectly separated: no background above the signal's median, eps_b(0.5) = 0
    rng = np.random.default_rng(8)
    y = rng.random(3000) < 0.5
    s = np.where(y, rng.uniform(0.6, 1.0, y.size), rng.uniform(0.0, 0.55, y.size))
    w = rng.uniform(0.5, 1.5, y.size)
    result = evaluate_split(BinarySample(s, y, w, w), "test", ("s", "b"))
    m, boot = pairmetrics.split_metrics(result, pairmetrics.HepOptions(bootstrap=50), seed=1)
    n_eff = hep.effective_events(w[~y])
    assert m["background_efficiency"]["0.5"] == 0.0 and m["rejection_lower_limit"]["0.5"] is True
    assert m["rejection"]["0.5"] == pytest.approx(1 / hep.eps_b_limit(n_eff))
    assert m["rejection_limit"]["effective_background_events"] == pytest.approx(n_eff)
    interval = m["rejection_0.5_interval"]
    assert interval["replicas"] == 50 and interval["replicas_without_background"] == 50
    assert interval["unbounded_above"] and interval["high"] is None
    # a partly infinite set of replicas: quantiles of eps_b over all of them, inverted
    eps = np.r_[np.zeros(30), np.linspace(0.001, 0.01, 70)]
    iv = hep.rejection_interval(eps)
    q16, q84 = np.quantile(eps, [(1 - 0.6827) / 2, (1 + 0.6827) / 2])
    assert iv["low"] == pytest.approx(1 / q84) and iv["replicas_without_background"] == 30
    assert iv["high"] is None and iv["unbounded_above"] and q16 == 0


def test_d4_one_prevalence_for_every_operating_point_quantity():
    from pnetviz.metrics import pairmetrics
    from pnetviz.metrics.evaluate import BinarySample, evaluate_split

    # a split whose signal fraction differs from the full sample's (class-dependent splits)
    s, y, w = gaussian_toy(6000, 0.3, 1.5, seed=31)
    result = evaluate_split(BinarySample(s, y, w, w), "test", ("s", "b"))
    full = (float(w[y].sum() * 4.0), float(w[~y].sum() * 1.5))  # the split holds 25% of signal, 67% of background
    m, _ = pairmetrics.split_metrics(result, pairmetrics.HepOptions(bootstrap=0), seed=1, full=full)
    S, B = m["signal_yield"], m["background_yield"]
    assert (S, B) == pytest.approx(full)
    for name in ("fip1", "iso_accuracy", "threshold_0.5"):
        point = m["operating_points"][name]
        expected = S * point["eps_s"] / (S * point["eps_s"] + B * point["eps_b"])
        assert point["precision"] == pytest.approx(expected, rel=1e-12), name
    # the FIP1 optimum's value is efficiency x purity with that same purity
    fip1 = m["operating_points"]["fip1"]
    assert m["fip1"]["value"] == pytest.approx(fip1["eps_s"] * fip1["precision"], rel=1e-12)


def test_item6_paired_statistics_over_folds_equal_scipy():
    from scipy import stats

    from pnetviz.metrics.folds import paired_difference

    a = np.array([0.812, 0.805, 0.820, 0.799, 0.815])
    b = np.array([0.946, 0.941, 0.950, 0.938, 0.944])
    e = np.array([0.004, 0.005, 0.004, 0.006, 0.005])
    out = paired_difference(b, a, e)
    ref = stats.ttest_rel(b, a)
    d = b - a
    assert out["mean"] == pytest.approx(d.mean()) and out["std"] == pytest.approx(np.std(d, ddof=1))
    assert out["standard_error"] == pytest.approx(np.std(d, ddof=1) / np.sqrt(5))
    assert out["t"] == pytest.approx(ref.statistic, rel=1e-12) and out["dof"] == 4
    assert out["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    w = 1 / e**2
    assert out["combined"] == pytest.approx(np.sum(w * d) / np.sum(w)) and out["combined_error"] == pytest.approx(w.sum() ** -0.5)
    # a noisy difference is not significant; one fold has no t
    noisy = paired_difference([0.80, 0.82, 0.79], [0.81, 0.80, 0.80])
    assert noisy["p_value"] == pytest.approx(stats.ttest_rel([0.80, 0.82, 0.79], [0.81, 0.80, 0.80]).pvalue, rel=1e-9)
    assert noisy["p_value"] > 0.05 and noisy["combined"] is None
    one = paired_difference([0.9], [0.8])
    assert one["mean"] == pytest.approx(0.1) and one["t"] is None and one["p_value"] is None


def test_item8_expected_yields_make_punzi_and_asimov_physical(tmp_path):
    import json

    from conftest import contract_columns, load_script, write_ntuple
    from pnetviz.cli.common import run

    cols = contract_columns(n=3000, n_classes=2)
    cols["weight"] = np.abs(cols["weight"]) * 0.01  # a training normalisation: tiny, unphysical yields
    path = write_ntuple(tmp_path / "p.root", cols)
    base = ["--predictions", str(path), "--formats", "png", "--bootstrap", "0", "-q", "--background", "nonprompt"]
    assert run(load_script("visualizeBinary").main, [*base, "--output", str(tmp_path / "rel")]) == 0
    assert run(load_script("visualizeBinary").main, [*base, "--output", str(tmp_path / "exp"),
                                                     "--expected-yields", "signal=20,nonprompt=500"]) == 0  # fmt: skip
    rel = json.loads((tmp_path / "rel" / "summary_report.json").read_text())["hep_metrics"]
    exp = json.loads((tmp_path / "exp" / "summary_report.json").read_text())["hep_metrics"]
    assert rel["yields"]["kind"] == "relative" and "training weights" in rel["yields"]["meaning"]
    assert exp["yields"] == {"kind": "expected", "meaning": exp["yields"]["meaning"], "signal": 20.0, "background": 500.0}
    test = cols["test_mask"]
    curve = binary_clf_curve(cols["score_signal"][test], cols["true_label"][test] == 0, cols["weight"][test])
    s, b = 20.0 * curve.tpr, 500.0 * curve.fpr
    asimov = np.nanmax(hep.asimov(s, b)[1:])
    punzi = np.max((curve.tpr / (1.5 + np.sqrt(b)))[1:])
    assert exp["test"]["asimov"]["value"] == pytest.approx(asimov, rel=1e-12)
    assert exp["test"]["punzi"]["value"] == pytest.approx(punzi, rel=1e-12)
    assert exp["test"]["signal_yield"] == pytest.approx(20.0) and exp["test"]["background_yield"] == pytest.approx(500.0)
    assert rel["test"]["asimov"]["value"] != pytest.approx(asimov, rel=0.05)  # the training weights are not physics yields
    # a campaign's table: one entry per channel and signal point; a missing one is one line, exit 2
    table = tmp_path / "yields.json"
    table.write_text(json.dumps({"Run3Mu": {"MHc130_MA90": {"signal": 20, "nonprompt": 500}}}))
    argv = [*base, "--output", str(tmp_path / "t"), "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--expected-yields", str(table)]
    assert run(load_script("visualizeBinary").main, argv) == 0
    assert json.loads((tmp_path / "t" / "summary_report.json").read_text())["hep_metrics"]["test"]["asimov"]["value"] == pytest.approx(asimov)
    argv[argv.index("MHc130_MA90")] = "MHc160_MA85"
    assert run(load_script("visualizeBinary").main, [*argv[:-4], "--output", str(tmp_path / "u"), *argv[-4:]]) == 2
