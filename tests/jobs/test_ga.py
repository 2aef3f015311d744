"""`pnetviz ga` on generated GA runs: ga_summary.json names the overall best model with its
hand-computed fitness, flags the duplicates and the trainer's different choice; the figures exist
and pass the figure linter; a five-class run with predictions, a run without; the campaign's GA jobs."""

from __future__ import annotations

import csv
import importlib.util
import json
import shlex
import sys
from pathlib import Path

import pytest

from pnetviz.cli.commands import run_command
from pnetviz.demo.ga import FIVE_CLASS_GROUPS, ToyModel, ToyRun, write_run


def _figlint():
    """tests/draw/figlint.py (it lives with the draw tests), loaded from its file: no sys.path edit."""
    if "figlint" not in sys.modules:
        spec = importlib.util.spec_from_file_location("figlint", Path(__file__).resolve().parents[1] / "draw" / "figlint.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["figlint"] = module
    return sys.modules["figlint"]


figlint = _figlint()

A = (64, "Adam", 0.0002, 2e-05, "ReduceLROnPlateau")
B = (96, "RMSprop", 0.001, 0.0001, "CyclicLR")
C = (128, "Adam", 0.0009, 2e-05, "ExponentialLR")


def populations(sharpness: float) -> list[list[ToyModel]]:
    """Hand-worked fitness (lambda 0.3): iter0 0.965 (csv 0.95), 0.93, 0.92 (best of all); iter1
    0.946, 0.945, 0.935 (model2 = model0's chromosome; the trainer's best_chromosome)."""
    return [[ToyModel(A, [1.2, 0.95, 0.97], [1.1, 0.90, 0.85], trainer_fitness=0.95, sharpness=sharpness),
             ToyModel(B, [1.0, 0.90, 0.92, 0.93], [0.95, 0.80, 0.7, 0.6]),
             ToyModel(C, [1.1, 0.92], [1.0, 0.95], sharpness=sharpness, overtraining=0.3)],
            [ToyModel(C, [1.0, 0.94, 0.95], [0.9, 0.92, 0.9], sharpness=sharpness),
             ToyModel(B, [0.99, 0.93], [0.9, 0.88]),
             ToyModel(C, [0.97, 0.935], [0.9, 0.935], sharpness=sharpness)]]  # fmt: skip


@pytest.fixture(scope="module")
def five_classes(tmp_path_factory):
    base = tmp_path_factory.mktemp("ga5")
    run = ToyRun("Run1E2Mu", "MHc130_MA90", populations(1.5), groups=FIVE_CLASS_GROUPS, schemas=("V", "E"), events=800)
    write_run(base / "GAOptim_bjets", run)
    argv = ["--ga-dir", str(base / "GAOptim_bjets"), "--plots-dir", str(base / "plots"), "--formats", "png", "-q"]
    assert run_command("ga", argv) == 0
    return base / "plots" / "GAOptim_bjets" / "Run1E2Mu" / "multiclass" / "MHc130_MA90" / "ga"


def test_summary_names_the_overall_best_model(five_classes):
    doc = json.loads((five_classes / "ga_summary.json").read_text())
    best = doc["best"]
    assert (best["iteration"], best["model"]) == (0, "model2") and best["fitness"] == pytest.approx(0.92)
    assert best["chromosome"] == list(C)
    tc = doc["trainer_choice"]
    assert tc["names_a_different_model"] and (tc["iteration"], tc["model"]) == (1, "model2")
    assert doc["duplicates"][0]["models"] == ["model0", "model2"] and doc["duplicates"][0]["iteration"] == 1
    assert [(d["iteration"], d["model"]) for d in doc["fitness_disagreements"]] == [(0, "model0")]
    assert doc["classes"] == ["signal", "nonprompt-TT", "nonprompt-DY", "diboson", "ttX"]
    assert sorted(doc["diagnostics_schemas"]) == ["E", "V"]
    fitness = {(m["iteration"], m["model"]): m["fitness"] for m in doc["models"]}
    assert fitness == pytest.approx({(0, "model0"): 0.965, (0, "model1"): 0.93, (0, "model2"): 0.92,
                                     (1, "model0"): 0.946, (1, "model1"): 0.945, (1, "model2"): 0.935})  # fmt: skip
    # predictions of the best model (iteration 0, schema V): a 5 x 5 KS grid and an LR AUC per background
    section = doc["predictions"]["GA-iter0/model2"]
    assert len(section["ks_grid"]["p_value"]) == 5 and len(section["ks_grid"]["p_value"][0]) == 5
    assert set(section["lr_auc"]) == {"nonprompt-TT", "nonprompt-DY", "diboson", "ttX"}
    assert all(0.5 < v["test"] <= 1.0 for v in section["lr_auc"].values())
    report = json.loads((five_classes / "summary_report.json").read_text())
    assert report["best"] == doc["best"] and report["models"] == 6


def test_csv_text_and_latex(five_classes):
    rows = list(csv.DictReader((five_classes / "ga_summary.csv").open()))
    assert len(rows) == 6
    best = [r for r in rows if r["is_best"] == "True"]
    assert [(r["iteration"], r["model"]) for r in best] == [("0", "model2")]
    assert [r["model"] for r in rows if r["is_trainer_choice"] == "True"] == ["model2"]
    assert float(best[0]["fitness"]) == pytest.approx(0.92) and best[0]["initLR"] == "0.0009"
    text = (five_classes / "ga_summary.txt").read_text()
    assert "best model over all iterations: GA-iter0/model2, fitness 0.920000" in text
    assert "A DIFFERENT MODEL" in text and "GA-iter1: model0 = model2" in text
    tex = (five_classes / "ga_top_models.tex").read_text()
    assert "MHc130\\_MA90" in tex and "MHc130_MA90" not in tex.replace("MHc130\\_MA90", "")
    assert tex.count("\\\\\n") == 7  # header + 6 models (top 10)
    assert tex.index("\\caption{") < tex.index("\\begin{tabular}")  # a table's caption is above it
    first = tex.split("\\midrule\n")[1].splitlines()[0]
    assert first.startswith("1 & 0 & model2 & 128 & Adam & 0.0009 & 2e-05 & ExponentialLR & 0.9200")


@pytest.mark.slow
def test_figures_exist_and_pass_the_linter(five_classes):
    names = {p.stem for p in five_classes.glob("*.png")}
    want = {"ga_fitness", "ga_loss_iter0", "ga_loss_iter1", "ga_ks_iter0_model2", "ga_lr_roc_iter0_model2",
            *(f"ga_fitness_vs_{g}" for g in ("nNodes", "optimizer", "initLR", "weight_decay", "scheduler"))}  # fmt: skip
    assert want <= names
    records = figlint.settled(figlint.lint_records([five_classes / "plots.root"], jobs=1))
    assert not records, figlint.summarize(records)


def test_run_without_predictions_or_snapshot(tmp_path):
    run = ToyRun("Run3Mu", "MHc100_MA95", populations(0.0), results_file=False)
    run_dir = write_run(tmp_path / "GAOptim", run)
    out = tmp_path / "set"
    assert run_command("ga", ["--ga-dir", str(run_dir), "--output", str(out), "--formats", "png", "-q"]) == 0
    doc = json.loads((out / "ga_summary.json").read_text())
    assert doc["trainer_choice"] is None and doc["predictions"] == {} and doc["best"]["fitness"] == pytest.approx(0.92)
    assert not list(out.glob("ga_ks_*")) and not list(out.glob("ga_lr_roc_*"))
    assert any("no ga_optimization_results.json" in n for n in doc["notes"])
    assert any("no model<i>_predictions.npz" in n for n in doc["notes"])


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    run_dir = write_run(tmp_path / "GAOptim", ToyRun("Run3Mu", "MHc100_MA95", populations(0.0)))
    (run_dir / "GA-iter1" / "json" / "model1.json").write_text("{not json")
    out = tmp_path / "set"
    assert run_command("ga", ["--ga-dir", str(run_dir), "--output", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "GA-iter1/json/model1.json: not valid JSON" in err
    assert not out.exists()


def test_campaign_finds_ga_runs_beside_the_results(tmp_path, capsys):
    from pnetviz.demo.trainertree import write_trainer_fold

    results = tmp_path / "results"
    write_trainer_fold(results, "Run3Mu", "MHc100_MA95", 0, events=300, seed=1)
    write_run(tmp_path / "GAOptim_bjets", ToyRun("Run3Mu", "MHc100_MA95", populations(0.0)))
    assert run_command("campaign", ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--dry-run"]) == 0
    lines = [shlex.split(line) for line in capsys.readouterr().out.splitlines() if line.startswith("    pnetviz ")]
    kinds = [argv[1] for argv in lines]
    assert kinds.count("ga") == 1 and {"binary", "multiclass", "compare"} <= set(kinds)
    ga_argv = next(argv for argv in lines if argv[1] == "ga")
    assert ga_argv[ga_argv.index("--channel") + 1] == "Run3Mu" and "--formats" in ga_argv
    assert run_command("campaign", ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--kinds", "ga", "--dry-run"]) == 0
    assert "1 jobs" in capsys.readouterr().out


def test_the_demo_run_shows_what_the_issue_found(tmp_path):
    from pnetviz.demo.ga import write_demo_run
    from pnetviz.io.ga import read_run
    from pnetviz.metrics.ga import evaluate

    run = read_run(write_demo_run(tmp_path / "results", "Run1E2Mu", "MHc130_MA90", events=300), "Run1E2Mu", "MHc130_MA90")
    ev = evaluate(run)
    assert run.iterations == (0, 1) and len(run.models) == 10
    assert len(ev["duplicates"]) == 1 and ev["trainer_choice"]["names_a_different_model"]
    assert ev["best"]["iteration"] == 0 and ev["best"]["fitness"] == pytest.approx(0.905 + 0.3 * 0.02)
    assert 0 < sum(m.predictions is not None for m in run.models) < len(run.models)
    assert not ev["fitness_disagreements"]
