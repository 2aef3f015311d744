"""Profiled ROC: the Gaussian closed form, identities, and the envelope's exactness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from pnetviz.evaluate import BinarySample
from pnetviz.profiled import Nuisance, envelope, profile, summary, trapezoid
from pnetviz.roc import binary_clf_curve


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
