"""Shared fixtures: small prediction ntuples written to tmp_path through RDataFrame."""

from __future__ import annotations

import fcntl
import importlib
import os
import shutil
from collections.abc import Sequence
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


# --- folds/limits.json as jobs.limits writes it (issue 52's contract), for the round's-answer tests ---


def limits_strategy(name: str, median: float | None, per_fold: Sequence[float] = (), z: float | None = None,
                    per_fold_z: Sequence[float] = (), band: tuple[float, float] | None = None, error: str | None = None) -> dict:
    """One strategy object of folds/limits.json: the median (band: (m1, p1), else median * (0.7, 1.4);
    m2, p2 at 0.5 and 2 times the median), the per-fold medians and Z, their sample std as the fold spread."""
    def spread(values):
        return float(np.std(values, ddof=1)) if len(values) > 1 else None

    m1, p1 = band or ((0.7 * median, 1.4 * median) if median is not None else (None, None))
    limit = None if median is None else {"median": median, "m2": 0.5 * median, "m1": m1, "p1": p1, "p2": 2.0 * median}
    return {"name": name, "expected_significance": z, "expected_limit": limit, "chosen_on": "valid", "nuisances": ["mu"],
            "datacard": f"limits/{name}.txt", "hs3": f"limits/{name}_hs3.json", "pyhf": f"limits/{name}_pyhf.json",
            "per_fold": [{"fold": i, "expected_significance": per_fold_z[i] if i < len(per_fold_z) else None,
                          "expected_limit": {"median": v, "m2": v / 2, "m1": 0.7 * v, "p1": 1.4 * v, "p2": 2 * v}}
                         for i, v in enumerate(per_fold)],
            "fold_spread": {"expected_limit_median_std": spread(per_fold), "expected_significance_std": spread(per_fold_z)},
            "error": error, "negative_bins": []}  # fmt: skip


def write_limits(model_dir: Path, model: str, channel: str, signal: str, kind: str, pair: str,
                 strategies: Sequence[dict] = (), pairs: Sequence[tuple[str, str, Sequence[dict]]] = ()) -> Path:
    """`<model_dir>/folds/limits.json` (schema 1) as docs/limits.md describes it: a list `pairs`, with
    `pairs` ((kind, pair, strategies) each) a multi-class model's, else one pair (`kind`, `pair`,
    `strategies`) that a binary model's file also carries at its top level."""
    import json

    def entry(kind_, pair_, strategies_):
        return {"schema": 1, "model": model, "channel": channel, "signal": signal, "kind": kind_, "pair": pair_,
                "strategies": list(strategies_)}  # fmt: skip

    doc = {"schema": 1, "model": model, "channel": channel, "signal": signal, "kind": kind,
           "pairs": [entry(*p) for p in pairs] if pairs else [entry(kind, pair, strategies)]}
    if not pairs:  # a binary model's file: its one pair at the top level too (docs/limits.md, the flat form)
        doc |= {"pair": pair, "strategies": list(strategies)}
    path = Path(model_dir) / "folds" / "limits.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))
    return path


# --- a fabricated round of finished jobs with hand-written folds/limits.json (the round's-answer tests) ---

LIMITS_BINARY = "PN-nNodes64-binary-ttZ"
LIMITS_MULTI = "PN-nNodes64-4grp-ttX-ttZ-nonprompt"
LIMITS_HOSTILE = 'PN&_%,"q"-binary-ttZ'  # LaTeX specials, a comma and a quote
LIMITS_FAILURE = "HistFactory fit did not converge (status 4)"


def limits_job(base: Path, channel: str, signal: str, kind: str, model: str, pair: str | None = None) -> tuple[dict, Path]:
    d = base / channel / signal / model
    return ({"job": f"{channel}/{signal}/{model}", "status": "done", "message": "", "seconds": 0.0,
             "outputs": [str(d / "fold-0"), str(d / "fold-1"), str(d / "fold-2")], "kind": kind, "channel": channel,
             "signal": signal, "model": model, "pair": pair}, d)  # fmt: skip


def limits_round(base: Path) -> list[dict]:
    """The jobs: binary and multi-class at MHc130_MA100 (multi-class mass-x-score best, 0.7), binary
    at MHc130_MA90 (a failed fit in it), a binary model without limits.json at MHc160_MA85, a
    hostile model name in Run2E; strategies written out of order."""
    jobs = []
    j, d = limits_job(base, "Run3Mu", "MHc130_MA100", "binary", LIMITS_BINARY, "ttZ")
    write_limits(d, LIMITS_BINARY, "Run3Mu", "MHc130_MA100", "binary", "signal_vs_ttZ", [
        limits_strategy("mass-x-score", 0.9, [1.2, 1.3, 1.4]),
        limits_strategy("score-fit", 1.6, [1.9, 2.0, 2.1], z=0.8, per_fold_z=[0.6, 0.7, 0.8]),
        limits_strategy("cut-and-mass", 0.827, [1.2 - 0.119, 1.2, 1.2 + 0.119], z=1.234, per_fold_z=[0.9, 1.0, 1.1], band=(0.6, 1.2))])
    jobs.append(j)
    j, d = limits_job(base, "Run3Mu", "MHc130_MA100", "multiclass", LIMITS_MULTI)
    write_limits(d, LIMITS_MULTI, "Run3Mu", "MHc130_MA100", "multiclass", "", pairs=[
        ("multiclass-pair", "signal_vs_ttZ", [limits_strategy("score-fit", 1.1, [1.3, 1.4, 1.5]),
                                              limits_strategy("cut-and-mass", 0.95, [1.1, 1.2, 1.3]),
                                              limits_strategy("mass-x-score", 0.7, [1.0, 1.1, 1.2])]),
        ("weighted-lr", "weighted_lr_all", [limits_strategy("score-fit", 1.05, [1.2, 1.3, 1.4])])])
    jobs.append(j)
    j, d = limits_job(base, "Run3Mu", "MHc130_MA90", "binary", LIMITS_BINARY, "ttZ")
    write_limits(d, LIMITS_BINARY, "Run3Mu", "MHc130_MA90", "binary", "signal_vs_ttZ", [
        limits_strategy("score-fit", 2.0, [2.2, 2.4, 2.6]), limits_strategy("cut-and-mass", 1.5, [1.7, 1.8, 1.9]),
        limits_strategy("mass-x-score", None, error=LIMITS_FAILURE)])
    jobs.append(j)
    jobs.append(limits_job(base, "Run3Mu", "MHc160_MA85", "binary", LIMITS_BINARY, "ttZ")[0])  # no folds/limits.json
    j, d = limits_job(base, "Run2E", "MHc100_MA95", "binary", LIMITS_HOSTILE, "ttZ")
    write_limits(d, LIMITS_HOSTILE, "Run2E", "MHc100_MA95", "binary", "signal_vs_ttZ", [limits_strategy("score-fit", 3.0, [3.1, 3.3, 3.5])])
    jobs.append(j)
    return jobs
