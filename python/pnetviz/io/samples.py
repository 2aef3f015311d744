"""Reading an analysis' preprocessed samples: the layout of `pnetviz datamc` (docs/datamc.md).

Layout (the charged-Higgs analysis' SignalRegionStudy, read as it is):
``<samples-dir>/<era>/<channel>/<masspoint>/<method>/`` holds one ``<process>.root`` per simulated
(or data-driven) process and the data as ``data.root`` or else ``<period>_data.root`` (the periods
added). Each file has a tree ``Central`` and one tree per systematic variation, named
``<syst>_Up`` / ``<syst>_Down`` (``Nonprompt_Up``/``Nonprompt_Down`` for the data-driven nonprompt).
Branches: ``mass`` (optional here), ``weight`` (physics weight; not read in data, whose events
count 1 each, as the analysis writes them) and
``score_<masspoint>_<node>`` for the deployed model's nodes (signal, nonprompt, diboson, ttZ).
The analysis' preprocessing (SignalRegionStudy/python/preprocess.py) writes ``<masspoint>.root``,
``nonprompt.root``, ``conversion.root`` (the group ``conv``), ``diboson.root``, ``ttX.root``,
``others.root`` and ``data.root`` (its periods' ``<period>_data.root`` added; when ``data.root`` is
there the period files are not read, so a leftover is never counted twice).

The process list: the analysis' ``configs/samplegroups.json`` (looked for in the samples directory
and its parent: ``<era>`` -> ``<channel>`` -> group names; ``data`` is the data, every other group a
process, the mass point is the signal) when it names the era and channel, else the caller's list
(`--processes`), else every ``<process>.root`` in the directory. Variation trees: those the files
hold (a `systematics` list restricts them; a named one no file holds is an InputError).

Columns are read by the compiled reader (`pnetviz.io.branches`, via `pnetviz.io.columns` so that
``--column NAME=EXPR`` maps another layout: NAME is ``mass``, ``weight`` or ``score_<node>``), never
by a Python loop. Every problem is one InputError naming the file and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import columns as mapped
from pnetviz.io.branches import FLOAT_TYPES
from pnetviz.io.rootnames import check_name
from pnetviz.io.treefile import branch_types, check_structure

NODES = ("signal", "nonprompt", "diboson", "ttZ")
CENTRAL = "Central"
SUFFIXES = ("_Up", "_Down")
CONFIG = Path("configs") / "samplegroups.json"
DATA_GROUP = "data"
GROUP_FILES = {"conv": "conversion"}  # a samplegroups.json group whose file the preprocessing names otherwise


@dataclass(frozen=True)
class SampleSpec:
    """Where the samples are and what to read (the options of `pnetviz datamc`)."""

    samples_dir: Path
    era: str
    channel: str
    masspoint: str
    method: str
    processes: tuple[str, ...] = ()  # () = from configs/samplegroups.json, else every <process>.root
    systematics: tuple[str, ...] | None = None  # None = every variation tree the files hold
    nodes: tuple[str, ...] = NODES
    columns: mapped.ColumnMap = ()  # --column NAME=EXPR (NAME: mass, weight, score_<node>)

    @property
    def directory(self) -> Path:
        return Path(self.samples_dir) / self.era / self.channel / self.masspoint / self.method


@dataclass
class TreeArrays:
    """One tree's events: weight (float64), mass (float64 or None when absent), node -> score."""

    weight: np.ndarray
    scores: dict[str, np.ndarray]
    mass: np.ndarray | None = None

    @property
    def n_events(self) -> int:
        return int(self.weight.size)


@dataclass
class Samples:
    """Per process per tree arrays (simulation), the data's Central tree and where they came from."""

    spec: SampleSpec
    processes: tuple[str, ...]  # in stacking order (config order; the signal point first if present)
    simulation: dict[str, dict[str, TreeArrays]]  # process -> tree name (Central, X_Up, X_Down) -> arrays
    data: TreeArrays  # all data files' Central trees concatenated
    files: dict[str, Path]  # process -> file; "data" -> the first data file
    data_files: tuple[Path, ...] = ()
    process_source: str = "files"  # "config <path>", "--processes" or "files"
    systematics: tuple[str, ...] = field(default=())  # variation names (without _Up/_Down), sorted

    def variation(self, process: str, syst: str, side: str) -> TreeArrays:
        """The process' tree `<syst>_<side>` (side Up or Down), or its Central tree when the
        process has no such variation (the systematic does not apply to it)."""
        trees = self.simulation[process]
        return trees.get(f"{syst}_{side}", trees[CENTRAL])


