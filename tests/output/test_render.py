"""`--formats none` then `pnetviz render`: the same images as a run that writes them directly."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import load_script
from pnetviz.cli.commands import run_command
from pnetviz.cli.common import run
from pnetviz.output.atomic import MARKER
from pnetviz.rootenv import root


def _pixels(path) -> np.ndarray:
    image = root().TASImage.Open(str(path))
    w, h = int(image.GetWidth()), int(image.GetHeight())
    argb = np.frombuffer(image.GetArgbArray(), dtype=np.uint32, count=w * h).reshape(h, w)
    return np.stack([(argb >> 16) & 255, (argb >> 8) & 255, argb & 255], axis=2).astype(np.int16)


def _differing(a: np.ndarray, b: np.ndarray) -> float:
    """Fraction of pixels differing by more than 30 (of 255) in a channel (the figure linter's rule)."""
    assert a.shape == b.shape
    return float((np.abs(a - b).max(axis=2) > 30).mean())


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    from pnetviz.demo.trainertree import write_trainer_fold

    base = tmp_path_factory.mktemp("render") / "results"
    write_trainer_fold(base, "Run3Mu", "MHc130_MA90", 0, events=800)
    return base


def _binary(tree, plots, formats):
    argv = ["--results-dir", str(tree), "--channel", "Run3Mu", "--signal", "MHc130_MA90", "--background", "ttZ", "--fold", "0",
            "--plots-dir", str(plots), "--formats", formats, "--bootstrap", "10", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 0
    return next(plots.rglob("fold-0"))


@pytest.mark.slow
def test_render_writes_what_the_run_would_have(tree, tmp_path):
    bare = _binary(tree, tmp_path / "bare", "none")
    assert not list(bare.glob("*.png")) and (bare / "plots.root").is_file()
    direct = _binary(tree, tmp_path / "direct", "png")
    # a fresh process, as users run it (this one's ROOT style has been through other tests)
    done = subprocess.run([sys.executable, "-m", "pnetviz", "render", str(tmp_path / "bare"), "--formats", "png", "-q"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in direct.glob("*.png"))
    assert names and sorted(p.name for p in bare.glob("*.png")) == names
    for name in names:
        assert _differing(_pixels(bare / name), _pixels(direct / name)) <= 0.001, name
    marker = json.loads((bare / MARKER).read_text())
    assert set(names) <= set(marker["files"]) and marker["rendered"] == ["png"]
    assert marker["command"][:2] == ["pnetviz", "binary"]  # the provenance of the run is kept


def test_render_of_a_directory_without_sets_is_one_line(tmp_path, capsys):
    assert run_command("render", [str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no pnetviz output set" in err[0]
