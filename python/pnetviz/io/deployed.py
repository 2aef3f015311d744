"""The trainer's test predictions of the model said to be deployed (the deployment closure,
jobs.closure): found from `--deployed-model` and `--predictions`, read and checked.

Two sources (../shared/GA-FORMAT.md, TRAINER-FORMAT.md):
- a GA model: `GA-iter<N>/overfitting_diagnostics/model<i>_predictions.npz` (visualizeGAIteration.py:
  y_true_test, y_scores_test (N x C softmax, columns in class order), weights_test). The model is
  named by its index (`--deployed-model 3` or `model3`) with `--predictions` the iteration directory
  or the file itself; the classes are the run's (`ga_optimization_results.json`,
  configuration.background_groups: signal, then the groups in key order), else DEFAULT_GA_CLASSES;
- a fold model: the trainer's ntuple `fold-<k>/trees/<model>.root` (tree Events: the test_mask
  events' score_<class> branches in the tree's order, true_label, weight). The model is named by its
  checkpoint (`--deployed-model .../fold-<k>/models/<model>.pt`), or by its name with
  `--predictions` the fold directory, or `--predictions` is the ntuple itself.
A model named one way and a file of another model (model5's predictions for `--deployed-model 3`)
is an InputError: the closure checks the model said to be deployed, not a neighbour.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io import gapredictions
from pnetviz.io.ga import DIAGNOSTICS, RESULTS_FILE, classes_of
from pnetviz.io.ntuple import classes_from_branches, read_predictions
from pnetviz.io.readers import read_json

DEFAULT_GA_CLASSES = ("signal", "nonprompt", "diboson", "ttX")  # the GA's background_groups (GAConfig.json)
GA_FILE = re.compile(r"model(\d+)_predictions\.npz")
GA_INDEX = re.compile(r"(?:model)?(\d+)")


@dataclass(frozen=True)
class DeployedPredictions:
    """The test split of the deployed model: scores (N, C) with columns in class order."""

    path: Path
    kind: str  # "GA model" or "fold model"
    model: str  # model<i> or the fold model's name
    classes: tuple[str, ...]
    label: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    classes_from: str  # where the class order was read


FIX = ("give --deployed-model as a GA model index (3 or model3) with --predictions the GA-iter<N>/ directory or "
       "its model<i>_predictions.npz, or as a fold model's checkpoint .../fold-<k>/models/<model>.pt (docs/datamc.md)")  # fmt: skip


def locate(deployed: str, predictions: Path | None) -> tuple[Path, str, str]:
    """(file, kind, model name) of the predictions of model `deployed`; InputError when they
    cannot be found or are another model's."""
    text = str(deployed).strip()
    index = GA_INDEX.fullmatch(text)
    if index is not None:
        if predictions is None:
            raise InputError(f"--deployed-model {text}: a GA model index needs --predictions (the GA-iter<N>/ directory "
                             f"or the model's predictions .npz). Fix: {FIX}.")  # fmt: skip
        name = f"model{int(index.group(1))}"
        path = Path(predictions)
        if path.is_dir():
            path = path / DIAGNOSTICS / f"{name}_predictions.npz" if (path / DIAGNOSTICS).is_dir() else path / f"{name}_predictions.npz"
        found = GA_FILE.fullmatch(path.name)
        if found is None:
            raise InputError(f"{path}: not a GA predictions file (model<i>_predictions.npz) for --deployed-model {text}. Fix: {FIX}.")
        if int(found.group(1)) != int(index.group(1)):
            raise InputError(f"{path}: the predictions of model{int(found.group(1))}, but --deployed-model says {name}. "
                             "Fix: give the deployed model's file (or its GA-iter<N>/ directory).")  # fmt: skip
        if not path.is_file():
            raise InputError(f"{path}: no such file (the GA writes it with visualizeGAIteration.py). Fix: run it for "
                             f"this iteration, or {FIX}.")  # fmt: skip
        return path, "GA model", name
    model = Path(text)
    name = model.name.removesuffix(".pt")
    if model.suffix == ".pt" and model.parent.name == "models":
        ntuple = model.parent.parent / "trees" / f"{name}.root"
        if predictions is not None and Path(predictions).resolve() not in (ntuple.resolve(), ntuple.parent.parent.resolve()):
            raise InputError(f"--predictions {predictions}: not the ntuple of --deployed-model {text} ({ntuple}). "
                             "Fix: leave --predictions out, or give that ntuple or its fold directory.")  # fmt: skip
    elif predictions is not None and Path(predictions).is_dir():
        ntuple = Path(predictions) / "trees" / f"{name}.root"
    elif predictions is not None and Path(predictions).suffix == ".root":
        ntuple = Path(predictions)
        if ntuple.stem != name:
            raise InputError(f"{ntuple}: the ntuple of model '{ntuple.stem}', but --deployed-model says '{name}'. "
                             "Fix: give the deployed model's ntuple (fold-<k>/trees/<model>.root).")  # fmt: skip
    else:
        raise InputError(f"--deployed-model {text}: neither a GA model index nor a fold model's checkpoint "
                         f"(.../fold-<k>/models/<model>.pt). Fix: {FIX}.")  # fmt: skip
    if not ntuple.is_file():
        raise InputError(f"{ntuple}: no such ntuple (the trainer writes the test predictions of {name} there). "
                         f"Fix: check the model's name and fold, or {FIX}.")  # fmt: skip
    return ntuple, "fold model", name


