"""The expected limits of a model with several folds (issue 52): per pair of its out-of-fold
evaluation (binary: its one pair; multi-class: every signal-vs-background LR pair and the
weighted-LR scores) the three strategies (limits.strategies) built from the pooled out-of-fold
events, each fitted (limits.model.expected) on the pooled test events (the headline) and on each
fold's test events alone (the per-fold numbers and their spread), written to the `folds/` set as
`limits.json` with the datacards, shapes and workspaces under `limits/` (docs/limits.md).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pnetviz.errors import PnetvizWarning
from pnetviz.limits import strategies as st
from pnetviz.metrics import outoffold as oof
from pnetviz.output.report import dumps, plain

FILE = "limits.json"
DIRECTORY = "limits"
SCHEMA = 1
FIT_ERRORS = (RuntimeError, ValueError, ArithmeticError, OSError)  # a fit or writer that fails: one line, null numbers


def columns(split: oof.Split, scale: tuple[float, float]) -> st.Columns:
    """A pooled split as strategy columns, its weights (and the systematics') times the yields' scale per class."""
    factor = np.where(np.asarray(split.is_signal, bool), scale[0], scale[1])
    systs = {n: (np.asarray(u) * factor, np.asarray(d) * factor) for n, (u, d) in split.systs.items()}
    return st.Columns(np.asarray(split.scores, float), np.asarray(split.is_signal, bool), np.asarray(split.weights) * factor,
                      None if split.mass is None else np.asarray(split.mass, float), systs)  # fmt: skip


def _sums(c: st.Columns) -> tuple[float, float]:
    return float(c.weights[c.is_signal].sum()), float(c.weights[~c.is_signal].sum())


def to_yields(c: st.Columns, target: tuple[float, float]) -> st.Columns:
    """`c` scaled per class so that its weights sum to `target` (signal, background)."""
    s, b = _sums(c)
    return columns(oof.Split(c.scores, c.is_signal, c.weights, c.mass, c.systs), (target[0] / s if s else 1.0, target[1] / b if b else 1.0))


def fold_parts(pooled: oof.Pooled, test: st.Columns) -> dict[int, st.Columns]:
    """Each fold's test events of the pooled test columns (in pooled.folds order), scaled to the
    pooled yields: the same expected yields with 1/k of the MC statistics."""
    out, start, target = {}, 0, _sums(test)
    for fold in pooled.folds:
        n = pooled.fold_events[fold]
        out[fold] = to_yields(test.select(np.arange(start, start + n)), target)
        start += n
    return out


def limit_doc(limit) -> dict | None:
    return None if limit is None else {k: getattr(limit, k) for k in ("median", "m2", "m1", "p1", "p2")}


def _std(values: list[float]) -> float | None:
    good = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.std(good, ddof=1)) if len(good) > 1 else None


def fitted(fit: Callable, model) -> tuple[object | None, str | None]:
    """fit(model), or the one line saying why it failed."""
    try:
        result = fit(model)
    except FIT_ERRORS as err:
        return None, f"fit failed: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}".rstrip(": ")
    return result, result.error


def strategy_doc(built: st.Built, per_fold: dict[int, st.Columns], names: tuple[str, str], directory: Path, stem: str,
                 fit: Callable, write: Callable, build: Callable | None = None) -> dict:  # fmt: skip
    """One strategy's entry of limits.json: pooled numbers, files, per-fold numbers, spread.
    `build` (limits.model.build): the pooled model prepared and its workspace built once for the
    writer (first: the HS3 JSON of the unfitted workspace) and the fit (`fit(m, built)`, `write(m, d, stem, built)`)."""
    doc = {"name": built.name, "expected_significance": None, "expected_limit": None, "chosen_on": built.chosen_on,
           "nuisances": [], "datacard": None, "shapes": None, "hs3": None, "pyhf": None, "per_fold": [],
           "fold_spread": {"expected_limit_median_std": None, "expected_significance_std": None},
           "error": built.error, "negative_bins": [], "choices": built.choices}  # fmt: skip
    if built.model is None:
        return doc
    shared = build(built.model) if build else None  # one prepared model and workspace: the files first, then the fits
    written = None
    try:
        files = write(built.model, directory, stem) if shared is None else write(built.model, directory, stem, shared)
        doc.update({k: f"{DIRECTORY}/{v}" for k, v in files.items() if k in ("datacard", "shapes", "hs3", "pyhf")})
    except FIT_ERRORS as err:
        written = f"writing the datacard and workspaces failed: {type(err).__name__}: {err}"
    result, error = fitted(fit, built.model) if shared is None else fitted(lambda m: fit(m, shared), built.model)
    if result is not None:
        doc.update(nuisances=list(result.nuisances), negative_bins=list(result.negative_bins))
    if error is None:
        doc.update(expected_significance=result.significance, expected_limit=limit_doc(result.limit))
    doc["error"] = error or written
    fold_fit = fit
    if shared is not None:  # the pooled workspace refitted in place for each fold of the same structure
        from pnetviz.limits.model import refit  # noqa: PLC0415 - ROOT only when limits are computed

        fold_fit = lambda m: refit(m, shared)  # noqa: E731
    for fold, test in per_fold.items():
        result, error = fitted(fold_fit, st.apply(built.name, built.choices, test, names))
        ok = error is None and result is not None
        doc["per_fold"].append({"fold": fold, "expected_significance": result.significance if ok else None,
                                "expected_limit": limit_doc(result.limit) if ok else None, "error": error})  # fmt: skip
    doc["fold_spread"] = {
        "expected_limit_median_std": _std([(f["expected_limit"] or {}).get("median") for f in doc["per_fold"]]),
        "expected_significance_std": _std([f["expected_significance"] for f in doc["per_fold"]])}  # fmt: skip
    return doc


def stem(pair: str, strategy: str) -> str:
    """The files' stem of a pair's strategy, a plain name for the datacard (letters, digits, _; any
    other character of a class name as _): signal_vs_ttZ_cut_and_mass."""
    return st.process_name(f"{pair}_{strategy}")


def kind_of(script: str, name: str) -> str:
    if script == "binary":
        return "binary"
    return "weighted-lr" if name.endswith("(weighted LR)") else "multiclass-pair"


def pair_id(entry: dict) -> str:
    """The pair's file stem: the fold sets' prefix without its '_' (binary: signal_vs_<background>)."""
    prefix = entry.get("prefix", "").rstrip("_")
    return prefix or f"signal_vs_{st.process_name(entry.get('background', 'background'))}"


def pair_doc(script: str, name: str, entry: dict, pooled: oof.Pooled, signal: str, spec, directory: Path,
             fit: Callable, write: Callable, build: Callable | None = None) -> dict:  # fmt: skip
    """One pair's entry: kind, pair, background and the three strategies."""
    test = columns(pooled.test, pooled.scale)
    choice = to_yields(columns(pooled.choice, (1.0, 1.0)), _sums(test))  # choice events scaled to the test yields
    names = ("signal", entry["background"])
    edges = (entry.get("binning") or {}).get("edges")
    ident = pair_id(entry)
    per_fold = fold_parts(pooled, test)
    strategies = [strategy_doc(b, per_fold, names, directory, stem(ident, b.name), fit, write, build)
                  for b in st.build_all(choice, test, pooled.choice_split, names, edges, signal, spec, len(pooled.folds))]  # fmt: skip
    return {"kind": kind_of(script, name), "pair": ident, "name": name, "background": entry["background"],
            "mass_column": None, "strategies": strategies}  # fmt: skip


def compute(script: str, out_of_fold, job, stage: Path, fit: Callable | None = None, write: Callable | None = None,
            quiet: bool = False) -> dict[str, str]:  # fmt: skip
    """limits.json (name -> text, for the set's extra files) of the `folds/` set staged at `stage`,
    whose datacards and workspaces are written into stage/limits/; {} without limits (--no-limits,
    no out-of-fold evaluation). `job`: the first fold job (model, channel, signal, mass options)."""
    if out_of_fold is None or not getattr(job, "limits", True):
        return {}
    build = None
    if fit is None or write is None:
        from pnetviz.limits import model  # noqa: PLC0415 - ROOT only when limits are computed

        build = model.build if fit is None and write is None else None  # both real: one workspace serves both
        fit, write = fit or model.expected, write or model.write_outputs
    spec = st.parse_window(job.mass_window) if job.mass_window else None
    directory = Path(stage) / DIRECTORY
    directory.mkdir(exist_ok=True)
    pairs = []
    for name, pooled in out_of_fold.pooled.items():
        entry = out_of_fold.doc["pairs"][name]
        doc = pair_doc(script, name, entry, pooled, job.signal, spec, directory, fit, write, build)
        doc["mass_column"] = job.mass_column
        pairs.append(doc)
        for s in doc["strategies"]:
            asked = job.mass_column if s["name"] != "score-fit" else getattr(job, "fit_binning", True)  # else the error is expected
            if s["error"] and asked and not quiet:
                warnings.warn(f"expected limit of {name}, {s['name']}: {s['error']}", PnetvizWarning, stacklevel=2)
    if not any(directory.iterdir()):
        directory.rmdir()
    top = {"schema": SCHEMA, "model": job.model or str(job.predictions), "channel": job.channel, "signal": job.signal,
           "kind": script if script == "binary" else "multiclass", "mass_column": job.mass_column,
           "mass_window": job.mass_window, "yields": pooled_yields(out_of_fold), "pairs": pairs}  # fmt: skip
    if script == "binary" and len(pairs) == 1:  # the contract's flat form of a binary model's one pair
        top.update({k: pairs[0][k] for k in ("pair", "background", "strategies")})
    return {FILE: dumps(plain(top)) + "\n"}


def pooled_yields(out_of_fold) -> str:
    kinds = {(p.get("yields") or {}).get("kind") for p in out_of_fold.doc["pairs"].values() if isinstance(p, dict)}
    return "expected" if kinds == {"expected"} else "relative"
