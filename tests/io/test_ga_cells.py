"""GA files through the guarded readers (issue 49, A15 and the minor list): a model_info.csv gene
or fitness too long or too large for a float, a model index of thousands of digits, and
predictions of one class are one InputError naming the file (and the row), never a traceback;
`pnetviz ga` says it in one line, exit 2."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pnetviz.cli.commands import run_command
from pnetviz.demo.ga import ToyModel, ToyRun, write_run
from pnetviz.errors import InputError
from pnetviz.io import ga, readers

A = (64, "Adam", 0.0002, 2e-05, "ReduceLROnPlateau")
B = (96, "RMSprop", 0.001, 0.0001, "CyclicLR")


def toy(tmp_path):
    pops = [[ToyModel(A, [1.0, 0.8, 0.85], [0.9, 0.7, 0.6], sharpness=1.5), ToyModel(B, [1.1, 0.9], [1.0, 0.95])]]
    return write_run(tmp_path / "GAOptim_bjets", ToyRun("Run1E2Mu", "MHc130_MA90", pops, events=300))


def damage_csv(run_dir, old: str, new: str):
    path = run_dir / "GA-iter0" / "json" / "model_info.csv"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(("old", "new", "shown"), [
    ("(64, 'Adam'", "(" + "9" * 400 + ", 'Adam'", "chromosome .\\(99999"),  # OverflowError on main
    ("(64, 'Adam'", "(" + "9" * 330 + ", 'Adam'", "chromosome .\\(99999"),  # 1e330: no float either
    ("(64, 'Adam'", "(1e400, 'Adam'", "chromosome .\\(1e400"),
    ("model0,", "model" + "1" * 5000 + ",", "model .* is not model<i>"),  # int() of 5000 digits: ValueError on main
])  # fmt: skip
def test_a_cell_no_float_holds_is_one_line_naming_the_file_and_row(tmp_path, old, new, shown):
    run_dir = toy(tmp_path)
    path = damage_csv(run_dir, old, new)
    with pytest.raises(InputError) as err:
        ga.read_run(run_dir, "Run1E2Mu", "MHc130_MA90")
    text = str(err.value)
    assert "\n" not in text and str(path) in text and re.search(f"row 2: {shown}", text), text


@pytest.mark.parametrize("fitness", ["9" * 400, "1e400", "-inf", "abc", "[1, 2]"])
def test_a_fitness_no_float_holds_is_a_bad_value(tmp_path, fitness):
    run_dir = toy(tmp_path)
    path = run_dir / "GA-iter0" / "json" / "model_info.csv"
    lines = path.read_text().splitlines()
    head, *rows = lines
    assert head == "model,chromosome,fitness"
    rows[0] = rows[0].rsplit(",", 1)[0] + f',"{fitness}"'
    path.write_text("\n".join([head, *rows]) + "\n")
    with pytest.raises(InputError) as err:
        ga.read_run(run_dir, "Run1E2Mu", "MHc130_MA90")
    assert str(path) in str(err.value) and "row 2: fitness" in str(err.value)
    assert "finite number in a float's range" in str(err.value)


def test_the_cell_helpers():
    assert readers.number_cell(" 0.5 ", "f", "x") == 0.5
    assert readers.number_cell("1" * 300, "f", "x") == float("1" * 300)
    for bad in ("1" * 400, "1e309", "nan", "", "0x10"):
        with pytest.raises(InputError, match="f: x .* is not a finite number"):
            readers.number_cell(bad, "f", "x")
    assert readers.fits_float(10**300) and readers.fits_float(-2.5)
    assert not any(readers.fits_float(v) for v in (10**400, float("inf"), float("nan"), True, "1", None))


def predictions(path, label_train, label_test, weights=None):
    n = len(label_test)
    data = {}
    for split, label in (("train", label_train), ("test", label_test)):
        data |= {f"y_true_{split}": np.asarray(label), f"y_scores_{split}": np.full((n, 4), 0.25),
                 f"weights_{split}": np.ones(n) if weights is None else np.asarray(weights, float)}  # fmt: skip
    np.savez(path, **data)
    return path


@pytest.mark.parametrize(("train", "test", "weights", "shown"), [
    ([0] * 8, [0, 1] * 4, None, "y_true_train holds no background (classes 1+) events"),
    ([0, 2] * 4, [3] * 8, None, "y_true_test holds no signal (class 0) events"),
    ([0, 1] * 4, [0, 1] * 4, [1, 1, 1, -1, 1, 1, 1, -1], "background (classes 1+) events of train have a weight sum of 0"),
])  # fmt: skip
def test_predictions_of_one_class_name_the_file(tmp_path, train, test, weights, shown):
    path = predictions(tmp_path / "model0_predictions.npz", train, test, weights)
    with pytest.raises(InputError) as err:
        ga.read_predictions(path, 4)
    assert "\n" not in str(err.value) and str(path) in str(err.value) and shown in str(err.value)


def test_pnetviz_ga_on_one_class_predictions_is_one_line(tmp_path, capsys):
    run_dir = toy(tmp_path)
    for path in (run_dir / "GA-iter0" / "overfitting_diagnostics").glob("model*_predictions.npz"):
        with np.load(path) as npz:
            data = dict(npz)
        data["y_true_test"] = np.zeros_like(data["y_true_test"])
        np.savez(path, **data)
    assert run_command("ga", ["--ga-dir", str(run_dir), "--output", str(tmp_path / "out"), "--formats", "none"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "_predictions.npz: y_true_test holds no background" in err, err
