"""Shared fixtures: small prediction ntuples written to tmp_path through RDataFrame."""

from __future__ import annotations

import fcntl
import importlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from pnetviz.cli.commands import COMMANDS, run_command
from pnetviz.rootenv import root


REPO = Path(__file__).resolve().parents[1]

# pytester: the fixture that runs pytest inside a test (tests/test_tier_budget.py); tier_budget: the
# fast tier's budget report at the session's end (tests not marked slow that took over 5 s)
pytest_plugins = ("pytester", "tier_budget")


SCRIPTS = {"visualizeBinary": "binary", "visualizeMultiClass": "multiclass", "visualizeComparison": "compare",
           "visualizeCampaign": "campaign", "makeDemo": "demo"}


def load_script(name: str):
    """The command module behind a named script (python/<name>.py = `pnetviz <command>`), to call its main()."""
    return importlib.import_module(COMMANDS[SCRIPTS[name]][0])


def write_ntuple(path: Path, columns: dict[str, np.ndarray], tree: str = "Events") -> Path:
    """Write `columns` as a TTree named `tree` in a new ROOT file at `path`."""
    data = {k: np.ascontiguousarray(v) for k, v in columns.items()}
    root().RDF.FromNumpy(data).Snapshot(tree, str(path))
    return path


def make_demo(tmp_path_factory, cfg) -> Path:
    """A results directory with every fold of the demo for `cfg` (a pnetviz.demo.DemoConfig)."""
    from pnetviz.demo.toys import write_fold  # noqa: PLC0415

    results = tmp_path_factory.mktemp("results")
    for fold in range(cfg.folds):
        write_fold(cfg, results, fold)
    return results


def gaussian_toy(n: int, signal_fraction: float, separation: float, seed: int) -> tuple[np.ndarray, ...]:
    """(scores, is_signal, weights): unit Gaussians `separation` apart, weights uniform in [0.5, 1.5]."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < signal_fraction
    return rng.normal(y * separation, 1.0), y, rng.uniform(0.5, 1.5, n)


def contract_columns(n: int = 400, seed: int = 1, n_classes: int = 4) -> dict[str, np.ndarray]:
    """A valid multi-class ntuple's columns (softmax-like scores, signed weights, masks)."""
    rng = np.random.default_rng(seed)
    label = np.resize(np.arange(n_classes), n).astype(np.int32)
    raw = rng.random((n, n_classes)) + 2.0 * np.eye(n_classes)[label]
    probs = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    names = ("signal", "nonprompt", "diboson", "ttZ")[:n_classes]
    cols = {f"score_{c}": probs[:, i] for i, c in enumerate(names)}
    split = rng.random(n)
    cols |= {
        "true_label": label,
        "weight": rng.uniform(-0.1, 1.0, n),
        "train_mask": split < 0.6,
        "test_mask": split >= 0.6,
        "has_bjet": rng.random(n) < 0.5,
    }
    return cols


@pytest.fixture
def ntuple_factory(tmp_path):
    """Call with column overrides (None drops a column); returns the written file's path."""
    counter = iter(range(10**6))

    def make(overrides: dict | None = None, tree: str = "Events", **kwargs) -> Path:
        cols = contract_columns(**kwargs)
        for key, value in (overrides or {}).items():
            if value is None:
                cols.pop(key, None)
            else:
                cols[key] = value
        return write_ntuple(tmp_path / f"pred{next(counter)}.root", cols, tree)

    return make


def compile_latex(tex: str, directory: Path) -> str:
    """\\input `tex` into an 11 pt article with a 16 cm text width and compile it with pdflatex;
    the log (asserted free of errors and overfull boxes). Skips where pdflatex is absent (.ci/run
    installs texlive-latex-recommended)."""
    import shutil
    import subprocess

    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is not installed (.ci/run installs texlive-latex-recommended)")
    (directory / "table.tex").write_text(tex)
    (directory / "note.tex").write_text("\\documentclass[11pt]{article}\n\\usepackage[a4paper,textwidth=16cm]{geometry}\n"
                                        "\\usepackage{booktabs}\n\\begin{document}\n\\input{table}\n\\end{document}\n")
    proc = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "note.tex"],
                          cwd=directory, capture_output=True, text=True, timeout=120)  # fmt: skip
    log = (directory / "note.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-2000:]
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]
    assert (directory / "note.pdf").stat().st_size > 1000
    return log


SMALL_SIGNALS = ("MHc100_MA95", "MHc160_MA85")


def small_tree(base: Path, signals=SMALL_SIGNALS, events: int = 300) -> Path:
    """A trainer results tree of one channel (Run3Mu), `signals`, fold 0: the cluster tests' input."""
    from pnetviz.demo.trainertree import write_trainer_fold

    for point in signals:
        write_trainer_fold(base, "Run3Mu", point, 0, events=events)
    return base


# --- the API and notebook tests' demo round (tests/api) ---

API_CHANNEL, API_SIGNAL = "Run3Mu", "MHc130_MA90"  # the API and notebook tests' demo round
API_FAST = ["--bootstrap", "20"]  # few replicas: the tests compare numbers, not their precision


@dataclass(frozen=True)
class DemoRound:
    """A small finished demo round (one channel, one signal point, 2 folds of 300 events, every
    model kind, `campaign --workers 0 --images none`): the API and notebook tests' input."""

    results: Path
    plots: Path


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects
def pytest_collection_modifyitems(config, items):
    """A test that reads the session's demo round (a demo and its whole campaign) is slow. Then the
    files with a slow test run first (each file's tests in their order): the two workers of
    `./run.sh test` take files in this order, so the long ones do not come last to one worker."""
    for item in items:
        if "demo_round" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)  # stable: the same order on every worker


def session_shared_dir(tmp_path_factory) -> Path:
    """The directory all of this run's pytest processes share: the session's base temporary
    directory, or under pytest-xdist (`./run.sh test` runs two workers) its parent, which holds
    every worker's base directory."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def demo_round(tmp_path_factory) -> DemoRound:
    """Built once per run: the first worker to ask builds it under an exclusive lock, the others
    wait for that build and read the same round (its readers only read it)."""
    shared = session_shared_dir(tmp_path_factory)
    base = shared / "demo-round"
    results, plots = base / "results", base / "plots"
    with open(shared / "demo-round.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "built").is_file():
            shutil.rmtree(base, ignore_errors=True)  # a build that failed half-way in another worker
            base.mkdir()
            assert run_command("demo", ["--output", str(results), "--signals", API_SIGNAL, "--channels", API_CHANNEL,
                                        "--folds", "2", "--events", "300", "--no-ga"]) == 0  # fmt: skip
            assert run_command("campaign", ["--results-dir", str(results), "--plots-dir", str(plots), "--workers", "0",
                                            "--images", "none", "-q", *API_FAST]) == 0  # fmt: skip
            (base / "built").touch()
    return DemoRound(results, plots)
