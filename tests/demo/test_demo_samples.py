"""demo/samples.py: the toy samples tree in the analysis' layout that `pnetviz datamc` reads, with
the yields it states, the variation trees, data as Poisson draws and `pnetviz demo` writing it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pnetviz.cli.commands import run_command
from pnetviz.demo import samples as demo
from pnetviz.io.samples import CENTRAL, SampleSpec, read_samples

pytestmark = pytest.mark.slow  # ROOT writes some 40 small files


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return demo.write_samples(tmp_path_factory.mktemp("samples"), mc_events=400, seed=5)


def test_layout_yields_and_variations(tree):
    config = json.loads((tree / "configs" / "samplegroups.json").read_text())
    assert set(config[demo.ERA]) == set(demo.CHANNELS)
    s = read_samples(SampleSpec(tree, demo.ERA, "WZ3Mu", demo.MASSPOINT, demo.METHOD))
    assert s.processes[0] == demo.MASSPOINT and s.process_source.startswith("config")
    assert set(s.systematics) == {"JetEn", "MuonIDSF", "Nonprompt"}
    for process, (_, yields) in demo.PROCESSES.items():
        assert s.simulation[process][CENTRAL].weight.sum() == pytest.approx(yields["WZ3Mu"], rel=1e-12)
    nonprompt = s.simulation["nonprompt"]
    assert nonprompt["Nonprompt_Up"].weight.sum() == pytest.approx(1.3 * demo.PROCESSES["nonprompt"][1]["WZ3Mu"], rel=1e-12)
    assert "JetEn_Up" not in nonprompt and "Nonprompt_Up" not in s.simulation["diboson"]
    expected = sum(y["WZ3Mu"] for p, (_, y) in demo.PROCESSES.items() if p != demo.MASSPOINT)
    assert abs(s.data.n_events - expected) < 5 * np.sqrt(expected)  # Poisson around the backgrounds' yield
    assert [p.name for p in s.data_files] == ["data.root"]
    assert "conv" in config[demo.ERA]["WZ3Mu"] and "conversion" in s.processes  # the analysis' group and file names


def test_pnetviz_demo_writes_the_samples(tmp_path, capsys):
    argv = ["--output", str(tmp_path / "r"), "--events", "100", "--folds", "1", "--signals", "MHc130_MA90",
            "--channels", "Run3Mu", "--no-ga"]  # fmt: skip
    assert run_command("demo", argv) == 0
    assert "analysis samples (pnetviz datamc)" in capsys.readouterr().out
    directory = tmp_path / "r" / "samples" / demo.ERA / "ZG3Mu" / demo.MASSPOINT / demo.METHOD
    assert sorted(p.name for p in directory.glob("*.root")) == sorted(
        [*(f"{p}.root" for p in demo.PROCESSES), "data.root"])
    assert run_command("demo", ["--output", str(tmp_path / "s"), *argv[2:], "--no-samples"]) == 0
    assert (tmp_path / "s").is_dir() and not (tmp_path / "s" / "samples").exists()
