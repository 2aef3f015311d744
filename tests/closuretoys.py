"""Toy inputs of the deployment closure's tests (tests/jobs/test_closure_job.py, tests/cli/test_closure_cli.py):
a samples region in the analysis' layout (demo.samples.write_trees), a GA model's
model<i>_predictions.npz with its run snapshot, a fold model's ntuple; the model's outputs drawn
from the same softmax toy as the samples'."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pnetviz.demo.samples import write_trees
from pnetviz.demo.toys import snapshot
from pnetviz.io.samples import SampleSpec

MP = "MHc130_MA90"
NODES = ("signal", "nonprompt", "diboson", "ttZ")
CLASSES = ("signal", "nonprompt", "diboson", "ttX")
PROCESSES = {MP: 0, "nonprompt": 1, "diboson": 2, "ttX": 3, "conv": 1, "others": 3}  # conv, others: no training class


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
        columns["weight"] = rng.uniform(0.005, 0.015, n) * (-1.0 if process == "others" else 1.0)  # others: a negative sum
        columns["mass"] = rng.normal(90.0, 10.0, n)
        write_trees(directory / f"{process}.root", {"Central": columns})
    data = {f"score_{MP}_{node}": softmax(rng, 1, 200)[:, i].astype(np.float32) for i, node in enumerate(NODES)}
    write_trees(directory / "data.root", {"Central": {**data, "mass": rng.normal(90.0, 10.0, 200)}})  # datamc reads it
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


SWAP = (("score_diboson", f"score_{MP}_ttZ"), ("score_ttZ", f"score_{MP}_diboson"))  # the samples' two outputs exchanged


def write_files(base: Path) -> dict[str, Path]:
    """Samples (seed 14: a draw that passes), GA predictions (model3) and a fold model's ntuple."""
    return {"samples": write_region(base / "samples", 14), "iteration": ga_predictions(base, 12),
            "checkpoint": fold_ntuple(base, 13), "base": base}  # fmt: skip
