"""GA figures readable on real runs (issue 33 item 6): the fitness axis fitted to the band of the
models (a diverged model drawn as a triangle at the axis top, not flattening the band), the best
model and the trainer's choice as large markers, failing KS cells outlined in red."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import numpy as np
import pytest

from pnetviz.cli.commands import run_command
from pnetviz.demo.ga import FIVE_CLASS_GROUPS, ToyModel, ToyRun, write_run
from pnetviz.jobs import gamarks
from pnetviz.metrics.ga import fitness_axis
from pnetviz.rootenv import root
from test_ga import B, populations  # tests/jobs is on sys.path (rootdir conftest)


def test_fitness_axis_ends_at_the_band_not_at_the_outliers():
    band = [0.9120, 0.9150, 0.9170, 0.9180, 0.9210, 0.9230, 0.9260]
    assert fitness_axis([*band, 1.41, 2.07]) == (0.912, 0.926)  # q75 0.922 + 3 x IQR 0.0045 = 0.9355
    assert fitness_axis([*band, 1.41, 2.07], keep=[1.41]) == (0.912, 1.41)  # the trainer's choice stays on it
    assert fitness_axis(band) == (0.912, 0.926)
    assert fitness_axis([0.5, 0.5, 0.5, 0.5007]) == (0.5, 0.5007)  # identical band: no clipping by rounding


@contextlib.contextmanager
def opened(path) -> Iterator[object]:
    """The ROOT file at `path`, its objects as stored: cmsstyle turns gROOT's ForceStyle on in this
    process, which would give every object read the current style's markers."""
    ROOT = root()
    forced = ROOT.gROOT.GetForceStyle()
    ROOT.gROOT.ForceStyle(False)
    f = ROOT.TFile.Open(str(path))
    try:
        yield f
    finally:
        f.Close()
        ROOT.gROOT.ForceStyle(forced)


@pytest.fixture(scope="module")
def ga_set(tmp_path_factory):
    base = tmp_path_factory.mktemp("gamarks")
    pops = populations(1.5)
    pops[1].append(ToyModel(B, [2.0, 1.9], [1.8, 1.7]))  # diverged: fitness 1.96 beside a 0.92-0.965 band
    write_run(base / "GAOptim_bjets", ToyRun("Run1E2Mu", "MHc130_MA90", pops, groups=FIVE_CLASS_GROUPS, events=800))
    argv = ["--ga-dir", str(base / "GAOptim_bjets"), "--plots-dir", str(base / "plots"), "--formats", "png", "-q"]
    assert run_command("ga", argv) == 0
    return base / "plots" / "GAOptim_bjets" / "Run1E2Mu" / "multiclass" / "MHc130_MA90" / "ga"


def test_fitness_axis_best_and_trainer_marks(ga_set):
    ROOT = root()
    with opened(ga_set / "plots.root") as f:
        canvas = f.Get("canvases/ga_fitness")
        frame = next(p for p in canvas.GetListOfPrimitives() if p.InheritsFrom("TH1"))
        assert frame.GetMaximum() < 1.2  # fitted to the band (0.92-0.965), the legend's room above it
        above = f.Get("fitness/above_axis")
        assert above.GetN() == 1 and above.GetMarkerStyle() == gamarks.ABOVE_MARKER
        assert list(above.GetY())[0] == pytest.approx(0.965)  # at the axis top: the band's highest model
        models = f.Get("fitness/models")
        assert max(models.GetY()) == pytest.approx(1.96)  # the stored values stay true
        assert f.Get("fitness/best").GetMarkerSize() >= 3 and f.Get("fitness/trainer_choice").GetMarkerSize() >= 2.5
        assert ROOT.TAttMarker.GetMarkerLineWidth(f.Get("fitness/trainer_choice").GetMarkerStyle()) >= 3
        for gene in ("nNodes", "initLR"):
            assert f.Get(f"fitness_vs_{gene}/above_axis").GetN() == 1


def test_failing_ks_cells_outlined(ga_set):
    doc = json.loads((ga_set / "ga_summary.json").read_text())
    with opened(ga_set / "plots.root") as f:
        checked = 0
        for key in f.Get("ks").GetListOfKeys():
            hist = key.ReadObj()
            n = hist.GetNbinsY()
            p = np.array([[hist.GetBinContent(j + 1, n - i) for j in range(hist.GetNbinsX())] for i in range(n)])
            failing = {(j, n - 1 - i) for i, j in zip(*np.nonzero((p >= 0) & (p < 0.05)))}
            boxes = [o for o in f.Get(f"canvases/ga_ks_{key.GetName()}").GetListOfPrimitives() if o.InheritsFrom("TBox")
                     and not o.InheritsFrom("TPave") and o.GetLineColor() == gamarks.FLAG_COLOR]  # fmt: skip
            assert {(int(b.GetX1()), int(b.GetY1())) for b in boxes} == failing
            checked += len(failing)
        assert checked > 0, doc["predictions"]  # the overtrained model fails somewhere
