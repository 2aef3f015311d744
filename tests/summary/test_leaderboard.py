"""The campaign leaderboard and the short variant names, from hand-made fold rows: ranking by mean
test AUC over the folds all members share, standard errors, corrected (Nadeau-Bengio) p-values by
hand and the naive ones against scipy.stats.ttest_rel, Holm over the leaderboard's family, ties
("1="), n/a without common folds; the CSV, the LaTeX table (escaped) and the web overview."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
from scipy import stats

from conftest import compile_latex

from pnetviz.web import site
from pnetviz.summary import latex, summary

BASE = "ParticleNet-nNodes128-Adam-initLR0p0010-decay0p00010-StepLR-weighted_ce"


def test_variant_names_keep_the_hyperparameters_that_differ():
    other = BASE.replace("nNodes128", "nNodes64")
    third = BASE.replace("nNodes128", "nNodes64").replace("Adam", "RMSprop")
    assert summary.variant_names([BASE]) == {BASE: ""}
    assert summary.variant_names([BASE, other]) == {BASE: "nNodes128", other: "nNodes64"}
    assert summary.variant_names([BASE, other, third]) == {BASE: "nNodes128-Adam", other: "nNodes64-Adam",
                                                           third: "nNodes64-RMSprop"}  # fmt: skip
    longer = f"{BASE}-dropout0p2"  # a part only one name has
    assert summary.variant_names([BASE, longer]) == {BASE: BASE, longer: "dropout0p2"}  # nothing left: the full tag
    assert summary.variant_names(["", BASE]) == {"": "", BASE: BASE}  # pnetviz's first layout (no model name)


def row(model: str, kind: str, pair: str, fold: int, auc: float, eps05: float = 0.02) -> dict:
    return {"channel": "Run3Mu", "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "kind": kind, "model": model,
            "pair": pair, "fold": fold, "auc_test": auc, "auc_test_error": 0.01, "auc_train": auc,
            "rejection_0.5": 1 / eps05, "rejection_0.9": 5.0, "eps_b_0.5": eps05, "eps_b_0.9": 0.2, "fip2": 0.5,
            "punzi": 0.1, "ks_p_signal": 0.5, "ks_p_background": 0.5, "events_test_signal": 100,
            "events_test_background": 400, "n_eff_test_background": 400.0, "auc_test_profiled": None,
            "events_train_signal": 200, "events_train_background": 800}  # fmt: skip  # n_test/n_train = 1/2


BINARY_A = f"{BASE}-binary-ttZ"
BINARY_B = f"{BASE.replace('nNodes128', 'nNodes64')}-binary-ttZ"
MULTI = f"{BASE}-3grp-nonprompt-diboson-ttX"
AUCS = {BINARY_A: [0.91, 0.93, 0.92, 0.95], BINARY_B: [0.90, 0.90, 0.91, 0.93], MULTI: [0.92, 0.94, 0.93, 0.95]}


@pytest.fixture
def board():
    rows = [row(m, "multiclass" if m == MULTI else "binary", "ttX" if m == MULTI else "ttZ", f, a)
            for m, aucs in AUCS.items() for f, a in enumerate(aucs)]  # fmt: skip
    rows += [row(f"{BASE}-binary-nonprompt", "binary", "nonprompt", 7, 0.99)]  # one fold, no partner
    agg = summary.aggregate(rows)
    pairing = summary.Pairing({("Run3Mu", "MHc130_MA90", "ttZ"): [(MULTI, "ttX")]})
    return summary.leaderboard(rows, agg, pairing)


def test_leaderboard_ranks_by_mean_auc_with_corrected_p_values(board):
    ttz = [e for e in board if e["background"] == "ttZ"]
    assert [e["model"] for e in ttz] == [MULTI, BINARY_A, BINARY_B]  # means 0.935, 0.9275, 0.91
    assert [e["position"] for e in ttz] == [1, 2, 3]
    assert [e["variant"] for e in ttz] == ["nNodes128", "nNodes128", "nNodes64"]
    assert ttz[0]["note"] == "best" and ttz[0]["diff_to_best_mean"] == 0.0
    p_values = []
    for e in ttz[1:]:
        best, mine = np.array(AUCS[MULTI]), np.array(AUCS[e["model"]])
        d = best - mine
        se = np.std(d, ddof=1) * np.sqrt(1 / 4 + 1 / 2)  # 4 folds, n_test/n_train = 500/1000
        t, p = stats.ttest_rel(best, mine)
        assert e["diff_to_best_mean"] == pytest.approx(np.mean(d))
        assert e["diff_to_best_t_naive"] == pytest.approx(t) and e["diff_to_best_p_naive_t"] == pytest.approx(p)
        assert e["diff_to_best_t"] == pytest.approx(d.mean() / se)
        assert e["diff_to_best_p_value"] == pytest.approx(2 * stats.t.sf(d.mean() / se, 3))
        assert e["diff_to_best_standard_error"] == pytest.approx(se) and e["diff_to_best_test_train_ratio"] == 0.5
        p_values.append(e["diff_to_best_p_value"])
        assert e["auc_test_standard_error"] == pytest.approx(np.std(mine, ddof=1) / 2)
        assert e["rejection_0.5_mean"] == pytest.approx(50.0)
    # Holm over the family of two (the lonely nonprompt model has no comparison): p 0.063 and 0.18
    low, high = sorted(p_values)
    assert ttz[2]["diff_to_best_p_holm"] == pytest.approx(2 * low) and ttz[1]["diff_to_best_p_holm"] == pytest.approx(max(2 * low, high))
    # the naive t would call BINARY_B worse (p 0.015, Holm 0.031); the corrected test leaves all three compatible
    assert [e["rank"] for e in ttz] == ["1=", "1=", "1="] and [e["compatible_with_best"] for e in ttz] == [True, True, True]
    lonely = [e for e in board if e["background"] == "nonprompt"]
    assert len(lonely) == 1 and lonely[0]["rank"] == "1" and math.isnan(lonely[0]["auc_test_standard_error"])
    assert lonely[0]["diff_to_best_p_holm"] is None


def test_models_without_common_folds_say_n_a():
    rows = [row(BINARY_A, "binary", "ttZ", f, a) for f, a in ((0, 0.95), (1, 0.96))]
    rows += [row(BINARY_B, "binary", "ttZ", f, a) for f, a in ((2, 0.90), (3, 0.91))]
    board = summary.leaderboard(rows, summary.aggregate(rows), summary.Pairing({}))
    assert [e["model"] for e in board] == [BINARY_A, BINARY_B]
    assert board[1]["diff_to_best_p_value"] == "n/a" and board[1]["note"] == "no common folds with the best"
    cells = list(csv.DictReader(io.StringIO(summary.csv_text(board, summary.LEADERBOARD_FIELDS))))
    assert [c["rank"] for c in cells] == ["1", "2"] and cells[1]["diff_to_best_p_value"] == "n/a"
    assert cells[0]["variant"] == "nNodes128" and cells[1]["variant"] == "nNodes64"


def test_leaderboard_latex_and_site_escape_names(board):
    hostile = [dict(e, variant="nodes_64&<b>", background="t#t%") for e in board]
    tex = latex.leaderboard_tables(hostile)
    assert r"nodes\_64\&" in tex and "t\\#t\\%" in tex and "<b>" not in tex.replace(r"\textless{}b\textgreater{}", "")
    assert tex.count(r"\begin{table}") == 1 and tex.count(r"\midrule") == 1  # one channel and background, one signal
    page = site._leaderboard_table(hostile)
    assert "nodes_64&amp;&lt;b&gt;" in page and "<b>" not in page
    assert page.count("<tr>") == len(board) + 1 and 'class="sortable"' in page


def test_leaderboard_latex_compiles_within_16cm(board, tmp_path):
    compile_latex(latex.leaderboard_tables(board), tmp_path)


def board_of(aucs: dict[str, list[float | None]]) -> list[dict]:
    rows = [row(m, "binary", "ttZ", f, a) for m, values in aucs.items() for f, a in enumerate(values) if a is not None]
    return summary.leaderboard(rows, summary.aggregate(rows), summary.Pairing({}))


def test_ranking_on_the_folds_all_members_share():
    # the audit's case: a variant trained on folds 0-2 only has the higher own mean (0.942), the other
    # model beats it in every shared fold (0.9481 vs 0.9416) but has two weaker folds of its own
    board = board_of({BINARY_B: [0.9416, 0.9420, 0.9424, None, None], BINARY_A: [0.9481, 0.9485, 0.9489, 0.925, 0.926]})
    assert [e["model"] for e in board] == [BINARY_A, BINARY_B]
    assert board[0]["auc_test_mean_ranked"] == pytest.approx(0.9485) and board[0]["rank_folds"] == 3
    assert board[1]["diff_to_best_mean"] == pytest.approx(0.0065) and board[1]["diff_to_best_folds"] == 3
    assert "missing folds 3, 4" in board[1]["note"] and board[0]["folds"] == 5 and board[1]["folds"] == 3
    cells = list(csv.DictReader(io.StringIO(summary.csv_text(board, summary.LEADERBOARD_FIELDS))))
    assert cells[0]["rank_folds"] == "3" and cells[1]["diff_to_best_p_naive_t"] and cells[1]["diff_to_best_q_bh"]


def test_ties_with_the_best_are_marked():
    board = board_of({BINARY_A: [0.950, 0.960, 0.940, 0.950, 0.960],
                      BINARY_B: [0.9501, 0.9598, 0.9401, 0.9499, 0.9597],  # noise around the best
                      f"{BASE}-dropout0p5-binary-ttZ": [0.800, 0.810, 0.790, 0.800, 0.820]})  # fmt: skip  # clearly worse
    assert [e["rank"] for e in board] == ["1=", "1=", "3"]
    assert board[1]["compatible_with_best"] and "compatible with the best" in board[1]["note"]
    assert not board[2]["compatible_with_best"] and board[2]["diff_to_best_p_holm"] < 0.05
    assert board[0]["compatible_with_best"] and "compatible with the best" not in board[0]["note"]  # the best: with itself
    cells = list(csv.DictReader(io.StringIO(summary.csv_text(board, summary.LEADERBOARD_FIELDS))))
    assert [c["rank"] for c in cells] == ["1=", "1=", "3"]
    tex = latex.leaderboard_tables(board)
    assert "& 1= &" in tex and "Holm-adjusted over the 2 comparisons" in tex
    page = site._leaderboard_table(board)
    assert page.count("<td>1=</td>") == 2


def test_identical_per_fold_aucs_are_a_tie_not_a_coin_flip():
    a = [0.93, 0.94, 0.95]
    b = [float(np.nextafter(0.93, 1.0)), 0.94, float(np.nextafter(0.95, 0.0))]  # 1 ulp: rounding noise
    board = board_of({BINARY_A: a, BINARY_B: b})
    assert board[1]["diff_to_best_t"] == 0.0 and board[1]["diff_to_best_p_value"] == 1.0
    assert [e["rank"] for e in board] == ["1=", "1="] and "identical per-fold AUCs" in board[1]["note"]


def test_the_unpaired_combination_is_named_so():
    """campaign_binary_vs_multiclass.csv: the inverse-variance combination with per-fold errors
    sqrt(e_b^2 + e_m^2) (errors 0.03 and 0.04 -> 0.05 per fold, two folds -> 0.05/sqrt(2)) is named
    *_unpaired; the paired error is auc_diff_standard_error."""
    from pnetviz.summary import leaderboard as lb  # noqa: PLC0415

    def fold(kind, model, pair, k, auc, error):
        return {"channel": "Run3Mu", "signal": "MHc130_MA90", "kind": kind, "model": model, "pair": pair, "fold": k,
                "auc_test": auc, "auc_test_error": error, "events_test_signal": 100, "events_test_background": 400,
                "events_train_signal": 400, "events_train_background": 1600}  # fmt: skip

    rows = [fold("binary", "B", "ttZ", k, 0.90 + 0.01 * k, 0.03) for k in (0, 1)] + \
        [fold("multiclass", "M", "ttX", k, 0.91 + 0.012 * k, 0.04) for k in (0, 1)]  # fmt: skip
    c = {"channel": "Run3Mu", "signal": "MHc130_MA90", "binary_model": "B", "multiclass_model": "M", "background": "ttZ",
         "multiclass_class": "ttX"}  # fmt: skip
    stats = lb.fold_statistics(rows, c)
    assert stats["auc_diff_combined_error_unpaired"] == pytest.approx(0.05 / 2**0.5)
    assert stats["auc_diff_combined_unpaired"] == pytest.approx((0.01 + 0.012) / 2)
    assert "auc_diff_combined_error" not in stats and "auc_diff_combined_error_unpaired" in lb.COMPARED_FIELDS
