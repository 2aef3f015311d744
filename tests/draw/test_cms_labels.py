"""CMS label choices (issue 40 item 4): --cms-label private draws "Private work (CMS simulation)"
without the bold "CMS", --energy 14 draws "14 TeV" (cmsstyle knows 13 and 13.6 only), the default
stays the specification's "CMS" + "Simulation Preliminary"; the figures pass the figure linter and
the campaign passes the option on to its jobs; --lumi 138 with expected yields draws
"138 fb^{-1} (13 TeV)" (the CMS convention, in place of the run), and without them is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

import figlint  # tests/draw is on sys.path (see test_figure_lint.py)
from conftest import load_script
from pnetviz.cli.common import EXIT_USER_ERROR, run
from pnetviz.demo.trainertree import write_trainer_fold
from pnetviz.draw.style import PRIVATE_TEXT
from pnetviz.rootenv import root

SIGNAL = "MHc130_MA90"
BOLD = 61  # cmsstyle's cmsTextFont: the bold "CMS"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("tree") / "results"
    write_trainer_fold(base, "Run1E2Mu", SIGNAL, 0, events=1200)
    return base


def _binary(results: Path, out: Path, *extra: str) -> Path:
    argv = ["--results-dir", str(results), "--signal", SIGNAL, "--background", "ttZ", "--output", str(out),
            "--formats", "none", "--bootstrap", "0", "-q", *extra]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    files = sorted(out.rglob("plots.root"))
    assert files
    return files[0]


def _texts(path: Path) -> list[tuple[str, int]]:
    """(text, font) of every TLatex on every canvas (and sub-pad) of a plots.root."""
    ROOT = root()
    found: list[tuple[str, int]] = []

    def walk(pad) -> None:
        for obj in pad.GetListOfPrimitives():
            if obj.InheritsFrom("TPad"):
                walk(obj)
            elif obj.InheritsFrom("TLatex"):
                found.append((str(obj.GetTitle()), int(obj.GetTextFont())))

    def canvases(directory) -> None:
        for key in directory.GetListOfKeys():
            obj = key.ReadObj()
            if obj.InheritsFrom("TDirectory"):
                canvases(obj)
            elif obj.InheritsFrom("TCanvas"):
                walk(obj)

    f = ROOT.TFile.Open(str(path))
    try:
        canvases(f)
    finally:
        f.Close()
    return found


@pytest.fixture(scope="module")
def private(results, tmp_path_factory) -> Path:
    return _binary(results, tmp_path_factory.mktemp("private"), "--cms-label", "private")


@pytest.fixture(scope="module")
def hl_lhc(results, tmp_path_factory) -> Path:
    return _binary(results, tmp_path_factory.mktemp("energy14"), "--energy", "14", "--run", "HL-LHC")


def test_private_label_has_no_bold_cms(private):
    texts = _texts(private)
    assert sum(text == PRIVATE_TEXT for text, _ in texts) >= 5
    assert not [t for t in texts if t[0] == "CMS" or t[1] == BOLD]
    assert not [t for t in texts if "Simulation Preliminary" in t[0]]


def test_energy_14_is_drawn(hl_lhc):
    texts = [text for text, _ in _texts(hl_lhc)]
    assert sum(text == "HL-LHC (14 TeV)" for text in texts) >= 5
    assert not [t for t in texts if "???" in t]
    assert "CMS" in texts and "Simulation Preliminary" in texts  # the default label stays


@pytest.fixture(scope="module")
def lumi(results, tmp_path_factory) -> Path:
    return _binary(results, tmp_path_factory.mktemp("lumi"), "--lumi", "138", "--expected-yields", "signal=20,ttZ=400")


def test_lumi_is_drawn_with_expected_yields(lumi):
    texts = [text for text, _ in _texts(lumi)]
    assert sum(text == "138 fb^{-1} (13 TeV)" for text in texts) >= 5
    assert "Run 2 (13 TeV)" not in texts and "CMS" in texts


def test_lumi_without_expected_yields_is_one_line(results, tmp_path, capsys):
    argv = ["--results-dir", str(results), "--signal", SIGNAL, "--background", "ttZ", "--output", str(tmp_path / "o"),
            "--formats", "none", "--bootstrap", "0", "-q", "--lumi", "138"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--lumi 138" in err and "--expected-yields" in err
    assert not (tmp_path / "o").exists()


def test_default_label_unchanged_after_private(results, private, tmp_path):
    """cmsstyle clears its "CMS" for a "Private" extra text and never sets it back: the next
    evaluation in the same process must draw it again."""
    texts = _texts(_binary(results, tmp_path / "default"))
    assert ("CMS", BOLD) in texts and "Simulation Preliminary" in [t for t, _ in texts]
    assert "Run 2 (13 TeV)" in [t for t, _ in texts] and PRIVATE_TEXT not in [t for t, _ in texts]


@pytest.mark.slow
def test_private_and_14_tev_figures_pass_the_linter(private, hl_lhc, lumi):
    records = figlint.settled(figlint.lint_records([private, hl_lhc, lumi], jobs=2))
    assert not records, figlint.summarize(records)


@pytest.mark.parametrize("energy", ["8", "13.3", "100"])
def test_other_energies_are_one_line(energy, capsys):
    assert run(load_script("visualizeBinary").main, ["--energy", energy]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--energy" in err and "13.6" in err and "14" in err


def test_campaign_passes_the_label_on():
    from pnetviz.cli import campaign, common, ga

    args = campaign.parse_args(["--cms-label", "private", "--energy", "14"], "pnetviz campaign")
    for kind in ("binary", "multiclass", "compare"):
        argv = common.passthrough(args, kind)
        assert argv[argv.index("--cms-label") + 1] == "private" and argv[argv.index("--energy") + 1] == "14.0"
    argv = ga.passthrough(args)
    assert argv[argv.index("--cms-label") + 1] == "private"
