"""The trainer's genetic-algorithm (GA) hyperparameter search, as it is on disk (../shared/GA-FORMAT.md).

One run = one channel x signal point: `GAOptim*/<channel>/multiclass/<prefix><signal>/` holding
`GA-iter<N>/` (json/model<i>.json, json/model_info.csv, overfitting_diagnostics/ in either of
the trainer's two schemas, optional model<i>_predictions.npz) and, at the end of a run,
`ga_optimization_results.json` (the configuration snapshot: classes, fitness rule, the trainer's
`best_chromosome`). Reading only: every bad or missing file is one InputError naming the file
and the fix; nothing is computed here (metrics/ga.py does).
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import readers
from pnetviz.io.gapredictions import SplitPredictions, read_predictions  # noqa: F401 - the GA files, read here
from pnetviz.io.layout import DEFAULT_PREFIX, check_name, is_dir, listing, not_utf8, not_utf8_message
from pnetviz.io.trainer import read_json

ITERATION = re.compile(r"GA-iter(\d+)")
MODEL = re.compile(r"model(\d+)")
MAX_INDEX_DIGITS = 9  # a model index of model_info.csv (model<i>); more digits is a damaged row
ROOT_PATTERN = re.compile(r"GAOptim.*")  # the trainer's results_dir: GAOptim, GAOptim_bjets, ...
RESULTS_FILE = "ga_optimization_results.json"
POPULATION_FILE = "model_info.csv"
DIAGNOSTICS = "overfitting_diagnostics"
GENES = ("nNodes", "optimizer", "initLR", "weight_decay", "scheduler")  # the chromosome tuple's order (GAConfig)
GENE_FROM_JSON = ("num_hidden", "optimizer", "initial_lr", "weight_decay", "scheduler")  # the same in model<i>.json
DEFAULT_PENALTY = 0.3  # ga_parameters.overfitting_penalty_weight of every GAConfig found
DEFAULT_METRIC = "loss/valid"
MAX_CLASSES = 64  # signal and the background groups of one model


@dataclass(frozen=True)
class Diagnostics:
    """A model's in-loop or manual overfitting check, either schema, reduced to what both say."""

    schema: str  # "E" (evaluateGAModels: one test per output score, all events) or "V" (visualizeGAIteration: true class x score)
    is_overfitted: bool | None
    min_p_value: float | None
    tests: dict[str, float]  # test key -> p-value
    threshold: float | None = None
    error: str | None = None  # schema E: a missing checkpoint or an exception, recorded by the trainer


@dataclass(frozen=True)
class GAModel:
    """One member of one iteration's population."""

    iteration: int
    index: int  # position in the population when it was trained: model<index>
    chromosome: tuple
    history: dict[str, np.ndarray]  # epoch_history: train_loss, valid_loss (+ train_acc, valid_acc, epoch)
    summary: dict  # training_summary (best_epoch, total_epochs, ...)
    json_path: Path
    csv_fitness: float | None = None  # the trainer's value in model_info.csv (None: not listed or empty)
    predictions: Path | None = None  # model<i>_predictions.npz
    diagnostics: Diagnostics | None = None

    @property
    def name(self) -> str:
        return f"model{self.index}"

    @property
    def key(self) -> tuple[int, int]:
        return (self.iteration, self.index)


@dataclass(frozen=True)
class GARun:
    path: Path
    channel: str
    signal: str
    classes: tuple[str, ...]  # signal first, then background_groups in key order
    metric: str  # ga_parameters.fitness_metric ("loss/valid")
    penalty: float  # ga_parameters.overfitting_penalty_weight (lambda)
    models: tuple[GAModel, ...]
    iterations: tuple[int, ...]
    best_chromosome: dict | None  # the trainer's: {chromosome (tuple), fitness, model}
    config: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def results_file(self) -> Path:
        return self.path / RESULTS_FILE

    def inputs(self) -> list[Path]:
        """Every file read (a campaign job's inputs; an output set must hold none)."""
        files = [m.json_path for m in self.models] + [m.predictions for m in self.models if m.predictions]
        files += [self.path / f"GA-iter{i}" / "json" / POPULATION_FILE for i in self.iterations]
        files += [self.path / f"GA-iter{i}" / DIAGNOSTICS for i in self.iterations]
        return [p for p in [*files, self.results_file] if p.exists()]


# --- discovery ---


def is_run(directory: Path) -> bool:
    """A GA run directory: it holds GA-iter<N>/ or the results snapshot."""
    return is_dir(directory) and (any(ITERATION.fullmatch(d.name) and is_dir(d) for d in listing(directory))
                                  or (directory / RESULTS_FILE).is_file())  # fmt: skip


