"""The summary describes the whole output tree, not only a filtered run's jobs; one results tree
per output tree; --images none writes no image but every canvas."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from conftest import load_script
from pnetviz.cli.common import run

SIGNALS = ("MHc100_MA95", "MHc160_MA85")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    from pnetviz.demo.trainertree import STANDARD_MODELS, write_trainer_fold

    base = tmp_path_factory.mktemp("round") / "results"
    for signal in SIGNALS:
        write_trainer_fold(base, "Run3Mu", signal, 0, models=STANDARD_MODELS[:2], events=600)
    return base


def _campaign(tree, plots, *extra) -> int:
    argv = ["--results-dir", str(tree), "--plots-dir", str(plots), "--workers", "0", "--bootstrap", "10", "-q",
            "--images", "none", *extra]  # fmt: skip
    return run(load_script("visualizeCampaign").main, argv)


def _signals_in_csv(plots) -> set[str]:
    with open(plots / "campaign" / "campaign_summary.csv") as f:
        return {row["signal"] for row in csv.DictReader(f)}


def test_a_filtered_run_keeps_the_rest_of_the_round(tree, tmp_path):
    plots = tmp_path / "plots"
    assert _campaign(tree, plots) == 0
    assert not list(plots.rglob("*.png")) and list(plots.rglob("plots.root"))  # --images none
    assert _signals_in_csv(plots) == set(SIGNALS)
    assert _campaign(tree, plots, "--signals", SIGNALS[0], "--force") == 0
    assert _signals_in_csv(plots) == set(SIGNALS)  # not replaced by the subset
    report = json.loads((plots / "campaign" / "summary_report.json").read_text())
    assert report["jobs"]["done"] == report["jobs"]["up to date"] > 0 and report["jobs"]["other options"] == 0
    # a filtered run with other options: the other signal's sets are listed, not mixed into the tables
    assert _campaign(tree, plots, "--signals", SIGNALS[0], "--force", "--bootstrap", "12") == 0
    assert _signals_in_csv(plots) == {SIGNALS[0]}
    report = json.loads((plots / "campaign" / "summary_report.json").read_text())
    assert report["jobs"]["other options"] == report["jobs"]["done"] > 0
    index = (plots / "campaign" / "site" / "index.html").read_text()
    assert "Sets made with other options" in index and SIGNALS[1] in index


def test_two_results_trees_never_mix_in_one_output_tree(tree, tmp_path, capsys):
    plots = tmp_path / "plots"
    assert _campaign(tree, plots) == 0
    other = tmp_path / "elsewhere" / "results"
    shutil.copytree(tree, other)
    assert _campaign(other, plots) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds the campaign summary of round" in err[0] and str(tree) in err[0]
    assert str(other) in err[0] and "--round NAME" in err[0]
