"""`pnetviz diff` keeps a rejection's lower limit (issue 54): where no background passes in any fold
of a round, its rejection is the 95% CL lower limit from the folds' summed effective background
events, raised to a measured rejection at a larger eps_s, and the ratio B/A a bound ("> X" in
diff_models.csv, on the page and in the LaTeX table), never an empty cell."""

from __future__ import annotations

import csv
import io

import pytest

from pnetviz.metrics import hep
from pnetviz.rounds import diff, difftables, diffsite


def fold(k: int, auc: float, eps05: float, eps09: float, n_eff: float = 200.0) -> dict:
    return {"channel": "Run3Mu", "signal": "MHc130_MA90", "kind": "binary", "pair": "ttZ", "variant": "", "model": "PN-binary-ttZ",
            "m_hc": 130, "m_a": 90, "fold": k, "auc_test": auc, "eps_b_0.5": eps05, "eps_b_0.9": eps09, "fip2": 0.5,
            "n_eff_test_background": n_eff, "events_test_signal": 100, "events_test_background": 400,
            "events_train_signal": 400, "events_train_background": 1600}  # fmt: skip


def test_a_round_without_passing_background_gives_bounds(tmp_path):
    a = {k: fold(k, 0.90 + 0.01 * k, 0.02, 0.2) for k in range(3)}  # R_A(0.5) = 50, R_A(0.9) = 5
    b = {k: fold(k, 0.91 + 0.01 * k, 0.0, 0.004) for k in range(3)}  # no background at 0.5; R_B(0.9) = 250
    row = diff.matched_row(("Run3Mu", "MHc130_MA90", "binary", "ttZ", ""), a, b, [0, 1, 2])
    limit = 1 / hep.eps_b_limit(600.0)  # 200.8: below the measured 250 at eps_s 0.9, so raised to it
    assert limit == pytest.approx(200.8, abs=0.1)
    assert row["rejection_a_0.5"] == pytest.approx(50.0) and not row["rejection_a_0.5_limit"]
    assert row["rejection_b_0.5"] == pytest.approx(250.0) and row["rejection_b_0.5_limit"]
    assert row["rejection_ratio_0.5"] == pytest.approx(5.0) and row["rejection_ratio_0.5_bound"] == ">"
    assert row["rejection_ratio_0.9"] == pytest.approx(50.0) and row["rejection_ratio_0.9_bound"] == ""
    cells = next(csv.DictReader(io.StringIO(difftables.escape.csv_table([diff.bounded_cells(row)], diff.DIFF_FIELDS))))
    assert cells["rejection_b_0.5"] == f"> {row['rejection_b_0.5']!r}" and cells["rejection_ratio_0.5"] == f"> {row['rejection_ratio_0.5']!r}"
    assert cells["rejection_a_0.5"] == repr(row["rejection_a_0.5"]) and cells["rejection_ratio_0.9"] == repr(row["rejection_ratio_0.9"])
    assert diffsite.cell(row["rejection_ratio_0.5"], ".3f", diff.bound_of(row, "rejection_ratio_0.5")) == "<td>&gt; 5.000</td>"


def test_a_limit_in_round_a_bounds_the_ratio_from_above_and_two_limits_give_none():
    a = {k: fold(k, 0.9, 0.0, 0.1) for k in range(2)}
    b = {k: fold(k, 0.9, 0.01, 0.1) for k in range(2)}
    delta, ratio, bound = diff.compared_rejections((40.0, True), (100.0, False))
    assert (delta, ratio, bound) == (60.0, 2.5, "<")
    assert diff.compared_rejections((40.0, True), (100.0, True)) == (None, None, "")
    row = diff.matched_row(("Run3Mu", "MHc130_MA90", "binary", "ttZ", ""), a, b, [0, 1])
    assert row["rejection_a_0.5_limit"] and row["rejection_ratio_0.5_bound"] == "<"
    assert row["rejection_ratio_0.5"] == pytest.approx(100.0 / row["rejection_a_0.5"])


def test_overlays_have_readable_names_and_the_report_holds_the_numbers(tmp_path):
    a = {k: fold(k, 0.90 + 0.01 * k, 0.02, 0.2) for k in range(3)}
    b = {k: fold(k, 0.91 + 0.01 * k, 0.0, 0.004) for k in range(3)}
    result = diff.Diff(tmp_path / "a", tmp_path / "b")
    result.rows.append(diff.matched_row(("Run3Mu", "MHc130_MA90", "binary", "ttZ", ""), a, b, [0, 1, 2]) | {"p_holm": 0.2, "significant": False})
    from pnetviz.rounds import diffplots  # noqa: PLC0415

    assert diffplots.overlay_prefix(result, 0) == "Run3Mu_binary_MHc130_MA90_vs_ttZ_"
    result.rows.append(dict(result.rows[0], variant="nNodes64"))
    assert [diffplots.overlay_prefix(result, i) for i in (0, 1)] == ["Run3Mu_binary_MHc130_MA90_vs_ttZ_V1_",
                                                                     "Run3Mu_binary_MHc130_MA90_vs_ttZ_V2_"]  # fmt: skip
    result.rows[1]["pair"] = "tt Z/../x"  # no plain file name: the numbered fallback
    assert diffplots.overlay_prefix(result, 1) == "model001_"
    report = difftables.report_of(result)
    compared = report["compared"]["Run3Mu/MHc130_MA90/binary/ttZ/"]
    assert compared["delta_auc"] == pytest.approx(0.01) and compared["p_holm"] == 0.2
    assert compared["rejection_ratio_0.5"].startswith("> 5.0") and compared["rejection_a_0.5"] == pytest.approx(50.0)


def test_a_rejection_ratio_has_its_paired_fold_interval():
    """eps_b(0.5) A = 0.02, 0.04 and B = 0.01, 0.01: B/A = 0.03/0.01 = 3; per-fold ln(A/B) = ln 2,
    ln 4, standard error (ln 2/sqrt 2)/sqrt 2 = ln(2)/2: the interval is 3/sqrt(2) to 3 sqrt(2)."""
    a = {0: fold(0, 0.9, 0.02, 0.2), 1: fold(1, 0.9, 0.04, 0.2)}
    b = {0: fold(0, 0.9, 0.01, 0.2), 1: fold(1, 0.9, 0.01, 0.2)}
    row = diff.matched_row(("Run3Mu", "MHc130_MA90", "binary", "ttZ", ""), a, b, [0, 1])
    assert row["rejection_ratio_0.5"] == pytest.approx(3.0)
    assert (row["rejection_ratio_0.5_lower"], row["rejection_ratio_0.5_upper"]) == pytest.approx((3 / 2**0.5, 3 * 2**0.5))
    assert row["rejection_ratio_0.9_lower"] == pytest.approx(1.0) == row["rejection_ratio_0.9_upper"]  # identical folds
    assert diffsite.ratio_cell(row, "rejection_ratio_0.5") == "<td>3.00<sup>+1.24</sup><sub>&minus;0.88</sub></td>"
    assert {"rejection_ratio_0.5_lower", "rejection_ratio_0.5_upper"} <= set(diff.DIFF_FIELDS)
