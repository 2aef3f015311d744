"""The leaderboard by expected limit and the binary vs multi-class verdict per signal point
(summary.limitsboard) on the fabricated round of conftest.limits_round, whose best
entries are known by construction."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest

from conftest import LIMITS_BINARY, LIMITS_MULTI, limits_round
from pnetviz.summary import limits, limitsboard


@pytest.fixture
def section(tmp_path):
    return limits.section({"jobs": limits_round(tmp_path)})


def test_leaderboard_ranks_every_model_and_strategy_and_picks_the_known_best(section):
    board = [e for e in section["leaderboard"] if (e["channel"], e["signal"]) == ("Run3Mu", "MHc130_MA100")]
    assert [(e["rank"], e["kind"], e["pair"], e["strategy"], e["expected_limit"]) for e in board] == [
        (1, "multiclass-pair", "signal_vs_ttZ", "mass-x-score", 0.7),
        (2, "binary", "signal_vs_ttZ", "cut-and-mass", 0.827),
        (3, "binary", "signal_vs_ttZ", "mass-x-score", 0.9),
        (4, "multiclass-pair", "signal_vs_ttZ", "cut-and-mass", 0.95),
        (5, "weighted-lr", "weighted_lr_all", "score-fit", 1.05),
        (6, "multiclass-pair", "signal_vs_ttZ", "score-fit", 1.1),
        (7, "binary", "signal_vs_ttZ", "score-fit", 1.6),
    ]
    best = board[0]
    assert best["model"] == LIMITS_MULTI
    assert best["ratio_to_score_fit"] == pytest.approx(0.7 / 1.1) and best["score_fit_limit"] == 1.1
    assert board[1]["ratio_to_best"] == pytest.approx(0.827 / 0.7)


def test_leaderboard_leaves_out_failed_and_missing_rows(section):
    ma90 = [e for e in section["leaderboard"] if e["signal"] == "MHc130_MA90"]
    assert [(e["rank"], e["strategy"]) for e in ma90] == [(1, "cut-and-mass"), (2, "score-fit")]  # mass-x-score failed
    assert not [e for e in section["leaderboard"] if e["signal"] == "MHc160_MA85"]
    text = limits.files(section)["campaign_limits_leaderboard.csv"]
    first = next(csv.DictReader(io.StringIO(text)))
    assert tuple(first) == limitsboard.BOARD_FIELDS


def test_binary_vs_multiclass_verdict_per_signal_point(section):
    verdicts = {(v["channel"], v["signal"]): v for v in section["binary_vs_multiclass"]}
    v = verdicts[("Run3Mu", "MHc130_MA100")]
    assert v["better_expected_limit"] == "multiclass"
    assert (v["binary_strategy"], v["binary_expected_limit"], v["multiclass_strategy"], v["multiclass_expected_limit"]) == (
        "cut-and-mass", 0.827, "mass-x-score", 0.7)
    # fold spreads as standard errors: 0.119 / 1.2 / sqrt(3) and 0.1 / 1.1 / sqrt(3), in quadrature
    ratio = 0.7 / 0.827
    assert v["ratio_multiclass_to_binary"] == pytest.approx(ratio)
    assert v["ratio_error"] == pytest.approx(ratio * math.hypot(0.119 / 1.2, 0.1 / 1.1) / math.sqrt(3), rel=1e-9)
    assert verdicts[("Run3Mu", "MHc130_MA90")]["better_expected_limit"] == "missing"  # no multi-class model there
    line = limitsboard.verdict_line(v)
    assert line.startswith("Run3Mu MHc130_MA100: expected limit binary 0.827") and "multi-class is better" in line
    assert "within the fold spread" not in line  # 0.846 +- 0.064: more than one error from 1
    assert limitsboard.verdict_line(verdicts[("Run3Mu", "MHc130_MA90")]) == (
        "Run3Mu MHc130_MA90: expected limit: no multi-class model has one (missing)")
    nothing = {**verdicts[("Run3Mu", "MHc130_MA90")], "binary_expected_limit": None}
    assert limitsboard.verdict_line(nothing).endswith("no binary and no multi-class model has one (missing)")


def test_equal_limits_share_a_rank():
    rows = [{"channel": "Run3Mu", "signal": "MHc130_MA90", "kind": k, "model": m, "pair": "signal_vs_ttZ", "strategy": s,
             "m_hc": 130, "m_a": 90, "status": "ok", "expected_limit": v} for k, m, s, v in
            (("binary", "B", "cut-and-mass", 2.79), ("multiclass-pair", "M", "cut-and-mass", 2.79), ("binary", "B", "score-fit", 3.5))]  # fmt: skip
    board = limitsboard.leaderboard(rows)
    assert [(e["rank"], e["model"], e["strategy"]) for e in board] == [(1, "B", "cut-and-mass"), (1, "M", "cut-and-mass"),
                                                                       (3, "B", "score-fit")]  # fmt: skip
    assert limitsboard.binary_vs_multiclass(rows)[0]["better_expected_limit"] == "tie"


def test_ratio_of_a_side_without_fold_spread_has_no_error():
    a = {"expected_limit": 2.0, "expected_limit_fold_std": None, "folds": 0}
    b = {"expected_limit": 1.0, "expected_limit_fold_std": 0.1, "folds": 4, "fold_limits": [1.0, 1.1, 1.2, 1.3]}
    assert limitsboard.ratio(a, b) == (0.5, None)
    assert limitsboard.relative_error(b) == pytest.approx(0.1 / 1.15 / 2)
    assert limitsboard.ratio(a, {"expected_limit": None}) == (None, None)


def test_each_comparison_of_the_campaign_gets_its_expected_limit_verdict(section):
    base = {"channel": "Run3Mu", "binary_model": LIMITS_BINARY, "multiclass_model": LIMITS_MULTI, "background": "ttZ"}
    compared = [{**base, "signal": "MHc130_MA100", "multiclass_class": "ttZ"},
                {**base, "signal": "MHc130_MA100", "multiclass_class": "weighted_lr_all"},
                {**base, "signal": "MHc130_MA90", "multiclass_class": "ttZ"}]  # fmt: skip
    limitsboard.annotate(compared, section["rows"])
    pair, weighted, alone = compared
    assert (pair["better_expected_limit"], pair["expected_limit_binary"], pair["expected_limit_binary_strategy"],
            pair["expected_limit_multiclass"], pair["expected_limit_multiclass_strategy"]) == (
        "multiclass", 0.827, "cut-and-mass", 0.7, "mass-x-score")  # fmt: skip
    assert pair["expected_limit_ratio_multiclass_to_binary"] == pytest.approx(0.7 / 0.827)
    assert (weighted["better_expected_limit"], weighted["expected_limit_multiclass"]) == ("binary", 1.05)
    assert (alone["better_expected_limit"], alone["expected_limit_binary"], alone["expected_limit_multiclass"]) == (
        "missing", 1.5, None)
    assert set(limitsboard.COMPARED_FIELDS) <= set(pair)  # the columns summary.write adds to the comparison CSV


def test_compare_lines_say_which_kind_gives_the_better_limit(tmp_path):
    jobs = limits_round(tmp_path)
    folds = {(j["signal"], j["kind"]): Path(j["outputs"][0]).parent / "folds" for j in jobs if j["channel"] == "Run3Mu"}
    lines = limitsboard.compare_lines("Run3Mu", "MHc130_MA100", {"ttZ": (folds[("MHc130_MA100", "binary")], LIMITS_BINARY)},
                                      (folds[("MHc130_MA100", "multiclass")], LIMITS_MULTI), {"ttZ": "ttZ"})  # fmt: skip
    # 0.7 / 0.827 = 0.846, its error 0.846 hypot(0.119/1.2, 0.1/1.1) / sqrt(3) = 0.066: one digit
    assert lines == ["expected limit, signal vs ttZ: binary 0.827 (cut-and-mass) vs multi-class 0.7 (signal_vs_ttZ, "
                     "mass-x-score): multi-class is better (multi-class / binary 0.85 ± 0.07)"]
    none = limitsboard.compare_lines("Run3Mu", "MHc130_MA90", {"ttZ": (folds[("MHc130_MA90", "binary")], LIMITS_BINARY)},
                                     (tmp_path / "nowhere" / "folds", LIMITS_MULTI), {"ttZ": "ttZ"})  # fmt: skip
    assert none == ["expected limit, signal vs ttZ: missing (the multi-class model has no folds/limits.json: run it with "
                    "--fold all)"]
