"""Profiled ROC: the Gaussian closed form, identities, and the envelope's exactness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.profiled import Nuisance, envelope, profile, summary, trapezoid
from pnetviz.metrics.roc import binary_clf_curve


def sample(scores, is_signal, w=None):
    w = np.ones(scores.size) if w is None else w
    return BinarySample(scores=scores, is_signal=is_signal, weights=w, used=np.abs(w))


def shifted(base: BinarySample, which: np.ndarray, theta: float) -> BinarySample:
    return sample(base.scores + theta * which, base.is_signal, base.weights)


def auc_error(auc: float, n_s: int, n_b: int) -> float:
    """Hanley & McNeil's standard error of an AUC."""
    q1, q2 = auc / (2 - auc), 2 * auc**2 / (1 + auc)
    return math.sqrt((auc * (1 - auc) + (n_s - 1) * (q1 - auc**2) + (n_b - 1) * (q2 - auc**2)) / (n_s * n_b))


def test_gaussian_background_shift_matches_the_closed_form():
    rng = np.random.default_rng(11)
    n, mu_s, mu_b, sig_s, sig_b, tau, k = 1_000_000, 1.0, 0.0, 1.0, 1.3, 0.1, 1.5
    is_signal = rng.random(n) < 0.5
    scores = np.where(is_signal, rng.normal(mu_s, sig_s, n), rng.normal(mu_b, sig_b, n))
    nominal = sample(scores, is_signal)
    bkg = ~is_signal
    shift = Nuisance("bkg_shift", "shift", shifted(nominal, bkg, +k * tau), shifted(nominal, bkg, -k * tau))
    prof = profile(nominal, [shift], kappa=k)
    expected = norm.cdf((mu_s - mu_b - k * tau) / math.hypot(sig_s, sig_b))
    error = auc_error(expected, int(is_signal.sum()), int(bkg.sum()))
    assert prof.auc == pytest.approx(expected, abs=4 * error)
    # the worst case is theta = +k tau at every threshold: exactly the shifted sample's curve
    up = binary_clf_curve(scores + k * tau * bkg, is_signal)
    assert prof.auc == pytest.approx(up.auc, abs=1e-12)
    assert prof.auc <= prof.nominal.auc
    numbers = summary(prof)
    assert numbers["variations"]["bkg_shift"]["up"]["auc"] == pytest.approx(up.auc, abs=1e-12)
    assert numbers["impact"]["bkg_shift"]["delta_auc_up"] < 0 < numbers["impact"]["bkg_shift"]["delta_auc_down"]
    assert numbers["profiled"]["rejection"]["0.5"] < numbers["nominal"]["rejection"]["0.5"]


def test_variations_equal_to_nominal_give_the_nominal_curve_exactly():
    rng = np.random.default_rng(2)
    scores = np.round(rng.random(5000), 2)  # many ties
    is_signal = rng.random(5000) < 0.3
    w = rng.uniform(0.1, 2.0, 5000)
    nominal = sample(scores, is_signal, w)
    prof = profile(nominal, [Nuisance("same", "template", nominal, nominal), Nuisance("again", "template", nominal, nominal)], 2.0)
    assert prof.auc == pytest.approx(prof.nominal.auc, abs=1e-15)  # the same curve, summed in another order
    assert prof.nominal.auc == binary_clf_curve(scores, is_signal, w).auc
    numbers = summary(prof)
    for e, value in numbers["nominal"]["rejection"].items():
        assert numbers["profiled"]["rejection"][e] == pytest.approx(value, rel=1e-12)
    assert len(numbers["configurations"]) == 1 + 4 + 4  # nominal, one at a time, corners


def test_envelope_of_one_curve_is_the_curve():
    rng = np.random.default_rng(3)
    c = binary_clf_curve(np.round(rng.random(3000), 1), rng.random(3000) < 0.5, rng.random(3000))
    fpr, low, high = envelope([(c.fpr, c.tpr)])
    assert trapezoid(fpr, low) == pytest.approx(c.auc, abs=1e-15) and np.array_equal(low, high)


