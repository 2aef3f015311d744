"""Remembered options are typed data (issue 49, item 2; cases A1, A2, A13): a set's marker and a
round's round_options.json are read as the command line is (the command's own parser, its ranges
and checks; a bad value is one line naming the file and the field, exit 2), and an expression
(--column, --columns) is never taken from them: a planted one does not run, nothing is republished,
and a run without the mapping of a set or round made with one is refused until it is given again."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.cli.remember import MANIFEST
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.output.atomic import MARKER

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
FAST = ["--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"]
CAMPAIGN = ["--workers", "0", "--kinds", "binary", *FAST]
PLANTED = 'weight=gSystem->Exec("touch PWNED") * 0 + weight'  # the attack of the issue: creates ./PWNED if compiled
MAPPING = "weight=abs(weight)"


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(results, plots of one binary set, plots of one campaign round), each made without a mapping."""
    top = tmp_path_factory.mktemp("records")
    results = top / "results"
    write_trainer_fold(results, CHANNEL, SIGNAL, 0, models=(ModelSpec("binary", "nonprompt"),), events=400)
    assert binary(results, top / "single") == 0
    assert campaign(results, top / "round") == 0
    return results, top / "single", top / "round"


def binary(results: Path, plots: Path, *extra: str) -> int:
    return run(load_script("visualizeBinary").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                     "--background", "nonprompt", "--fold", "0", *FAST, *extra])  # fmt: skip


def campaign(results: Path, plots: Path, *extra: str) -> int:
    return run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                       *CAMPAIGN, *extra])  # fmt: skip


def copied(plots: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(plots, tmp_path / "plots", symlinks=True))


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def marker_of(plots: Path) -> Path:
    (path,) = plots.glob(f"*/{CHANNEL}/binary/{SIGNAL}/*/fold-0/{MARKER}")
    return path


def plant(marker: Path, *tokens: str) -> None:
    data = json.loads(marker.read_text())
    data["command"] = [*data["command"], *tokens]
    marker.write_text(json.dumps(data))


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


def no_pwned(tmp_path: Path) -> bool:
    return not (Path.cwd() / "PWNED").exists() and not list(tmp_path.rglob("PWNED"))


def test_a_column_planted_in_a_marker_does_not_run(made, tmp_path, capsys, monkeypatch):
    """A1: the owner re-runs the command that made the set: refused in one line naming the marker,
    the planted expression is not compiled, the set is not republished."""
    results, single, _ = made
    plots = copied(single, tmp_path)
    marker = marker_of(plots)
    plant(marker, "--column", PLANTED)
    before = snapshot(plots)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert binary(results, plots) == 2
    line = one_line(capsys)
    assert str(marker) in line and "made with --column" in line and "give the mapping again" in line
    assert "gSystem->Exec" in line  # the planted text is shown, so that its owner sees it
    assert no_pwned(tmp_path)
    assert snapshot(plots) == before


def test_a_set_made_with_a_mapping_needs_it_again(made, tmp_path, capsys):
    results, single, _ = made
    plots = copied(single, tmp_path)
    assert binary(results, plots, "--column", MAPPING) == 0
    marker = marker_of(plots)
    assert json.loads(marker.read_text())["command"][-2:] == ["--column", MAPPING]
    before = snapshot(plots)
    capsys.readouterr()
    assert binary(results, plots) == 2  # not reused: refused, nothing removed or rewritten
    line = one_line(capsys)
    assert line.startswith(f"pnetviz: error: {marker}: made with --column 'weight=abs(weight)'; give the mapping again")
    assert snapshot(plots) == before
    assert binary(results, plots, "--column", MAPPING) == 0  # given again: as before
    assert json.loads(marker.read_text())["command"].count("--column") == 1
    assert binary(results, plots, "--replace") == 0  # exactly this command line: without a mapping
    assert "--column" not in json.loads(marker.read_text())["command"]