def config_processes(spec: SampleSpec) -> tuple[tuple[str, ...], Path] | None:
    """The processes the analysis' samplegroups.json gives for the spec's era and channel (the
    signal point first), with the file read; None when there is no such file or it does not name
    this era and channel."""
    from pnetviz.io.readers import read_json  # noqa: PLC0415

    for base in (Path(spec.samples_dir), Path(spec.samples_dir).parent):
        path = base / CONFIG
        if not path.is_file():
            continue
        doc = read_json(path, "sample groups", "write {\"<era>\": {\"<channel>\": {\"<group>\": [samples]}}}")
        groups = doc.get(spec.era, {}).get(spec.channel) if isinstance(doc.get(spec.era), dict) else None
        if not isinstance(groups, dict):
            return None
        names = [GROUP_FILES.get(g, g) for g in groups if g != DATA_GROUP]
        for name in names:  # file names and ROOT keys are built from them
            check_name(name, "sample group", f"{path} ({spec.era}/{spec.channel})", "name each group by a plain name.")
        return (spec.masspoint, *(g for g in names if g != spec.masspoint)), path
    return None


def discover(spec: SampleSpec) -> tuple[tuple[str, ...], str, dict[str, Path], tuple[Path, ...]]:
    """(processes, where the list came from, process -> file, data files) for the spec; InputError
    when the directory is missing, a listed process has no file or the directory has no process."""
    directory = spec.directory
    if not directory.is_dir():
        raise InputError(f"{directory}: no such samples directory. Fix: check --samples-dir, --era, --channel, "
                         "--masspoint and --method (the layout is <samples-dir>/<era>/<channel>/<masspoint>/<method>/).")
    merged = directory / "data.root"  # the analysis hadds its periods into it (and removes them)
    data_files = (merged,) if merged.is_file() else tuple(sorted(directory.glob("*_data.root")))
    from_config = config_processes(spec) if not spec.processes else None
    if spec.processes:
        processes, source = tuple(spec.processes), "--processes"
    elif from_config is not None:
        processes, source = from_config[0], f"config {from_config[1]}"
    else:
        found = sorted(p.stem for p in directory.glob("*.root") if p not in data_files and not p.name.endswith("_data.root"))
        signal = [p for p in found if p == spec.masspoint]
        processes, source = (*signal, *(p for p in found if p != spec.masspoint)), "files"
    if not processes:
        raise InputError(f"{directory}: no <process>.root file. Fix: point --samples-dir/--era/--channel/--masspoint/"
                         "--method at a directory of the analysis' preprocessed samples.")
    files = {}
    for process in processes:
        path = directory / f"{process}.root"
        if not path.is_file():
            if from_config is not None and source.startswith("config") and process == spec.masspoint:
                continue  # the signal point's file is optional (a control region may have none)
            where = source if source != "files" else "the directory"
            raise InputError(f"{path}: no such file, but process '{process}' is listed by {where}. Fix: write the "
                             "process' samples there or leave it out with --processes.")
        files[process] = path
    return tuple(files), source, files, data_files


def variation_trees(path: Path) -> tuple[str, ...]:
    """The variation trees (``*_Up`` / ``*_Down``) in the file, from its keys (no ROOT)."""
    keys = check_structure(path, CENTRAL).keys
    return tuple(sorted({name for name, cls in keys if cls.startswith("TTree") and name.endswith(SUFFIXES)}))


def check_columns(columns: mapped.ColumnMap, nodes: Sequence[str] = NODES) -> None:
    """--column names a samples column: weight, mass or score_<node>; InputError otherwise."""
    known = ("weight", "mass", *(f"score_{n}" for n in nodes))
    for name, _ in columns:
        if name not in known:
            raise InputError(f"--column {name}=...: '{name}' is not a samples column. Fix: map one of {', '.join(known)}.")


