"""jobs.closure on files (tests/closuretoys.py): a samples region in the analysis' layout against a
GA model's model<i>_predictions.npz or a fold model's ntuple, the model's outputs drawn from the
same softmax toy as the samples' (pass) or with two output branches of the samples exchanged by
--column (the pair named); closure.json, the figures and plots.root read back. The files are
written once per module (RDataFrame snapshots: ~4 s each on a loaded machine), hence slow."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from closuretoys import CLASSES, MP, NODES, SWAP, spec, write_files

from pnetviz.errors import InputError
from pnetviz.jobs import closure as jc

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return write_files(tmp_path_factory.mktemp("closure"))


def test_ga_model_passes_and_swapped_samples_name_the_pair(files):
    iteration = files["iteration"]
    good, _ = jc.evaluate(jc.ClosureJob(spec(files["samples"]), "3", iteration))
    assert good["verdict"] == "pass" and good["line"].startswith("closure: pass (16 tests")
    assert [p["process"] for p in good["processes"]] == [MP, "diboson", "nonprompt", "ttX"]  # the files' order
    assert [p["class"] for p in good["processes"]] == ["signal", "diboson", "nonprompt", "ttX"]
    assert good["not_compared"] == [{"process": p, "why": "not a training class of the model"} for p in ("conv", "others")]
    assert good["deployed_model"]["classes"] == list(CLASSES) and "background_groups" in good["deployed_model"]["classes_from"]
    assert good["node_columns"] == dict(zip(NODES, CLASSES, strict=True))
    bad, _ = jc.evaluate(jc.ClosureJob(spec(files["samples"], columns=SWAP), "model3", iteration))
    assert bad["verdict"] == "fail" and bad["order"]["swapped"] == [["diboson", "ttZ"]]
    assert "outputs 'diboson' and 'ttZ' look swapped" in bad["line"]


def test_fold_model_and_written_set(files, tmp_path):
    job = jc.ClosureJob(spec(files["samples"]), str(files["checkpoint"]))
    doc, comps = jc.evaluate(job)
    assert doc["verdict"] == "pass" and doc["deployed_model"]["kind"] == "fold model"
    test_events = [p["test_events"] for p in doc["processes"]]
    assert 4 * 900 * 0.5 < sum(test_events) < 4 * 900 * 0.7  # the test_mask events only
    from pnetviz.draw.style import StyleOptions
    from pnetviz.rootenv import root

    out = tmp_path / "out"
    out.mkdir()
    written = jc.write(out, doc, comps, ["png"], StyleOptions())
    names = {p.name for p in written}
    assert {"closure.json", "plots.root", *(f"closure_{n}.png" for n in NODES)} <= names
    stored = json.loads((out / "closure.json").read_text())
    assert stored["line"] == doc["line"] and len(stored["tests"]) == 16
    f = root().TFile.Open(str(out / "plots.root"))
    try:  # the samples' histogram of process diboson, node ttZ: unit area, as drawn
        h = f.Get("closure_ttZ/diboson_samples")  # comps: the mass point, diboson, nonprompt, ttX
        assert h and h.Integral() == pytest.approx(1.0, abs=1e-9)
        c = comps[1]
        edges = np.linspace(0, 1, h.GetNbinsX() + 1)
        want, _ = np.histogram(c.sample_scores[:, 3], edges, weights=c.sample_weights)
        got = np.array([h.GetBinContent(i + 1) for i in range(edges.size - 1)])
        np.testing.assert_allclose(got, want / want.sum(), atol=1e-9)
    finally:
        f.Close()


def test_wrong_model_and_bad_mapping_are_one_line(files):
    iteration, base = files["iteration"], files["samples"]
    with pytest.raises(InputError, match="model3_predictions.npz: the predictions of model3, but --deployed-model says model5"):
        jc.evaluate(jc.ClosureJob(spec(base), "5", iteration / "overfitting_diagnostics" / "model3_predictions.npz"))
    with pytest.raises(InputError, match=r"model5_predictions\.npz: no such file"):
        jc.evaluate(jc.ClosureJob(spec(base), "5", iteration))
    with pytest.raises(InputError, match="the model has no class 'ttZ'"):
        jc.evaluate(jc.ClosureJob(spec(base), "3", iteration, (("ttX", "ttZ"),)))
    with pytest.raises(InputError, match="the model has 4 outputs .* the samples' score branches 3"):
        jc.evaluate(jc.ClosureJob(spec(base, nodes=NODES[:3]), "3", iteration))
    with pytest.raises(InputError, match="none of its processes"):
        jc.evaluate(jc.ClosureJob(spec(base, processes=("conv",)), "3", iteration))
    mapped = jc.evaluate(jc.ClosureJob(spec(base), "3", iteration, (("conv", "nonprompt"),)))[0]
    assert [p["process"] for p in mapped["processes"]] == [MP, "conv", "diboson", "nonprompt", "ttX"]
    assert mapped["processes"][1]["class"] == "nonprompt" and [p["process"] for p in mapped["not_compared"]] == ["others"]
    with pytest.raises(InputError, match=r"others\.root: process 'others' has 700 events of weight sum -[0-9.]+ in tree 'Central'"):
        jc.evaluate(jc.ClosureJob(spec(base), "3", iteration, (("others", "ttX"),)))
    ntuple = files["checkpoint"].parent.parent / "trees" / f"{files['checkpoint'].stem}.root"
    with pytest.raises(InputError, match="but --deployed-model says 'ParticleNet-other'"):
        jc.evaluate(jc.ClosureJob(spec(base), "ParticleNet-other", ntuple))
    with pytest.raises(InputError, match=r"trees/ParticleNet-other\.root: no such ntuple"):
        jc.evaluate(jc.ClosureJob(spec(base), "ParticleNet-other", ntuple.parent.parent))


def test_parse_pairs_and_mapping():
    assert jc.parse_pairs("ttX=ttZ, diboson = wz") == (("ttX", "ttZ"), ("diboson", "wz"))
    with pytest.raises(InputError, match="give PROCESS=CLASS"):
        jc.parse_pairs("ttX")
    with pytest.raises(InputError, match="process 'ttX' is paired twice"):
        jc.parse_pairs("ttX=ttZ,ttX=ttX")
    pairs, left = jc.mapping([MP, "nonprompt", "conv", "ttX"], ["signal", "nonprompt", "ttX"], MP, ())
    assert pairs == {MP: "signal", "nonprompt": "nonprompt", "ttX": "ttX"} and left == ["conv"]
