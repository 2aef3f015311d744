"""Every .tex a campaign writes compiles with pdflatex (issue 41, item 7): a binary-only round, a
variant round (a multi-class model whose hyperparameters differ from the binaries', as after a GA
search: no binary/multi-class partner anywhere) and a round of hostile names (channel
`Run3Mu_50%`, LaTeX specials in signal, model and variant names). Each round is a small
trainer-faithful tree evaluated by `pnetviz campaign --workers 0 --images none`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import compile_latex
from pnetviz.demo.ga import write_demo_run
from pnetviz.demo.trainertree import Hyper, ModelSpec, write_trainer_fold

pytestmark = pytest.mark.slow  # a campaign per round and pdflatex

SPECIALS = "&#$_{}~^\\%"
HOSTILE_CHANNEL = "Run3Mu_50%"
HOSTILE_SIGNAL = "Sig" + SPECIALS
HOSTILE_HYPER = Hyper(model="PN" + SPECIALS)
HOSTILE_VARIANT = Hyper(model="PN" + SPECIALS, optimizer="Ad&am%_~")

ROUNDS = {
    "binary-only": ("Run3Mu", ("MHc100_MA95", "MHc160_MA85"), (ModelSpec("binary", "ttZ"), ModelSpec("binary", "nonprompt"))),
    "variant": ("Run3Mu", ("MHc100_MA95", "MHc160_MA85"),
                (ModelSpec("binary", "ttZ"), ModelSpec("grouped", hyper=Hyper(nodes=64)))),
    "hostile": (HOSTILE_CHANNEL, ("MHc100_MA95", HOSTILE_SIGNAL),
                (ModelSpec("binary", "ttZ", HOSTILE_HYPER), ModelSpec("grouped", hyper=HOSTILE_HYPER),
                 ModelSpec("binary", "ttZ", HOSTILE_VARIANT))),
}  # fmt: skip


@pytest.fixture(scope="module", params=sorted(ROUNDS))
def round_(request, tmp_path_factory) -> tuple[str, Path]:
    """(round name, plots directory) of a finished campaign over two folds of the round's tree."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (.ci/run installs texlive-latex-recommended)")
    channel, signals, models = ROUNDS[request.param]
    base = tmp_path_factory.mktemp(request.param)
    results, plots = base / "results", base / "plots"
    for signal in signals:
        for fold in (0, 1):
            write_trainer_fold(results, channel, signal, fold, models=models, events=300)
    if request.param == "hostile":
        write_demo_run(results, channel, signals[0], events=300)  # ga_top_models.tex
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--workers", "0", "--images", "none",
            "--bootstrap", "10", "-q"]  # fmt: skip
    # its own process: three whole campaigns' ROOT objects stay out of the test session's memory
    done = subprocess.run([sys.executable, "-m", "pnetviz", "campaign", *argv], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return request.param, plots


def _tex_files(plots: Path) -> dict[str, str]:
    return {str(p.relative_to(plots)): p.read_text() for p in sorted(plots.rglob("*.tex"))}


def test_every_tex_of_the_round_compiles(round_, tmp_path):
    name, plots = round_
    files = _tex_files(plots)
    expected = {"campaign/campaign_summary.tex", "campaign/campaign_leaderboard.tex", "campaign/campaign_working_points.tex"}
    assert expected <= set(files)
    if name == "hostile":
        assert any(f.endswith("/ga/ga_top_models.tex") for f in files)
    for i, (rel, tex) in enumerate(files.items()):
        directory = tmp_path / str(i)
        directory.mkdir()
        try:
            compile_latex(tex, directory)
        except AssertionError as err:
            raise AssertionError(f"{rel} does not compile: {err}") from None


def test_tables_without_a_partner_say_so_in_text(round_):
    name, plots = round_
    tex = (plots / "campaign" / "campaign_summary.tex").read_text()
    for spec in re.findall(r"\\begin\{tabular\}\{([^}]*)\}", tex):
        assert len(spec) > 2, f"a tabular without a data column: {spec!r}"
    if name == "hostile":
        return
    assert r"\begin{tabular}" not in tex  # nothing is compared in these rounds
    assert "No binary/multi-class pair to compare" in tex and "3\\mu" in tex
    if name == "binary-only":
        expected = [r"binary vs Nonprompt (MHc100\_MA95)", r"binary vs $t\bar{t}Z$ (MHc160\_MA85)"]
    else:  # one block per variant: the binaries' (nNodes128), the multi-class model's (nNodes64)
        expected = [r"(model variant nNodes128); models without a partner model: binary vs $t\bar{t}Z$",
                    r"(model variant nNodes64); models without a partner model: multi-class $t\bar{t}X$"]
    assert all(e in tex for e in expected)


def test_hostile_names_reach_latex_escaped(round_):
    name, plots = round_
    if name != "hostile":
        pytest.skip("the hostile-names round only")
    for rel, tex in _tex_files(plots).items():
        assert "Run3Mu" not in tex or r"Run3Mu\_50\%" in tex, rel
        for line in tex.splitlines():
            if line.startswith("%"):
                continue
            assert not re.search(r"(?<!\\)%", line), f"{rel}: an unescaped % comments out the end of {line!r}"
    summary = (plots / "campaign" / "campaign_summary.tex").read_text()
    assert r"Sig\&\#\$\_\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}\%" in summary
