"""The trainer's real files (issue 36 item 3): individual-background multi-class models pair with
all three binary models in every campaign table; a fold with JSON files and no ntuple is named
(one line per model, exit 0), and a single evaluation says trees/<model>.root is missing."""

from __future__ import annotations

import csv
import json

import pytest

from conftest import load_script
from pnetviz.summary.summary import pairings
from pnetviz.cli.common import EXIT_USER_ERROR, run
from pnetviz.demo.trainertree import BINARY_BACKGROUNDS, ModelSpec, write_trainer_fold
from pnetviz.io.trainer import TrainerInfo, pairing

CHANNEL, SIGNAL, ORPHAN_SIGNAL = "Run3Mu", "MHc130_MA90", "MHc100_MA95"
BINARIES = tuple(ModelSpec("binary", b) for b in BINARY_BACKGROUNDS)
INDIVIDUAL = ModelSpec("individual")  # -3bg: classes signal, ttll, wz, ttz


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = tmp_path_factory.mktemp("real") / "results"
    for fold in (0, 1):
        write_trainer_fold(base, CHANNEL, SIGNAL, fold, models=(*BINARIES, INDIVIDUAL), events=1200)
    for signal in (SIGNAL, ORPHAN_SIGNAL):  # the committed fold record: JSON files, no trees/
        for path in write_trainer_fold(base, CHANNEL, signal, 3, models=BINARIES[2:], events=300):
            path.unlink()
            path.parent.rmdir()
    return base


def test_individual_classes_pair_with_every_binary_category():
    classes = ("signal", "ttll", "wz", "ttz")
    assert [pairing(b, classes, {}) for b in BINARY_BACKGROUNDS] == ["ttll", "wz", "ttz"]
    groups = {"ttll": ["TTLL_powheg"], "wz": ["WZTo3LNu_amcatnlo"], "ttz": ["TTZToLLNuNu"]}
    assert [pairing(b, classes, groups) for b in BINARY_BACKGROUNDS] == ["ttll", "wz", "ttz"]
    grouped = ("signal", "nonprompt", "diboson", "ttX")  # the grouped mode is unchanged
    assert [pairing(b, grouped, {"ttX": ["TTZToLLNuNu", "tZq"]}) for b in BINARY_BACKGROUNDS] == \
        ["nonprompt", "diboson", "ttX"]  # fmt: skip


def test_pair_option_reaches_the_campaign_pairing():
    info = {(CHANNEL, SIGNAL, "mc"): {"classes": ["signal", "ttll", "wz", "ttz"], "groups": {}}}
    binaries = {(CHANNEL, SIGNAL, b) for b in BINARY_BACKGROUNDS}
    assert pairings(info, binaries).table[(CHANNEL, SIGNAL, "diboson")] == [("mc", "wz")]
    assert pairings(info, binaries, {"diboson": "ttz"}).table[(CHANNEL, SIGNAL, "diboson")] == [("mc", "ttz")]


def test_campaign_summary_reads_a_report_whose_groups_have_a_comment(tmp_path):
    from pnetviz.summary.summary import _multiclass_rows

    groups = {"comment": "TTLL only", "nonprompt": ["TTLL_powheg"], "ttX": ["TTZToLLNuNu"]}
    report = {"classes": ["signal", "nonprompt", "ttX"], "hep_metrics": {}, "auc": {},
              "model": {"background_info": {"mode": "grouped", "groups": groups}}}
    info, rows = _multiclass_rows(None, 0, report, tmp_path / "summary_report.json")
    assert info["classes"] == ["signal", "nonprompt", "ttX"] and rows == []


def test_comment_in_grouped_background_info_is_no_class():
    info = TrainerInfo(meta={"background_info": {"mode": "grouped", "num_groups": 3, "comment": "x", "groups": {
        "comment": "TTLL only", "nonprompt": ["TTLL_powheg"], "diboson": ["WZTo3LNu"], "ttX": ["TTZToLLNuNu"]}}})
    assert info.classes() == ("signal", "nonprompt", "diboson", "ttX")


@pytest.mark.slow
def test_campaign_compares_all_three_and_names_the_model_without_ntuple(tree, tmp_path, recwarn):
    plots = tmp_path / "plots"
    argv = ["--results-dir", str(tree), "--plots-dir", str(plots), "--workers", "0", "--formats", "none",
            "--images", "none", "--bootstrap", "0", "-q"]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, argv) == 0
    lines = [str(w.message) for w in recwarn if "no ntuple" in str(w.message)]
    assert len(lines) == 2 and all("-binary-ttZ.root is missing in fold-3" in line for line in lines)
    assert any(ORPHAN_SIGNAL in line for line in lines)
    rows = list(csv.DictReader((plots / "campaign" / "campaign_binary_vs_multiclass.csv").open()))
    assert sorted((r["background"], r["multiclass_class"]) for r in rows) == \
        [("diboson", "wz"), ("nonprompt", "ttll"), ("ttZ", "ttz")]  # fmt: skip
    board = list(csv.DictReader((plots / "campaign" / "campaign_leaderboard.csv").open()))
    assert {(r["background"], r["pair"]) for r in board if r["kind"] == "multiclass"} == \
        {("diboson", "wz"), ("nonprompt", "ttll"), ("ttZ", "ttz")}  # fmt: skip
    report = json.loads((plots / "campaign" / "summary_report.json").read_text())
    assert len(report["no_ntuple"]) == 2 and report["jobs"]["no ntuple"] == 2 and report["jobs"]["failed"] == 0


@pytest.mark.parametrize("extra", [["--signal", SIGNAL, "--background", "ttZ", "--fold", "3"],
                                   ["--signal", ORPHAN_SIGNAL, "--fold", "3"]])
def test_single_evaluation_says_the_ntuple_is_missing(tree, tmp_path, capfd, extra):
    argv = ["--results-dir", str(tree), "--channel", CHANNEL, *extra, "--plots-dir", str(tmp_path), "-q"]
    assert run(load_script("visualizeBinary").main, argv) == EXIT_USER_ERROR
    err = capfd.readouterr().err.strip()
    assert err.count("\n") == 0 and "fold-3/trees/" in err and "-binary-ttZ.root is missing" in err
    assert "Fix: --background" not in err
