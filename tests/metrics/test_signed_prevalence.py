"""--weights signed with class weight sums of zero or of opposite sign (issue 49, A14): the
prevalence S / (S + B) is no fraction, so the prevalence-aware metrics are left out (NaN in the
report, null in its JSON, a note naming the sums, one warning line), never a ZeroDivisionError;
the rates and the AUC are kept and equal the weighted Mann-Whitney statistic."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.cli.commands import run_command
from pnetviz.errors import PnetvizWarning
from pnetviz.metrics import hep
from pnetviz.metrics.roc import binary_clf_curve

SCORES = np.array([0.9, 0.8, 0.7, 0.3])
IS_SIGNAL = np.array([True, True, False, False])


def test_positive_yields_give_the_hand_worked_optimum():
    curve = binary_clf_curve(SCORES, IS_SIGNAL, np.ones(4))
    with np.testing.assert_no_warnings():
        metrics = hep.prevalence_metrics(curve)
    assert "prevalence_left_out" not in metrics
    # pi = 1/2: the cut at 0.8 keeps both signal events and no background, accuracy 1
    assert metrics["optimal_operating_point"] == {"eps_s": 1.0, "eps_b": 0.0, "threshold": 0.8, "accuracy": 1.0,
                                                  "prevalence": 0.5}  # fmt: skip
    assert metrics["fip2_hull"] == 1.0  # the hull rises to eps_s = 1 at eps_b = 0: purity 1 throughout


@pytest.mark.parametrize(("weights", "S", "B"), [
    ([1.0, 1.0, -1.0, -1.0], 2.0, -2.0),  # S + B = 0: a ZeroDivisionError on main
    ([2.0, 1.0, -0.5, -0.5], 3.0, -1.0),  # pi = 1.5 on main: numbers without meaning
])  # fmt: skip
def test_sums_of_opposite_sign_leave_the_prevalence_metrics_out(weights, S, B):
    curve = binary_clf_curve(SCORES, IS_SIGNAL, np.array(weights))
    with pytest.warns(PnetvizWarning, match=f"S = {S:g}, B = {B:g}"):
        metrics = hep.prevalence_metrics(curve)
    assert (metrics["signal_yield"], metrics["background_yield"]) == (S, B)
    assert f"S = {S:g}, B = {B:g}" in metrics["prevalence_left_out"]
    assert math.isnan(metrics["fip2_hull"])
    for name in ("fip1", "punzi", "asimov", "optimal_operating_point"):
        assert all(math.isnan(v) for v in metrics[name].values()), name
    assert np.isnan(hep.precision_from_roc(curve)).all()
    assert np.isnan(hep.precision_from_roc(curve, yields=(1.0, 0.0))).all()
    assert np.isfinite(hep.precision_from_roc(curve, yields=(1.0, 1.0))).all()


def test_a_zero_signal_yield_has_no_prevalence():
    assert not hep.prevalence_defined(0.0, 5.0) and not hep.prevalence_defined(5.0, -1.0)
    assert not hep.prevalence_defined(math.nan, 1.0) and hep.prevalence_defined(1e-300, 1e300)


def mann_whitney(scores, is_signal, weights) -> float:
    s, ws = scores[is_signal], weights[is_signal]
    b, wb = scores[~is_signal], weights[~is_signal]
    pairs = (s[:, None] > b[None, :]) + 0.5 * (s[:, None] == b[None, :])
    return float(ws @ pairs @ wb / (ws.sum() * wb.sum()))


def test_pnetviz_binary_signed_with_opposite_sums_keeps_the_auc(tmp_path, capfd):
    rng = np.random.default_rng(7)
    n = 400
    label = np.resize(np.arange(2), n).astype(np.int32)  # signal, background, signal, ...
    score = np.clip(rng.normal(0.35 + 0.3 * (label == 0), 0.2), 0, 1).astype(np.float32)
    weight = np.where(label == 0, 1.0, -1.0)  # NLO-like: the background's weights all negative
    test = (np.arange(n) // 2) % 2 == 1
    path = write_ntuple(tmp_path / "opposite.root", {"score_signal": score, "score_background": 1 - score,
                                                     "true_label": label, "weight": weight, "train_mask": ~test,
                                                     "test_mask": test})  # fmt: skip
    out = tmp_path / "out"
    argv = ["--predictions", str(path), "--weights", "signed", "--output", str(out), "--plots-dir", str(tmp_path / "p"),
            "--bootstrap", "0", "--formats", "none", "-q"]  # fmt: skip
    with pytest.warns(PnetvizWarning) as record:
        assert run_command("binary", argv) == 0
    assert "Traceback" not in capfd.readouterr().err
    # the yields are normalised to the full sample (docs/statistics.md): 200 signal events of +1, 200 of -1
    lines = [str(w.message) for w in record if "left out" in str(w.message)]
    assert lines and all("S = 200, B = -200" in line and "\n" not in line for line in lines)
    report = json.loads((out / "summary_report.json").read_text())
    test_metrics = report["hep_metrics"]["test"]
    assert "S = 200, B = -200" in test_metrics["prevalence_left_out"]
    assert test_metrics["fip2_hull"] is None and test_metrics["optimal_operating_point"]["eps_s"] is None
    expected = mann_whitney(score[test].astype(float), label[test] == 0, weight[test])
    assert report["auc"]["test"] == pytest.approx(expected, abs=1e-12)
