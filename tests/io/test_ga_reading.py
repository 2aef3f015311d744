"""Reading a GA search run: both overfitting-diagnostics schemas, the configuration snapshot (any
number of classes), model_info.csv and the predictions; one-line errors naming the file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pnetviz.demo.ga import FIVE_CLASS_GROUPS, ToyModel, ToyRun, write_run
from pnetviz.errors import InputError
from pnetviz.io import ga

A = (64, "Adam", 0.0002, 2e-05, "ReduceLROnPlateau")
B = (96, "RMSprop", 0.001, 0.0001, "CyclicLR")


def toy(tmp_path, **kwargs):
    pops = kwargs.pop("populations", [[ToyModel(A, [1.0, 0.8, 0.85], [0.9, 0.7, 0.6], sharpness=1.5),
                                       ToyModel(B, [1.1, 0.9], [1.0, 0.95])]])  # fmt: skip
    run = ToyRun("Run1E2Mu", "MHc130_MA90", pops, events=300, **kwargs)
    return write_run(tmp_path / "GAOptim_bjets", run)


def test_run_is_found_and_read(tmp_path):
    run_dir = toy(tmp_path)
    assert ga.roots_near(tmp_path / "results") == [(tmp_path / "GAOptim_bjets").resolve()]  # beside results/
    assert ga.locate(tmp_path / "GAOptim_bjets", None, None) == ("Run1E2Mu", "MHc130_MA90", run_dir)
    assert ga.locate(run_dir, None, None)[:2] == ("Run1E2Mu", "MHc130_MA90")
    run = ga.read_run(run_dir, "Run1E2Mu", "MHc130_MA90")
    assert run.classes == ("signal", "nonprompt", "diboson", "ttX") and run.penalty == 0.3 and run.metric == "loss/valid"
    assert [m.chromosome for m in run.models] == [A, B]
    assert run.models[0].csv_fitness == pytest.approx(0.8 + 0.3 * 0.1)
    np.testing.assert_array_equal(run.models[0].history["valid_loss"], [1.0, 0.8, 0.85])
    assert run.models[0].predictions is not None and run.models[1].predictions is None
    assert run.best_chromosome["chromosome"] == A and run.best_chromosome["index"] == 0


def test_five_classes_from_background_groups(tmp_path):
    run = ga.read_run(toy(tmp_path, groups=FIVE_CLASS_GROUPS), "Run1E2Mu", "MHc130_MA90")
    assert run.classes == ("signal", "nonprompt-TT", "nonprompt-DY", "diboson", "ttX")
    preds = ga.read_predictions(run.models[0].predictions, 5)
    assert preds["train"].scores.shape == (300, 5) and set(np.unique(preds["test"].label)) <= set(range(5))


def test_schema_v_and_schema_e(tmp_path):
    run_v = ga.read_run(toy(tmp_path / "v", schemas=("V",)), "c", "s")
    d = run_v.models[0].diagnostics
    assert d.schema == "V" and len(d.tests) == 16 and d.min_p_value == min(d.tests.values())
    assert "nonprompt_ttX_score" in d.tests
    run_e = ga.read_run(toy(tmp_path / "e", schemas=("E",)), "c", "s")
    d = run_e.models[0].diagnostics
    assert d.schema == "E" and set(d.tests) == {"signal", "nonprompt", "diboson", "ttX"} and d.threshold == 0.3
    assert run_e.models[0].predictions is None  # only visualizeGAIteration writes predictions


def test_schema_files_by_hand(tmp_path):
    e = tmp_path / "e.json"
    e.write_text(json.dumps({"model_idx": 0, "is_overfitted": True, "threshold": 0.05, "per_class_results":
                             {"ttX": {"p_value": 1.235e-30, "is_overfitted": True}, "signal": {"p_value": 0.4}},
                             "overall_min_p_value": 1.235e-30, "failed_classes": ["ttX"]}))  # fmt: skip
    d = ga.read_diagnostics(e)
    assert (d.schema, d.is_overfitted, d.min_p_value, d.tests["signal"]) == ("E", True, 1.235e-30, 0.4)
    v = tmp_path / "v.json"
    v.write_text(json.dumps({"nonprompt_nonprompt_score": {"true_class": "nonprompt", "score_type": "nonprompt_score",
                             "p_value": 0.01, "is_overfitted": True, "n_train": 24139, "n_test": 8857},
                             "signal_signal_score": {"p_value": 0.145, "is_overfitted": False}}))  # fmt: skip
    d = ga.read_diagnostics(v)
    assert (d.schema, d.is_overfitted, d.min_p_value) == ("V", True, 0.01)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"something": 1}))
    with pytest.raises(InputError, match="neither overfitting-diagnostics schema"):
        ga.read_diagnostics(bad)


def test_without_snapshot_the_defaults_are_noted(tmp_path):
    run = ga.read_run(toy(tmp_path, results_file=False), "c", "s")
    assert run.penalty == ga.DEFAULT_PENALTY and run.best_chromosome is None
    assert run.classes == ("signal", "background1", "background2", "background3")  # num_classes of the model JSON
    assert any("no ga_optimization_results.json" in n for n in run.notes)


def one_line(excinfo) -> str:
    text = str(excinfo.value)
    assert "\n" not in text
    return text


def test_bad_files_are_one_line_errors_naming_them(tmp_path):
    run_dir = toy(tmp_path)
    csv_path = run_dir / "GA-iter0" / "json" / "model_info.csv"
    original = csv_path.read_text()
    csv_path.write_text(original.replace("(64, 'Adam'", "__import__('os').system('true') or (64, 'Adam'"))
    with pytest.raises(InputError) as err:
        ga.read_run(run_dir, "c", "s")
    assert str(csv_path) in one_line(err) and "not a tuple" in str(err.value)
    csv_path.write_text(original + "model7,\"(1, 'x', 0.1, 0.1, 'y')\",0.5\n")
    with pytest.raises(InputError) as err:
        ga.read_run(run_dir, "c", "s")
    assert "model7.json: missing" in one_line(err)
    csv_path.write_text(original)
    record = run_dir / "GA-iter0" / "json" / "model1.json"
    doc = json.loads(record.read_text())
    doc["epoch_history"]["valid_loss"] = [1.0, "nan"]
    record.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        ga.read_run(run_dir, "c", "s")
    assert str(record) in one_line(err)


def test_predictions_are_checked(tmp_path):
    path = tmp_path / "model0_predictions.npz"
    n = 10
    good = {f"{k}_{s}": v for s in ("train", "test") for k, v in
            (("y_true", np.arange(n) % 4), ("y_scores", np.full((n, 4), 0.25)), ("weights", np.ones(n)))}  # fmt: skip
    np.savez(path, **good)
    assert ga.read_predictions(path, 4)["test"].label.tolist() == (np.arange(n) % 4).tolist()
    with pytest.raises(InputError) as err:
        ga.read_predictions(path, 5)
    assert "expected (N,), (N, 5)" in one_line(err)
    np.savez(path, **{**good, "y_true_test": np.array([object()] * n)})  # a pickled array is never loaded
    with pytest.raises(InputError) as err:
        ga.read_predictions(path, 4)
    assert str(path) in one_line(err)
    path.write_bytes(b"not a zip")
    with pytest.raises(InputError):
        ga.read_predictions(path, 4)


def test_locate_names_what_exists(tmp_path):
    toy(tmp_path)
    with pytest.raises(InputError) as err:
        ga.locate(tmp_path / "GAOptim_bjets", "Run3Mu", None)
    assert "runs found: Run1E2Mu/MHc130_MA90" in one_line(err)
    with pytest.raises(InputError):
        ga.locate(tmp_path / "nowhere", None, None)
