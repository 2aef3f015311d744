"""Issue 34, item 6: the binary-vs-multi-class difference carries its paired error: the
event-paired bootstrap over the events both models see (also when the multi-class class holds
more backgrounds), and the fold-paired standard error on the fold summary figure."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from pnetviz.jobs import comparesummary, comparison
from pnetviz.metrics import hep
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.metrics.roc import binary_clf_curve

REPLICAS, SEED = 40, 11


def sides():
    """Binary: signal + ttZ (ids 0..1199); multi-class: the same events scored almost alike, plus
    600 ttW events (ids 5000..) only it holds, in another order."""
    rng = np.random.default_rng(5)
    n = 1200
    y = rng.random(n) < 0.4
    s = rng.normal(1.0 * y, 1.0)
    w = rng.uniform(0.5, 1.5, n)
    ids = np.arange(n)
    extra = 600
    sm = np.r_[s + rng.normal(0, 0.05, n), rng.normal(0.0, 1.0, extra)]  # strongly correlated with the binary score
    ym, wm, idm = np.r_[y, np.zeros(extra, bool)], np.r_[w, rng.uniform(0.5, 1.5, extra)], np.r_[ids, 5000 + np.arange(extra)]
    order = rng.permutation(n + extra)
    binary = comparison.Side(s, y, w, w, ids)
    multi = comparison.Side(sm[order], ym[order], wm[order], wm[order], idm[order])
    return binary, multi


def test_event_paired_error_over_shared_events_equals_a_numpy_recomputation():
    binary, multi = sides()
    opts = HepOptions(bootstrap=REPLICAS, seed=SEED)
    cb, cm = binary_clf_curve(binary.scores, binary.is_signal, binary.used), binary_clf_curve(multi.scores, multi.is_signal, multi.used)
    d = comparison.auc_difference(binary, multi, cb, cm, opts)["difference"]
    assert d["method"].startswith("paired") and "1200 events" in d["method"]
    # by hand: one Poisson count per event id (in id order), the same for both models
    ids = np.unique(np.r_[binary.ids, multi.ids])
    rng = np.random.default_rng(SEED)
    diffs = []
    for _ in range(REPLICAS):
        counts = rng.poisson(1.0, ids.size)
        ca, cb_ = counts[np.searchsorted(ids, binary.ids)], counts[np.searchsorted(ids, multi.ids)]
        diffs.append(roc_auc_score(multi.is_signal, multi.scores, sample_weight=multi.used * cb_)
                     - roc_auc_score(binary.is_signal, binary.scores, sample_weight=binary.used * ca))  # fmt: skip
    assert d["error"] == pytest.approx(np.std(diffs, ddof=1), rel=1e-9)
    quadrature = np.hypot(*(hep.bootstrap(x.scores, x.is_signal, x.used, REPLICAS, SEED).auc_error for x in (binary, multi)))
    assert d["error"] < 0.5 * quadrature  # what the figure showed before: 0.019, paired 0.0064


def test_fold_summary_line_is_the_paired_corrected_standard_error():
    per_fold_b, per_fold_m = np.array([0.90, 0.92, 0.91, 0.93]), np.array([0.905, 0.926, 0.914, 0.937])
    table = {"auc_multiclass": dict(enumerate(per_fold_m)), "auc_binary": dict(enumerate(per_fold_b)),
             "difference_error": dict.fromkeys(range(4), 0.002)}
    st = comparesummary.difference_statistics(table)
    d = per_fold_m - per_fold_b
    se = np.std(d, ddof=1) * np.sqrt(1 / 4 + 1 / 3)  # Nadeau-Bengio with n_test/n_train = 1/(k-1)
    assert st["standard_error"] == pytest.approx(se, rel=1e-12)
    assert st["pooled_bootstrap_error"] == pytest.approx(np.sqrt(4 * 0.002**2) / 4, rel=1e-12)
    (line,) = comparesummary.paired_line({"difference_statistics": st})
    # mean 0.0055, s.e. 0.000986 (PDG: leading digits 986 -> rounded up to 0.0010, two significant digits)
    assert round(se, 6) == 0.000986
    assert line == "#DeltaAUC (MC #minus B): +0.0055 #pm 0.0010 (corr. s.e.)"
