"""A diverged epoch in the trainer's history (issue 41, item 10): a NaN or an Infinity in one
epoch's valid_loss is not drawn, and the figure and the report name the epoch (exit 0, never a
blank figure, never a lost model); a series without a finite value is left out and said so; the
training_loss canvas passes the figure linter."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, load_script
from pnetviz.cli.common import run
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.rootenv import root


def _figlint():
    """tests/draw/figlint.py, loaded from its path (tests/draw is not on this module's path)."""
    spec = importlib.util.spec_from_file_location("figlint", REPO / "tests" / "draw" / "figlint.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
MODEL = ModelSpec("binary", "ttZ")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("diverged") / "results"
    write_trainer_fold(base, CHANNEL, SIGNAL, 0, models=(MODEL,), events=600)
    return base


def _history_file(results: Path) -> Path:
    return next(results.rglob(f"{MODEL.name}_performance.json"))


def _evaluate(results: Path, out: Path, values: dict[str, dict[int, float]]) -> tuple[int, list[dict]]:
    """Set history[column][epoch] = value in the performance JSON (as the trainer's json.dump
    writes NaN/Infinity), run `pnetviz binary` into `out`; (exit code, the original records)."""
    path = _history_file(results)
    original = path.read_text()
    doc = json.loads(original)
    records = doc["training_results"]["training_history"]
    kept = json.loads(json.dumps(records))
    for col, per_epoch in values.items():
        for epoch, value in per_epoch.items():
            records[epoch][col] = value
    path.write_text(json.dumps(doc))
    try:
        argv = ["--results-dir", str(results), "--channel", CHANNEL, "--signal", SIGNAL, "--background", "ttZ", "--fold", "0",
                "--output", str(out), "--formats", "png", "--bootstrap", "10", "-q"]  # fmt: skip
        return run(load_script("visualizeBinary").main, argv), kept
    finally:
        path.write_text(original)


def _graph(plots_root: Path, key: str) -> tuple[np.ndarray, np.ndarray] | None:
    tfile = root().TFile.Open(str(plots_root))
    try:
        graph = tfile.Get(key)
        if not graph:
            return None
        n = graph.GetN()
        return np.frombuffer(graph.GetX(), count=n).copy(), np.frombuffer(graph.GetY(), count=n).copy()
    finally:
        tfile.Close()


def _texts(canvas) -> str:
    """Every text drawn on `canvas` (legend entries, TLatex), one a line."""
    out = []

    def walk(pad) -> None:
        for obj in pad.GetListOfPrimitives():
            if obj.InheritsFrom("TPad"):
                walk(obj)
            elif obj.InheritsFrom("TLegend"):
                out.extend(str(e.GetLabel()) for e in obj.GetListOfPrimitives())
            elif obj.InheritsFrom("TText"):
                out.append(str(obj.GetTitle()))

    walk(canvas)
    return "\n".join(out)


def _canvas_texts(plots_root: Path, name: str) -> str:
    """Every text drawn on stored canvas `name`."""
    tfile = root().TFile.Open(str(plots_root))
    try:
        canvas = tfile.Get(f"canvases/{name}")
        assert canvas, f"no canvases/{name}"
        return _texts(canvas)
    finally:
        tfile.Close()


@pytest.mark.parametrize("value", [math.nan, math.inf], ids=["NaN", "Infinity"])
@pytest.mark.slow
def test_one_diverged_epoch_is_left_out_and_named(results, tmp_path, value):
    out = tmp_path / "out"
    code, records = _evaluate(results, out, {"valid_loss": {12: value}})
    assert code == 0
    x, y = _graph(out / "plots.root", "training/valid_loss")
    want = [(r["epoch"], r["valid_loss"]) for r in records if r["epoch"] != 12]
    assert len(x) == len(records) - 1 and 12 not in x
    assert np.allclose(x, [e for e, _ in want]) and np.allclose(y, [v for _, v in want])
    tx, _ = _graph(out / "plots.root", "training/train_loss")
    assert len(tx) == len(records)  # the other series whole
    assert "Validation: epoch 12 not finite" in _canvas_texts(out / "plots.root", "training_loss")
    report = json.loads((out / "summary_report.json").read_text())
    assert report["training"]["non_finite_epochs"] == {"valid_loss": [12]}
    line = "training history valid_loss: not finite at epoch 12: those points are not drawn"
    assert line in report["notes"] and line in (out / "summary_report.txt").read_text()
    assert (out / "training_loss.png").stat().st_size > 5000
    figlint = _figlint()
    found = figlint.settled(figlint.lint_records([out / "plots.root"], jobs=1))
    lint = [figlint.format_violation(r) for r in found if r["canvas"] in ("training_loss", "training_accuracy", "")]
    assert not lint, lint


def test_a_series_without_a_finite_value_is_left_out_and_said(results, tmp_path):
    out = tmp_path / "out"
    code, records = _evaluate(results, out, {"valid_loss": {e: math.nan for e in range(len(
        json.loads(_history_file(results).read_text())["training_results"]["training_history"]))},
        "train_acc": {3: math.inf, 5: math.nan}})  # fmt: skip
    assert code == 0
    assert _graph(out / "plots.root", "training/valid_loss") is None
    x, _ = _graph(out / "plots.root", "training/train_loss")
    assert len(x) == len(records)
    texts = _canvas_texts(out / "plots.root", "training_loss")
    assert "Validation: no finite value, not drawn" in texts and "Training" in texts.splitlines()
    assert "Training: epochs 3, 5 not finite" in _canvas_texts(out / "plots.root", "training_accuracy")
    report = json.loads((out / "summary_report.json").read_text())
    assert report["training"]["non_finite_epochs"] == {"train_acc": [3, 5], "valid_loss": list(range(len(records)))}
    assert "training history valid_loss: no finite value: the curve is left out" in report["notes"]


def _history(columns: dict[str, list[float]], summary: dict | None = None):
    from pnetviz.io.history import TrainingHistory

    return TrainingHistory(Path("h.json"), {k: np.array(v, dtype=float) for k, v in columns.items()}, summary or {})


def test_no_blank_figure_when_no_loss_is_finite():
    from pnetviz.draw import training

    n = 6
    history = _history({"epoch": list(range(n)), "train_loss": [math.nan] * n, "valid_loss": [math.inf] * n,
                        "train_acc": [0.5] * n, "valid_acc": [0.6] * n})  # fmt: skip
    figs = training.training_figures(history, ["ctx"])
    assert [f.name for f in figs] == ["training_accuracy"]  # no blank training_loss
    assert training.best_epoch(history) is None
    for f in figs:
        f.close()


def test_fold_losses_leave_out_the_diverged_epochs():
    from pnetviz.draw import training

    good = _history({"epoch": [0, 1, 2, 3], "train_loss": [1.0, 0.8, 0.7, 0.6], "valid_loss": [1.1, 0.9, 0.8, 0.85],
                     "train_acc": [0.5] * 4, "valid_acc": [0.6] * 4})  # fmt: skip
    bad = _history({"epoch": [0, 1, 2, 3], "train_loss": [1.0, 0.8, 0.7, 0.6], "valid_loss": [1.2, math.nan, 0.7, math.inf],
                    "train_acc": [0.5] * 4, "valid_acc": [0.6] * 4})  # fmt: skip
    fig = training.fold_training_figure({0: good, 1: bad}, ["ctx"])
    try:
        valid = fig.objects["training_folds/valid_loss_fold1"]
        assert valid.GetN() == 2 and list(valid.GetX())[:2] == [0.0, 2.0] and list(valid.GetY())[:2] == [1.2, 0.7]
        assert fig.objects["training_folds/valid_loss_fold0"].GetN() == 4
        best = fig.objects["training_folds/best_epochs"]
        assert [best.GetX()[i] for i in range(best.GetN())] == [2.0, 2.0]  # fold 1: the lowest finite valid loss
        # in the frame where it fits, else in the caption the frame had no room for
        assert "Fold 1, validation loss: epochs 1, 3 not finite" in [*_texts(fig.canvas).split("\n"), *fig.caption]
    finally:
        fig.close()