@pytest.mark.parametrize(("tokens", "said"), [
    (["--bootstrap", "lots"], "command: --bootstrap lots: give 0 (off) or a whole number of replicas"),
    (["--bootstrap=-3"], "command: --bootstrap -3: give 0 (off)"),
    (["--images=lots"], "command: argument --images: invalid choice: 'lots'"),
    (["--energy", "13.3"], "command (--energy): --energy 13.3: the CMS label is drawn for 13, 13.6 or 14 TeV"),
    (["--formats=gif"], "command (--formats): --formats 'gif': choose from"),
    (["--syst="], "command (--syst): --syst '': give nuisance names"),
    (["-qh"], "command: -h asks for the help text, which no command records"),  # argparse would print it and exit 0: nothing done, no error
])  # fmt: skip
def test_a_bad_value_in_a_marker_is_one_line(made, tmp_path, capsys, tokens, said):
    results, single, _ = made
    plots = copied(single, tmp_path)
    marker = marker_of(plots)
    plant(marker, *tokens)
    before = snapshot(plots)
    capsys.readouterr()
    assert binary(results, plots) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1, captured
    assert captured.err.startswith(f"pnetviz: error: {marker}: {said}"), captured.err
    assert snapshot(plots) == before


@pytest.mark.parametrize(("content", "said"), [
    ('{"command": "pnetviz binary --syst all"}', "command 'pnetviz binary --syst all' is not a list of strings"),
    ('{"command": ["pnetviz", "binary", "--syst", 1e999]}', "command[3]: 1e999 is not a finite number"),
    ("FIFO", "a FIFO (named pipe), not a regular file"),
])  # fmt: skip
def test_a_damaged_marker_is_one_line(made, tmp_path, capsys, content, said):
    results, single, _ = made
    plots = copied(single, tmp_path)
    marker = marker_of(plots)
    marker.unlink()
    if content == "FIFO":
        os.mkfifo(marker)
    else:
        marker.write_text(content)
    before = snapshot(plots)
    capsys.readouterr()
    assert binary(results, plots) == 2
    line = one_line(capsys)
    assert line.startswith(f"pnetviz: error: {marker}: {said}"), line
    assert snapshot(plots) == before


def test_a_column_planted_in_the_round_options_does_not_run(made, tmp_path, capsys, monkeypatch):
    """A2: `column` added to a round's round_options.json: the next campaign is refused before
    any job, naming the file; nothing runs and nothing is republished."""
    results, _, round_plots = made
    plots = copied(round_plots, tmp_path)
    manifest = plots / "campaign" / MANIFEST
    data = json.loads(manifest.read_text())
    data["options"]["column"] = [PLANTED]
    manifest.write_text(json.dumps(data))
    before = snapshot(plots)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert campaign(results, plots) == 2
    line = one_line(capsys)
    assert line.startswith(f"pnetviz: error: {manifest}: made with --column ") and "give the mapping again" in line
    assert no_pwned(tmp_path)
    assert snapshot(plots) == before


def test_a_round_made_with_a_mapping_needs_it_again(made, tmp_path, capsys):
    results, _, round_plots = made
    plots = copied(round_plots, tmp_path)
    assert campaign(results, plots, "--column", MAPPING) == 0
    manifest = plots / "campaign" / MANIFEST
    assert json.loads(manifest.read_text())["options"]["column"] == [MAPPING]
    before = snapshot(plots)
    capsys.readouterr()
    assert campaign(results, plots) == 2
    assert one_line(capsys).startswith(f"pnetviz: error: {manifest}: made with --column 'weight=abs(weight)'; give the "
                                       "mapping again")  # fmt: skip
    assert snapshot(plots) == before
    assert campaign(results, plots, "--column", MAPPING) == 0  # given again: the jobs are up to date
    sets = {k: v for k, v in before.items() if k.startswith("results/")}
    assert sets and {k: v for k, v in snapshot(plots).items() if k.startswith("results/")} == sets


