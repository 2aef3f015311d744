"""The out-of-fold evaluation of a model with several folds (issue 51): every fold set stores its
pairs' test events (and the events its binning may be chosen on) in `out_of_fold_events.npz`;
the `folds/` set pools them (metrics.outoffold) into `out_of_fold.json` and the `out_of_fold/`
directory of its plots.root: the pooled ROC and rejection, the pooled score distributions with
the working points, and the one binning for the fit with its templates `fit_binning/<process>`.

Stored rather than re-read: a run of one fold updates the `folds/` set from the stored results of
the others (jobs.foldsummary), without their ntuples, column mappings or options; the events'
scores, weights and labels are a few numbers per event (9-13 bytes: float32 where that is exact).
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from pnetviz.errors import PnetvizWarning
from pnetviz.io.readers import BadFile, parse_json
from pnetviz.io.trainer import display_label
from pnetviz.jobs import fitbins
from pnetviz.metrics import outoffold as oof
from pnetviz.metrics.evaluate import SplitResult, gather, lr_score
from pnetviz.metrics.hep import REJECTION_EFFICIENCIES
from pnetviz.metrics.pairmetrics import HepOptions
from pnetviz.metrics.hep import mode_weights
from pnetviz.output.report import dumps, plain

EVENTS_FILE = "out_of_fold_events.npz"
ZIP_LEVEL = 1  # deflate level of the 1-byte arrays of EVENTS_FILE (the floats are stored)
FILE = "out_of_fold.json"
FORMAT = 1
KINDS = ("binary", "multiclass")
FIELDS = ("scores", "signal", "weights")
MAX_EVENT_BYTES = 4 << 30  # the arrays of one fold set, uncompressed (1e7 test events need ~0.3 GiB)


def split_of(result: SplitResult) -> oof.Split:
    s = result.sample
    return oof.Split(np.asarray(s.scores), np.asarray(s.is_signal, bool), np.asarray(s.used, float))


def valid_split(preds, mask: np.ndarray | None, scores: np.ndarray | Callable[[np.ndarray], np.ndarray], mode: str,
                factor: np.ndarray | None = None) -> oof.Split | None:  # fmt: skip
    """The validation events of `mask` (None without a validation split or without both classes);
    `scores`: every event's, or the function giving those of the events a mask selects;
    `factor`: a per-event factor on their weights (the weighted LR's background shares)."""
    if "valid" not in preds.masks:
        return None
    sel = preds.masks["valid"] if mask is None else preds.masks["valid"] & mask
    label, weight = gather(sel, preds.label, preds.weight)  # arrays[sel], by the C++ compress (numpy's index: ~3x)
    is_signal = label == 0
    del label
    if not is_signal.any() or is_signal.all():
        return None
    weights = np.asarray(mode_weights(weight, mode), float)  # float64 (a float32 weight widened)
    del weight
    if factor is not None:
        weights = weights * gather(sel, factor)[0]
    selected = scores(sel) if callable(scores) else gather(sel, scores)[0]
    return oof.Split(np.asarray(selected), is_signal, weights)


def fold_pair(results: dict[str, SplitResult], metrics: dict, valid: oof.Split | None) -> oof.FoldPair:
    """What the fold contributes to the pair's pooling: test events, valid (else train) events, expected yields."""
    yields = metrics.get("yields", {})
    expected = (float(yields["signal"]), float(yields["background"])) if yields.get("kind") == "expected" else None
    choice, name = (valid, "valid") if valid is not None else (split_of(results["train"]), "train")
    return oof.FoldPair(split_of(results["test"]), choice, name, expected)


def binary_pairs(job, preds, results: dict, metrics: dict, keep: np.ndarray | None) -> dict[str, dict]:
    """The binary fold's one pair, as stored (`store`)."""
    valid = valid_split(preds, keep, preds.scores["signal"], job.hep.weight_mode)
    pair = with_limit_columns(fold_pair(results, metrics, valid), preds, keep, job.mass_column)
    return {f"{job.signal} vs {job.background}": {"prefix": "", "background": job.background, "pair": pair}}


def multiclass_pairs(job, preds, ev, prefix) -> dict[str, dict]:
    """Each background pair of a multi-class fold on its likelihood-ratio score, as stored
    (`prefix(background)`: the pair's file prefix, as the fold's curves have it)."""
    out = {}
    keep = preds.subsets[job.subset] if job.subset else None
    signal = preds.scores[job.classes[0]]
    for i, bkg in enumerate(job.classes[1:], start=1):
        if bkg not in ev.pairs or not all(s in ev.pairs[bkg] for s in ("train", "test")):
            continue
        classes = ev.class_masks[0] | ev.class_masks[i]
        mask = classes if keep is None else classes & keep
        def scores(sel: np.ndarray, bkg: str = bkg) -> np.ndarray:  # the LR of the valid events only, the same values
            return lr_score(signal[sel], preds.scores[bkg][sel])

        valid = valid_split(preds, mask, scores, job.hep.weight_mode)
        out[f"{job.signal} vs {bkg} (LR)"] = {"prefix": prefix(bkg), "background": bkg,
                                              "pair": with_limit_columns(fold_pair(ev.pairs[bkg], ev.hep[bkg], valid), preds,
                                                                         mask, job.mass_column)}  # fmt: skip
    return out


def store(directory: Path, pairs: dict[str, dict]) -> None:
    """`out_of_fold_events.npz` of one fold set: per pair (index j) its test and choice arrays, the
    choice split's name and the expected yields; the pair names, prefixes and backgrounds as JSON."""
    arrays, meta = {}, []
    for j, (name, entry) in enumerate(pairs.items()):
        pair: oof.FoldPair = entry["pair"]
        has_mass = pair.test.mass is not None and pair.choice.mass is not None
        systs = [n for n in pair.test.systs if n in pair.choice.systs]
        for part in ("test", "choice"):
            split = getattr(pair, part)
            arrays[f"p{j}_{part}_scores"] = np.asarray(split.scores)
            arrays[f"p{j}_{part}_signal"] = np.asarray(split.is_signal, bool)
            arrays[f"p{j}_{part}_weights"] = narrowed(split.weights)
            if has_mass:
                arrays[f"p{j}_{part}_mass"] = narrowed(split.mass)
            for k, syst in enumerate(systs):
                arrays[f"p{j}_{part}_syst{k}_up"], arrays[f"p{j}_{part}_syst{k}_down"] = (narrowed(v) for v in split.systs[syst])
        meta.append({"name": name, "prefix": entry["prefix"], "background": entry["background"],
                     "choice_split": pair.choice_split, "expected": list(pair.expected) if pair.expected else None,
                     "mass": has_mass, "systs": systs})  # fmt: skip
    arrays["meta"] = np.array(json.dumps({"format": FORMAT, "pairs": meta}))
    # np.savez's layout (one .npy per array in a zip) with a fixed time stamp: two runs of the same
    # code write the same bytes (benchmarks/compare_trees.py compares them). Only the 1-byte
    # arrays (signal flags) are deflated (level 1, to ~0.2 of their size); the floats are stored:
    # their mantissas do not compress (scores to 0.9 at level 1) and deflating them was nearly all
    # of the CPU (1e7-event ntuple, 4.3e6 stored events: 0.96 s -> 0.04 s; 34.8 MB -> 35.4 MB
    # with the weights as float32, benchmarks/README.md). np.load reads either.
    with zipfile.ZipFile(Path(directory) / EVENTS_FILE, "w") as out:
        for key, value in arrays.items():
            value = np.asanyarray(value)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if value.dtype.itemsize == 1 else zipfile.ZIP_STORED
            member = io.BytesIO()
            np.lib.format.write_array(member, value, allow_pickle=False)
            out.writestr(info, member.getbuffer(), compresslevel=ZIP_LEVEL)


def narrowed(values) -> np.ndarray:
    """Float values as float32 where that holds every one of them exactly (weights read from a
    float branch, |w| of them), else as float64: half the bytes, the same numbers (`load` widens)."""
    values = np.asarray(values, float)
    narrow = values.astype(np.float32)
    return narrow if np.array_equal(narrow, values) else values


def load(directory: Path) -> dict[str, dict] | None:
    """A fold set's stored pairs (name -> {prefix, background, pair}), None where the file is
    missing, damaged or of another format (a fold of an older pnetviz)."""
    path = Path(directory) / EVENTS_FILE
    if not path.is_file():
        return None
    try:
        with zipfile.ZipFile(path) as archive:  # a file others can write: no deflate bomb (zipfile stops at the sizes)
            if sum(info.file_size for info in archive.infolist()) > MAX_EVENT_BYTES:
                return None
        with np.load(path, allow_pickle=False) as data:
            meta = parse_json(str(data["meta"]).encode(), str(path))
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                return None
            out = {}
            for j, m in enumerate(meta["pairs"]):
                parts = {part: _split(data, j, part, m) for part in ("test", "choice")}
                expected = tuple(float(v) for v in m["expected"]) if m.get("expected") else None
                out[m["name"]] = {"prefix": m["prefix"], "background": m["background"],
                                  "pair": oof.FoldPair(parts["test"], parts["choice"], m["choice_split"], expected)}  # fmt: skip
            return out
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile, BadFile):
        return None


