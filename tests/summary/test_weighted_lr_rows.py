"""The campaign with the weighted LR's rows (pair weighted_lr_<class>, weighted_lr_all), from
hand-made fold rows: ranked on the leaderboard with the binary background its class is compared
with, and mapped against that binary model as the class's pairwise LR is."""

from __future__ import annotations

import pytest

from pnetviz.summary import summary
from pnetviz.summary.leaderboard import leaderboard, pairings


def row(fold: int, auc: float, kind: str, pair: str, model: str) -> dict:
    return {"channel": "Run3Mu", "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "kind": kind, "model": model,
            "pair": pair, "fold": fold, "auc_test": auc, "auc_test_error": 0.01, "auc_train": auc, "rejection_0.5": 10.0,
            "rejection_0.5_limit": False, "rejection_0.9": 5.0, "rejection_0.9_limit": False, "eps_b_0.5": 0.1,
            "eps_b_0.9": 0.2, "fip2": 0.5, "punzi": 0.1, "ks_p_signal": 0.5, "ks_p_background": 0.5,
            "events_test_signal": 100, "events_test_background": 400, "n_eff_test_background": 400.0,
            "auc_test_profiled": None, "events_train_signal": 400, "events_train_background": 1600}  # fmt: skip


ROWS = [row(f, a + 0.002 * f, kind, pair, model) for f in range(3) for a, kind, pair, model in (
    (0.90, "binary", "ttZ", "b"), (0.91, "multiclass", "ttX", "m"), (0.93, "multiclass", "weighted_lr_ttX", "m"),
    (0.95, "multiclass", "weighted_lr_all", "m"))]  # fmt: skip
INFO = {("Run3Mu", "MHc130_MA90", "m"): {"classes": ["signal", "nonprompt", "diboson", "ttX"],
                                         "groups": {"groups": {"ttX": ["TTZToLLNuNu", "ttWToLNu"]}}}}  # fmt: skip


def test_leaderboard_ranks_the_weighted_lr_with_its_binary_background():
    agg = summary.aggregate(ROWS)
    pairing = pairings(INFO, {("Run3Mu", "MHc130_MA90", "ttZ")})
    assert pairing.table[("Run3Mu", "MHc130_MA90", "ttZ")] == [("m", "ttX")]
    board = leaderboard(ROWS, agg, pairing)
    ttz = [e for e in board if e["background"] == "ttZ"]
    assert [e["pair"] for e in ttz] == ["weighted_lr_ttX", "ttX", "ttZ"]  # best first: 0.932, 0.912, 0.902
    assert [e["auc_test_mean"] for e in ttz] == pytest.approx([0.932, 0.912, 0.902])
    assert [e["pair"] for e in board if e["background"] == "weighted_lr_all"] == ["weighted_lr_all"]


def test_binary_compared_with_the_weighted_lr_and_mapped():
    agg = summary.aggregate(ROWS)
    pairing = pairings(INFO, {("Run3Mu", "MHc130_MA90", "ttZ")})
    index = {(a["channel"], a["signal"], a["kind"], a["model"], a["pair"]): a for a in agg}
    assert index[("Run3Mu", "MHc130_MA90", "multiclass", "m", "weighted_lr_ttX")]["auc_test_mean"] == pytest.approx(0.932)
    compared = [{"channel": "Run3Mu", "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "tag": "", "background": "ttZ",
                 "multiclass_class": cls, "auc_test_binary_mean": 0.902, "auc_test_multiclass_mean": m,
                 "auc_test_binary_std": 0.002, "auc_test_multiclass_std": 0.002, "rejection_0.5_binary_mean": 10.0,
                 "rejection_0.5_multiclass_mean": 10.0, "n_folds_binary": 3, "n_folds_multiclass": 3}
                for cls, m in (("ttX", 0.912), ("weighted_lr_ttX", 0.932))]  # fmt: skip
    assert {c for _, c in pairing.table[("Run3Mu", "MHc130_MA90", "ttZ")]} == {"ttX"}
    specs = {s.name: s for s in summary.map_specs(agg, compared)}
    diff = specs["map_auc_test_difference_Run3Mu_ttZ_vs_weighted_lr_ttX"]
    assert diff.points[(130, 90)] == pytest.approx(0.932 - 0.902)
    assert "multi-class (t#bar{t}X, weighted LR) minus binary (t#bar{t}Z)" in diff.title
    assert "signal vs t#bar{t}X, weighted LR" in specs["map_auc_test_multiclass_Run3Mu_ttZ_vs_weighted_lr_ttX"].title
    assert summary.pair_label("weighted_lr_all") == "all backgrounds, weighted LR"
