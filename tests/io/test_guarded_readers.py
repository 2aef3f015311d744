"""Files parsed with limits (issue 41): JSON nested 1e5 deep, a 5001-digit integer, 10**400 and
1e400 in every JSON file pnetviz reads (the trainer's performance and model-info JSON, the GA's
model record, snapshot and overfitting diagnostics, --expected-yields, a set's summary_report.json),
a model_info.csv cell over csv's field limit and a truncated or list-shaped set marker are each one
line naming the file (and the field), exit 2, nothing written; were tracebacks (RecursionError,
ValueError, OverflowError, _csv.Error, JSONDecodeError, AttributeError)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import contract_columns, write_ntuple
from pnetviz.cli.commands import run_command
from pnetviz.demo.ga import ToyModel, ToyRun, write_run
from pnetviz.demo.trainertree import STANDARD_MODELS, write_trainer_fold
from pnetviz.errors import InputError
from pnetviz.io import readers

CHANNEL, SIGNAL, PREFIX = "Run3Mu", "MHc100_MA95", "TTToHcToWAToMuMu-"
MARK = "@BAD@"
# what a user's (or a damaged) file holds -> what the one line says about it
BAD = {
    "deep": ("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
    "5001 digits": ("9" * 5001, "(5001 characters) is not a finite number"),
    "10**400": ("1" + "0" * 400, "(401 characters) is not a finite number"),
    "1e400": ("1e400", "1e400 is not a finite number"),
}
A = (64, "Adam", 0.0002, 2e-05, "ReduceLROnPlateau")
B = (96, "RMSprop", 0.001, 0.0001, "CyclicLR")


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("pnetviz: warning")]
    assert len(lines) == 1 and lines[0].startswith("pnetviz: error: ") and "Traceback" not in err, err
    return lines[0]


def poison(path: Path, where: list, bad: str) -> None:
    """Put the literal `bad` at the key path `where` of the JSON file `path`."""
    doc = json.loads(path.read_text())
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = MARK
    path.write_text(json.dumps(doc).replace(f'"{MARK}"', bad))


def field_of(where: list) -> str:
    """The key path as the readers name it: a.b[0].c."""
    text = ""
    for key in where:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def expect_one_line(capsys, code: int, path: Path, where: list, case: str) -> None:
    line = one_error_line(capsys.readouterr().err)
    assert code == 2
    assert f"{path}: " in line and BAD[case][1] in line and "Fix: " in line, line
    if case != "deep":
        assert f"{field_of(where)}: " in line, line


# --- the trainer's JSON beside an ntuple ---


@pytest.fixture(scope="module")
def trainer_fold(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("trainer") / "results"
    write_trainer_fold(base, CHANNEL, SIGNAL, 0, models=STANDARD_MODELS[:1], events=300)
    return base / CHANNEL / "binary" / f"{PREFIX}{SIGNAL}" / "fold-0"


@pytest.mark.parametrize("case", BAD)
@pytest.mark.parametrize("suffix, where", [
    ("_performance.json", ["training_results", "training_history", 0, "valid_loss"]),
    ("_model_info.json", ["num_parameters"]),
])  # fmt: skip
def test_trainer_json(trainer_fold, tmp_path, capsys, suffix, where, case):
    fold = shutil.copytree(trainer_fold, tmp_path / "fold-0")
    name = STANDARD_MODELS[0].name
    path = fold / f"{name}{suffix}"
    poison(path, where, BAD[case][0])
    out = tmp_path / "out"
    code = run_command("binary", ["--predictions", str(fold / "trees" / f"{name}.root"), "--output", str(out), "-q"])
    expect_one_line(capsys, code, path, where, case)
    assert not out.exists()


# --- the GA's files ---


def ga_run(tmp_path: Path) -> Path:
    pops = [[ToyModel(A, [1.0, 0.8, 0.85], [0.9, 0.7, 0.6], sharpness=1.5), ToyModel(B, [1.1, 0.9], [1.0, 0.95])]]
    return write_run(tmp_path / "GAOptim", ToyRun(CHANNEL, SIGNAL, pops, events=200))


def run_ga(run_dir: Path, out: Path) -> int:
    return run_command("ga", ["--ga-dir", str(run_dir), "--output", str(out), "--formats", "png", "-q"])


@pytest.mark.parametrize("case", BAD)
@pytest.mark.parametrize("file, where", [
    ("GA-iter0/json/model0.json", ["epoch_history", "valid_loss", 0]),
    ("ga_optimization_results.json", ["configuration", "ga_parameters", "overfitting_penalty_weight"]),
    ("GA-iter0/overfitting_diagnostics/model0_kolmogorov.json", ["signal_signal_score", "p_value"]),
])  # fmt: skip
def test_ga_json(tmp_path, capsys, file, where, case):
    run_dir = ga_run(tmp_path)
    poison(run_dir / file, where, BAD[case][0])
    code = run_ga(run_dir, tmp_path / "out")
    expect_one_line(capsys, code, run_dir / file, where, case)
    assert not (tmp_path / "out").exists()


def test_a_population_cell_over_the_csv_field_limit(tmp_path, capsys):
    run_dir = ga_run(tmp_path)
    path = run_dir / "GA-iter0" / "json" / "model_info.csv"
    path.write_text(f'model,chromosome,fitness\nmodel0,"({"1, " * 45_000}1)",0.9\n')  # 135,002 characters
    line = one_error_line_of(run_ga(run_dir, tmp_path / "out"), capsys)
    assert line.startswith(f"pnetviz: error: {path}: line ") and "not valid CSV" in line and "Fix: re-write" in line


def one_error_line_of(code: int, capsys) -> str:
    line = one_error_line(capsys.readouterr().err)
    assert code == 2
    return line


# --- --expected-yields FILE and a set's summary_report.json ---


@pytest.mark.parametrize("case", BAD)
def test_expected_yields_file(tmp_path, capsys, case):
    ntuple = write_ntuple(tmp_path / "p.root", contract_columns(n=300, n_classes=2))
    table = tmp_path / "yields.json"
    table.write_text(json.dumps({CHANNEL: {SIGNAL: {"signal": 20, "nonprompt": 500}}}))
    where = [CHANNEL, SIGNAL, "nonprompt"]
    poison(table, where, BAD[case][0])
    out = tmp_path / "out"
    code = run_command("binary", ["--predictions", str(ntuple), "--background", "nonprompt", "--channel", CHANNEL,
                                  "--signal", SIGNAL, "--output", str(out), "--expected-yields", str(table), "-q"])  # fmt: skip
    expect_one_line(capsys, code, table, where, case)
    assert not out.exists()


@pytest.mark.parametrize("case", BAD)
def test_summary_report_read_by_the_campaign(tmp_path, case):
    from pnetviz.summary.summary import read_report  # noqa: PLC0415

    path = tmp_path / "fold-0" / "summary_report.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hep_metrics": {"test": {"auc": 0.9}}, "events": {"test": {"signal": 10}}}))
    where = ["hep_metrics", "test", "auc"]
    poison(path, where, BAD[case][0])
    with pytest.raises(InputError) as err:
        read_report(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{path}: ") and BAD[case][1] in message
    assert "Fix: delete that set's directory (fold-0/)" in message


# --- the set marker read by `pnetviz render` ---


@pytest.mark.parametrize("text, said", [
    ('{"files": ["plots.root", "summary_re', "not valid JSON (Unterminated string"),
    ('["plots.root"]', "a JSON list, not an object"),
    ('{"files": "plots.root"}', "files 'plots.root' is not a list of strings"),
    ("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
])  # fmt: skip
def test_render_of_a_damaged_marker(tmp_path, capsys, text, said):
    directory = tmp_path / "set"
    directory.mkdir()
    (directory / "plots.root").write_bytes(b"not drawn: the marker is read first")
    marker = directory / ".pnetviz-set.json"
    marker.write_text(text)
    line = one_error_line_of(run_command("render", [str(directory), "--formats", "png", "-q"]), capsys)
    assert line.startswith(f"pnetviz: error: {marker}: {said}") and "Fix: re-run the command" in line, line
    assert sorted(p.name for p in directory.iterdir()) == [".pnetviz-set.json", "plots.root"]  # nothing written


# --- the readers themselves ---


def test_the_readers_accept_what_pnetviz_and_the_trainer_write(tmp_path):
    path = tmp_path / "ok.json"
    path.write_text('{"a": [1, -2.5e-300, 12345678901234567890, "x", {"b": null}], "c": NaN}')
    assert readers.read_json(path, "test file", finite=False)["a"][2] == 12345678901234567890
    with pytest.raises(InputError, match=r"ok.json: c: NaN is not a finite number"):
        readers.read_json(path, "test file")
    path.write_text("[" * 63 + "]" * 63)  # 63 levels inside the top level's: the limit, not beyond
    assert readers.parse_json(path.read_bytes(), "x") == json.loads(path.read_text())


def test_typed_field_helpers(tmp_path):
    assert readers.finite_float(3, "f.json", "x", 0, 4) == 3.0 and readers.int_in(7, "f.json", "n", 1, 64) == 7
    for value in (10**400, True, "1", float("nan"), 5.0):
        with pytest.raises(InputError, match=r"^f.json: x .* is not a finite number from 0 to 4\. Fix: "):
            readers.finite_float(value, "f.json", "x", 0, 4)
    with pytest.raises(InputError, match=r"n 100000000 is not a whole number from 1 to 64"):
        readers.int_in(100_000_000, "f.json", "n", 1, 64)
    assert readers.text_list(["a"], "f", "files") == ["a"]
    with pytest.raises(InputError, match="is not a list of strings"):
        readers.text_list(["a", 1], "f", "files")
    with pytest.raises(InputError, match="is not a string"):
        readers.text(1, "f", "name")