def _split(data, j: int, part: str, meta: dict) -> oof.Split:
    """One stored split: its scores, signal flags and weights, and the mass and systematics' weights when stored."""
    scores, signal, weights = (data[f"p{j}_{part}_{f}"] for f in FIELDS)
    split = oof.Split(np.asarray(scores), np.asarray(signal), np.asarray(weights, float))  # weights stored as float32 widened
    mass = np.asarray(data[f"p{j}_{part}_mass"], float) if meta.get("mass") is True else None
    names = meta.get("systs") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("systs is not a list of names")
    systs = {n: (np.asarray(data[f"p{j}_{part}_syst{k}_up"], float), np.asarray(data[f"p{j}_{part}_syst{k}_down"], float))
             for k, n in enumerate(names)}  # fmt: skip
    if any(a.shape != split.scores.shape for a in [*([mass] if mass is not None else []), *(x for v in systs.values() for x in v)]):
        raise ValueError("mass or systematic arrays of another length")
    return replace(split, mass=mass, systs=systs)


SYST_WEIGHT = re.compile(r"^weight__(.+)Up$")


def limit_columns(preds, selection: np.ndarray, weights: np.ndarray, mass_column: str | None) -> dict:
    """The mass (--mass-column) and each read weight variation's Up/Down weights of the events
    `selection` (a boolean mask of the ntuple, in the split's order): `weights` (the split's)
    times `weight__<syst>Up/Down` over `weight` (1 where the nominal weight is 0)."""
    nominal = None  # the selected nominal weights, taken once a variation needs them (2 x 0.04 s at 1e7 events)
    out = {"mass": preds.extra[mass_column][selection] if mass_column and mass_column in preds.extra else None, "systs": {}}
    for branch in preds.extra:
        m = SYST_WEIGHT.match(branch)
        down = f"weight__{m.group(1)}Down" if m else None
        if m and down in preds.extra:
            nominal = preds.weight[selection] if nominal is None else nominal
            ratio = [np.divide(preds.extra[b][selection], nominal, out=np.ones_like(nominal), where=nominal != 0) for b in (branch, down)]
            out["systs"][m.group(1)] = (weights * ratio[0], weights * ratio[1])
    return out


