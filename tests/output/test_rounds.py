"""Training rounds never mix (issue 35, item 1): round B published into round A's output tree is
refused with one line naming both rounds and the fix, A's files stay byte-identical; `--round`
places both; `--predictions` and `--results-dir` publish one model and fold to one directory."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.errors import InputError
from pnetviz.io.roundname import REGISTRY, derive_name, round_name
from pnetviz.output.atomic import MARKER

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
MODELS = (ModelSpec("binary", "nonprompt"), ModelSpec("grouped"))
FAST = ["--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"]


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> tuple[Path, Path]:
    """Two trainings whose trees are both `ana/results` (the same default round name), with
    different events."""
    top = tmp_path_factory.mktemp("rounds")
    trees = []
    for week, seed in (("A", 1), ("B", 2)):
        base = top / week / "ana" / "results"
        for fold in (0, 1):
            write_trainer_fold(base, CHANNEL, SIGNAL, fold, models=MODELS, events=400, seed=seed)
        trees.append(base)
    return trees[0], trees[1]


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def binary(results: Path, plots: Path, fold: str, *extra: str) -> int:
    return run(load_script("visualizeBinary").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                     "--background", "nonprompt", "--fold", fold, *FAST, *extra])  # fmt: skip


def compare(results: Path, plots: Path, fold: str, *extra: str) -> int:
    return run(load_script("visualizeComparison").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                         "--fold", fold, "--bootstrap", "0", "--formats", "png", "-q",
                                                         *extra])  # fmt: skip


def kept(plots: Path, before: dict[str, bytes]) -> bool:
    """Every file of `before` (but the round registry, which gains the new round) unchanged."""
    now = snapshot(plots)
    return all(now.get(k) == v for k, v in before.items() if k != REGISTRY)


def registered(plots: Path) -> dict[str, str]:
    return json.loads((plots / REGISTRY).read_text())["rounds"]


def refused_once(capsys, a: Path, b: Path) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    line = err[0]
    assert str(a.resolve()) in line and str(b.resolve()) in line and "--round NAME" in line and "--plots-dir" in line
    return line


def test_default_round_names_keep_results_and_tell_two_trees_apart(tmp_path):
    week1, week2 = tmp_path / "week1" / "results", tmp_path / "week2" / "results"
    assert derive_name(week1) == "results"  # plots/results/ as always
    assert derive_name(week2, {"results": str(week1)}) == "week2-results"
    assert derive_name(week2, {"results": "x", "week2-results": "y"}) == "week2-results-2"
    assert derive_name(tmp_path / "campaign") == f"{tmp_path.name}-campaign"  # the summary's place is not a round
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / REGISTRY).write_text(json.dumps({"rounds": {"results": str(week1), "mine": str(week2)}}))
    assert round_name(plots, week1, None) == "results" and round_name(plots, week2, None) == "mine"
    assert round_name(plots, tmp_path / "week3" / "results", None) == "week3-results"
    with pytest.raises(InputError, match="round 'results' is the results tree .*week1/results; this run is .*week2"):
        round_name(plots, week2, "results")
    (plots / REGISTRY).write_text("[]")
    with pytest.raises(InputError, match="not a round registry"):
        round_name(plots, week1, None)


@pytest.mark.parametrize("fold", ["0", "all"])
@pytest.mark.slow
def test_round_b_beside_round_a_gets_its_own_place_and_a_is_untouched(rounds, tmp_path, fold):
    a, b = rounds
    plots = tmp_path / "plots"
    assert binary(a, plots, fold) == 0
    before = snapshot(plots)
    assert registered(plots) == {"results": str(a.resolve())}
    assert binary(b, plots, fold) == 0
    assert registered(plots) == {"results": str(a.resolve()), "ana-results": str(b.resolve())}
    assert kept(plots, before)
    (set_b,) = plots.glob("ana-results/Run3Mu/binary/MHc130_MA90/*/fold-0")
    assert json.loads((set_b / MARKER).read_text())["round"] == {"name": "ana-results", "results": str(b.resolve())}
    assert binary(a, plots, "0") == 0 and registered(plots)["results"] == str(a.resolve())  # A keeps its name


@pytest.mark.parametrize("fold", ["0", "all"])
def test_round_b_into_round_a_is_refused_and_a_is_untouched(rounds, tmp_path, capsys, fold):
    a, b = rounds
    plots = tmp_path / "plots"
    assert binary(a, plots, fold) == 0
    before = snapshot(plots)
    capsys.readouterr()
    assert binary(b, plots, fold, "--round", "results") == 2  # A's name
    assert "rounds.json" in refused_once(capsys, a, b)
    assert snapshot(plots) == before


def test_one_new_fold_of_round_b_beside_round_a_summary_is_refused(rounds, tmp_path, capsys):
    """Without the registry (removed), B would take A's name: the sets' own round records refuse."""
    a, b = rounds
    plots = tmp_path / "plots"
    assert binary(a, plots, "all") == 0
    (fold1,) = plots.glob("*/Run3Mu/binary/*/*/fold-1")
    shutil.rmtree(fold1)  # round B's fold 1 would be a new set, but folds/ is round A's
    (plots / REGISTRY).unlink()
    before = snapshot(plots)
    capsys.readouterr()
    assert binary(b, plots, "1") == 2
    assert "folds" in refused_once(capsys, a, b)
    assert snapshot(plots) == before


def test_comparison_of_round_b_into_round_a_is_refused(rounds, tmp_path, capsys):
    a, b = rounds
    plots = tmp_path / "plots"
    assert compare(a, plots, "0") == 0
    before = snapshot(plots)
    capsys.readouterr()
    assert compare(b, plots, "0", "--round", "results") == 2
    refused_once(capsys, a, b)
    assert snapshot(plots) == before
    assert compare(b, plots, "0") == 0  # its own place
    assert len(list(plots.glob("ana-results/Run3Mu/comparison/MHc130_MA90/*/fold-0/" + MARKER))) == 1


def test_campaign_of_round_b_into_round_a_is_refused(rounds, tmp_path, capsys):
    a, b = rounds
    plots = tmp_path / "plots"
    campaign = load_script("visualizeCampaign").main
    common = ["--plots-dir", str(plots), "--workers", "0", "--kinds", "binary", "--bootstrap", "0", "--formats", "png",
              "--no-bjet-comparison", "-q"]  # fmt: skip
    assert run(campaign, ["--results-dir", str(a), *common]) == 0
    before = snapshot(plots)
    capsys.readouterr()
    assert run(campaign, ["--results-dir", str(b), *common]) == 2
    refused_once(capsys, a, b)
    assert snapshot(plots) == before
    assert run(campaign, ["--results-dir", str(b), "--round", "results", *common]) == 2  # A's name
    assert "rounds.json" in refused_once(capsys, a, b)
    assert snapshot(plots) == before
    assert run(campaign, ["--results-dir", str(b), "--round", "weekB", *common]) == 0  # its own place
    assert (plots / "weekB" / "campaign" / MARKER).is_file()
    assert {p.name for p in plots.iterdir()} >= {"results", "weekB", "campaign"}
    assert kept(plots, before)


def test_round_option_places_both_rounds(rounds, tmp_path):
    a, b = rounds
    plots = tmp_path / "plots"
    assert binary(a, plots, "0") == 0
    before = snapshot(plots)
    assert binary(b, plots, "0", "--round", "weekB") == 0
    assert kept(plots, before)
    (set_a,) = plots.glob("results/Run3Mu/binary/MHc130_MA90/*/fold-0")
    (set_b,) = plots.glob("weekB/Run3Mu/binary/MHc130_MA90/*/fold-0")
    marker_a, marker_b = (json.loads((s / MARKER).read_text())["round"] for s in (set_a, set_b))
    assert marker_a == {"name": "results", "results": str(a.resolve())}
    assert marker_b == {"name": "weekB", "results": str(b.resolve())}
    report = json.loads((set_b / "summary_report.json").read_text())
    assert report["round"] == marker_b


def test_predictions_and_results_dir_publish_one_model_fold_to_one_place(rounds, tmp_path):
    a, _ = rounds
    by_dir, by_file = tmp_path / "by_dir", tmp_path / "by_file"
    assert binary(a, by_dir, "1") == 0
    (ntuple,) = a.glob("Run3Mu/binary/*/fold-1/trees/*-binary-nonprompt.root")
    argv = ["--predictions", str(ntuple), "--plots-dir", str(by_file), *FAST]
    assert run(load_script("visualizeBinary").main, argv) == 0
    sets = [sorted(str(p.parent.relative_to(root)) for p in root.rglob(MARKER)) for root in (by_dir, by_file)]
    assert sets[0] == sets[1] and len(sets[0]) == 1 and sets[0][0].endswith("fold-1")


def test_a_fifo_registry_is_one_line_not_a_hang(rounds, tmp_path):
    """A16: a rounds.json that is a FIFO (named pipe) in the plots tree: one line naming it, exit 2
    (the process is run apart, with a timeout, so that a hang fails the test instead of the suite)."""
    a, _ = rounds
    plots = tmp_path / "plots"
    plots.mkdir()
    os.mkfifo(plots / REGISTRY)
    argv = ["--results-dir", str(a), "--plots-dir", str(plots), "--background", "nonprompt", "--fold", "0", *FAST]
    done = subprocess.run([sys.executable, "-m", "pnetviz", "binary", *argv], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"pnetviz: error: {plots / REGISTRY}: a FIFO (named pipe), not a regular file: the round registry must be a "
        "file. Fix: give the path of a regular file for the round registry."]  # fmt: skip
    assert sorted(p.name for p in plots.iterdir()) == [REGISTRY]  # nothing published


@pytest.mark.parametrize(("text", "said"), [
    ('{"rounds": {"results": NaN}}', "rounds.results: NaN is not a finite number"),
    ("[" * 100 + "]" * 100, "nested deeper than 64 levels"),
    ('{"rounds": ', "not valid JSON"),
])  # fmt: skip
def test_a_damaged_registry_is_one_line_naming_it(tmp_path, text, said):
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / REGISTRY).write_text(text)
    with pytest.raises(InputError, match=f"^{plots / REGISTRY}: {said}.*Fix: repair or remove it"):
        round_name(plots, tmp_path / "results", None)


@pytest.mark.parametrize(("registered", "said"), [
    ("x/y", "it contains '/'"), (".", "'.' is not a name"), ("..", "'..' is not a name"),
    ("../../escaped", "it contains '/'"), ("", "it is empty"), ("-q", "it starts with '-'"),
    ("campaign", "'campaign' is the plots tree's own"), ("diff", "'diff' is the plots tree's own"),
])  # fmt: skip
def test_a_registered_name_that_is_no_round_is_refused(tmp_path, registered, said):
    """A registry edited by someone else: a round name is a directory of the plots tree, checked as
    --round is; before, 'x/y' published into plots/x/y/, '.' into the plots tree's top, 'campaign'
    into the campaign summary and '../../escaped' two levels above the plots tree."""
    plots, results = tmp_path / "plots", tmp_path / "results"
    plots.mkdir()
    (plots / REGISTRY).write_text(json.dumps({"rounds": {registered: str(results.resolve())}}))
    with pytest.raises(InputError, match=f"^{plots / REGISTRY}: rounds: {re.escape(repr(registered))} is not a round name "
                                         f"\\({re.escape(said)}.*Fix: repair or remove it"):  # fmt: skip
        round_name(plots, results, None)


def test_a_registered_relative_results_path_is_refused(tmp_path):
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / REGISTRY).write_text(json.dumps({"rounds": {"results": "results"}}))
    with pytest.raises(InputError, match="rounds: 'results' is not a round name \\(its results path is not absolute"):
        round_name(plots, tmp_path / "results", None)


def test_a_registry_naming_the_plots_top_publishes_nothing(rounds, tmp_path, capsys):
    """The command as a user runs it: exit 2, one line, nothing but the registry in the plots tree."""
    a, _ = rounds
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / REGISTRY).write_text(json.dumps({"rounds": {".": str(a.resolve())}}))
    capsys.readouterr()
    assert binary(a, plots, "0") == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "rounds: '.' is not a round name ('.' is not a name)" in err[0] and "Traceback" not in err[0]
    assert sorted(p.name for p in plots.iterdir()) == [REGISTRY]
