"""`folds/` always describes the fold sets on disk: a run of one fold beside it recomputes it from
the stored results of its other folds, or withdraws it, in the same transaction as the fold set
(the issue's case: `--fold all`, a new fold-0 ntuple, `--fold 0`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import STANDARD_MODELS, ModelSpec, write_trainer_fold
from pnetviz.jobs.foldsummary import RESULTS_FILE
from pnetviz.output.atomic import MARKER, STAGE_TAG

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
NONPROMPT = ModelSpec("binary", "nonprompt")
FAST = ["--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    base = tmp_path_factory.mktemp("folds") / "results"
    for fold in (0, 1):
        write_trainer_fold(base, CHANNEL, SIGNAL, fold, models=STANDARD_MODELS, events=800)
    return base


@pytest.fixture
def fresh(results, tmp_path):
    """A private copy of the results (the tests replace a fold's ntuples)."""
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    return copy


def binary(results: Path, plots: Path, fold: str) -> int:
    return run(load_script("visualizeBinary").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                     "--background", "nonprompt", "--fold", fold, *FAST])  # fmt: skip


def model_dir(plots: Path) -> Path:
    (folds,) = plots.glob(f"results/{CHANNEL}/binary/{SIGNAL}/*/folds")
    return folds.parent


def aucs(folds: Path) -> dict[str, float]:
    report = json.loads((folds / "summary_report.json").read_text())
    (pair,) = report["pairs"].values()
    return pair["test"]["per_fold"]["auc"]


def fold_auc(fold_set: Path) -> float:
    return json.loads((fold_set / "summary_report.json").read_text())["hep_metrics"]["test"]["auc"]


def retrain_fold_0(results: Path) -> None:
    write_trainer_fold(results, CHANNEL, SIGNAL, 0, models=STANDARD_MODELS, events=800, seed=7)


@pytest.mark.slow
def test_one_fold_rerun_updates_the_summary_as_a_full_run_would(fresh, tmp_path):
    plots = tmp_path / "plots"
    assert binary(fresh, plots, "all") == 0
    mdir = model_dir(plots)
    before = aucs(mdir / "folds")
    assert before == {"0": fold_auc(mdir / "fold-0"), "1": fold_auc(mdir / "fold-1")}
    retrain_fold_0(fresh)
    assert binary(fresh, plots, "0") == 0
    after = aucs(mdir / "folds")
    assert after["0"] == fold_auc(mdir / "fold-0") != before["0"]  # the issue: folds/ said 0.8489, fold-0/ 0.8293
    assert after["1"] == before["1"]
    assert binary(fresh, tmp_path / "again", "all") == 0  # the summary a run of every fold writes
    again = model_dir(tmp_path / "again") / "folds"
    assert json.loads((mdir / "folds" / "summary_report.json").read_text()) == \
        json.loads((again / "summary_report.json").read_text())  # fmt: skip
    marker = json.loads((mdir / "folds" / MARKER).read_text())
    assert "--fold" in marker["command"] and marker["command"][marker["command"].index("--fold") + 1] == "0"


@pytest.mark.slow
def test_summary_is_withdrawn_when_another_fold_has_no_stored_results(fresh, tmp_path, capsys):
    plots = tmp_path / "plots"
    assert binary(fresh, plots, "all") == 0
    mdir = model_dir(plots)
    old_auc = fold_auc(mdir / "fold-0")
    (mdir / "fold-1" / RESULTS_FILE).unlink()  # a set written before the results were stored
    (mdir / f".folds{STAGE_TAG}4242-abcdef").mkdir()  # a killed run's leftover
    retrain_fold_0(fresh)
    assert binary(fresh, plots, "0") == 0
    assert not (mdir / "folds").exists() and (mdir / "fold-1").is_dir()
    assert fold_auc(mdir / "fold-0") != old_auc  # the new fold is published
    assert not list(mdir.glob(".folds.pnetviz-stage-*")) and not list(mdir.glob(".folds.pnetviz-old-*"))


def test_one_fold_without_a_summary_makes_none(fresh, tmp_path):
    plots = tmp_path / "plots"
    assert binary(fresh, plots, "0") == 0
    assert binary(fresh, plots, "1") == 0
    (fold0,) = plots.glob(f"results/{CHANNEL}/binary/{SIGNAL}/*/fold-0")
    assert not (fold0.parent / "folds").exists()
    stored = json.loads((fold0 / RESULTS_FILE).read_text())
    assert stored["kind"] == "binary" and stored["fold"] == 0 and len(stored["pairs"]) == 1


def test_comparison_summary_follows_a_one_fold_rerun(fresh, tmp_path):
    plots = tmp_path / "plots"
    compare = load_script("visualizeComparison").main
    argv = ["--results-dir", str(fresh), "--plots-dir", str(plots), "--bootstrap", "0", "--formats", "png", "-q"]
    assert run(compare, [*argv, "--fold", "all"]) == 0
    (folds,) = plots.glob(f"results/{CHANNEL}/comparison/{SIGNAL}/*/folds")
    before = json.loads((folds / "summary_report.json").read_text())
    retrain_fold_0(fresh)
    assert run(compare, [*argv, "--fold", "0"]) == 0
    after = json.loads((folds / "summary_report.json").read_text())
    fold0 = json.loads((folds.parent / "fold-0" / "summary_report.json").read_text())
    for background, pair in after["pairs"].items():
        table = pair["per_fold"]
        assert table["auc_binary"]["0"] == fold0["pairs"][background]["auc"]["binary"]["value"]
        assert table["auc_multiclass"]["1"] == before["pairs"][background]["per_fold"]["auc_multiclass"]["1"]
    assert after["folds"] == [0, 1] and after != before