def roots_near(results: Path) -> list[Path]:
    """GAOptim* directories inside `results` and beside it (the trainer writes GAOptim_bjets/ next
    to results/)."""
    found = []
    for where in dict.fromkeys([Path(results), Path(results).parent]):
        try:
            found += [d for d in listing(where) if ROOT_PATTERN.fullmatch(d.name) and is_dir(d)]
        except InputError:  # a parent the user may not list (a shared area): no GA runs there
            continue
    return sorted(dict.fromkeys(p.resolve() for p in found))


def find_runs(root: Path, prefix: str = DEFAULT_PREFIX, channels: set[str] | None = None,
              signals: set[str] | None = None, skipped: dict[Path, str] | None = None) -> list[tuple[str, str, Path]]:  # fmt: skip
    """(channel, signal, run directory) of every run under a GAOptim* directory, names checked;
    with `skipped`, a run under a name that is not UTF-8 is left out and recorded there."""
    runs = []
    for channel_dir in (d for d in listing(root) if is_dir(d / "multiclass")):
        channel = channel_dir.name
        if channels is not None and channel not in channels:
            continue
        for run in listing(channel_dir / "multiclass"):
            if not (run.name.startswith(prefix) and is_run(run)):
                continue
            signal = run.name[len(prefix):]
            if signals is not None and signal not in signals:
                continue
            bad = not_utf8(run, root)
            if bad is not None and skipped is not None:
                skipped.setdefault(bad, not_utf8_message(bad))
                continue
            fix = "rename it, or leave it out (--channels, --signals)."
            check_name(channel, "channel", f"{channel_dir} (directory name)", fix)
            check_name(signal, "signal point", f"{run} (directory name)", fix)
            runs.append((channel, signal, run))
    return sorted(runs, key=lambda r: (r[0], r[1]))


def locate(ga_dir: Path, channel: str | None, signal: str | None, prefix: str = DEFAULT_PREFIX) -> tuple[str, str, Path]:
    """The run `--ga-dir` (a run directory, or a GAOptim* directory with --channel/--signal) names."""
    ga_dir = Path(ga_dir)
    if not is_dir(ga_dir):
        raise InputError(f"{ga_dir}: no such directory. Fix: point --ga-dir at the trainer's GAOptim_bjets/ "
                         "(or one run: GAOptim_bjets/<channel>/multiclass/<prefix><signal>/).")  # fmt: skip
    if is_run(ga_dir):
        name = ga_dir.name
        found_channel = ga_dir.parent.parent.name if ga_dir.parent.name == "multiclass" else None
        found_signal = name[len(prefix):] if name.startswith(prefix) else name
        fix = "give --channel and --signal (plain names)."
        channel = check_name(channel or found_channel or "", "channel", f"{ga_dir} (its path)", fix)
        signal = check_name(signal or found_signal, "signal point", f"{ga_dir} (directory name)", fix)
        return channel, signal, ga_dir
    runs = find_runs(ga_dir, prefix)
    pick = [r for r in runs if (channel is None or r[0] == channel) and (signal is None or r[1] == signal)]
    if len(pick) == 1:
        return pick[0]
    listed = ", ".join(f"{c}/{s}" for c, s, _ in runs) or "none"
    if not pick:
        wanted = f" for {channel or '*'}/{signal or '*'}" if channel or signal else ""
        raise InputError(f"{ga_dir}: no GA run{wanted} "
                         f"(runs found: {listed}; layout <channel>/multiclass/{prefix}<signal>/GA-iter<N>/). Fix: "
                         "--channel, --signal, --signal-prefix or --ga-dir.")  # fmt: skip
    raise InputError(f"{ga_dir}: {len(pick)} GA runs match ({listed}). Fix: choose one with --channel and --signal.")


# --- reading ---


def _list_of_numbers(values: object, path: Path, key: str) -> np.ndarray:
    if not isinstance(values, list) or not values:
        raise InputError(f"{path}: epoch_history.{key} is missing or empty. Fix: re-write the file (the trainer's "
                         "model JSON has one value per epoch).")  # fmt: skip
    try:
        out = np.array([float(v) for v in values])
    except (TypeError, ValueError):
        raise InputError(f"{path}: epoch_history.{key} holds a value that is not a number. Fix: re-write the file.") from None
    return out


