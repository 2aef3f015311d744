"""Output paths are built only from names that are single path components: channel, signal point,
model and background names from the trainer's JSON, from directory names or from the command
line; anything else is one error line naming the field and where it came from (exit 2), and
nothing is written. A campaign refuses two jobs publishing into one directory before running."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.campaign import plan
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.errors import InputError
from pnetviz.io import layout

CHANNEL, SIGNAL, PREFIX = "Run3Mu", "MHc130_MA90", "TTToHcToWAToMuMu-"
NONPROMPT, GROUPED = ModelSpec("binary", "nonprompt"), ModelSpec("grouped")
FAST = ["--bootstrap", "0", "--formats", "png", "-q"]


def snapshot(base: Path) -> dict[str, int]:
    return {str(p.relative_to(base)): p.stat().st_mtime_ns for p in base.rglob("*")}


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("pnetviz: warning")]
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A trainer-layout binary and multi-class model, fold 0; returns (results dir, binary ntuple)."""
    results = tmp_path_factory.mktemp("names") / "results"
    tree, _ = write_trainer_fold(results, CHANNEL, SIGNAL, 0, models=(NONPROMPT, GROUPED), events=600)
    return results, tree


def copy_with_json(model, tmp_path: Path, **changes) -> Path:
    """The model's fold directory copied into tmp_path with its performance JSON changed."""
    _, tree = model
    fold = tmp_path / "fold-0"
    shutil.copytree(tree.parent.parent, fold)
    perf = fold / f"{NONPROMPT.name}_performance.json"
    doc = json.loads(perf.read_text())
    for key, value in changes.items():
        if key == "background":
            doc["background_info"]["backgrounds"] = [value]
        else:
            doc[key] = value
    perf.write_text(json.dumps(doc))
    return fold / "trees" / f"{NONPROMPT.name}.root"


@pytest.mark.parametrize("field, value, shown", [
    ("channel", "../x", "channel '../x'"),
    ("channel", "/abs/path", "channel '/abs/path'"),
    ("channel", "..", "channel '..'"),
    ("signal_sample", f"{PREFIX}../../x", "signal_sample '../../x'"),
    ("signal_sample", "/etc", "signal_sample '/etc'"),
    ("signal_sample", "-2+3", "signal_sample '-2+3'"),
    ("background", "../x", "background_info.backgrounds '../x'"),
    ("background", "/tmp/evil", "background_info.backgrounds '/tmp/evil'"),
])  # fmt: skip
def test_trainer_json_names_must_be_path_components(model, tmp_path, capsys, field, value, shown):
    tree = copy_with_json(model, tmp_path, **{field: value})
    plots = tmp_path / "plots"
    before = snapshot(tmp_path)
    code = run(load_script("visualizeBinary").main, ["--predictions", str(tree), "--plots-dir", str(plots), *FAST])
    line = one_error_line(capsys.readouterr().err)
    assert code == 2
    assert shown in line and "_performance.json (the trainer's JSON)" in line and "single path component" in line
    assert snapshot(tmp_path) == before and not plots.exists()


def test_class_names_from_the_json_must_be_path_components(model, tmp_path, capsys):
    from pnetviz.io import trainer

    perf = tmp_path / "m_performance.json"
    perf.write_text(json.dumps({"background_info": {"mode": "grouped", "groups": {"../x": ["TTLL"], "ttX": ["tZq"]}}}))
    info = trainer.TrainerInfo(performance=perf, meta=json.loads(perf.read_text()))
    with pytest.raises(InputError, match=r"m_performance.json \(the trainer's JSON\): class \(background_info.groups\) "
                                         r"'../x' is not a single path component"):  # fmt: skip
        info.classes()


@pytest.mark.parametrize("argv, shown", [
    (["--signal=-2+3"], "command line: --signal '-2+3'"),
    (["--signal", ".."], "command line: --signal '..'"),
    (["--channel", "../Run3Mu"], "command line: --channel '../Run3Mu'"),
    (["--background", "a/b"], "command line: --background 'a/b'"),
])  # fmt: skip
def test_command_line_names_must_be_path_components(model, tmp_path, capsys, argv, shown):
    results, _ = model
    plots = tmp_path / "plots"
    code = run(load_script("visualizeBinary").main, ["--results-dir", str(results), "--plots-dir", str(plots), *argv, *FAST])
    line = one_error_line(capsys.readouterr().err)
    assert code == 2 and shown in line and not plots.exists()


def renamed_tree(model, tmp_path: Path, signal_dir: str | None = None, model_file: str | None = None) -> Path:
    """A copy of the results tree with the signal directories and/or an ntuple renamed (a
    multi-class one when `model_file` has no -binary-)."""
    results, _ = model
    copy = tmp_path / "results"
    shutil.copytree(results, copy)
    if model_file:
        spec = NONPROMPT if "-binary-" in model_file else GROUPED
        trees = copy / CHANNEL / spec.directory / f"{PREFIX}{SIGNAL}" / "fold-0" / "trees"
        (trees / f"{spec.name}.root").rename(trees / model_file)
    if signal_dir:
        for kind in ("binary", "multiclass"):
            sdir = copy / CHANNEL / kind / f"{PREFIX}{SIGNAL}"
            sdir.rename(sdir.parent / signal_dir)
    return copy


