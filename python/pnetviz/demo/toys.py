"""Deterministic toy prediction ntuples in the contract layout (see docs/inputs.md).

Per fold one pool of events is drawn (signal + three backgrounds); the multi-class model
sees all of them, the binary model for background i sees the signal and background i events of
the same pool (same `event_id`, weights and masks), so binary and multi-class results are
directly comparable. Train events are separated slightly better than test events
(overtraining), diboson (NLO) has ~10% negative weights, scores are float32 as in real output.

The files follow the results-directory layout of `paths.py`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pnetviz.io.ntuple import DEFAULT_CLASSES
from pnetviz.io.layout import PREDICTIONS_FILE, binary_dir, multiclass_dir
from pnetviz.rootenv import root

HISTORY_FILE = "ParticleNet_performance.json"
CLASS_FRACTIONS = (0.3, 0.3, 0.2, 0.2)
OBSERVERS = ("m_mumu", "pt_lead")  # observer branches of every demo ntuple (docs/observers.md)
TRAIN_BOOST = 1.12  # train events sit 12% further from the other classes: a little overtraining


@dataclass(frozen=True)
class DemoConfig:
    signal: str = "MHc160_MA85"
    channel: str = "Run1E2Mu"
    classes: tuple[str, ...] = DEFAULT_CLASSES
    folds: int = 5
    events: int = 20000  # events per fold in the multi-class ntuple
    seed: int = 20251001
    separation: float = 1.6  # distance of each class from the others in the latent space


def _weights(rng: np.random.Generator, label: np.ndarray, classes: tuple[str, ...]) -> np.ndarray:
    """Log-uniform physics-like weights: signal 1e-3..1e-1, backgrounds 1e-2..1; NLO diboson signs."""
    lo = np.where(label == 0, -3.0, -2.0)
    w = 10.0 ** (lo + 2.0 * rng.random(label.size) * np.where(label == 0, 1.0, 0.5))
    if "diboson" in classes:
        nlo = label == classes.index("diboson")
        w[nlo & (rng.random(label.size) < 0.10)] *= -1.0
    return w


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def make_pool(cfg: DemoConfig, fold: int) -> dict[str, np.ndarray]:
    """One fold's events: labels, latent features, weights, masks, subset flag, model logits."""
    rng = np.random.default_rng([cfg.seed, fold])
    n_classes = len(cfg.classes)
    fractions = np.resize(np.asarray(CLASS_FRACTIONS), n_classes)
    label = rng.choice(n_classes, size=cfg.events, p=fractions / fractions.sum())
    split = rng.random(cfg.events)
    train, valid = split < 0.6, (split >= 0.6) & (split < 0.8)
    test = split >= 0.8
    latent = rng.normal(size=(cfg.events, n_classes))
    latent[np.arange(cfg.events), label] += cfg.separation * np.where(train, TRAIN_BOOST, 1.0)
    bjet_prob = np.where(np.isin(label, [0, n_classes - 1]), 0.7, 0.35)
    observed = observers(cfg, fold, label, latent[:, 0])
    return {
        "event_id": np.arange(fold * cfg.events, (fold + 1) * cfg.events, dtype=np.uint64),
        "true_label": label.astype(np.int32),
        "weight": _weights(rng, label, cfg.classes),
        "train_mask": train,
        "valid_mask": valid,
        "test_mask": test,
        "has_bjet": rng.random(cfg.events) < bjet_prob,
        "logits": 1.7 * latent,
        **observed,
    }


def observers(cfg: DemoConfig, fold: int, label: np.ndarray, signal_latent: np.ndarray) -> dict[str, np.ndarray]:
    """Observer branches (float32, from a generator of their own: the other columns do not change):
    `m_mumu`, a mass peaking at the signal point's m(A) (90 GeV without one) for the signal and
    falling for the backgrounds, and `pt_lead`, a transverse momentum harder for the signal. For the
    backgrounds both grow with how signal-like the model sees the event (its signal latent), so a
    cut on the score sculpts them (docs/observers.md)."""
    import re  # noqa: PLC0415

    rng = np.random.default_rng([cfg.seed, fold, 2])
    found = re.search(r"MA(\d+)", cfg.signal)
    peak = float(found.group(1)) if found else 90.0
    n, signal = label.size, label == 0
    likeness = 1.0 / (1.0 + np.exp(-2.0 * (signal_latent - 0.5)))  # 0 .. 1: how signal-like the event looks
    background_mass = 12.0 + rng.exponential(45.0, n)
    background_mass += 0.6 * likeness * (peak - background_mass)
    mass = np.where(signal, rng.normal(peak, 0.08 * peak, n), background_mass + rng.normal(0.0, 2.0, n))
    pt = np.where(signal, 20.0 + rng.gamma(3.0, 15.0, n), 20.0 + rng.exponential(25.0, n) * (1.0 + 0.8 * likeness))
    return {"m_mumu": mass.astype(np.float32), "pt_lead": pt.astype(np.float32)}