def read_model_json(path: Path, metric: str) -> tuple[dict[str, np.ndarray], dict, dict]:
    """(epoch_history arrays, training_summary, hyperparameters) of json/model<i>.json."""
    doc = read_json(path, "GA model record")
    history = doc.get("epoch_history")
    if not isinstance(history, dict):
        raise InputError(f"{path}: no 'epoch_history' object. Fix: re-write the file (trainWorker.py's record).")
    kind, split = metric_parts(metric, path)
    needed = {f"{split}_{kind}", f"train_{kind}"}
    arrays = {}
    for key in sorted(needed | {k for k in ("train_loss", "valid_loss", "train_acc", "valid_acc", "epoch") if k in history}):
        arrays[key] = _list_of_numbers(history.get(key), path, key)
    lengths = {k: v.size for k, v in arrays.items()}
    if len(set(lengths.values())) != 1:
        raise InputError(f"{path}: epoch_history lists differ in length ({', '.join(f'{k} {n}' for k, n in lengths.items())}). "
                         "Fix: re-write the file.")  # fmt: skip
    if not all(np.isfinite(arrays[k]).all() for k in needed):
        raise InputError(f"{path}: epoch_history.{' or '.join(sorted(needed))} holds NaN or inf (a diverged training). "
                         "Fix: re-run that model, or remove it from model_info.csv.")  # fmt: skip
    summary = doc.get("training_summary") if isinstance(doc.get("training_summary"), dict) else {}
    hyper = doc.get("hyperparameters") if isinstance(doc.get("hyperparameters"), dict) else {}
    return arrays, summary, hyper


def metric_parts(metric: str, source: Path) -> tuple[str, str]:
    """'loss/valid' -> ('loss', 'valid'), as GATools.updatePopulation splits it."""
    parts = metric.split("/") if isinstance(metric, str) else []
    if len(parts) != 2 or not all(parts):
        raise InputError(f"{source}: fitness_metric {metric!r} is not '<metric>/<split>' (e.g. loss/valid). Fix: "
                         "correct configuration.ga_parameters.fitness_metric.")  # fmt: skip
    return parts[0], parts[1]


def parse_chromosome(text: str, path: Path, row: int) -> tuple:
    """The chromosome cell of model_info.csv: a Python tuple literal (never evaluated as code)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    if not isinstance(value, (tuple, list)) or not value or not all(is_gene(g) for g in value):
        raise InputError(f"{path}: row {row}: chromosome {text[:60]!r} is not a tuple of finite numbers and names "
                         "like (64, 'Adam', 0.0002, 2e-05, 'ReduceLROnPlateau'). Fix: re-write the file.")  # fmt: skip
    return tuple(value)


def is_gene(value: object) -> bool:
    """A chromosome entry pnetviz can rank, draw and tabulate: a name or a finite number."""
    return isinstance(value, str) or readers.fits_float(value)


def read_population(path: Path) -> list[tuple[int, tuple, float | None]]:
    """(model index, chromosome, fitness) per row of json/model_info.csv, in population order."""
    header, table = readers.read_csv(path, "population summary", "re-write the file (GATools.savePopulation)")
    if not {"model", "chromosome", "fitness"} <= set(header):
        raise InputError(f"{path}: the header is not 'model,chromosome,fitness'. Fix: re-write the file "
                         "(GATools.savePopulation).")  # fmt: skip
    rows = []
    for number, row in enumerate(table, start=2):
        match = MODEL.fullmatch(row["model"] or "")
        if not match or len(match.group(1)) > MAX_INDEX_DIGITS:
            raise InputError(f"{path}: row {number}: model {row['model']!r} is not model<i>. Fix: re-write the file.")
        fitness = None
        if (row["fitness"] or "").strip() not in ("", "None", "nan"):
            fitness = readers.number_cell(row["fitness"], str(path), f"row {number}: fitness", "re-write the file")
        rows.append((int(match.group(1)), parse_chromosome(row["chromosome"] or "", path, number), fitness))
    if not rows:
        raise InputError(f"{path}: no population rows. Fix: re-write the file, or remove its iteration directory.")
    return rows


def _p(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def read_diagnostics(path: Path) -> Diagnostics:
    """model<i>_kolmogorov.json in schema E (per_class_results) or V (one entry per true class x score)."""
    doc = read_json(path, "overfitting diagnostics")
    if "per_class_results" in doc or "kolmogorov_results" in doc:  # schema E (kolmogorov or result file)
        per = doc.get("per_class_results", doc.get("kolmogorov_results")) or {}
        tests = {str(k): p for k, v in per.items() if isinstance(v, dict) and (p := _p(v.get("p_value"))) is not None}
        overall = _p(doc.get("overall_min_p_value"))
        return Diagnostics("E", bool(doc["is_overfitted"]) if isinstance(doc.get("is_overfitted"), bool) else None,
                           overall if overall is not None else min(tests.values(), default=None), tests,
                           _p(doc.get("threshold")), str(doc["error"]) if doc.get("error") else None)  # fmt: skip
    entries = {k: v for k, v in doc.items() if isinstance(v, dict) and "p_value" in v}
    if entries:  # schema V
        tests = {k: p for k, v in entries.items() if (p := _p(v.get("p_value"))) is not None}
        flags = [v.get("is_overfitted") for v in entries.values() if isinstance(v.get("is_overfitted"), bool)]
        return Diagnostics("V", any(flags) if flags else None, min(tests.values(), default=None), tests)
    if "min_p_value" in doc:  # schema V's model<i>_result.json
        return Diagnostics("V", doc.get("is_overfitted") if isinstance(doc.get("is_overfitted"), bool) else None,
                           _p(doc.get("min_p_value")), {})  # fmt: skip
    raise InputError(f"{path}: neither overfitting-diagnostics schema (no per_class_results, no '<true>_<score>_score' "
                     "entries with p_value). Fix: re-run evaluateGAModels.py or visualizeGAIteration.py, or remove the file.")  # fmt: skip


def model_diagnostics(directory: Path, index: int) -> Diagnostics | None:
    for name in (f"model{index}_kolmogorov.json", f"model{index}_result.json"):
        if (directory / name).is_file():
            return read_diagnostics(directory / name)
    return None


def read_config(run: Path) -> tuple[dict, list[str]]:
    """The configuration snapshot's `configuration` and `best_chromosome` (empty without the file)."""
    path = run / RESULTS_FILE
    if not path.is_file():
        return {}, [f"no {RESULTS_FILE} (written at the end of a run by the shared-memory launchGAOptim.py): "
                    f"fitness rule assumed {DEFAULT_METRIC} with penalty weight {DEFAULT_PENALTY}, classes from the "
                    "predictions or numbered, no trainer's best_chromosome to compare with"]  # fmt: skip
    return read_json(path, "GA results snapshot"), []


