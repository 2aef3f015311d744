"""`pnetviz diff` by expected limit (rounds.difflimits): two fabricated rounds (their
campaign_limits.json written by summary.limits from hand-written folds/limits.json files), the
ratio B/A with its fold-spread error, and "missing" kept explicit where a round has no limit."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from conftest import LIMITS_BINARY, compile_latex, limits_job, limits_strategy as strategy, write_limits
from pnetviz.cli.commands import run_command
from pnetviz.rounds import difflimits
from pnetviz.summary import limits

CARD = ("Run3Mu", "MHc130_MA90", "binary", "signal_vs_ttZ", "PN-nNodes64")


def write_round(base: Path, score_fit: float | None, cut: list[float] | None, with_limits: bool = True,
                model: str = LIMITS_BINARY) -> Path:
    """A campaign directory holding campaign_summary.json (no fold row) and, `with_limits`,
    campaign_limits.json of one binary model at MHc130_MA90 (score-fit: `score_fit` over the folds
    1.1, 1.2, 1.3 times it; cut-and-mass: per-fold medians `cut`, its median their mean / 1.5) and of
    one model without folds/limits.json at MHc130_MA100."""
    campaign = base / "campaign"
    campaign.mkdir(parents=True)
    (campaign / "campaign_summary.json").write_text(json.dumps({"rows": []}))
    if not with_limits:
        return campaign
    jobs = []
    job, d = limits_job(base / "sets", "Run3Mu", "MHc130_MA90", "binary", model, "ttZ")
    written = []
    if score_fit is not None:
        written.append(strategy("score-fit", score_fit, [score_fit * f for f in (1.1, 1.2, 1.3)]))
    if cut is not None:
        written.append(strategy("cut-and-mass", sum(cut) / len(cut) / 1.5, cut))
    write_limits(d, model, "Run3Mu", "MHc130_MA90", "binary", "signal_vs_ttZ", written)
    jobs.append(job)
    jobs.append(limits_job(base / "sets", "Run3Mu", "MHc130_MA100", "binary", model, "ttZ")[0])
    (campaign / "campaign_limits.json").write_text(limits.files(limits.section({"jobs": jobs}))["campaign_limits.json"])
    return campaign


def by_strategy(rows) -> dict[tuple, dict]:
    return {(r["signal"], r["strategy"]): r for r in rows}


def test_ratio_b_over_a_with_the_fold_spread_error(tmp_path):
    a = write_round(tmp_path / "a", 2.0, [1.2, 1.5, 1.8])
    b = write_round(tmp_path / "b", 1.5, [1.0, 1.1, 1.2])
    rows = by_strategy(difflimits.compare(a, b))
    r = rows[("MHc130_MA90", "cut-and-mass")]
    assert tuple(r[k] for k in ("channel", "signal", "kind", "pair", "variant")) == CARD
    assert (r["limit_a"], r["limit_b"]) == (pytest.approx(1.0), pytest.approx(1.1 / 1.5))
    # each side: std / mean of its per-fold medians / sqrt(3), in quadrature: 0.3/1.5 and 0.1/1.1
    ratio = (1.1 / 1.5) / 1.0
    assert r["ratio_b_to_a"] == pytest.approx(ratio)
    assert r["ratio_error"] == pytest.approx(ratio * math.hypot(0.3 / 1.5, 0.1 / 1.1) / math.sqrt(3))
    assert rows[("MHc130_MA90", "score-fit")]["ratio_b_to_a"] == pytest.approx(0.75) and r["missing"] == ""
    gone = rows[("MHc130_MA100", "")]  # neither round has folds/limits.json for it: one row, both missing
    assert gone["missing"] == "A and B" and gone["ratio_b_to_a"] is None
    assert "no folds/limits.json" in gone["why"]


def test_a_round_without_limits_is_missing_never_dropped(tmp_path):
    a = write_round(tmp_path / "a", None, None, with_limits=False)  # a round made before the expected limits
    b = write_round(tmp_path / "b", 1.5, [1.0, 1.1, 1.2])
    rows = by_strategy(difflimits.compare(a, b))
    assert set(rows) == {("MHc130_MA90", "score-fit"), ("MHc130_MA90", "cut-and-mass"), ("MHc130_MA100", "")}
    r = rows[("MHc130_MA90", "score-fit")]
    assert (r["limit_a"], r["limit_b"], r["ratio_b_to_a"], r["missing"]) == (None, 1.5, None, "A")
    assert "round A has no campaign_limits.json" in r["why"]


def test_a_model_without_limits_json_in_one_round_names_it_on_each_strategy(tmp_path):
    a = write_round(tmp_path / "a", None, None)  # the model's folds/limits.json has no strategy: as if never written
    (tmp_path / "a" / "sets" / "Run3Mu" / "MHc130_MA90" / LIMITS_BINARY / "folds" / "limits.json").unlink()
    a.joinpath("campaign_limits.json").unlink()
    jobs = [limits_job(tmp_path / "a" / "sets", "Run3Mu", "MHc130_MA90", "binary", LIMITS_BINARY, "ttZ")[0]]
    (a / "campaign_limits.json").write_text(limits.files(limits.section({"jobs": jobs}))["campaign_limits.json"])
    b = write_round(tmp_path / "b", 1.5, [1.0, 1.1, 1.2])
    rows = by_strategy(difflimits.compare(a, b))
    assert ("MHc130_MA90", "") not in rows  # the missing model's row stands for the strategies B has
    for strategy_name in ("score-fit", "cut-and-mass"):
        r = rows[("MHc130_MA90", strategy_name)]
        assert (r["missing"], r["limit_a"]) == ("A", None)
        assert r["why"] == "round A: no folds/limits.json for this model"


def test_a_strategy_one_round_lacks_is_named(tmp_path):
    a = write_round(tmp_path / "a", 2.0, None)  # no cut-and-mass in A
    b = write_round(tmp_path / "b", 1.5, [1.0, 1.1, 1.2])
    r = by_strategy(difflimits.compare(a, b))[("MHc130_MA90", "cut-and-mass")]
    assert (r["missing"], r["ratio_b_to_a"]) == ("A", None) and "round A: no such model and strategy" in r["why"]


@pytest.mark.slow  # the command's set (ROOT, plots.root)
def test_the_command_writes_the_limits_rows_and_names_them(tmp_path, capsys):
    a = write_round(tmp_path / "a", 2.0, [1.2, 1.5, 1.8])
    b = write_round(tmp_path / "b", 1.5, [1.0, 1.1, 1.2], model="PN-nNodes128-binary-ttZ")  # a renamed variant
    out = tmp_path / "d"
    assert run_command("diff", [str(a), str(b), "--output", str(out), "--formats", "none",
                                "--rename", "nNodes128=nNodes64"]) == 0  # fmt: skip
    rows = list(csv.DictReader(io.StringIO((out / "diff_limits.csv").read_text())))
    r = next(x for x in rows if x["strategy"] == "cut-and-mass")
    assert float(r["ratio_b_to_a"]) == pytest.approx(1.1 / 1.5) and r["variant"] == "PN-nNodes64"
    assert "2 model strategies in both rounds, 2 tighter in B" in capsys.readouterr().out
    assert r"\label{tab:pnetviz-diff-limits}" in (out / "diff_models.tex").read_text()
    assert json.loads((out / "diff.json").read_text())["limits"][0]["strategy"] == "score-fit"
    page = (out / "index.html").read_text()
    assert "Expected limits (B/A &lt; 1" in page and "missing" in page


def test_a_damaged_campaign_limits_json_is_one_line(tmp_path, capsys):
    a = write_round(tmp_path / "a", 2.0, [1.2, 1.5, 1.8])
    b = write_round(tmp_path / "b", 1.5, [1.0, 1.1, 1.2])
    doc = json.loads((b / "campaign_limits.json").read_text())
    doc["rows"][0]["expected_limit"] = "1.5"
    (b / "campaign_limits.json").write_text(json.dumps(doc))
    assert run_command("diff", [str(a), str(b), "--output", str(tmp_path / "d"), "--formats", "none"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "campaign_limits.json" in err[0] and "rows[0].expected_limit" in err[0]


def test_the_latex_table_fits_16_cm_with_long_names(tmp_path):
    """The widest cells a round has: a multi-class weighted-LR pair, mass-x-score, limits with errors
    on both sides, a ratio, a row missing in both rounds (pdflatex, no overfull box)."""
    row = {"channel": "Run1E2Mu", "signal": "MHc160_MA155", "kind": "weighted-lr", "pair": "weighted_lr_signal_vs_all",
           "variant": "ParticleNet-nNodes128-Adam-initLR0p0010-decay0p00010-StepLR-weighted_ce", "strategy": "mass-x-score",
           "limit_a": 12.3456, "limit_a_fold_std": 1.2345, "limit_b": 11.2345, "limit_b_fold_std": 1.1234,
           "ratio_b_to_a": 0.91, "ratio_error": 0.123, "missing": ""}  # fmt: skip
    gone = {**row, "strategy": "cut-and-mass", "ratio_b_to_a": None, "ratio_error": None, "limit_a": None, "limit_b": None,
            "missing": "A and B"}  # fmt: skip
    tex = difflimits.latex_table([row, gone])
    assert r"$12.3 \pm 1.2$ & $11.2 \pm 1.1$ & $0.91 \pm 0.12$" in tex and "-- (A and B)" in tex
    compile_latex(tex, tmp_path)
