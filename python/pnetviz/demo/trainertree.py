"""Toy results trees laid out exactly as the analysis' ParticleNet trainer writes them.

Every file of `../shared/TRAINER-FORMAT.md` per model: `trees/<model>.root` (tree `Events`:
score_signal and one float score per background class in class order, `true_label` int,
`train_mask`/`valid_mask`/`test_mask`/`has_bjet` bool, float `weight`; no event identifier),
`<model>_performance.json`, `<model>_model_info.json`, `CSV/<model>.csv` and `models/<model>.pt`
(a placeholder: pnetviz never reads model weights). Used by the tests, the demo and the
benchmarks; the physics content is the demo's (pnetviz.demo.make_pool).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.demo.toys import OBSERVERS, DemoConfig, _history, _softmax, make_pool, snapshot
from pnetviz.io.layout import DEFAULT_PREFIX
from pnetviz.io.trainer import sample_branch

GROUPS = {"nonprompt": ["TTLL"], "diboson": ["WZTo3LNu", "ZZTo4L"], "ttX": ["TTZToLLNuNu", "TTWToLNu", "tZq"]}
SAMPLES = ("TTLL", "WZTo3LNu", "TTZToLLNuNu")  # individual mode: one sample per class, branches ttll, wz, ttz
BINARY_BACKGROUNDS = ("nonprompt", "diboson", "ttZ")  # the trainer's binary categories; ttZ events are the ttX class


@dataclass(frozen=True)
class Hyper:
    """The hyperparameters that make up a trainer model name."""

    model: str = "ParticleNet"
    nodes: int = 128
    optimizer: str = "Adam"
    lr: float = 0.001
    decay: float = 1e-4
    scheduler: str = "StepLR"
    loss: str = "weighted_ce"
    sharpness: float = 1.0  # toy only: how well this variant separates

    def name(self, suffix: str) -> str:
        lr, decay = format(self.lr, ".4f").replace(".", "p"), format(self.decay, ".5f").replace(".", "p")
        return f"{self.model}-nNodes{self.nodes}-{self.optimizer}-initLR{lr}-decay{decay}-{self.scheduler}-{self.loss}-{suffix}"


@dataclass(frozen=True)
class ModelSpec:
    """One model of a fold: binary vs `background`, or multi-class grouped / individual."""

    kind: str  # "binary", "grouped", "individual"
    background: str | None = None
    hyper: Hyper = field(default_factory=Hyper)

    @property
    def name(self) -> str:
        if self.kind == "binary":
            return self.hyper.name(f"binary-{self.background}")
        if self.kind == "grouped":
            return self.hyper.name(f"{len(GROUPS)}grp-" + "-".join(GROUPS))
        return self.hyper.name(f"{len(SAMPLES)}bg")

    @property
    def directory(self) -> str:
        return "binary" if self.kind == "binary" else "multiclass"


STANDARD_MODELS = (*(ModelSpec("binary", b) for b in BINARY_BACKGROUNDS), ModelSpec("grouped"))


def background_info(spec: ModelSpec) -> dict:
    if spec.kind == "grouped":
        return {"mode": "grouped", "num_groups": len(GROUPS), "groups": GROUPS}
    backgrounds = [spec.background] if spec.kind == "binary" else list(SAMPLES)
    return {"mode": "individual", "num_backgrounds": len(backgrounds), "backgrounds": backgrounds}


def branches(spec: ModelSpec) -> list[str]:
    """Score branch names in class order, as the trainer's ResultPersistence makes them."""
    if spec.kind == "grouped":
        return ["signal", *GROUPS]
    samples = [spec.background] if spec.kind == "binary" else list(SAMPLES)
    return ["signal", *(sample_branch(s, i) for i, s in enumerate(samples))]


