"""A toy GA hyperparameter-search run laid out as the trainer writes it (../shared/GA-FORMAT.md).

`write_run` writes whatever populations it is given (explicit epoch histories: the tests use it
with hand-chosen numbers); `write_demo_run` makes the demo's run: 2 iterations of 5 models, the
survivors retrained (worse) in iteration 1, one duplicate chromosome, the best model of all in
iteration 0 (so the trainer's best_chromosome, the best of the final population, is another
one), schema V diagnostics with predictions in iteration 0 and schema E in iteration 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.io.ga import DIAGNOSTICS, POPULATION_FILE, RESULTS_FILE
from pnetviz.io.layout import DEFAULT_PREFIX
from pnetviz.metrics.hep import weighted_ks

GROUPS = {"nonprompt": ["TTLL_powheg"], "diboson": ["WZTo3LNu_amcatnlo", "ZZTo4L_powheg"], "ttX": ["TTZToLLNuNu", "tZq"]}
FIVE_CLASS_GROUPS = {"nonprompt-TT": ["TTLL_powheg"], "nonprompt-DY": ["DYJets"], "diboson": ["WZTo3LNu_amcatnlo", "ZZTo4L_powheg"],
                     "ttX": ["TTZToLLNuNu", "tZq"]}  # fmt: skip
SEARCH_SPACE = {"nNodes": [64, 96, 128], "optimizers": ["RMSprop", "Adam", "Adadelta"],
                "schedulers": ["ExponentialLR", "CyclicLR", "ReduceLROnPlateau"],
                "initLR": {"type": "log_uniform", "min": 1e-4, "max": 1e-2, "samples": 100, "digits": 4},
                "weight_decay": {"type": "log_uniform", "min": 1e-5, "max": 1e-3, "samples": 100, "digits": 5}}  # fmt: skip
ROOT_NAME = "GAOptim_bjets"


@dataclass
class ToyModel:
    """One population member: its chromosome and epoch history; `trainer_fitness` overrides what
    model_info.csv says (default: the trainer's rule); `sharpness` > 0 writes predictions."""

    chromosome: tuple
    valid_loss: list[float]
    train_loss: list[float]
    trainer_fitness: float | None = None
    sharpness: float = 0.0  # class separation of the toy predictions (0: none written)
    overtraining: float = 0.0  # extra sharpness of the train split

    def fitness(self, penalty: float) -> float:
        """GATools.updatePopulation's rule (the generator plays the trainer)."""
        e = int(np.argmin(self.valid_loss))
        return self.valid_loss[e] + penalty * max(0.0, self.valid_loss[e] - self.train_loss[e])


@dataclass
class ToyRun:
    channel: str
    signal: str
    populations: list[list[ToyModel]]
    groups: dict = field(default_factory=lambda: dict(GROUPS))
    penalty: float = 0.3
    schemas: tuple = ("V", "E")  # per iteration: V (visualizeGAIteration, with predictions), E (evaluateGAModels), None
    results_file: bool = True
    events: int = 1500  # per split and model with predictions
    seed: int = 7


def _history_json(m: ToyModel, iteration: int, index: int, run: ToyRun) -> dict:
    n = len(m.valid_loss)
    e = int(np.argmin(m.valid_loss))
    acc_v = [round(0.75 - 0.5 * (v - min(m.valid_loss)), 5) for v in m.valid_loss]
    acc_t = [round(0.75 - 0.5 * (t - min(m.train_loss)), 5) for t in m.train_loss]
    nodes, optimizer, lr, decay, scheduler = (list(m.chromosome) + [None] * 5)[:5]
    return {
        "hyperparameters": {"signal": run.signal, "channel": run.channel, "iteration": iteration, "model_idx": index,
                            "num_hidden": nodes, "optimizer": optimizer, "initial_lr": lr, "weight_decay": decay,
                            "scheduler": scheduler, "pilot_mode": False, "num_classes": 1 + len(run.groups),
                            "model_type": "ParticleNet", "num_node_features": 9, "num_graph_features": 4,
                            "dropout_p": 0.4, "batch_size": 1024, "train_folds": [0, 1, 2], "valid_folds": [3]},
        "training_summary": {"best_epoch": e, "best_train_loss": m.train_loss[e], "best_valid_loss": m.valid_loss[e],
                             "best_train_acc": acc_t[e], "best_valid_acc": acc_v[e], "total_epochs": n},
        "epoch_history": {"epoch": list(range(n)), "train_loss": list(m.train_loss), "valid_loss": list(m.valid_loss),
                          "train_acc": acc_t, "valid_acc": acc_v,
                          "timestamp": [1762457297.3 + 40.0 * k for k in range(n)]},
    }  # fmt: skip


def toy_predictions(m: ToyModel, n_classes: int, events: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Softmax outputs of a toy classifier for train and test (the train split a little sharper)."""
    out = {}
    for split, extra in (("train", m.overtraining), ("test", 0.0)):
        label = rng.choice(n_classes, size=events, p=np.r_[0.3, np.full(n_classes - 1, 0.7 / (n_classes - 1))])
        logits = (m.sharpness + extra) * np.eye(n_classes)[label] + rng.normal(0.0, 1.0, (events, n_classes))
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        w = rng.uniform(0.5, 1.5, events) * np.where(label == 0, 0.01, 0.2)
        if n_classes > 2:
            flip = (label == 2) & (rng.random(events) < 0.1)  # diboson-like negative weights
            w[flip] *= -1
        out |= {f"y_true_{split}": label.astype(np.int64), f"y_scores_{split}": p.astype(np.float32),
                f"weights_{split}": w.astype(np.float32)}  # fmt: skip
    return out


def _diagnostics(schema: str, index: int, classes: list[str], preds: dict[str, np.ndarray]) -> dict:
    """model<i>_kolmogorov.json of either schema, with p-values of the toy predictions."""
    tr = (preds["y_true_train"], preds["y_scores_train"].astype(float), np.abs(preds["weights_train"].astype(float)))
    te = (preds["y_true_test"], preds["y_scores_test"].astype(float), np.abs(preds["weights_test"].astype(float)))
    if schema == "E":  # one test per output score, all events whatever their class (OverfittingDetector)
        per = {}
        for s, cls in enumerate(classes):
            p = weighted_ks(tr[1][:, s], tr[2], te[1][:, s], te[2])["p_value"]
            per[cls] = {"p_value": p, "is_overfitted": p < 0.3}
        return {"model_idx": index, "is_overfitted": any(v["is_overfitted"] for v in per.values()), "threshold": 0.3,
                "per_class_results": per, "overall_min_p_value": min(v["p_value"] for v in per.values()),
                "failed_classes": [c for c, v in per.items() if v["is_overfitted"]]}  # fmt: skip
    out = {}
    for t, true in enumerate(classes):
        a, b = tr[0] == t, te[0] == t
        for s, score in enumerate(classes):
            p = weighted_ks(tr[1][a, s], tr[2][a], te[1][b, s], te[2][b])["p_value"]
            out[f"{true}_{score}_score"] = {"true_class": true, "score_type": f"{score}_score", "p_value": p,
                                            "is_overfitted": p < 0.05, "n_train": int(a.sum()), "n_test": int(b.sum())}  # fmt: skip
    return out


def run_directory(root: Path, channel: str, signal: str, prefix: str = DEFAULT_PREFIX) -> Path:
    return Path(root) / channel / "multiclass" / f"{prefix}{signal}"


def write_run(root: Path, run: ToyRun, prefix: str = DEFAULT_PREFIX) -> Path:
    """Write `run` under the GAOptim directory `root`; returns the run directory."""
    directory = run_directory(root, run.channel, run.signal, prefix)
    classes = ["signal", *run.groups]
    rng = np.random.default_rng(run.seed)
    for it, population in enumerate(run.populations):
        it_dir = directory / f"GA-iter{it}"
        (it_dir / "json").mkdir(parents=True, exist_ok=True)
        (it_dir / "models").mkdir(exist_ok=True)
        rows = ["model,chromosome,fitness"]
        schema = run.schemas[it] if it < len(run.schemas) else None
        summary = []
        for i, m in enumerate(population):
            (it_dir / "json" / f"model{i}.json").write_text(json.dumps(_history_json(m, it, i, run), indent=2))
            (it_dir / "models" / f"model{i}.pt").write_bytes(b"toy checkpoint: pnetviz never reads model weights\n")
            fitness = m.fitness(run.penalty) if m.trainer_fitness is None else m.trainer_fitness
            rows.append(f'model{i},"{tuple(m.chromosome)!r}",{fitness!r}')
            if schema and m.sharpness > 0:
                preds = toy_predictions(m, len(classes), run.events, rng)
                diag = it_dir / DIAGNOSTICS
                diag.mkdir(exist_ok=True)
                doc = _diagnostics(schema, i, classes, preds)
                (diag / f"model{i}_kolmogorov.json").write_text(json.dumps(doc, indent=1))
                if schema == "V":
                    np.savez(diag / f"model{i}_predictions.npz", **preds)
                pmin = doc["overall_min_p_value"] if schema == "E" else min(v["p_value"] for v in doc.values())
                summary.append({"model_idx": i, "fitness": fitness, "is_overfitted": pmin < (0.3 if schema == "E" else 0.05),
                                "min_p_value": pmin})  # fmt: skip
        (it_dir / "json" / POPULATION_FILE).write_text("\n".join(rows) + "\n")
        if summary:
            (it_dir / DIAGNOSTICS / "overfitting_summary.json").write_text(json.dumps(
                {"total_models": len(summary), "overfitted_count": sum(s["is_overfitted"] for s in summary),
                 "p_threshold": 0.05, "results": summary}, indent=1))  # fmt: skip
    if run.results_file:
        last = run.populations[-1]
        fits = [m.fitness(run.penalty) if m.trainer_fitness is None else m.trainer_fitness for m in last]
        k = int(np.argmin(fits))
        doc = {"signal": run.signal, "channel": run.channel,
               "best_chromosome": {"chromosome": list(last[k].chromosome), "fitness": fits[k], "model": f"model{k}"},
               "configuration": configuration(run, len(run.populations), len(last))}  # fmt: skip
        (directory / RESULTS_FILE).write_text(json.dumps(doc, indent=2))
    return directory


def configuration(run: ToyRun, iterations: int, population: int) -> dict:
    """The GAConfig snapshot (values of the committed runs, this run's sizes)."""
    return {
        "ga_parameters": {"population_size": population, "max_iterations": iterations, "evolution_ratio": 0.7,
                          "mutation_thresholds": [0.7] * 5, "fitness_metric": "loss/valid",
                          "overfitting_penalty_weight": run.penalty},
        "hyperparameter_search_space": SEARCH_SPACE,
        "training_parameters": {"max_epochs": 30, "batch_size": 1024, "dropout_p": 0.4, "early_stopping_patience": 7,
                                "loss_type": "weighted_ce", "train_folds": [0, 1, 2], "valid_folds": [3],
                                "balance_weights": True, "max_events_per_fold_per_class": 50000},
        "background_groups": run.groups,
        "dataset_config": {"use_bjets": True, "signal_prefix": DEFAULT_PREFIX, "background_prefix": "Skim_TriLep_"},
        "model_config": {"default_model": "ParticleNet"},
        "execution_config": {"process_delay_seconds": 0.5},
        "output_config": {"results_dir": ROOT_NAME, "json_subdir": "json", "models_subdir": "models",
                          "population_summary_name": POPULATION_FILE},
        "overfitting_detection": {"enabled": False, "p_value_threshold": 0.3, "test_folds": [4]},
    }  # fmt: skip


def curve(floor: float, gap: float, best: int, rng: np.random.Generator, patience: int = 7,
          max_epochs: int = 30) -> tuple[list[float], list[float]]:  # fmt: skip
    """(valid, train) losses falling to `floor` at epoch `best`, then rising (early stopping after
    `patience` epochs, or max_epochs); train below valid by up to `gap` at the best epoch."""
    n = min(best + patience + 1, max_epochs)
    e = np.arange(n, dtype=float)
    valid = floor + 0.35 * np.exp(-e / 2.5) - 0.35 * np.exp(-best / 2.5) + 0.004 * np.maximum(e - best, 0) ** 1.3
    valid += rng.normal(0.0, 0.001, n) * (e != best)
    valid[best] = floor
    valid = np.maximum(valid, floor + 1e-4 * (e != best))
    train = valid - gap * (e + 1) / (best + 1)
    return [round(float(v), 6) for v in valid], [round(float(t), 6) for t in train]


def demo_run(channel: str, signal: str, seed: int = 20251001) -> ToyRun:
    """The demo's run (see the module docstring)."""
    rng = np.random.default_rng(seed)
    genes = [(128, "Adam", 0.0009, 2e-05, "ReduceLROnPlateau"), (64, "RMSprop", 0.0043, 0.00031, "ExponentialLR"),
             (96, "Adadelta", 0.0002, 1e-05, "CyclicLR"), (128, "RMSprop", 0.0011, 0.00012, "ReduceLROnPlateau"),
             (64, "Adam", 0.0071, 0.00087, "CyclicLR")]  # fmt: skip
    floors0, gaps0, best0 = (0.962, 1.041, 0.998, 0.905, 1.087), (0.03, 0.05, 0.01, 0.02, 0.08), (14, 9, 21, 16, 6)
    it0 = []
    for k, (g, f, gap, b) in enumerate(zip(genes, floors0, gaps0, best0)):
        v, t = curve(f, gap, b, rng)
        it0.append(ToyModel(g, v, t, sharpness=1.6 + 0.25 * (k % 3), overtraining=0.04 + 0.1 * (k == 4)))
    # iteration 1: the 2 best survive (retrained: a little worse), 3 children, the last a duplicate of the first
    survivors = sorted(range(5), key=lambda k: it0[k].fitness(0.3))[:2]
    children = [(96, "Adam", 0.0009, 2e-05, "ReduceLROnPlateau"), (128, "Adam", 0.0021, 0.00012, "ExponentialLR")]
    chromosomes = [genes[k] for k in survivors] + children + [genes[survivors[0]]]
    floors1, gaps1, best1 = (0.918, 0.969, 0.931, 1.012, 0.924), (0.02, 0.03, 0.02, 0.04, 0.02), (15, 13, 18, 10, 17)
    it1 = []
    for g, f, gap, b in zip(chromosomes, floors1, gaps1, best1):
        v, t = curve(f, gap, b, rng)
        it1.append(ToyModel(g, v, t, sharpness=1.8, overtraining=0.05))
    return ToyRun(channel, signal, [it0, it1], seed=seed)


def write_demo_run(results: Path, channel: str, signal: str, seed: int = 20251001, events: int = 1500) -> Path:
    """The demo's GA run under `<results>/GAOptim_bjets/` (found by `pnetviz campaign`); returns its directory."""
    run = demo_run(channel, signal, seed)
    run.events = events
    return write_run(Path(results) / ROOT_NAME, run)
