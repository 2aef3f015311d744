"""The campaign summary's numbers from hand-made fold rows: rejection never dropped (1/mean(eps_b),
lower limits printed as "> X"), and the maps' cells."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from pnetviz.summary import summary

LIMIT = 1 / (1 - 0.05 ** (1 / 400))


def row(fold: int, eps05: float, kind: str = "binary", pair: str = "ttZ", model: str = "") -> dict:
    rej, limit = (1 / eps05, False) if eps05 > 0 else (LIMIT, True)
    return {"channel": "Run3Mu", "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "kind": kind, "model": model,
            "pair": pair, "fold": fold, "auc_test": 0.9 + 0.01 * fold, "auc_test_error": 0.01, "auc_train": 0.92,
            "rejection_0.5": rej, "rejection_0.5_limit": limit, "rejection_0.9": 5.0, "rejection_0.9_limit": False,
            "eps_b_0.5": eps05, "eps_b_0.9": 0.2, "fip2": 0.5, "punzi": 0.1, "ks_p_signal": 0.5, "ks_p_background": 0.5,
            "events_test_signal": 100, "events_test_background": 400, "n_eff_test_background": 400.0,
            "auc_test_profiled": None}  # fmt: skip


def test_infinite_folds_are_averaged_through_eps_b_and_printed_as_limits():
    rows = [row(0, 0.0), row(1, 0.0), row(2, 1 / 348.95)]
    (agg,) = summary.aggregate(rows)
    assert agg["rejection_0.5_mean"] == pytest.approx(3 * 348.95)  # the audit saw 348.95 +- 0.0
    assert agg["rejection_0.5_limit"] is False
    cells = list(csv.DictReader(io.StringIO(summary.csv_text(rows, summary.ROW_FIELDS))))
    assert [c["rejection_0.5"] for c in cells] == [f"> {LIMIT!r}", f"> {LIMIT!r}", str(348.95)]
    assert all(c["rejection_0.5"] for c in cells) and [float(c["eps_b_0.5"]) for c in cells][:2] == [0.0, 0.0]
    (none,) = summary.aggregate([row(k, 0.0) for k in range(3)])
    assert none["rejection_0.5_limit"] and none["rejection_0.5_mean"] == pytest.approx(1 / (1 - 0.05 ** (1 / 1200)))
    text = summary.csv_text([none], ["rejection_0.5_mean", "rejection_0.5_std"])
    assert text.splitlines()[1].startswith("> ")


def test_maps_mark_limits_and_bound_the_difference():
    compared = [{"channel": "Run3Mu", "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "tag": "", "background": "ttZ",
                 "multiclass_class": "ttX", "auc_test_binary_mean": 0.90, "auc_test_binary_std": 0.01,
                 "auc_test_multiclass_mean": 0.92, "auc_test_multiclass_std": 0.01, "rejection_0.5_binary_mean": 50.0,
                 "rejection_0.5_binary_std": 5.0, "rejection_0.5_multiclass_mean": LIMIT,
                 "rejection_0.5_multiclass_std": None, "rejection_0.5_binary_limit": False,
                 "rejection_0.5_multiclass_limit": True},
                {"channel": "Run3Mu", "signal": "MHc160_MA85", "m_hc": 160, "m_a": 85, "tag": "", "background": "ttZ",
                 "multiclass_class": "ttX", "auc_test_binary_mean": 0.95, "auc_test_binary_std": 0.01,
                 "auc_test_multiclass_mean": 0.96, "auc_test_multiclass_std": 0.01, "rejection_0.5_binary_mean": LIMIT,
                 "rejection_0.5_binary_std": None, "rejection_0.5_multiclass_mean": LIMIT,
                 "rejection_0.5_multiclass_std": None, "rejection_0.5_binary_limit": True,
                 "rejection_0.5_multiclass_limit": True}]  # fmt: skip
    specs = {s.name: s for s in summary.map_specs([], compared)}
    mc = specs["map_rejection_0p5_multiclass_Run3Mu_ttZ_vs_ttX"]
    assert mc.bounds == {(130, 90): ">", (160, 85): ">"} and mc.points[(130, 90)] == pytest.approx(LIMIT)
    diff = specs["map_rejection_0p5_difference_Run3Mu_ttZ_vs_ttX"]
    assert diff.points == {(130, 90): pytest.approx(LIMIT - 50.0)} and diff.bounds == {(130, 90): ">"}
    assert all(np.isfinite(v) for s in specs.values() for v in s.points.values())  # no placeholder numbers


def test_a_fold_mean_lower_limit_is_raised_to_a_measured_rejection_at_larger_eps_s():
    """R(0.5) over folds a lower limit (no background passes in any fold: 1/eps_b_limit(1200) =
    401.1) beside a measured R(0.9) = 1/mean(eps_b) = 1/0.001 = 1000: the limit reads "> 1000"
    (hep.monotone_limits), as in folds/."""
    rows = [row(k, 0.0) | {"eps_b_0.9": 0.001, "rejection_0.9": 1000.0} for k in range(3)]
    (agg,) = summary.aggregate(rows)
    assert 1 / (1 - 0.05 ** (1 / 1200)) == pytest.approx(401.07, abs=0.01)  # the limit before raising
    assert agg["rejection_0.5_limit"] and agg["rejection_0.5_mean"] == pytest.approx(1000.0)
    assert agg["rejection_0.9_mean"] == pytest.approx(1000.0) and not agg["rejection_0.9_limit"]
    text = summary.csv_text([agg], ["rejection_0.5_mean"])
    assert text.splitlines()[1] == f"> {agg['rejection_0.9_mean']!r}"
