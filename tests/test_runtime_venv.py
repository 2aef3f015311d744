"""What users run is what CI runs (issue 49, item 7): a virtual environment with nothing but
`pip install -c requirements.txt '.[root]'` (the README's set-up, no test extras: no scipy, no
scikit-learn, no pytest), built once per test session in a temporary directory (pip's own cache
makes the wheels' download a one-time cost), runs every subcommand once on a small demo round
(`pnetviz demo --events 300`): binary, multiclass, compare, campaign (one Dask worker, --images
none), diff of two rounds, render, ga; `import pnetviz`; and examples/round.ipynb, executed by this
session's nbclient in a kernel that is that environment's Python.

`pnetviz diff` imported scipy, which only the test extra installs: the tests, run with the extras,
could not see it (A7). This test can. It takes a few minutes (the environment's install, about a
minute from pip's cache, then the round)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "requirements.txt", "README.md", "python", "macros")  # what `pip install .` reads
CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
FAST = ["--bootstrap", "20"]
pytestmark = pytest.mark.slow  # a virtual environment installed from the wheels, then a round: minutes, not the fast tier


def environment(venv: Path) -> dict[str, str]:
    """The environment a user's shell has after `source venv/bin/activate`: nothing of this session's venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


@pytest.fixture(scope="module")
def venv() -> Path:
    base = Path(tempfile.mkdtemp(prefix="pnetviz-runtime-venv-"))
    try:
        source = base / "source"  # a copy: pip builds in the source tree, which must not get a build/ of its own
        source.mkdir()
        for name in SOURCES:
            if (REPO / name).is_dir():
                shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
            else:
                shutil.copy2(REPO / name, source / name)
        target = base / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
        pip = [str(target / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "-c", str(source / "requirements.txt")]  # fmt: skip
        subprocess.run([*pip, f"{source}[root]"], check=True, env=environment(target))
        # ipykernel alone: the kernel the example notebook runs in (Jupyter itself is the user's own, here
        # this session's nbclient); the only package beside the README's install
        subprocess.run([*pip, "ipykernel"], check=True, env=environment(target))
        yield target
    finally:
        shutil.rmtree(base, ignore_errors=True)


def pnetviz(venv: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    done = subprocess.run([str(venv / "bin" / "pnetviz"), *argv], cwd=cwd, env=environment(venv), capture_output=True,
                          text=True, timeout=1200)  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, f"pnetviz {' '.join(argv)}:\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def round_dirs(venv, tmp_path_factory) -> dict[str, Path]:
    """The demo results (every channel, GA search included) and a campaign over one signal point, two folds."""
    work = tmp_path_factory.mktemp("runtime")
    pnetviz(venv, work, "demo", "--output", str(work / "results"), "--events", "300")
    pnetviz(venv, work, "campaign", "--results-dir", str(work / "results"), "--plots-dir", str(work / "campaign"),
            "--channels", CHANNEL, "--signals", SIGNAL, "--folds", "0,1", "--images", "none", "--workers", "1", "-q",
            *FAST)  # fmt: skip
    return {"work": work, "results": work / "results", "campaign": work / "campaign"}


def test_only_the_runtime_packages_are_there(venv):
    probe = ("import importlib.util, pnetviz; print(pnetviz.__file__); "
             "print(*[m for m in ('scipy', 'sklearn', 'pytest', 'nbclient') if importlib.util.find_spec(m)])")  # fmt: skip
    done = subprocess.run([str(venv / "bin" / "python"), "-c", probe], env=environment(venv), capture_output=True,
                          text=True, cwd=venv, check=True)  # fmt: skip
    where, extras = done.stdout.splitlines()
    assert Path(where).is_relative_to(venv) and extras == ""  # the installed package, not the repository's


def test_the_evaluations_run(venv, round_dirs):
    work, results = round_dirs["work"], round_dirs["results"]
    where = ["--results-dir", str(results), "--plots-dir", str(work / "single"), "--channel", CHANNEL, "--signal", SIGNAL,
             "--fold", "0", *FAST, "-q"]  # fmt: skip
    pnetviz(venv, work, "binary", *where, "--background", "ttZ", "--output", str(work / "binary"))
    pnetviz(venv, work, "multiclass", *where, "--output", str(work / "multiclass"))
    pnetviz(venv, work, "compare", *where, "--output", str(work / "compare"))
    assert 0.5 < json.loads((work / "binary" / "summary_report.json").read_text())["auc"]["test"] <= 1.0
    assert (work / "binary" / "roc_curve.png").is_file()
    assert all((work / name / "summary_report.json").is_file() for name in ("multiclass", "compare"))


def test_campaign_diff_and_render_run(venv, round_dirs):
    work, campaign = round_dirs["work"], round_dirs["campaign"]
    summary = json.loads((campaign / "campaign" / "campaign_summary.json").read_text())
    assert summary["jobs"] and all(job["status"] == "done" for job in summary["jobs"])
    shutil.copytree(campaign, work / "campaign-b")  # round B: the same models (the event-paired path of diff)
    pnetviz(venv, work, "diff", str(campaign), str(work / "campaign-b"), "--output", str(work / "diff"), "--formats", "png", "-q")
    result = json.loads((work / "diff" / "diff.json").read_text())
    assert result["models"] and all(m["delta_auc"] == 0 for m in result["models"])
    sets = sorted(campaign.glob(f"*/{CHANNEL}/binary/{SIGNAL}/*/fold-0"))
    assert sets and not list(sets[0].glob("*.png"))  # --images none
    pnetviz(venv, work, "render", str(sets[0]), "--formats", "png", "-q")
    assert (sets[0] / "roc_curve.png").is_file()


def test_ga_runs(venv, round_dirs):
    work = round_dirs["work"]
    pnetviz(venv, work, "ga", "--ga-dir", str(round_dirs["results"] / "GAOptim_bjets"), "--output", str(work / "ga"),
            "--formats", "png", "-q")  # fmt: skip
    assert (work / "ga" / "ga_summary.json").is_file()


def test_the_example_notebook_runs_in_the_runtime_kernel(venv, round_dirs, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    spec = tmp_path / "jupyter" / "kernels" / "pnetviz-runtime"
    spec.mkdir(parents=True)
    python = str(venv / "bin" / "python")
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "pnetviz (runtime only)",
        "language": "python", "env": {"PATH": environment(venv)["PATH"], "VIRTUAL_ENV": str(venv)}}))  # fmt: skip
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    # the notebook's own way to a round: PNETVIZ_ROUND (the campaign's --plots-dir) and PNETVIZ_RESULTS
    monkeypatch.setenv("PNETVIZ_ROUND", str(round_dirs["campaign"]))
    monkeypatch.setenv("PNETVIZ_RESULTS", str(round_dirs["results"]))
    nb = nbformat.read(REPO / "examples" / "round.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint(sys.executable)"))
    work = tmp_path / "work"
    work.mkdir()
    nbclient.NotebookClient(nb, timeout=600, kernel_name="pnetviz-runtime", resources={"metadata": {"path": str(work)}}).execute()
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"]
    assert all(cell.execution_count for cell in nb.cells if cell.cell_type == "code")
    assert nb.cells[-1].outputs[0]["text"].strip() == python