@pytest.mark.parametrize("seed", range(5))
def test_profiled_auc_never_exceeds_nominal(seed):
    rng = np.random.default_rng(seed)
    n = 4000
    is_signal = rng.random(n) < 0.4
    scores = rng.normal(is_signal * 1.0, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    nominal = sample(scores, is_signal, w)
    jes = Nuisance("jes", "template", sample(scores * 1.05 + 0.05, is_signal, w), sample(scores * 0.95 - 0.05, is_signal, w))
    norm_ = Nuisance("xsec", "template", sample(scores, is_signal, w * np.where(is_signal, 1.0, 1.2)),
                     sample(scores, is_signal, w * rng.uniform(0.7, 1.3, n)))  # fmt: skip
    prof = profile(nominal, [jes, norm_], kappa=1.0)
    assert prof.auc <= prof.nominal.auc + 1e-15
    assert np.all(prof.tpr <= prof.best_tpr)


# --- the scripts ---------------------------------------------------------------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from conftest import contract_columns, load_script, write_ntuple  # noqa: E402
from pnetviz.cli.common import run  # noqa: E402
from pnetviz.io.ntuple import read_predictions  # noqa: E402
from pnetviz.demo.trainertree import write_trainer_fold  # noqa: E402


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = tmp_path_factory.mktemp("syst") / "results"
    write_trainer_fold(base, "Run1E2Mu", "MHc130_MA90", 0, events=4000)
    return base


def test_binary_and_multiclass_profiled_outputs(tree, tmp_path):
    common = ["--results-dir", str(tree), "--signal", "MHc130_MA90", "--syst", "all", "--score-shift",
              "background=0.02", "--formats", "png", "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, [*common, "--background", "ttZ", "--output", str(tmp_path / "b")]) == 0
    report = json.loads((tmp_path / "b" / "summary_report.json").read_text())
    syst = report["systematics"]
    assert [n["name"] for n in syst["nuisances"]] == ["bkgShape", "shift_background"]
    assert syst["nominal"]["auc"] == report["auc"]["test"]
    assert syst["profiled"]["auc"] < syst["nominal"]["auc"]
    assert set(syst["impact"]) == {"bkgShape", "shift_background"} and len(syst["configurations"]) == 9
    # the weight variation alone at kappa = 1 is the Up template: its AUC from the branch directly
    preds = read_predictions(Path(report["input"]), classes=("s", "b"), score_classes=("signal",), extra=["weight__bkgShapeUp"])
    t = preds.masks["test"]
    up = binary_clf_curve(preds.scores["signal"][t], preds.label[t] == 0, np.abs(preds.extra["weight__bkgShapeUp"][t]))
    assert syst["variations"]["bkgShape"]["up"]["auc"] == pytest.approx(up.auc, abs=1e-12)
    for stem in ("roc_curve_profiled", "rejection_curve_profiled"):
        assert (tmp_path / "b" / f"{stem}.png").stat().st_size > 1000
    assert run(load_script("visualizeMultiClass").main, [*common, "--output", str(tmp_path / "m")]) == 0
    syst = json.loads((tmp_path / "m" / "summary_report.json").read_text())["systematics"]
    assert set(syst) == {"nonprompt", "diboson", "ttX"}
    assert all(s["profiled"]["auc"] <= s["nominal"]["auc"] for s in syst.values())
    assert (tmp_path / "m" / "signal_vs_ttX_roc_curve_profiled.png").exists()


@pytest.mark.parametrize("change, args, message", [
    ({"weight__normUp": "nan"}, ["--syst", "norm"], "'weight__normUp' has 1 NaN/inf"),
    ({"weight__normUp": None}, ["--syst", "all"], "'weight__normDown' has no 'weight__normUp'"),
    ({}, ["--syst", "jes"], "no variation branches for --syst jes; nuisances found: norm"),
    ({}, ["--syst", "all", "--syst-kappa", "0"], "--syst-kappa 0"),
    ({}, ["--score-shift", "background=abc"], "is not a number"),
])  # fmt: skip
def test_bad_variations_are_one_line(tmp_path, capsys, change, args, message):
    cols = contract_columns(n=600, n_classes=2)
    cols["weight__normUp"], cols["weight__normDown"] = cols["weight"] * 1.1, cols["weight"] * 0.9
    for key, value in change.items():
        if value is None:
            cols.pop(key)
        else:
            cols[key] = cols[key].copy()
            cols[key][5] = np.nan
    path = write_ntuple(tmp_path / "v.root", cols)
    assert run(load_script("visualizeBinary").main, ["--predictions", str(path), "--output", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