@pytest.mark.parametrize(("options", "said"), [
    ({"bootstrap": "lots"}, "options.bootstrap: --bootstrap lots: give 0 (off) or a whole number of replicas"),  # A13
    ({"bootstrap": -3}, "options.bootstrap: --bootstrap -3: give 0 (off)"),
    ({"bootstrap": 2.5}, "options.bootstrap: --bootstrap 2.5: give 0 (off)"),
    ({"bootstrap": True}, "options.bootstrap is not a string or a number (the value of --bootstrap)"),
    ({"seed": [1, 2]}, "options.seed is not a string or a number (the value of --seed)"),
    ({"hull": "yes"}, "options.hull is not true or false (--hull is a switch)"),
    ({"images": "lots"}, "options.images: argument --images: invalid choice: 'lots'"),
    ({"formats": "gif"}, "options.formats: --formats 'gif': choose from"),
    ({"energy": 13.3}, "options.energy: --energy 13.3: the CMS label is drawn for 13, 13.6 or 14 TeV"),
    ({"column": "weight=weight"}, "options.column is not a list of values (the value of --column)"),
    ({"syst_kappa": 0}, "options.syst_kappa: --syst-kappa 0: give a positive scan range"),
    ("NaN", "options.bootstrap: NaN is not a finite number"),
    ([], "options is not an object of option -> value"),
])  # fmt: skip
def test_a_bad_value_in_the_round_options_is_one_line(made, tmp_path, capsys, options, said):
    results, _, _ = made
    plots = tmp_path / "plots"
    manifest = plots / "campaign" / MANIFEST
    manifest.parent.mkdir(parents=True)
    text = '{"options": {"bootstrap": NaN}}' if options == "NaN" else json.dumps({"options": options})
    manifest.write_text(text)
    capsys.readouterr()
    assert campaign(results, plots) == 2
    line = one_line(capsys)
    assert line.startswith(f"pnetviz: error: {manifest}: {said}"), line
    assert snapshot(plots) == {f"campaign/{MANIFEST}": text.encode()}  # nothing made


def test_a_fifo_round_options_is_one_line(made, tmp_path, capsys):
    results, _, _ = made
    manifest = tmp_path / "plots" / "campaign" / MANIFEST
    manifest.parent.mkdir(parents=True)
    os.mkfifo(manifest)
    capsys.readouterr()
    assert campaign(results, tmp_path / "plots") == 2
    assert one_line(capsys).startswith(f"pnetviz: error: {manifest}: a FIFO (named pipe), not a regular file")


def test_recorded_values_are_reused_typed(made, tmp_path, capsys):
    """A hand-written round_options.json of good values: each read as the command line reads it
    (--bootstrap an int, --hull a switch), reused and said."""
    results, _, _ = made
    plots = tmp_path / "plots"
    (plots / "campaign").mkdir(parents=True)
    (plots / "campaign" / MANIFEST).write_text(json.dumps({"options": {"bootstrap": 0, "hull": True, "syst_kappa": 2,
                                                                         "signal_scale": 1.5, "threads": "x"}}))  # fmt: skip
    capsys.readouterr()
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--workers", "0", "--kinds", "binary",
            "--formats", "png", "--no-bjet-comparison", "--dry-run"]  # fmt: skip
    assert run(load_script("visualizeCampaign").main, argv) == 0
    out = capsys.readouterr().out
    assert "reusing the options recorded for" in out
    assert "--signal-scale 1.5 --bootstrap 0 --hull --syst-kappa 2.0 (give another" in out  # parsed: 2 -> 2.0 as --syst-kappa 2 is
    (job,) = [line for line in out.splitlines() if line.strip().startswith("pnetviz binary")]
    assert "--bootstrap 0" in job and "--hull" in job and "--syst-kappa 2.0" in job and "--signal-scale 1.5" in job