def ga_classes(npz: Path) -> tuple[tuple[str, ...] | None, str]:
    """The class order of the GA run holding `npz` (run/GA-iter<N>/overfitting_diagnostics/...)."""
    for run in (npz.parent.parent.parent, npz.parent.parent):
        snapshot = run / RESULTS_FILE
        if snapshot.is_file():
            doc = read_json(snapshot, "GA results snapshot")
            config = doc.get("configuration") if isinstance(doc.get("configuration"), dict) else {}
            classes = classes_of(config, snapshot)
            if classes is not None:
                return classes, f"{snapshot} (configuration.background_groups)"
    return None, ""


def read_deployed(deployed: str, predictions: Path | None, n_nodes: int, tree: str = "Events") -> DeployedPredictions:
    """The deployed model's test predictions (see the module's doc); InputError when the model has
    another number of outputs than the samples' `n_nodes` score branches."""
    path, kind, name = locate(deployed, predictions)
    if kind == "GA model":
        classes, source = ga_classes(path)
        if classes is None:
            classes, source = DEFAULT_GA_CLASSES[:n_nodes] if n_nodes == len(DEFAULT_GA_CLASSES) else tuple(
                ["signal", *(f"background{k}" for k in range(1, n_nodes))]), "the GA's default groups (no run snapshot found)"  # fmt: skip
        _check_nodes(path, classes, n_nodes)
        test = gapredictions.read_predictions(path, len(classes))["test"]
        return DeployedPredictions(path, kind, name, classes, test.label, test.scores, test.weights, source)
    classes = classes_from_branches(path, tree)
    _check_nodes(path, classes, n_nodes)
    preds = read_predictions(path, classes=classes, tree=tree)
    test = preds.masks["test"]
    if not test.any():
        raise InputError(f"{path}: no event has test_mask set. Fix: give the ntuple the trainer wrote for this fold.")
    scores = np.column_stack([np.asarray(preds.scores[c], dtype=np.float64)[test] for c in classes])
    return DeployedPredictions(path, kind, name, classes, preds.label[test].astype(np.int64), scores,
                               preds.weight[test], f"{path} (score_* branches in tree order)")  # fmt: skip


def _check_nodes(path: Path, classes: tuple[str, ...], n_nodes: int) -> None:
    if len(classes) != n_nodes:
        raise InputError(f"{path}: the model has {len(classes)} outputs ({', '.join(classes)}), the samples' score "
                         f"branches {n_nodes}. Fix: give the predictions of the model deployed in these samples.")  # fmt: skip
