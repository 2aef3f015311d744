"""A toy samples tree in the analysis' preprocessed layout, for `pnetviz datamc` (docs/datamc.md).

``<output>/<era>/<channel>/<masspoint>/<method>/<process>.root`` for the signal point and the
backgrounds (nonprompt, conversion, diboson, ttX, others) and ``data.root``; every file has the
tree ``Central`` (branches ``mass``, ``weight``, ``score_<masspoint>_{signal,nonprompt,diboson,ttZ}``)
and, for simulation, the variation trees ``JetEn_Up/Down`` (a score-dependent weight shift) and
``MuonIDSF_Up/Down`` (a flat 3 %); the data-driven nonprompt has ``Nonprompt_Up/Down`` (30 %).
A ``configs/samplegroups.json`` beside the samples lists the groups as the analysis' does.

The data are Poisson draws of the simulation itself (a second, unweighted generation of each
process with a Poisson number of events around its expected yield), except in the region named
MISMODELLED, where the diboson events' signal score is drawn too high (DATA_SHIFT on the latent):
there `pnetviz datamc` must disagree, elsewhere agree. The signal-region channels (SR*) hold data
too, as the analysis' do: the blinding of `pnetviz datamc` is what hides them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from pnetviz.rootenv import root

ERA, MASSPOINT, METHOD = "2018", "MHc130_MA90", "ParticleNet"
CHANNELS = ("SR3Mu", "WZ3Mu", "ZG3Mu")  # SR3Mu blind; WZ3Mu well modelled; ZG3Mu mismodelled
MISMODELLED = "ZG3Mu"
DATA_SHIFT = 0.8
NODES = ("signal", "nonprompt", "diboson", "ttZ")
# process -> (node its events look like, expected yield per channel)
PROCESSES = {
    MASSPOINT: (0, {"SR3Mu": 40.0, "WZ3Mu": 5.0, "ZG3Mu": 2.0}),
    "nonprompt": (1, {"SR3Mu": 300.0, "WZ3Mu": 250.0, "ZG3Mu": 400.0}),
    "conversion": (1, {"SR3Mu": 60.0, "WZ3Mu": 40.0, "ZG3Mu": 600.0}),
    "diboson": (2, {"SR3Mu": 250.0, "WZ3Mu": 1500.0, "ZG3Mu": 500.0}),
    "ttX": (3, {"SR3Mu": 120.0, "WZ3Mu": 80.0, "ZG3Mu": 30.0}),
    "others": (3, {"SR3Mu": 30.0, "WZ3Mu": 60.0, "ZG3Mu": 40.0}),
}
PERIODS = ("DoubleMuon_A", "DoubleMuon_B")  # the config's data group (their events are in data.root)
GROUPS = {"conversion": "conv"}  # process -> its samplegroups.json group, as the analysis names them


def _events(rng: np.random.Generator, node: int, n: int, shift: float = 0.0) -> dict[str, np.ndarray]:
    """n events of a process whose events look like output `node`: softmax scores, a mass."""
    logits = rng.normal(0.0, 1.0, (n, len(NODES)))
    logits[:, node] += 1.6
    logits[:, 0] += shift
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    out = {f"score_{MASSPOINT}_{name}": p[:, i].astype(np.float32) for i, name in enumerate(NODES)}
    out["mass"] = rng.normal(90.0 if node == 0 else 70.0 + 15.0 * node, 12.0, n).astype(np.float32)
    return out


def write_trees(path: Path, trees: dict[str, dict[str, np.ndarray]]) -> None:
    """The trees (name -> columns) into one file, written under a temporary name then renamed."""
    from pnetviz.io.layout import root_path  # noqa: PLC0415

    ROOT = root()
    plain = path.parent / f".pnetviz-demo-{os.getpid()}.root"
    options = ROOT.RDF.RSnapshotOptions()
    with root_path(path.parent, directory=True) as parent:
        for i, (name, columns) in enumerate(trees.items()):
            options.fMode = "RECREATE" if i == 0 else "UPDATE"
            data = {k: np.ascontiguousarray(v) for k, v in columns.items()}
            ROOT.RDF.FromNumpy(data).Snapshot(name, f"{parent}/{plain.name}", "", options)
    os.replace(plain, path)


def _simulation(rng: np.random.Generator, process: str, channel: str, mc_events: int) -> dict[str, dict]:
    node, yields = PROCESSES[process]
    central = _events(rng, node, mc_events)
    weight = np.full(mc_events, yields[channel] / mc_events)
    central["weight"] = weight
    trees = {"Central": central}
    score = central[f"score_{MASSPOINT}_signal"].astype(np.float64)
    variations = {"Nonprompt": (1.3, 0.7)} if process == "nonprompt" else {}
    if process != "nonprompt":
        variations = {"JetEn": (1.0 + 0.08 * score, 1.0 - 0.08 * score), "MuonIDSF": (1.03, 0.97)}
    for syst, (up, down) in variations.items():
        for side, factor in (("Up", up), ("Down", down)):
            trees[f"{syst}_{side}"] = {**central, "weight": weight * factor}
    return trees


def _data(rng: np.random.Generator, channel: str) -> dict[str, np.ndarray]:
    parts = []
    for process, (node, yields) in PROCESSES.items():
        if not channel.startswith("SR") and process == MASSPOINT:
            continue  # no signal in the control regions' data
        shift = DATA_SHIFT if channel == MISMODELLED and process == "diboson" else 0.0
        parts.append(_events(rng, node, int(rng.poisson(yields[channel])), shift))
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    data["weight"] = np.ones(data["mass"].size, dtype=np.float32)
    return data


def write_samples(output: Path, mc_events: int = 4000, seed: int = 20251001) -> Path:
    """The toy samples tree under `output` (returned); `mc_events` simulated events per process and
    channel. The directory `output` is the `--samples-dir` of `pnetviz datamc`."""
    output = Path(output)
    rng = np.random.default_rng(seed)
    for channel in CHANNELS:
        directory = output / ERA / channel / MASSPOINT / METHOD
        directory.mkdir(parents=True, exist_ok=True)
        for process in PROCESSES:
            write_trees(directory / f"{process}.root", _simulation(rng, process, channel, mc_events))
        write_trees(directory / "data.root", {"Central": _data(rng, channel)})  # the periods hadded, as the analysis'
    groups = {"data": list(PERIODS), **{GROUPS.get(p, p): [p] for p in PROCESSES if p != MASSPOINT}}
    config = output / "configs" / "samplegroups.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({ERA: {channel: groups for channel in CHANNELS}}, indent=2) + "\n")
    return output