def _columns(spec: ModelSpec, pool: dict, logits: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    common = {k: pool[k] for k in ("train_mask", "valid_mask", "test_mask", "has_bjet", *OBSERVERS)}
    label = pool["true_label"]
    if spec.kind != "binary":
        probs = _softmax(spec.hyper.sharpness * logits).astype(np.float32)
        scores = {f"score_{b}": probs[:, i] for i, b in enumerate(branches(spec))}
        return {**scores, "true_label": label, **common, **_weights(pool["weight"], label != 0, probs[:, 0])}
    index = 1 + BINARY_BACKGROUNDS.index(spec.background)
    keep = np.isin(label, [0, index])
    z = spec.hyper.sharpness * 1.1 * (logits[keep, 0] - logits[keep, index]) + rng.normal(0, 0.3, keep.sum())
    p = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
    true = (label[keep] == index).astype(np.int32)
    return {"score_signal": p, "score_bg1": (1 - p).astype(np.float32), "true_label": true,
            **{k: v[keep] for k, v in common.items()}, **_weights(pool["weight"][keep], true == 1, p)}  # fmt: skip


def _weights(weight: np.ndarray, background: np.ndarray, p_signal: np.ndarray) -> dict[str, np.ndarray]:
    """`weight` and a shape-changing background weight variation `weight__bkgShapeUp/Down` (+-20% x
    (P(signal) - 0.5)): the systematic the demo's profiled ROC shows (not written by the trainer)."""
    tilt = np.where(background, 0.4 * (p_signal - 0.5), 0.0)
    return {"weight": weight.astype(np.float32), "weight__bkgShapeUp": (weight * (1 + tilt)).astype(np.float32),
            "weight__bkgShapeDown": (weight * (1 - tilt)).astype(np.float32)}


def write_model(fold_dir: Path, spec: ModelSpec, columns: dict[str, np.ndarray], meta: dict, history: dict) -> Path:
    """Every file the trainer writes for one model in `fold_dir`; returns the ntuple's path."""
    name = spec.name
    tree = fold_dir / "trees" / f"{name}.root"
    tree.parent.mkdir(parents=True, exist_ok=True)
    snapshot({k: np.ascontiguousarray(v) for k, v in columns.items()}, tree)
    n_classes = len(branches(spec))
    n_parameters = 9000 + 310 * spec.hyper.nodes
    perf = {"model_name": name, **meta, "training_config": {
        "model_type": spec.hyper.model, "num_classes": n_classes, "use_groups": spec.kind == "grouped",
        "optimizer": spec.hyper.optimizer, "scheduler": spec.hyper.scheduler, "loss_type": spec.hyper.loss,
        "initial_lr": spec.hyper.lr, "weight_decay": spec.hyper.decay, "dropout_p": 0.25, "max_epochs": 81,
        "batch_size": 1024}, "background_info": background_info(spec), "model_type": spec.hyper.model,
        "num_classes": n_classes, "use_groups": spec.kind == "grouped", "background_groups": background_groups(spec),
        "training_results": trainer_results(spec, columns, history["training_results"], n_parameters)}  # fmt: skip
    (fold_dir / f"{name}_performance.json").write_text(json.dumps(perf, indent=2))
    info = {"model_name": name, "model_type": spec.hyper.model, "num_parameters": n_parameters,
            "trainable_parameters": n_parameters, "num_classes": n_classes,
            "input_features": {"node_features": 9, "graph_features": 4},
            "architecture": {"hidden_nodes": spec.hyper.nodes, "dropout_p": 0.25},
            "training_mode": "grouped" if spec.kind == "grouped" else "individual"}  # fmt: skip
    (fold_dir / f"{name}_model_info.json").write_text(json.dumps(info, indent=2))
    epochs = history["training_results"]["training_history"]
    csv = ["epoch,train_loss,train_acc,valid_loss,valid_acc"]
    csv += [f"{e['epoch']},{e['train_loss']},{e['train_acc']},{e['valid_loss']},{e['valid_acc']}" for e in epochs]
    (fold_dir / "CSV").mkdir(exist_ok=True)
    (fold_dir / "CSV" / f"{name}.csv").write_text("\n".join(csv) + "\n")
    (fold_dir / "models").mkdir(exist_ok=True)
    (fold_dir / "models" / f"{name}.pt").write_bytes(b"placeholder: pnetviz never reads model weights\n")
    return tree


def background_groups(spec: ModelSpec) -> dict[str, list[str]]:
    """The performance JSON's top-level `background_groups`: class -> samples (a binary model: its category)."""
    if spec.kind == "grouped":
        return dict(GROUPS)
    samples = [spec.background] if spec.kind == "binary" else list(SAMPLES)
    return {sample_branch(s, i): [s] for i, s in enumerate(samples)}


def trainer_results(spec: ModelSpec, columns: dict[str, np.ndarray], toy: dict, n_parameters: int) -> dict:
    """`training_results` with the fields the real trainer writes (TRAINER-FORMAT.md: no best_epoch,
    no epochs_completed): its test loss and accuracy are those of the written test events
    (unweighted cross-entropy and argmax accuracy, as the trainer computes them)."""
    from pnetviz.metrics.trainercheck import recompute  # noqa: PLC0415

    probs = np.column_stack([columns[f"score_{b}"] for b in (branches(spec) if spec.kind != "binary" else ("signal", "bg1"))])
    test_loss, test_accuracy = recompute(columns["true_label"], probs, columns["test_mask"])
    epochs = toy["training_history"]
    return {"training_history": epochs, "best_valid_loss": toy["best_valid_loss"], "test_loss": test_loss,
            "test_accuracy": test_accuracy, "total_training_time": toy["total_training_time"],
            "avg_epoch_time": toy["total_training_time"] / len(epochs), "final_memory_mb": epochs[-1]["memory_mb"],
            "model_parameters": n_parameters, "early_stopped": True}  # fmt: skip


def separation(channel: str, signal: str) -> float:
    """Toy physics: a heavier charged Higgs further from m(A) separates better; Run3Mu a little more."""
    m = re.fullmatch(r"MHc(\d+)_MA(\d+)", signal)
    gap = (int(m.group(1)) - int(m.group(2))) if m else 40
    return 1.3 + 0.004 * gap + (0.08 if channel == "Run3Mu" else 0.0)


def write_trainer_fold(base: Path, channel: str, signal: str, fold: int | None, models=STANDARD_MODELS,
                       events: int = 3000, seed: int = 20251001, prefix: str = DEFAULT_PREFIX) -> list[Path]:  # fmt: skip
    """All `models` of one (channel, signal point, fold) under the trainer's `base` directory
    (fold None: the pilot run). Every model sees the same events of one pool."""
    point_seed = seed + 1000 * sum(map(ord, channel)) + sum(map(ord, signal))  # a different pool per channel, signal
    cfg = DemoConfig(signal=signal, channel=channel, classes=("signal", *GROUPS), events=events, seed=point_seed,
                     separation=separation(channel, signal))  # fmt: skip
    pool = make_pool(cfg, 99 if fold is None else fold)
    pool.pop("event_id")  # the trainer writes no event identifier
    logits = pool.pop("logits")
    rng = np.random.default_rng([point_seed, 99 if fold is None else fold, 2])
    written = []
    for spec in models:
        fold_dir = Path(base) / channel / spec.directory / f"{prefix}{signal}" / ("pilot" if fold is None else f"fold-{fold}")
        meta = {"signal_sample": f"{prefix}{signal}", "channel": channel, "fold": 0 if fold is None else fold,
                "pilot_mode": fold is None}  # fmt: skip
        history = _history(rng, 30 + (fold or 0), 0.8 if spec.kind == "binary" else 1.0)
        written.append(write_model(fold_dir, spec, _columns(spec, pool, logits, rng), meta, history))
    return written
