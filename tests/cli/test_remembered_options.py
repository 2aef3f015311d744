"""Remembered options (issue 35, item 2): the demo's campaign runs with `--syst all --score-shift
background=0.02`; a later campaign or single command without them reuses them (the profiled plots
stay), `--dry-run` lists what a change would do, and removing outputs needs `--replace`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.cli.remember import MANIFEST
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold

CHANNEL, SIGNAL = "Run3Mu", "MHc130_MA90"
SYST = ["--syst", "all", "--score-shift", "background=0.02", "--images", "all"]  # every PNG: the profiled ones are counted
FAST = ["--workers", "0", "--kinds", "binary", "--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"]


@pytest.fixture
def demo_round(tmp_path) -> tuple[Path, Path]:
    """(results, plots) after a campaign with the demo's systematics options."""
    results, plots = tmp_path / "ana" / "results", tmp_path / "plots"
    for fold in (0, 1):
        write_trainer_fold(results, CHANNEL, SIGNAL, fold, models=(ModelSpec("binary", "nonprompt"),), events=400)
    assert campaign(results, plots, *SYST) == 0
    return results, plots


def campaign(results: Path, plots: Path, *extra: str) -> int:
    return run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots), *FAST, *extra])


def profiled(plots: Path) -> list[Path]:
    return sorted(plots.rglob("*_profiled*.png"))


def test_the_manifest_records_the_output_options(demo_round):
    _, plots = demo_round
    manifest = json.loads((plots / "campaign" / MANIFEST).read_text())
    assert manifest["options"]["syst"] == "all" and manifest["options"]["score_shift"] == "background=0.02"
    assert "threads" not in manifest["options"]


def test_a_campaign_without_the_options_reuses_them(demo_round, capsys):
    results, plots = demo_round
    before = {p: p.read_bytes() for p in profiled(plots)}
    assert len(before) == 4  # roc and rejection, folds 0 and 1
    capsys.readouterr()
    assert run(load_script("visualizeCampaign").main, ["--results-dir", str(results), "--plots-dir", str(plots),
                                                       *FAST[:-1]]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "reusing the options recorded" in out and "--syst all --score-shift background=0.02" in out
    assert "1 jobs: 0 to run, 1 up to date" in out  # nothing redone
    assert {p: p.read_bytes() for p in profiled(plots)} == before


def test_a_single_command_without_the_options_keeps_the_profiled_plots(demo_round, capsys):
    results, plots = demo_round
    capsys.readouterr()
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--background", "nonprompt", "--fold", "all",
            "--bootstrap", "0", "--formats", "png", "--no-bjet-comparison"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    assert "reusing the options recorded" in capsys.readouterr().out
    assert len(profiled(plots)) == 4  # every fold keeps its profiled ROC and rejection
    marker = json.loads(next(plots.rglob("fold-0/.pnetviz-set.json")).read_text())
    assert {"--syst=all", "--score-shift=background=0.02"} <= set(marker["command"])  # the next run reuses them too


def test_dropping_the_options_needs_replace_and_dry_run_lists_the_losses(demo_round, capsys):
    results, plots = demo_round
    before = {p: p.read_bytes() for p in sorted(plots.rglob("*")) if p.is_file()}
    capsys.readouterr()
    assert campaign(results, plots, "--replace", "--dry-run", "--images", "all") == 0
    out = capsys.readouterr().out
    assert "--syst: all -> (not given)" in out and "removes 4 outputs" in out
    assert sum(line.strip().startswith("would remove") and "_profiled" in line for line in out.splitlines()) == 4
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--background", "nonprompt", "--fold", "all",
            "--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q", "--syst-kappa", "2"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, [*argv, "--formats", "pdf"]) == 2  # png files would go
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--replace" in err[0] and "--formats png -> pdf" in err[0]
    assert {p: p.read_bytes() for p in sorted(plots.rglob("*")) if p.is_file()} == before
    assert campaign(results, plots, "--replace") == 0  # asked for: the profiled plots go
    assert profiled(plots) == []


def test_fewer_images_need_replace_and_the_site_figures_stay(demo_round, capsys):
    """--images all recorded; a run with --images site would drop the images the web report does not
    show: refused in one line without --replace, nothing changed; the first fold's key figures are
    not counted (fold-1's are: the site draws that fold live)."""
    results, plots = demo_round
    before = {p: p.read_bytes() for p in sorted(plots.rglob("*")) if p.is_file()}
    images = [p for p in before if p.suffix == ".png" and p.parent.name.startswith("fold-")]
    key = ("roc_curve", "rejection_curve", "score_distributions", "lr_score_distribution")  # the site's figures
    dropped = [p for p in images if not p.stem.removesuffix("_folds").endswith(key) or "bjet" in p.stem
               or p.parent.name != "fold-0"]  # fmt: skip
    assert any(p.parent.name == "fold-0" for p in images if p not in dropped)
    assert dropped and len(dropped) < len(images)
    capsys.readouterr()
    assert campaign(results, plots, "--images", "site") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--replace" in err[0] and "--images all -> site" in err[0]
    assert {p: p.read_bytes() for p in sorted(plots.rglob("*")) if p.is_file()} == before
    assert campaign(results, plots, *SYST[:4], "--images", "site", "--replace", "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"removes {len(dropped)} outputs" in out


@pytest.mark.slow  # renders a set, then evaluates again: two ROOT runs
def test_a_run_after_render_keeps_the_rendered_images(tmp_path, capsys):
    """The demo's last lines: a campaign (--images site, PNGs), `pnetviz render plots --formats
    pdf`, then the README's `pnetviz binary ... --fold all` without output options: the rendered
    PDFs count as the sets' formats (--formats png,pdf --images all reused), nothing is refused or
    lost; a run asking for PNGs only is refused with a message naming the options that keep them."""
    from pnetviz.cli.commands import run_command  # noqa: PLC0415

    results, plots = tmp_path / "ana" / "results", tmp_path / "plots"
    for fold in (0, 1):
        write_trainer_fold(results, CHANNEL, SIGNAL, fold, models=(ModelSpec("binary", "nonprompt"),), events=400)
    assert campaign(results, plots) == 0
    sets = sorted(p.parent for p in plots.rglob("fold-*/plots.root"))
    assert run_command("render", [str(s) for s in sets] + ["--formats", "pdf", "-q"]) == 0
    pdfs = sorted(p for s in sets for p in s.glob("*.pdf"))
    assert len(pdfs) > 10
    capsys.readouterr()
    argv = ["--results-dir", str(results), "--plots-dir", str(plots), "--channel", CHANNEL, "--signal", SIGNAL,
            "--background", "nonprompt", "--fold", "all"]  # fmt: skip
    assert run_command("binary", [*argv, "--formats", "png"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Fix: add --formats png,pdf (what the outputs were made with), or add --replace" in err[0]
    assert run_command("binary", [*argv, "--bootstrap", "0", "-q"]) == 0
    assert sorted(p for s in sets for p in s.glob("*.pdf")) == pdfs
    marker = json.loads((sets[0] / ".pnetviz-set.json").read_text())
    assert "--formats=png,pdf" in marker["command"] and "--images=all" in marker["command"]