def classes_of(config: dict, path: Path) -> tuple[str, ...] | None:
    groups = config.get("background_groups")
    if groups is None:
        return None
    names = ["signal", *(k for k, v in groups.items() if isinstance(v, list))] if isinstance(groups, dict) else []
    if not 1 < len(names) <= MAX_CLASSES:  # "comment" (dropped by the trainer) and other non-lists are no class
        raise InputError(f"{path}: configuration.background_groups is not an object of 1 to {MAX_CLASSES - 1} groups "
                         "(name: list of samples). Fix: correct the snapshot.")  # fmt: skip
    for name in names:
        check_name(name, "class", f"{path} (configuration.background_groups)", "rename the group in the snapshot.")
    if len(set(names)) != len(names):
        raise InputError(f"{path}: configuration.background_groups has a group named 'signal'. Fix: rename it.")
    return tuple(names)


def _number_field(section: dict, key: str, default: float, path: Path) -> float:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise InputError(f"{path}: configuration.ga_parameters.{key} {value!r} is not a non-negative number. "
                         "Fix: correct the snapshot.")  # fmt: skip
    return float(value)


def read_run(run: Path, channel: str, signal: str) -> GARun:
    """Every iteration's population of one run, with its records, diagnostics and predictions."""
    run = Path(run)
    doc, notes = read_config(run)
    path = run / RESULTS_FILE
    config = doc.get("configuration") if isinstance(doc.get("configuration"), dict) else {}
    if doc and not config:
        raise InputError(f"{path}: no 'configuration' object. Fix: re-write the snapshot (launchGAOptim.py).")
    ga = config.get("ga_parameters") if isinstance(config.get("ga_parameters"), dict) else {}
    metric = ga.get("fitness_metric", DEFAULT_METRIC)
    metric_parts(metric, path)
    penalty = _number_field(ga, "overfitting_penalty_weight", DEFAULT_PENALTY if not doc else 0.0, path)
    classes = classes_of(config, path)
    best = doc.get("best_chromosome")
    trainer_best = None
    if isinstance(best, dict) and isinstance(best.get("chromosome"), list):
        model = MODEL.fullmatch(str(best.get("model", "")))
        trainer_best = {"chromosome": tuple(best["chromosome"]), "fitness": _p(best.get("fitness")),
                        "model": str(best.get("model")) if best.get("model") is not None else None,
                        "index": int(model.group(1)) if model else None}  # fmt: skip
    elif best is not None:
        raise InputError(f"{path}: best_chromosome has no 'chromosome' list. Fix: re-write the snapshot.")
    iterations = sorted(int(m.group(1)) for d in listing(run) if (m := ITERATION.fullmatch(d.name)) and is_dir(d))
    if not iterations:
        raise InputError(f"{run}: no GA-iter<N>/ directory. Fix: point --ga-dir at a GA run (GAOptim_bjets/<channel>/"
                         "multiclass/<prefix><signal>/) that has finished at least one iteration.")  # fmt: skip
    models = []
    for it in iterations:
        found, note = read_iteration(run / f"GA-iter{it}", it, metric)
        models += found
        notes += note
    if not models:
        raise InputError(f"{run}: no model records in any GA-iter<N>/json/. Fix: wait for the first iteration to finish.")
    lengths = {len(m.chromosome) for m in models}
    if len(lengths) > 1:  # every model of a search has the same genes (the figures and tables have one column each)
        usual = max(lengths, key=lambda n: (sum(len(m.chromosome) == n for m in models), n))
        odd = next(m for m in models if len(m.chromosome) != usual)
        where = run / f"GA-iter{odd.iteration}" / "json" / (POPULATION_FILE if odd.csv_fitness is not None else f"{odd.name}.json")
        raise InputError(f"{where}: the chromosome of {odd.name} has {len(odd.chromosome)} genes, the run's others "
                         f"{usual}; every chromosome of a run has the same genes. Fix: re-write the file.")  # fmt: skip
    if classes is None:
        n = max((int(m.summary.get("num_classes", 0) or 0) for m in models), default=0)
        classes = tuple(["signal", *(f"background{k}" for k in range(1, n))]) if n > 1 else ()
    return GARun(run, channel, signal, classes, metric, penalty, tuple(models), tuple(iterations), trainer_best,
                 config, tuple(notes))  # fmt: skip