def with_limit_columns(pair: oof.FoldPair, preds, mask: np.ndarray | None, mass_column: str | None) -> oof.FoldPair:
    """`pair` with the limits' columns on its test and choice splits (`mask`: the pair's events,
    None for all); unchanged where a split's events cannot be matched to the ntuple's."""
    parts = {}
    for part, split_name in (("test", "test"), ("choice", pair.choice_split)):
        split = getattr(pair, part)
        sel = preds.masks[split_name] if mask is None else preds.masks[split_name] & mask
        if int(sel.sum()) != split.size:
            return pair
        parts[part] = replace(split, **limit_columns(preds, sel, split.weights, mass_column))
    return replace(pair, **parts)


@dataclass
class OutOfFold:
    """The pooled evaluation handed to the fold summary: its report entry, files and figures."""

    doc: dict
    curves: dict = field(default_factory=dict)  # pair name -> pooled ROC curve
    pooled: dict = field(default_factory=dict)  # pair name -> metrics.outoffold.Pooled

    @property
    def files(self) -> dict[str, str]:
        """out_of_fold.json, and each pair's pooled binning as the fold sets' binning files are
        named and laid out (`binning.json`, `signal_vs_<class>_binning.json`): the same jq reads both."""
        out = {FILE: dumps(plain(self.doc)) + "\n"}
        for name, pair in self.doc["pairs"].items():
            if pair.get("binning"):
                identity = {"folds": pair["folds"], "not_pooled": self.doc["not_pooled"], "events": pair["events"]}
                out[f"{pair['prefix']}binning.json"] = fitbins.document(f"{self.doc['kind']} out of fold", identity,
                                                                        {name: pair["binning"]})  # fmt: skip
        return out

    @property
    def report(self) -> dict:
        """The summary report's short entry: per pair events, AUC +- error, chosen K."""
        return {"file": FILE, "folds": self.doc["folds"], "not_pooled": self.doc["not_pooled"],
                "pairs": {n: {"events": p["events"], "auc": p["auc"], "auc_error": p["auc_error"],
                              "chosen_k": (p.get("binning") or {}).get("chosen_k")} if "auc" in p else p
                          for n, p in self.doc["pairs"].items()}}  # fmt: skip

    def figures(self, context_of, bins: int | str = "auto") -> list:
        """Every pooled pair's figures (`context_of(pair name)`: its plot context; `bins`: --score-bins)."""
        from pnetviz.jobs import outoffoldfigures  # noqa: PLC0415 - drawing modules only when the set is drawn

        figs = []
        for name, curve in self.curves.items():
            doc = self.doc["pairs"][name]
            labels = ("Signal", display_label(doc["background"], {}))
            figs += outoffoldfigures.pair_figures(doc, curve, self.pooled[name], ("signal", doc["background"]), labels,
                                                  context_of(name), bins)  # fmt: skip
        return figs