def _write(columns: dict[str, np.ndarray], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {k: np.ascontiguousarray(v) for k, v in columns.items()}
    snapshot(data, path)


def snapshot(data: dict[str, np.ndarray], path: Path) -> None:
    """Write `data` as the TTree Events at `path`, literally whatever the path holds ('#', '$', '?':
    written under a plain name in its directory, reached as ROOT takes it literally, then renamed)."""
    from pnetviz.io.layout import root_path  # noqa: PLC0415

    plain = path.parent / f".pnetviz-demo-{os.getpid()}.root"
    with root_path(path.parent, directory=True) as parent:
        root().RDF.FromNumpy(data).Snapshot("Events", f"{parent}/{plain.name}")
    os.replace(plain, path)


def _history(rng: np.random.Generator, epochs: int, quality: float) -> dict:
    """A training log shaped like the ParticleNet trainer's `<model>_performance.json`."""
    e = np.arange(epochs)
    train_loss = 0.45 * quality + 0.6 * np.exp(-e / 6.0) + rng.normal(0, 0.005, epochs)
    valid_loss = 0.47 * quality + 0.58 * np.exp(-e / 6.0) + 0.0006 * e**1.5 + rng.normal(0, 0.008, epochs)
    history = [
        {
            "epoch": int(k),
            "train_loss": float(train_loss[k]),
            "train_acc": float(0.93 - 0.35 * np.exp(-k / 5.0)),
            "valid_loss": float(valid_loss[k]),
            "valid_acc": float(0.91 - 0.33 * np.exp(-k / 5.0) + rng.normal(0, 0.004)),
            "epoch_time": float(41.0 + rng.normal(0, 1.5)),
            "memory_mb": float(2100 + 12 * k + rng.normal(0, 8)),
            "cpu_percent": float(180 + rng.normal(0, 6)),
        }
        for k in e
    ]
    best = int(np.argmin(valid_loss))
    return {
        "model": "ParticleNet",
        "training_results": {
            "epochs_completed": epochs,
            "early_stopped": bool(epochs < 40),
            "best_epoch": best,
            "best_valid_loss": float(valid_loss[best]),
            "total_training_time": float(sum(h["epoch_time"] for h in history)),
            "training_history": history,
        },
    }


def write_fold(cfg: DemoConfig, results: Path, fold: int) -> list[Path]:
    """Write the multi-class and every binary ntuple (+ history) of one fold; return the files."""
    pool = make_pool(cfg, fold)
    rng = np.random.default_rng([cfg.seed, fold, 1])
    logits = pool.pop("logits")
    common = {k: v for k, v in pool.items()}
    probs = _softmax(logits).astype(np.float32)
    written = []
    mc_dir = multiclass_dir(results, cfg.channel, cfg.signal) / f"fold-{fold}"
    scores = {f"score_{c}": probs[:, i] for i, c in enumerate(cfg.classes)}
    _write(common | scores, mc_dir / PREDICTIONS_FILE)
    (mc_dir / HISTORY_FILE).write_text(json.dumps(_history(rng, 34 + fold, 1.0), indent=1))
    written.append(mc_dir / PREDICTIONS_FILE)
    for i, background in enumerate(cfg.classes[1:], start=1):
        keep = np.isin(common["true_label"], [0, i])
        columns = {k: v[keep] for k, v in common.items()}
        columns["true_label"] = (columns["true_label"] == i).astype(np.int32)
        # A dedicated binary model: slightly sharper than the multi-class LR on its own pair.
        z = 1.1 * (logits[keep, 0] - logits[keep, i]) + rng.normal(0, 0.3, keep.sum())
        columns["score_signal"] = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        b_dir = binary_dir(results, cfg.channel, cfg.signal, background) / f"fold-{fold}"
        _write(columns, b_dir / PREDICTIONS_FILE)
        (b_dir / HISTORY_FILE).write_text(json.dumps(_history(rng, 30 + fold, 0.8), indent=1))
        written.append(b_dir / PREDICTIONS_FILE)
    return written