def read_iteration(directory: Path, iteration: int, metric: str) -> tuple[list[GAModel], list[str]]:
    json_dir = directory / "json"
    population = json_dir / POPULATION_FILE
    notes = []
    records = {int(m.group(1)): p for p in listing(json_dir) if (m := re.fullmatch(r"model(\d+)\.json", p.name))}
    if population.is_file():
        rows = read_population(population)
        for index, _, _ in rows:
            if index not in records:
                raise InputError(f"{json_dir / f'model{index}.json'}: missing, but {POPULATION_FILE} lists model{index}. "
                                 "Fix: restore the file, or remove the iteration directory.")  # fmt: skip
    else:
        rows = [(i, None, None) for i in sorted(records)]
        if not rows:
            notes.append(f"GA-iter{iteration}: no model records yet (json/model<i>.json)")
        else:
            notes.append(f"GA-iter{iteration}: no json/{POPULATION_FILE} (iteration unfinished or interrupted): models "
                         "from json/model<i>.json, chromosomes from their hyperparameters, no trainer fitness to compare")  # fmt: skip
    diag_dir = directory / DIAGNOSTICS
    models = []
    for index, chromosome, fitness in rows:
        arrays, summary, hyper = read_model_json(records[index], metric)
        if chromosome is None:
            missing = [k for k in GENE_FROM_JSON if k not in hyper]
            if missing:
                raise InputError(f"{records[index]}: hyperparameters lack {', '.join(missing)} and there is no "
                                 f"{POPULATION_FILE}. Fix: restore json/{POPULATION_FILE}.")  # fmt: skip
            chromosome = tuple(hyper[k] for k in GENE_FROM_JSON)
            bad = [k for k in GENE_FROM_JSON if not is_gene(hyper[k])]
            if bad:
                raise InputError(f"{records[index]}: hyperparameters.{bad[0]} {hyper[bad[0]]!r} is not a finite number or "
                                 f"a name. Fix: correct the file, or restore json/{POPULATION_FILE}.")  # fmt: skip
        summary = {**summary, **({"num_classes": hyper["num_classes"]} if isinstance(hyper.get("num_classes"), int) else {})}
        if "num_classes" in summary:  # the classes when the snapshot names none: bounded before they are made
            readers.int_in(summary["num_classes"], str(records[index]), "num_classes", 1, MAX_CLASSES, "correct the file")
        npz = diag_dir / f"model{index}_predictions.npz"
        models.append(GAModel(iteration, index, chromosome, arrays, summary, records[index], fitness,
                              npz if npz.is_file() else None, model_diagnostics(diag_dir, index) if is_dir(diag_dir) else None))  # fmt: skip
    return models, notes