def read_tree(path: Path, tree: str, spec: SampleSpec, data: bool = False) -> TreeArrays:
    """The weight, mass and node scores of one tree (compiled reader); InputError naming the file,
    tree and branch when one is missing."""
    check = check_structure(path, tree)
    if check.tree is None:
        listed = ", ".join(sorted(name for name, _ in check.keys)) or "nothing"
        raise InputError(f"{path}: no tree '{tree}' (the file holds: {listed}). Fix: write the "
                         f"{'nominal events as tree' if tree == CENTRAL else 'variation as tree'} '{tree}' "
                         "(the analysis' preprocessing does), or leave the systematic out with --syst.")
    types = branch_types(path, tree)
    entries = int(types.pop(""))
    user = dict(spec.columns)
    default = {"weight": "weight", "mass": "mass", **{f"score_{n}": f"score_{spec.masspoint}_{n}" for n in spec.nodes}}
    mapping = {**default, **user}
    required = [f"score_{n}" for n in spec.nodes] + ([] if data else ["weight"])  # data are counted: weight 1
    for name in required:
        if name not in user and mapping[name] not in types:
            raise InputError(f"{path}: tree '{tree}' has no branch '{mapping[name]}'; branches found: "
                             f"{', '.join(sorted(types)) or 'none'}. Fix: write it, or map it with --column {name}=EXPR.")
    optional = ["mass"] if "mass" in user or mapping["mass"] in types else []
    wanted = [*required, *optional]
    colmap = tuple((n, e) for n, e in mapping.items() if n in wanted)
    view = mapped.view_types(path, tree, types, colmap, check.verified)
    for name in wanted:
        if view.get(name) not in FLOAT_TYPES and not (view.get(name) or "").startswith(("int", "Int", "bool", "Bool")):
            raise InputError(f"{path}: tree '{tree}' column '{name}' has type {view.get(name)}, expected a number. "
                             "Fix: write it as float or double.")
    arrays = mapped.read_view(path, tree, colmap, {n: view[n] for n in wanted}, types, entries, False, block=())
    out = {n: np.asarray(a, dtype=np.float64) for n, a in arrays.items()}
    for name, values in out.items():
        if values.size and not np.isfinite(values).all():
            bad = ~np.isfinite(values)
            raise InputError(f"{path}: tree '{tree}' column '{name}' has {int(bad.sum())} NaN/inf values (first at "
                             f"entry {int(np.argmax(bad))}). Fix: repair the preprocessing.")
    weight = out.get("weight", np.ones(entries))
    return TreeArrays(weight=weight, scores={n: out[f"score_{n}"] for n in spec.nodes}, mass=out.get("mass"))


def _concat(parts: Sequence[TreeArrays], nodes: Sequence[str]) -> TreeArrays:
    mass = None if any(p.mass is None for p in parts) else np.concatenate([p.mass for p in parts])
    return TreeArrays(weight=np.concatenate([p.weight for p in parts]),
                      scores={n: np.concatenate([p.scores[n] for p in parts]) for n in nodes}, mass=mass)


def read_samples(spec: SampleSpec) -> Samples:
    """Every process' Central and variation trees and the data's Central tree of one region.
    InputError (one line, the file and the fix) for a missing directory, file, tree or branch, a
    named systematic no file holds, a region without simulated events or without data."""
    processes, source, files, data_files = discover(spec)
    simulation: dict[str, dict[str, TreeArrays]] = {}
    held: set[str] = set()
    for process in processes:
        trees = {CENTRAL: read_tree(files[process], CENTRAL, spec)}
        for tree in variation_trees(files[process]):
            syst = tree.rsplit("_", 1)[0]
            held.add(syst)
            if spec.systematics is None or syst in spec.systematics:
                trees[tree] = read_tree(files[process], tree, spec)
        simulation[process] = trees
    if spec.systematics is not None:
        for syst in spec.systematics:
            if syst not in held:
                raise InputError(f"{spec.directory}: no file holds the trees '{syst}_Up'/'{syst}_Down' (--syst {syst}). "
                                 f"Fix: choose from {', '.join(sorted(held)) or 'none (no variation trees)'}.")
    systs = tuple(sorted(held if spec.systematics is None else set(spec.systematics)))
    if sum(t[CENTRAL].n_events for t in simulation.values()) == 0:
        raise InputError(f"{spec.directory}: the region is empty (no simulated event in any 'Central' tree). Fix: "
                         "check --channel and the preprocessing of this region.")
    if not data_files:
        raise InputError(f"{spec.directory}: no data file (data.root or <period>_data.root). Fix: write the region's "
                         "data there, as the analysis' preprocessing does.")
    data = _concat([read_tree(p, CENTRAL, spec, data=True) for p in data_files], spec.nodes)
    all_files = {**files, DATA_GROUP: data_files[0]}
    return Samples(spec=spec, processes=processes, simulation=simulation, data=data, files=all_files,
                   data_files=data_files, process_source=source, systematics=systs)
