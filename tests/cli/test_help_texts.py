"""--help texts say only what is true (issue 40 item 2): every `--option` a subcommand's help names
is one of its own options, the paths they name are where it writes, the ntuple-contract footer only
where ntuples are read, options in the help group of what they are, no name split over two lines;
and the progress lines of every evaluating subcommand read the same way."""

from __future__ import annotations

import argparse
import re

import pytest

from conftest import load_script
from pnetviz.cli import common, demo, main
from pnetviz.cli.commands import COMMANDS, parser_of
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import write_trainer_fold

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
CONTRACT = "ntuple contract: TTree 'Events'"


def _help(command: str, columns: int = 100, monkeypatch=None) -> str:
    if monkeypatch is not None:
        monkeypatch.setenv("COLUMNS", str(columns))
    return parser_of(command).format_help()


def _own_options(parser: argparse.ArgumentParser) -> set[str]:
    return set(parser._option_string_actions)  # every flag argparse accepts, as it matches them


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_names_only_its_own_options(command, monkeypatch):
    parser = parser_of(command)
    text = _help(command, 100, monkeypatch)
    named = set(OPTION.findall(text))
    assert named, command
    foreign = named - _own_options(parser)
    assert not foreign, f"pnetviz {command} --help names options it does not have: {sorted(foreign)}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_contract_footer_only_where_ntuples_are_read(command):
    text = _help(command)
    assert (CONTRACT in text) == (command in ("binary", "multiclass", "compare", "campaign")), command


def test_plots_dir_help_names_where_each_subcommand_writes(monkeypatch):
    flat = {c: " ".join(_help(c, 100, monkeypatch).split()) for c in ("binary", "ga", "campaign")}
    assert "<plots-dir>/<GAOptim dir>/<channel>/multiclass/<signal>/ga/" in flat["ga"]
    assert "fold-<k>" not in flat["ga"] and "<results dir name>" not in flat["ga"]
    assert "<plots-dir>/<results dir name>/<channel>/<kind>/<signal>/<model>/fold-<k>/" in flat["binary"]
    assert "the summary to <plots-dir>/campaign/" in flat["campaign"]


def test_top_level_help_names_the_real_summary_path():
    text = main.parser().format_help()
    assert "summary in plots/campaign/" in text and "<round>" not in text
    assert set(OPTION.findall(text)) <= set().union(*(_own_options(parser_of(c)) for c in COMMANDS)) | {"--version"}


def test_demo_options_sit_in_the_generated_sample_group(monkeypatch):
    parser = demo.parser("pnetviz demo")
    groups = {a.option_strings[-1]: g.title for g in parser._action_groups for a in g._group_actions if a.option_strings}
    for flag in ("--events", "--folds", "--seed", "--signals", "--channels"):
        assert groups[flag] == "the toy sample (what is generated)", flag
    assert groups["--output"].startswith("outputs")


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_no_name_is_split_over_two_lines(columns, monkeypatch):
    """Every signal point and channel of the demo's help, and <plots-dir> of every --plots-dir
    help, appears whole on one line at any terminal width."""
    names = {"demo": [*demo.SIGNALS.split(","), *demo.CHANNELS.split(",")],
             **{c: ["<plots-dir>/"] for c in ("binary", "multiclass", "compare", "campaign", "ga")}}  # fmt: skip
    for command, words in names.items():
        lines = _help(command, columns, monkeypatch).splitlines()
        for word in words:
            assert any(word in line for line in lines), (command, columns, word)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    base = tmp_path_factory.mktemp("tree") / "results"
    write_trainer_fold(base, "Run3Mu", "MHc130_MA90", 0, events=400, seed=1)
    return base


def test_every_evaluation_reports_what_it_published(results, tmp_path, capsys):
    common_argv = ["--results-dir", str(results), "--plots-dir", str(tmp_path), "--formats", "none", "--bootstrap", "0",
                   "--no-bjet-comparison"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, [*common_argv, "--background", "ttZ"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(re.fullmatch(r"\[pnetviz binary\] 1/1 evaluated \(fold 0\): \d+ files staged for .+/fold-0", line)
               for line in out), out  # fmt: skip
    assert "[pnetviz binary] published 1 output set" in out
    compare_argv = [a for a in common_argv if a != "--no-bjet-comparison"]
    assert run(load_script("visualizeComparison").main, compare_argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("[pnetviz compare] 1/1 evaluated (fold 0): ") for line in out), out
    assert "[pnetviz compare] published 1 output set" in out


def test_set_line_names_an_unknown_fold():
    from pathlib import Path

    from pnetviz.jobs.driver import published_line, set_line

    assert set_line("binary", "", 1, 1, 20, Path("out2")) == "[pnetviz binary] 1/1 evaluated (fold unknown): 20 files staged for out2"
    assert published_line("compare", 3, "summary of 3 folds: 9 files for x") == "[pnetviz compare] published 4 output sets"
    assert published_line("compare", 1, "") == "[pnetviz compare] published 1 output set"
    assert common.READS_NTUPLES == {"binary", "multiclass", "compare", "campaign"}
