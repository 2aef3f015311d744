"""`--images site` (the campaign's default for its jobs): PNG of the web report's figures only, the
same numbers and canvases' drawings as `--images all`, and `pnetviz render` writing the rest (the PDFs for a note)."""

from __future__ import annotations

import filecmp
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import load_script
from pnetviz.cli.common import run
from pnetviz.output import imageset
from pnetviz.output.atomic import MARKER
from pnetviz.output.render import canvas_names, figure_name
from pnetviz.rootenv import root


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """One binary fold evaluated twice: --images site --formats png, and --images all --formats png,pdf."""
    from pnetviz.demo.trainertree import write_trainer_fold

    base = tmp_path_factory.mktemp("images") / "results"
    write_trainer_fold(base, "Run3Mu", "MHc130_MA90", 0, events=800)
    out = {}
    for mode, formats in (("site", "png"), ("all", "png,pdf")):
        plots = tmp_path_factory.mktemp(mode)
        argv = ["--results-dir", str(base), "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--background", "ttZ",
                "--fold", "0", "--plots-dir", str(plots), "--formats", formats, "--images", mode, "--bootstrap", "10", "-q"]  # fmt: skip
        assert run(load_script("visualizeBinary").main, argv) == 0
        out[mode] = next(plots.rglob("fold-0"))
    return out


def _pixels(path) -> np.ndarray:
    image = root().TASImage.Open(str(path))
    w, h = int(image.GetWidth()), int(image.GetHeight())
    argb = np.frombuffer(image.GetArgbArray(), dtype=np.uint32, count=w * h).reshape(h, w)
    return np.stack([(argb >> 16) & 255, (argb >> 8) & 255, argb & 255], axis=2).astype(np.int16)


def _differing(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of pixels differing by more than 30 (of 255) in a channel (the figure linter's rule)."""
    assert a.shape == b.shape
    return float((np.abs(a - b).max(axis=2) > 30).mean())


def test_site_images_are_the_key_figures_only(sets):
    site, full = sets["site"], sets["all"]
    figures = sorted(figure_name(k) for k in canvas_names(site / "plots.root"))
    assert len(figures) > 10
    key = [f for f in figures if imageset.key_figure(f)]
    assert sorted(p.stem for p in site.glob("*.png")) == key == sorted(["roc_curve", "rejection_curve", "score_distributions"])
    assert not list(site.glob("*.pdf"))
    assert sorted(p.stem for p in full.glob("*.pdf")) == sorted(p.stem for p in full.glob("*.png")) == figures
    assert json.loads((site / MARKER).read_text())["images"] == {"png": "site"}
    assert json.loads((full / MARKER).read_text())["images"] == {"png": "all", "pdf": "all"}
    folds = site.parent / "folds"  # a fold summary is on the site whole
    if folds.is_dir():
        assert sorted(p.stem for p in folds.glob("*.png")) == sorted(figure_name(k) for k in canvas_names(folds / "plots.root"))


@pytest.mark.slow
def test_render_adds_the_rest_for_a_note(sets, tmp_path):
    site = sets["site"]
    before = tmp_path / "plots.root"
    before.write_bytes((site / "plots.root").read_bytes())
    done = subprocess.run([sys.executable, "-m", "pnetviz", "render", str(site), "--formats", "png,pdf", "-q"],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in sets["all"].glob("*.p[nd][gf]"))
    assert sorted(p.name for p in site.glob("*.p[nd][gf]")) == names
    assert filecmp.cmp(before, site / "plots.root", shallow=False)  # the same canvases, byte for byte
    marker = json.loads((site / MARKER).read_text())
    assert marker["images"] == {"png": "all", "pdf": "all"} and marker["command"][:2] == ["pnetviz", "binary"]
    assert all((site / n).stat().st_size > 1000 for n in names)
    for name in (n for n in names if n.endswith(".png")):  # what --images all wrote, drawn from the stored canvas
        assert _differing(_pixels(site / name), _pixels(sets["all"] / name)) <= 0.001, name


def test_the_marker_field_says_what_images_a_set_holds():
    assert imageset.marker_field(["png", "root"], "site") == {"images": {"png": "site"}}
    assert imageset.marker_field([], "all") == {"images": {}}
    assert imageset.rendered({"png": "site"}, ["pdf"]) == {"png": "site", "pdf": "all"}
    assert imageset.rendered(None, ["png", "c"]) == {"png": "all"}
    assert imageset.selection("all") is None and imageset.selection("site", fold_summary=True) is None
    assert imageset.key_figure("signal_vs_ttX_lr_score_distribution") and not imageset.key_figure("roc_bjet_comparison")
    with pytest.raises(ValueError):
        imageset.selection("some")


def test_only_the_first_fold_set_of_a_run_gets_site_images():
    """per_fold: under site the lowest fold keeps its key figures, the others get none (NONE: the
    marker's {}); the pilot or a fold of unknown number comes after the numbered folds, as on the site."""
    assert imageset.per_fold("site", [0, 1, 2]) == ["site", "none", "none"]
    assert imageset.per_fold("site", [10, 2]) == ["none", "site"]  # by number, not by name
    assert imageset.per_fold("site", [3]) == ["site"] and imageset.per_fold("site", [None]) == ["site"]
    assert imageset.per_fold("site", [None, 4]) == ["none", "site"]
    assert imageset.per_fold("all", [0, 1]) == ["all", "all"] and imageset.per_fold("site", []) == []
    assert imageset.selection("none")("roc_curve") is False and imageset.marker_field(["png"], "none") == {"images": {}}