def pooled(script: str, fold_dirs: dict[int, Path], missing, opts: HepOptions = HepOptions(), binning: bool = True,
           quiet: bool = False) -> OutOfFold | None:  # fmt: skip
    """The out-of-fold evaluation of the folds `fold_dirs` (fold -> its set, staged or published);
    `missing`: folds without a predictions file. A fold whose events cannot be read is named (one
    line, and in the JSON's `not_pooled`), never silently left out; None for other kinds of runs
    or with fewer than two folds to pool. `opts`: the run's bootstrap replicas and seed, and its
    --working-points (with the report's rejection efficiencies)."""
    if script not in KINDS:
        return None
    stored, not_pooled = {}, {str(f): "no predictions file" for f in missing}
    for fold, directory in sorted(fold_dirs.items()):
        pairs = load(directory)
        if pairs is None:
            not_pooled[str(fold)] = f"no readable {EVENTS_FILE} in {Path(directory).name} (written by an older pnetviz, or damaged)"
        else:
            stored[fold] = pairs
    if len(stored) < 2:
        if len(fold_dirs) > 1 and not quiet:
            warnings.warn(f"no out-of-fold evaluation: fewer than two folds with stored events "
                          f"({'; '.join(f'fold {f}: {why}' for f, why in not_pooled.items())})", PnetvizWarning, stacklevel=2)  # fmt: skip
        return None
    for fold, why in not_pooled.items():
        if not quiet:
            warnings.warn(f"out-of-fold evaluation without fold {fold}: {why}", PnetvizWarning, stacklevel=2)
    names = [n for n in next(iter(stored.values())) if all(n in p for p in stored.values())]
    result = OutOfFold({"format": FORMAT, "kind": script, "folds": sorted(stored), "not_pooled": not_pooled,
                        "rule": RULE, "pairs": {}})  # fmt: skip
    for name in names:
        per_fold = {f: p[name]["pair"] for f, p in stored.items()}
        first = stored[min(stored)][name]
        try:
            pooled_pair = oof.pool(per_fold)
        except ValueError as err:
            result.doc["pairs"][name] = {"error": str(err)}
            continue
        targets = sorted({*REJECTION_EFFICIENCIES, *opts.working_points})
        doc, curve = oof.evaluate(pooled_pair, targets, opts.bootstrap, opts.seed, binning=binning)
        result.doc["pairs"][name] = {"prefix": first["prefix"], "background": first["background"], **doc}
        result.curves[name], result.pooled[name] = curve, pooled_pair
    return result


RULE = ("out of fold: the test splits of every fold pooled, each event scored by the fold model that did not train "
        "on it; AUC and rejections on the pooled events with Poisson-bootstrap errors over them; one binning per pair "
        "chosen on the pooled validation splits (else training splits: `chosen_on`) and judged on the pooled test events; "
        "yields relative (the pooled weights) or expected (each fold's test split scaled by its share: pooled weights "
        "times expected / pooled weight per class)")  # fmt: skip

