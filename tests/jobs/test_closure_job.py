"""jobs.closure on files: a samples region in the analysis' layout (demo.samples.write_trees) against
a GA model's model<i>_predictions.npz or a fold model's ntuple, the model's outputs drawn from the
same softmax toy as the samples' (pass) or with two output branches of the samples exchanged by
--column (the pair named); closure.json, the figures and plots.root read back. The files are
written once per module (RDataFrame snapshots: ~4 s each on a loaded machine), hence slow."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pnetviz.demo.samples import write_trees
from pnetviz.demo.toys import snapshot
from pnetviz.errors import InputError
from pnetviz.io.samples import SampleSpec
from pnetviz.jobs import closure as jc

pytestmark = pytest.mark.slow

MP = "MHc130_MA90"
NODES = ("signal", "nonprompt", "diboson", "ttZ")
CLASSES = ("signal", "nonprompt", "diboson", "ttX")
PROCESSES = {MP: 0, "nonprompt": 1, "diboson": 2, "ttX": 3, "conv": 1}  # conv: no training class


def softmax(rng: np.random.Generator, klass: int, n: int) -> np.ndarray:
    logits = rng.normal(0.0, 1.0, (n, 4))
    logits[:, klass] += 2.0
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def write_region(base: Path, seed: int, n: int = 700) -> Path:
    rng = np.random.default_rng(seed)
    directory = base / "2018" / "SR3Mu" / MP / "Baseline"
    directory.mkdir(parents=True, exist_ok=True)
    for process, klass in PROCESSES.items():
        p = softmax(rng, klass, n)
        columns = {f"score_{MP}_{node}": p[:, i].astype(np.float32) for i, node in enumerate(NODES)}
        columns["weight"] = rng.uniform(0.005, 0.015, n)  # physics weights
        columns["mass"] = rng.normal(90.0, 10.0, n)
        write_trees(directory / f"{process}.root", {"Central": columns})
    return base


def ga_predictions(base: Path, seed: int, index: int = 3, n: int = 900) -> Path:
    rng = np.random.default_rng(seed)
    run = base / "GAOptim_bjets" / "Combined" / "multiclass" / f"TTToHcToWAToMuMu-{MP}"
    where = run / "GA-iter3" / "overfitting_diagnostics"
    where.mkdir(parents=True)
    arrays = {}
    for split in ("train", "test"):
        label = np.repeat(np.arange(4), n)
        arrays[f"y_true_{split}"] = label
        arrays[f"y_scores_{split}"] = np.concatenate([softmax(rng, k, n) for k in range(4)])
        arrays[f"weights_{split}"] = rng.uniform(0.5, 1.5, label.size)
    np.savez(where / f"model{index}_predictions.npz", **arrays)
    groups = {"comment": "trainer's note", "nonprompt": ["TTLL_powheg"], "diboson": ["WZTo3LNu_amcatnlo", "ZZTo4L_powheg"],
              "ttX": ["TTZToLLNuNu", "tZq"]}  # fmt: skip
    (run / "ga_optimization_results.json").write_text(json.dumps({"configuration": {"background_groups": groups}}))
    return run / "GA-iter3"


def fold_ntuple(base: Path, seed: int, model: str = "ParticleNet-3grp-nonprompt-diboson-ttX", n: int = 900) -> Path:
    rng = np.random.default_rng(seed)
    label = np.repeat(np.arange(4), n)
    scores = np.concatenate([softmax(rng, k, n) for k in range(4)])
    test = rng.random(label.size) < 0.6
    columns = {f"score_{c}": scores[:, i].astype(np.float32) for i, c in enumerate(CLASSES)}
    columns |= {"true_label": label.astype(np.int32), "weight": rng.uniform(0.5, 1.5, label.size).astype(np.float32),
                "train_mask": ~test, "valid_mask": np.zeros(label.size, bool), "test_mask": test}  # fmt: skip
    fold = base / "results" / "Run3Mu" / "multiclass" / f"TTToHcToWAToMuMu-{MP}" / "fold-3"
    (fold / "trees").mkdir(parents=True)
    (fold / "models").mkdir()
    snapshot(columns, fold / "trees" / f"{model}.root")
    return fold / "models" / f"{model}.pt"


def spec(base: Path, **kw) -> SampleSpec:
    return SampleSpec(samples_dir=base, era="2018", channel="SR3Mu", masspoint=MP, method="Baseline", **kw)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("closure")
    return {"samples": write_region(base / "samples", 14), "iteration": ga_predictions(base, 12),
            "checkpoint": fold_ntuple(base, 13), "base": base}  # fmt: skip


SWAP = (("score_diboson", f"score_{MP}_ttZ"), ("score_ttZ", f"score_{MP}_diboson"))  # the samples' two outputs exchanged


def test_ga_model_passes_and_swapped_samples_name_the_pair(files):
    iteration = files["iteration"]
    good, _ = jc.evaluate(jc.ClosureJob(spec(files["samples"]), "3", iteration))
    assert good["verdict"] == "pass" and good["line"].startswith("closure: pass (16 tests")
    assert [p["process"] for p in good["processes"]] == [MP, "diboson", "nonprompt", "ttX"]  # the files' order
    assert [p["class"] for p in good["processes"]] == ["signal", "diboson", "nonprompt", "ttX"]
    assert good["not_compared"] == [{"process": "conv", "why": "not a training class of the model"}]
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
    assert mapped["processes"][1]["class"] == "nonprompt" and mapped["not_compared"] == []


def test_parse_pairs_and_mapping():
    assert jc.parse_pairs("ttX=ttZ, diboson = wz") == (("ttX", "ttZ"), ("diboson", "wz"))
    with pytest.raises(InputError, match="give PROCESS=CLASS"):
        jc.parse_pairs("ttX")
    pairs, left = jc.mapping([MP, "nonprompt", "conv", "ttX"], ["signal", "nonprompt", "ttX"], MP, ())
    assert pairs == {MP: "signal", "nonprompt": "nonprompt", "ttX": "ttX"} and left == ["conv"]
