"""The bias of one deployed fold model (issue 51, item 4; `--deployed-fold K`).

An analysis that applies fold K's model to all of its MC scores the events that model was trained
on as well as the ones it never saw. Its templates then mix the unbiased test-split response with
the (possibly overtrained) training-split response. This section of the `folds/` set measures the
difference on fold K's own ntuple, which holds the model's scores of both:

- AUC of the train split (the events it was trained on, `train_mask`) and of the test split
  (`test_mask`, unbiased), the difference train - test and its error sqrt(e_train^2 + e_test^2)
  from the weighted DeLong errors of the two independent samples (metrics.delong);
- per class (signal; background: every other class together) the shape of the score template on the
  train split against the test split: the weighted two-sample Kolmogorov-Smirnov test
  (metrics.hep.weighted_ks, TMVA's overtraining check) and the chi2 test of two weighted histograms
  (`chi2_shapes`: Gagunashvili's weighted-weighted statistic, as ROOT's TH1::Chi2Test "WW") in
  BINS bins of equal population of the class's events of both splits;
- `bias_found`: Holm's adjustment over those four shape p-values, any below ALPHA.

The score is the binary model's `score_signal`, the multi-class model's signal-class score
(P(signal), every other class background). Weights as the evaluation's --weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from pnetviz.errors import InputError
from pnetviz.io.ntuple import classes_from_branches, read_predictions
from pnetviz.io.readers import read_json
from pnetviz.metrics.delong import delong_error
from pnetviz.metrics.hep import auc_weight_modes, mode_weights, weighted_ks
from pnetviz.metrics.multiplicity import holm
from pnetviz.metrics.shapetests import chi2_shapes, equal_population_edges  # noqa: F401 - tests use deployedfold.*

FILE = "deployed_fold.json"
BINS = 10
ALPHA = 0.05
DOC = ("fold K's model applied to all of the MC: its response on the events it was trained on (train split) against "
       "the unbiased test split, on fold K's ntuple. auc_difference = AUC(train) - AUC(test), error from the two "
       "splits' weighted DeLong errors; per class the score templates' shapes, train vs test: weighted KS "
       "(TMVA's overtraining check) and the weighted-weighted chi2 (Gagunashvili, ROOT's Chi2Test WW) in "
       f"{BINS} bins of equal population; bias_found: a shape p-value below {ALPHA} after Holm over the four")  # fmt: skip


def check(folds: Sequence[int | None], deployed: int | None, model: str) -> None:
    """InputError unless fold `deployed` is among the folds evaluated (before any work); a run of
    one fold (an update of the summary beside it) takes fold K from its set on disk (`of_jobs`)."""
    if deployed is not None and len(folds) > 1 and deployed not in folds:
        listed = " ".join(str(f) for f in folds if f is not None) or "none"
        raise InputError(f"--deployed-fold {deployed}: fold {deployed} of {model} is not evaluated in this run (folds: "
                         f"{listed}). Fix: give one of those folds, or evaluate fold {deployed} too (--fold all).")  # fmt: skip


def auc_and_error(score: np.ndarray, is_signal: np.ndarray, stored: np.ndarray, mode: str) -> tuple[float | None, float | None]:
    """The AUC under weight mode `mode` of the stored weights, and its weighted DeLong error."""
    auc = auc_weight_modes(score, is_signal, stored)[mode]
    error = delong_error(score, is_signal, mode_weights(stored, mode)) if auc is not None else math.nan
    return auc, (error if math.isfinite(error) else None)


def section(job) -> dict:
    """The deployed-fold section of fold `job.fold`'s model (job: the driver.FoldJob of that fold,
    binary or multi-class: a job with `classes` is multi-class)."""
    binary = not hasattr(job, "classes")
    classes = ("signal", "background") if binary else tuple(job.classes or classes_from_branches(job.predictions, job.tree, job.columns))
    preds = read_predictions(job.predictions, classes=classes, score_classes=(classes[0],) if binary else None,
                             tree=job.tree, binary=binary, columns=job.columns)  # fmt: skip
    score = np.asarray(preds.scores[classes[0]], float)
    is_signal = preds.label == 0
    w = mode_weights(preds.weight, job.hep.weight_mode)
    out: dict = {"fold": job.fold, "model": job.model, "predictions": str(job.predictions), "doc": DOC, "splits": {}}
    for split in ("train", "test"):
        mask = preds.masks[split]
        auc, error = auc_and_error(score[mask], is_signal[mask], preds.weight[mask], job.hep.weight_mode)
        out["splits"][split] = {"events": int(mask.sum()), "auc": auc, "auc_error": error}
    train, test = out["splits"]["train"], out["splits"]["test"]
    both = train["auc"] is not None and test["auc"] is not None
    out["auc_difference"] = train["auc"] - test["auc"] if both else None
    errors = (train["auc_error"], test["auc_error"])
    out["auc_difference_error"] = math.hypot(*errors) if both and None not in errors else None
    out["templates"] = {}
    for name, cls in (("signal", is_signal), ("background", ~is_signal)):
        a, b = cls & preds.masks["train"], cls & preds.masks["test"]
        if not a.any() or not b.any():
            out["templates"][name] = {"ks": None, "chi2": None, "why": "no event of the class in a split"}
            continue
        ks = weighted_ks(score[a], w[a], score[b], w[b])
        edges = equal_population_edges(score[cls & (preds.masks["train"] | preds.masks["test"])], BINS)
        out["templates"][name] = {"ks": {"statistic": ks["statistic"], "p_value": ks["p_value"]},
                                  "chi2": chi2_shapes(score[a], w[a], score[b], w[b], edges), "edges": edges.tolist()}  # fmt: skip
    p_values = [t[test_name]["p_value"] for t in out["templates"].values() for test_name in ("ks", "chi2") if t.get(test_name)]
    adjusted = [p for p in holm(p_values) if p is not None and math.isfinite(p)] if p_values else []
    out["shape_p_holm_min"] = min(adjusted) if adjusted else None
    out["bias_found"] = bool(adjusted and min(adjusted) < ALPHA)
    return out


def line(data: dict | None, deployed: int | None = None) -> str:
    """One line for the run's output: what the deployed fold's bias is ('' without
    --deployed-fold; the section left out where fold K's set was not found)."""
    if data is None:
        return "" if deployed is None else f"deployed fold {deployed}: its set or ntuple not found, the section left out"
    diff, error = data.get("auc_difference"), data.get("auc_difference_error")
    auc = "AUC train - test " + (f"{diff:+.4f}" if diff is not None else "undefined") + (f" +- {error:.4f}" if error else "")
    verdict = "shapes differ" if data["bias_found"] else "shapes compatible"
    p = data.get("shape_p_holm_min")
    return f"deployed fold {data['fold']}: {auc}; train vs test templates: {verdict}" + (f" (Holm p {p:.2g})" if p is not None else "")


def of_jobs(jobs: Sequence, summary_dir: Path) -> dict | None:
    """The section of the jobs' --deployed-fold (None without it): fold K's job, or, in a run of
    one other fold beside the summary `summary_dir`, fold K's set on disk beside it (the ntuple its
    summary_report.json names as `input`, read with this run's options); None where that set or
    its ntuple is gone (the summary is then written without the section, `line` says so)."""
    deployed = jobs[0].deployed_fold if jobs else None
    if deployed is None:
        return None
    found = [j for j in jobs if j.fold == deployed]
    if found:
        return section(found[0])
    try:
        stored = read_json(Path(summary_dir).parent / f"fold-{deployed}" / "summary_report.json", "fold report")
    except (InputError, OSError):
        return None
    path = stored.get("input")
    if not isinstance(path, str) or not Path(path).is_file():
        return None
    return section(replace(jobs[0], predictions=Path(path), fold=deployed))
