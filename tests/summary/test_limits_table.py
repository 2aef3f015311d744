"""The round's answer (issue 52, item 4): campaign_limits.csv / .tex from hand-written
folds/limits.json files (conftest.limits_round): the values, the natural mass order, the
PDG rounding on the fold spread, LaTeX and CSV escaping, missing and failed rows, damaged files."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from conftest import LIMITS_FAILURE, LIMITS_HOSTILE, limits_round, compile_latex
from pnetviz.errors import InputError
from pnetviz.summary import limits


@pytest.fixture
def section(tmp_path):
    return limits.section({"jobs": limits_round(tmp_path)})


def csv_rows(sec) -> list[dict]:
    return list(csv.DictReader(io.StringIO(limits.files(sec)["campaign_limits.csv"])))


def test_rows_sorted_naturally_by_mass_then_model_pair_and_strategy(section):
    order = [(r["channel"], r["signal"], r["kind"], r["pair"], r["strategy"]) for r in section["rows"]]
    assert order == [
        ("Run2E", "MHc100_MA95", "binary", "signal_vs_ttZ", "score-fit"),
        ("Run3Mu", "MHc130_MA90", "binary", "signal_vs_ttZ", "score-fit"),
        ("Run3Mu", "MHc130_MA90", "binary", "signal_vs_ttZ", "cut-and-mass"),
        ("Run3Mu", "MHc130_MA90", "binary", "signal_vs_ttZ", "mass-x-score"),
        ("Run3Mu", "MHc130_MA100", "binary", "signal_vs_ttZ", "score-fit"),  # MA90 before MA100, not as text
        ("Run3Mu", "MHc130_MA100", "binary", "signal_vs_ttZ", "cut-and-mass"),  # the file listed mass-x-score first
        ("Run3Mu", "MHc130_MA100", "binary", "signal_vs_ttZ", "mass-x-score"),
        ("Run3Mu", "MHc130_MA100", "multiclass-pair", "signal_vs_ttZ", "score-fit"),
        ("Run3Mu", "MHc130_MA100", "multiclass-pair", "signal_vs_ttZ", "cut-and-mass"),
        ("Run3Mu", "MHc130_MA100", "multiclass-pair", "signal_vs_ttZ", "mass-x-score"),
        ("Run3Mu", "MHc130_MA100", "weighted-lr", "weighted_lr_all", "score-fit"),
        ("Run3Mu", "MHc160_MA85", "binary", "signal_vs_ttZ", ""),  # no limits.json: named as its pair would be
    ]
    assert limits.natural_key("MHc130_MA90") < limits.natural_key("MHc130_MA100") < limits.natural_key("MHc160_MA85")


def test_csv_holds_full_precision_values_fold_spread_and_pdg_text(section):
    row = next(r for r in csv_rows(section) if (r["signal"], r["kind"], r["strategy"]) == ("MHc130_MA100", "binary", "cut-and-mass"))
    assert (row["m_hc"], row["m_a"], row["status"], row["chosen_on"], row["folds"]) == ("130", "100", "ok", "valid", "3")
    assert float(row["expected_limit"]) == 0.827
    assert (float(row["expected_limit_m1"]), float(row["expected_limit_p1"])) == (0.6, 1.2)
    assert (float(row["expected_limit_m2"]), float(row["expected_limit_p2"])) == (0.4135, 1.654)
    assert float(row["expected_limit_fold_std"]) == pytest.approx(0.119, rel=1e-12)  # the per-fold medians' sample std
    assert row["expected_limit_text"] == "0.83 ± 0.12"  # error 119 -> two digits, the value to the same place
    assert float(row["expected_significance"]) == 1.234 and row["expected_significance_text"] == "1.23 ± 0.10"
    assert row["datacard"] == "limits/cut-and-mass.txt" and row["error"] == ""


def test_missing_and_failed_rows_say_so_and_carry_no_number(section):
    rows = csv_rows(section)
    failed = next(r for r in rows if (r["signal"], r["strategy"]) == ("MHc130_MA90", "mass-x-score"))
    assert (failed["status"], failed["error"], failed["expected_limit"], failed["expected_limit_text"]) == (
        "failed", LIMITS_FAILURE, "", "")
    missing = next(r for r in rows if r["signal"] == "MHc160_MA85")
    assert (missing["status"], missing["expected_limit"]) == ("missing", "")
    assert "folds/limits.json" in missing["error"]
    tex = limits.files(section)["campaign_limits.tex"]
    assert r"\multicolumn{3}{c}{failed}" in tex and r"\multicolumn{3}{c}{missing}" in tex


def test_latex_rounds_by_the_fold_spread_and_the_band(section):
    tex = limits.files(section)["campaign_limits.tex"]
    line = next(x for x in tex.splitlines() if x.startswith("130 & 100 & B") and "cut-and-mass" in x)
    # median 0.827 +- 0.119; band 0.6 .. 1.2: +0.373 -0.227, rounded on the smaller side (227: two digits)
    assert r"$0.83 \pm 0.12$ & $0.83^{+0.37}_{-0.23}$ & $1.23 \pm 0.10$" in line
    assert r"$t\bar{t}Z$" in line  # signal_vs_ttZ by the tables' label
    assert tex.count(r"\begin{table}") == 2  # one float per channel
    assert "130 & 100 & MC & wLR all & V2 & score-fit" in tex  # weighted_lr_all: the weighted LR, short


def test_names_escaped_for_latex_and_csv(section, tmp_path):
    rows = csv_rows(section)
    assert next(r for r in rows if r["channel"] == "Run2E")["model"] == LIMITS_HOSTILE  # comma and quote survive
    tex = limits.files(section)["campaign_limits.tex"]
    assert r'V1: \texttt{PN\&\_\%,"q"}' in tex  # the variant (the name without -binary-ttZ), escaped
    assert "PN&_%" not in tex
    compile_latex(tex, tmp_path)


def test_json_lists_the_rows_leaderboard_and_verdicts(section):
    doc = json.loads(limits.files(section)["campaign_limits.json"])
    assert len(doc["rows"]) == 12 and doc["leaderboard"][0]["rank"] == 1 and doc["binary_vs_multiclass"]
    assert math.isclose(doc["rows"][0]["expected_limit"], 3.0)


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d["pairs"][0].update(strategies="score-fit"), "pairs[0].strategies is not a list"),
    (lambda d: d["pairs"][0]["strategies"][0]["expected_limit"].update(median="1.2"), "score-fit.expected_limit.median"),
    (lambda d: d["pairs"][0]["strategies"][0].update(expected_significance=True), "score-fit.expected_significance"),
    (lambda d: d.update(pairs={"a": 1}), "'pairs' is not a list"),
])  # fmt: skip
def test_a_damaged_limits_json_is_one_line_naming_file_and_field(tmp_path, change, field):
    jobs = limits_round(tmp_path)
    path = tmp_path / "Run2E" / "MHc100_MA95" / LIMITS_HOSTILE / "folds" / "limits.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        limits.section({"jobs": jobs})
    assert str(path) in str(err.value) and field in str(err.value) and "\n" not in str(err.value)
