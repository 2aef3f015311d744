"""The samples reader (io/samples.py): the analysis' layout read as it is, and its bad inputs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pnetviz.demo.samples import write_trees
from pnetviz.errors import InputError
from pnetviz.io.samples import SampleSpec, read_samples

MP = "MHc130_MA90"


def _columns(n: int, seed: int, weight: float = 0.5, prefix: str = MP, drop: tuple[str, ...] = ()) -> dict:
    rng = np.random.default_rng(seed)
    out = {f"score_{prefix}_{node}": rng.random(n) for node in ("signal", "nonprompt", "diboson", "ttZ")}
    out["weight"], out["mass"] = np.full(n, weight), rng.normal(90.0, 10.0, n)
    return {k: v for k, v in out.items() if k not in drop}


def _region(tmp_path, processes=("nonprompt", "diboson"), config=None, central=True, drop=()) -> SampleSpec:
    directory = tmp_path / "2018" / "WZ3Mu" / MP / "ParticleNet"
    directory.mkdir(parents=True)
    for i, process in enumerate(processes):
        trees = {"Central": _columns(50 + i, i, drop=drop)} if central else {}
        trees["JetEn_Up"] = _columns(50 + i, i, weight=0.6)
        trees["JetEn_Down"] = _columns(50 + i, i, weight=0.4)
        write_trees(directory / f"{process}.root", trees)
    write_trees(directory / "DoubleMuon_A_data.root", {"Central": _columns(7, 9, weight=1.0, drop=("weight",))})
    write_trees(directory / "DoubleMuon_B_data.root", {"Central": _columns(5, 8, weight=1.0)})
    if config is not None:
        (tmp_path / "configs").mkdir()
        (tmp_path / "configs" / "samplegroups.json").write_text(json.dumps(config))
    return SampleSpec(tmp_path, "2018", "WZ3Mu", MP, "ParticleNet")


def test_reads_every_process_tree_and_the_data(tmp_path):
    spec = _region(tmp_path)
    samples = read_samples(spec)
    assert samples.processes == ("diboson", "nonprompt")  # no config: the files, sorted
    assert samples.systematics == ("JetEn",)
    central = samples.simulation["nonprompt"]["Central"]
    expected = _columns(50, 0)
    assert np.array_equal(central.scores["ttZ"], expected[f"score_{MP}_ttZ"])
    assert np.array_equal(central.mass, expected["mass"])
    assert samples.simulation["diboson"]["JetEn_Up"].weight.sum() == pytest.approx(0.6 * 51, rel=1e-12)
    assert samples.data.n_events == 12 and np.array_equal(samples.data.weight, np.ones(12))  # two periods added
    assert samples.variation("diboson", "Absent", "Up") is samples.simulation["diboson"]["Central"]


def test_process_list_from_the_analysis_config(tmp_path):
    config = {"2018": {"WZ3Mu": {"data": ["DoubleMuon_A"], "nonprompt": ["x"], "conv": ["y"]}}}
    samples = read_samples(_region(tmp_path, processes=("nonprompt", "conversion"), config=config))
    assert samples.processes == ("nonprompt", "conversion") and samples.process_source.startswith("config")


def test_a_config_group_that_is_no_plain_name_is_refused(tmp_path):
    config = {"2018": {"WZ3Mu": {"data": [], "../nonprompt": []}}}
    with pytest.raises(InputError, match=r"sample group '../nonprompt' is not a single path component"):
        read_samples(_region(tmp_path, config=config))


def test_a_merged_data_file_is_read_alone(tmp_path):
    spec = _region(tmp_path)
    write_trees(spec.directory / "data.root", {"Central": _columns(3, 4)})  # the analysis' hadd of the periods
    samples = read_samples(spec)
    assert [p.name for p in samples.data_files] == ["data.root"] and samples.data.n_events == 3


def test_column_mapping(tmp_path):
    spec = _region(tmp_path)
    mapped = SampleSpec(**{**spec.__dict__, "columns": (("weight", "2 * weight"),)})
    samples = read_samples(mapped)
    assert samples.simulation["nonprompt"]["Central"].weight.sum() == pytest.approx(2 * 0.5 * 50, rel=1e-12)


@pytest.mark.parametrize(("case", "expected"), [
    ("config", "no such file, but process 'ttX' is listed by config"),
    ("central", "no tree 'Central'"),
    ("weight", "has no branch 'weight'"),
    ("score", f"has no branch 'score_{MP}_diboson'"),
    ("syst", "no file holds the trees 'Nope_Up'/'Nope_Down'"),
    ("dir", "no such samples directory"),
])
def test_bad_inputs_are_one_line(tmp_path, case, expected):
    config = {"2018": {"WZ3Mu": {"data": [], "nonprompt": [], "ttX": []}}} if case == "config" else None
    drop = {"weight": ("weight",), "score": (f"score_{MP}_diboson",)}.get(case, ())
    spec = _region(tmp_path, config=config, central=case != "central", drop=drop)
    if case == "syst":
        spec = SampleSpec(**{**spec.__dict__, "systematics": ("Nope",)})
    if case == "dir":
        spec = SampleSpec(**{**spec.__dict__, "method": "Other"})
    with pytest.raises(InputError) as err:
        read_samples(spec)
    assert expected in str(err.value) and "Fix:" in str(err.value) and "\n" not in str(err.value)


def test_empty_region(tmp_path):
    directory = tmp_path / "2018" / "WZ3Mu" / MP / "ParticleNet"
    directory.mkdir(parents=True)
    write_trees(directory / "diboson.root", {"Central": _columns(0, 1)})
    with pytest.raises(InputError, match="the region is empty"):
        read_samples(SampleSpec(tmp_path, "2018", "WZ3Mu", MP, "ParticleNet"))