@pytest.mark.parametrize("signal_dir, model_file, shown", [
    (f"{PREFIX}..", None, "signal point '..'"),
    (f"{PREFIX}-2+3", None, "signal point '-2+3'"),
    (None, "...root", "model '..'"),
    (None, "-x-binary-nonprompt.root", "model '-x-binary-nonprompt'"),
    (None, "m-binary-...root", "background '..'"),
])  # fmt: skip
def test_directory_and_file_names_must_be_path_components(model, tmp_path, capsys, signal_dir, model_file, shown):
    results = renamed_tree(model, tmp_path, signal_dir, model_file)
    plots = tmp_path / "plots"
    command = "visualizeMultiClass" if model_file and "-binary-" not in model_file else "visualizeBinary"
    code = run(load_script(command).main, ["--results-dir", str(results), "--plots-dir", str(plots), *FAST])
    line = one_error_line(capsys.readouterr().err)
    assert code == 2 and shown in line and "single path component" in line and not plots.exists()
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())


@pytest.mark.parametrize("signal_dir, model_file, shown", [
    (f"{PREFIX}-2+3", None, "signal point '-2+3'"),
    (f"{PREFIX}..", None, "signal point '..'"),
    (None, "...root", "model '..'"),
])  # fmt: skip
def test_campaign_refuses_bad_names_before_running(model, tmp_path, capsys, signal_dir, model_file, shown):
    results = renamed_tree(model, tmp_path, signal_dir, model_file)
    plots = tmp_path / "plots"
    code = run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                        "--workers", "0", *FAST])  # fmt: skip
    line = one_error_line(capsys.readouterr().err)
    assert code == 2 and shown in line and ("(directory name)" in line or "(an ntuple's name)" in line)
    assert not plots.exists()


def test_job_argv_never_passes_a_leading_dash_value_as_an_option():
    assert plan.option("--signal", "-2+3") == ["--signal=-2+3"]
    assert plan.option("--signal", "MHc130_MA90") == ["--signal", "MHc130_MA90"]
    group = layout.ModelGroup("binary", "Run3Mu", "MHc130_MA90", "m-binary-x", "x", (0,), (Path("/r/t.root"),))
    job = plan.model_job(group, plan.Options(results=Path("/r"), plots=Path("/p"), prefix="-pre"))
    assert "--signal-prefix=-pre" in job.argv and job.argv[job.argv.index("--signal") + 1] == "MHc130_MA90"
    assert not any(a.startswith("-") and not a.startswith("--") and a != "-q" for a in job.argv)
    with pytest.raises(InputError, match="signal point '-2\\+3'"):  # never built from a refused name
        plan.model_job(layout.ModelGroup("binary", "Run3Mu", "-2+3", None, "x", (0,), (Path("/r/t.root"),)),
                       plan.Options(results=Path("/r"), plots=Path("/p")))


def test_two_jobs_publishing_one_directory_are_refused():
    out = (Path("/p/m/fold-0"),)
    a = plan.Job("binary", "c", "s", "m", "b", (0,), "binary", (), (), out)
    b = plan.Job("binary", "c", "s", "m2", "b", (0,), "binary", (), (), (Path("/p/x/../m/fold-0"),))
    with pytest.raises(InputError, match=r"/p/x/../m/fold-0: jobs 'c/s/binary/b \[folds 0\]' and 'c/s/binary/b \[folds 0\]' "
                                         "would both publish this output directory"):  # fmt: skip
        plan.check_distinct([a, b])
    plan.check_distinct([a, plan.Job("binary", "c", "s", "m", "b", (1,), "binary", (), (), (Path("/p/m/fold-1"),))])


@pytest.mark.parametrize("name, problem", [
    ("", "empty"), (".", "'.' is not a name"), ("..", "'..' is not a name"), ("a/b", "contains '/'"),
    ("a\0b", "NUL"), ("-x", "starts with '-'"),
])  # fmt: skip
def test_name_problems(name, problem):
    assert problem in layout.name_problem(name)
    with pytest.raises(InputError, match="single path component"):
        layout.check_name(name, "signal point", "here", "rename it.")


@pytest.mark.parametrize("name", ["MHc130_MA90", "a#b", "x?y", "p|q", "ünï", "a..b", ".hidden", "a b"])
def test_ordinary_and_odd_but_harmless_names_pass(name):
    assert layout.name_problem(name) is None


def test_listing_of_a_missing_directory_is_empty_not_an_error(tmp_path):
    assert layout.listing(tmp_path / "absent") == []
    assert layout.listing(tmp_path) == []
    os.mkdir(tmp_path / "d")
    assert layout.listing(tmp_path) == [tmp_path / "d"]
