"""A whole GA hyperparameter search evaluated: plain data in, plain data out (nothing draws).

The fitness is recomputed from each model's epoch history with the run's own rule
(GATools.updatePopulation): e* = argmin of the fitness metric's history (valid_loss), fitness =
history[e*] + lambda * max(0, history[e*] - train history[e*]) (no penalty when lambda = 0); lower
is better. The best model is the minimum over every model of every iteration (ties: the earlier
iteration, then the lower index), which is not what the trainer reports (the best of the final
population only).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pnetviz.io.ga import GENES, GAModel, GARun, SplitPredictions
from pnetviz.metrics.evaluate import lr_score
from pnetviz.metrics.hep import mode_weights, weighted_ks
from pnetviz.metrics.roc import BinaryCurve, binary_clf_curve

AGREE = 1e-6  # |recomputed - model_info.csv| above this: flagged (the CSV keeps the full float repr)
LOG_GENES = ("initLR", "weight_decay")  # sampled log-uniform by GAConfig: log axes


def model_fitness(history: dict[str, np.ndarray], metric: str, penalty: float) -> dict:
    """The trainer's fitness of one model from its epoch history (see the module docstring)."""
    kind, split = metric.split("/")
    values, train = history[f"{split}_{kind}"], history[f"train_{kind}"]
    e = int(np.argmin(values))
    base = float(values[e])
    gap = base - float(train[e])
    term = penalty * max(0.0, gap) if penalty > 0 else 0.0
    epochs = history.get("epoch")
    return {"fitness": base + term, "epoch_index": e, "best_epoch": int(epochs[e]) if epochs is not None else e,
            "metric_at_best": base, "train_at_best": float(train[e]), "train_valid_gap": gap, "penalty_term": term}  # fmt: skip


def gene_names(length: int) -> tuple[str, ...]:
    return GENES if length == len(GENES) else tuple(f"gene{k}" for k in range(length))


def gene_scale(name: str, values: Sequence) -> str:
    """'category' (names, and integers such as nNodes), 'log' (learning rate, weight decay, or any
    positive float spanning a decade or more) or 'linear'."""
    if any(isinstance(v, str) for v in values) or all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "category"
    floats = np.array([float(v) for v in values])
    if name in LOG_GENES and np.all(floats > 0):
        return "log"
    return "log" if np.all(floats > 0) and floats.max() >= 10 * floats.min() else "linear"


def _chromosome(c: tuple) -> list:
    return list(c)


def model_row(run: GARun, m: GAModel) -> dict:
    fit = model_fitness(m.history, run.metric, run.penalty)
    names = gene_names(len(m.chromosome))
    total = int(next(iter(m.history.values())).size)  # every epoch_history list has this length (io.ga)
    row = {"iteration": m.iteration, "model": m.name, "index": m.index, "chromosome": _chromosome(m.chromosome),
           "genes": dict(zip(names, m.chromosome)), **fit, "total_epochs": total,
           "trainer_best_epoch": m.summary.get("best_epoch"), "trainer_fitness": m.csv_fitness,
           "fitness_disagrees": m.csv_fitness is not None and abs(m.csv_fitness - fit["fitness"]) > AGREE,
           "predictions": m.predictions is not None}  # fmt: skip
    if m.csv_fitness is None:
        row["fitness_disagrees"] = None
    d = m.diagnostics
    row["overfitting"] = None if d is None else {"schema": d.schema, "is_overfitted": d.is_overfitted,
                                                 "min_p_value": d.min_p_value, "tests": len(d.tests),
                                                 **({"error": d.error} if d.error else {})}  # fmt: skip
    return row


def _ident(row: dict) -> dict:
    return {k: row[k] for k in ("iteration", "model", "index", "chromosome", "fitness")}


def evaluate(run: GARun) -> dict:
    """Every model's row, the best model over all iterations, per-iteration bests and the best so
    far, duplicates, fitness disagreements with model_info.csv and the trainer's choice."""
    rows = [model_row(run, m) for m in run.models]
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["fitness"], rows[i]["iteration"], rows[i]["index"]))
    for rank, i in enumerate(order, start=1):
        rows[i]["rank"] = rank
    best = rows[order[0]]
    # same chromosome: within one iteration (a duplicate trained twice), and across iterations (survivors retrained)
    by_chromosome: dict[tuple, list[dict]] = {}
    for row in rows:
        by_chromosome.setdefault(tuple(row["chromosome"]), []).append(row)
    duplicates, repeated = [], []
    for chromosome, members in by_chromosome.items():
        for row in members:
            row["same_chromosome_as"] = [f"GA-iter{o['iteration']}/{o['model']}" for o in members if o is not row]
            first = next(o for o in members if o["iteration"] == row["iteration"])
            row["duplicate_of"] = None if first is row else first["model"]
        for it in sorted({m["iteration"] for m in members}):
            same = [m for m in members if m["iteration"] == it]
            if len(same) > 1:
                duplicates.append({"iteration": it, "models": [m["model"] for m in same], "chromosome": list(chromosome),
                                   "fitness": [m["fitness"] for m in same]})  # fmt: skip
        if len({m["iteration"] for m in members}) > 1:
            repeated.append({"chromosome": list(chromosome), "models": [{"iteration": m["iteration"], "model": m["model"],
                             "fitness": m["fitness"]} for m in members]})  # fmt: skip
    per_iteration, so_far = [], []
    current = None
    for it in run.iterations:
        members = [r for r in rows if r["iteration"] == it]
        if not members:
            continue
        top = min(members, key=lambda r: (r["fitness"], r["index"]))
        per_iteration.append({**_ident(top), "models": len(members), "mean_fitness": float(np.mean([r["fitness"] for r in members]))})
        current = top if current is None or top["fitness"] < current["fitness"] else current
        so_far.append({"iteration": it, **{k: current[k] for k in ("model", "fitness")}, "from_iteration": current["iteration"]})
    disagreements = [{"iteration": r["iteration"], "model": r["model"], "recomputed": r["fitness"],
                      "model_info_csv": r["trainer_fitness"], "difference": r["fitness"] - r["trainer_fitness"]}
                     for r in rows if r["fitness_disagrees"]]  # fmt: skip
    return {
        "fitness_rule": {"metric": run.metric, "penalty_weight": run.penalty, "lower_is_better": True,
                         "definition": fitness_definition(run)},
        "models": rows,
        "best": {**_ident(best), "genes": best["genes"], "best_epoch": best["best_epoch"],
                 "train_valid_gap": best["train_valid_gap"], "trainer_fitness": best["trainer_fitness"]},
        "best_per_iteration": per_iteration,
        "best_so_far": so_far,
        "trainer_choice": trainer_choice(run, rows, best),
        "duplicates": duplicates,
        "repeated_across_iterations": repeated,
        "fitness_disagreements": disagreements,
    }  # fmt: skip


def fitness_definition(run: GARun) -> str:
    kind, split = run.metric.split("/")
    base = f"min over epochs of {split}_{kind} (epoch e*)"
    if run.penalty <= 0:
        return base
    return f"{base} + {run.penalty:g} * max(0, {split}_{kind}[e*] - train_{kind}[e*])"


def trainer_choice(run: GARun, rows: list[dict], best: dict) -> dict | None:
    """The trainer's best_chromosome (the minimum of the final population): which model it names,
    and whether that is another model than the best over all iterations."""
    tb = run.best_chromosome
    if tb is None:
        return None
    last = max(r["iteration"] for r in rows)
    named = next((r for r in rows if r["iteration"] == last and r["index"] == tb["index"]), None)
    if named is not None and tuple(named["chromosome"]) != tb["chromosome"]:
        named = None  # the name and the chromosome disagree: trust the chromosome
    if named is None:
        named = next((r for r in rows if r["iteration"] == last and tuple(r["chromosome"]) == tb["chromosome"]), None)
    out = {"model": tb["model"], "iteration": last if named else None, "chromosome": list(tb["chromosome"]),
           "fitness": tb["fitness"], "fitness_recomputed": named["fitness"] if named else None,
           "same_as_best": bool(named and (named["iteration"], named["index"]) == (best["iteration"], best["index"]))}  # fmt: skip
    out["names_a_different_model"] = not out["same_as_best"]
    if out["names_a_different_model"]:
        gain = (tb["fitness"] - best["fitness"]) if tb["fitness"] is not None else math.nan
        out["note"] = (f"the trainer's best_chromosome ({tb['model']}, final population, fitness "
                       f"{tb['fitness'] if tb['fitness'] is not None else 'n/a'}) is not the best model over all "
                       f"iterations: GA-iter{best['iteration']}/{best['model']} has fitness {best['fitness']:.6f}"
                       + (f" ({gain:.6f} lower)" if math.isfinite(gain) else "")
                       + ("; the same chromosome, retrained" if tuple(best["chromosome"]) == tb["chromosome"] else ""))  # fmt: skip
    return out


# --- with predictions ---


def ks_grid(preds: dict[str, SplitPredictions], classes: Sequence[str]) -> dict:
    """Train vs test weighted KS test (|w|) of each output score s within each true class t: the
    p-value and statistic matrices [t][s] (NaN where a class has no event in a split)."""
    n = len(classes)
    p, d = np.full((n, n), np.nan), np.full((n, n), np.nan)
    counts = {}
    train, test = preds["train"], preds["test"]
    for t in range(n):
        a, b = train.label == t, test.label == t
        counts[classes[t]] = {"train": int(a.sum()), "test": int(b.sum())}
        wa, wb = np.abs(train.weights[a]), np.abs(test.weights[b])
        if not (wa.sum() > 0 and wb.sum() > 0):
            continue
        for s in range(n):
            ks = weighted_ks(train.scores[a, s], wa, test.scores[b, s], wb)
            p[t, s], d[t, s] = ks["p_value"], ks["statistic"]
    return {"classes": list(classes), "p_value": p, "statistic": d, "events": counts,
            "weights": "|w|", "rows": "true class", "columns": "output score"}  # fmt: skip


def lr_curves(preds: dict[str, SplitPredictions], classes: Sequence[str]) -> dict[str, dict[str, BinaryCurve]]:
    """Per background b and split: the exact |w|-weighted ROC of the likelihood-ratio score
    P(sig) / (P(sig) + P(b)) on the events of true class signal or b."""
    out: dict[str, dict[str, BinaryCurve]] = {}
    for b in range(1, len(classes)):
        out[classes[b]] = {}
        for split, sp in preds.items():
            keep = (sp.label == 0) | (sp.label == b)
            score = lr_score(sp.scores[keep, 0], sp.scores[keep, b])
            out[classes[b]][split] = binary_clf_curve(score, sp.label[keep] == 0, mode_weights(sp.weights[keep], "abs"))
    return out


def prediction_report(preds: dict[str, SplitPredictions], classes: Sequence[str], threshold: float) -> tuple[dict, dict, dict]:
    """(report section, KS grid, LR curves) of one model's predictions."""
    grid = ks_grid(preds, classes)
    curves = lr_curves(preds, classes)
    finite = grid["p_value"][np.isfinite(grid["p_value"])]
    section = {
        "ks_grid": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in grid.items()},
        "ks_min_p_value": float(finite.min()) if finite.size else None,
        "ks_failed": [f"{classes[t]}_{classes[s]}_score" for t in range(len(classes)) for s in range(len(classes))
                      if np.isfinite(grid["p_value"][t, s]) and grid["p_value"][t, s] < threshold],
        "ks_threshold": threshold,
        "lr_auc": {b: {split: c.auc for split, c in per.items()} for b, per in curves.items()},
    }  # fmt: skip
    return section, grid, curves


FENCE = 3.0  # fitness axis: values above q75 + FENCE x IQR are outliers (drawn at the axis edge)
MIN_BAND = 1e-3  # the interquartile range taken at least this wide (identical fitnesses: no clipping by rounding)


def fitness_axis(values: Sequence[float], keep: Sequence[float] = ()) -> tuple[float, float]:
    """(low, high) of the fitness values the axis is fitted to: from the lowest (the best model,
    lower is better) to the highest inside Tukey's far fence q75 + FENCE x IQR, so that a few
    diverged models (fitness 1.4-2.1 beside a 0.01-wide band) do not flatten the band; every value
    of `keep` (the best model, the trainer's choice) stays inside. Values above `high` are the
    outliers a figure draws at its edge."""
    v = np.asarray([x for x in values if math.isfinite(x)], dtype=float)
    if v.size == 0:
        return 0.0, 1.0
    q25, q75 = np.quantile(v, [0.25, 0.75])
    fence = q75 + FENCE * max(float(q75 - q25), MIN_BAND)
    inside = v[v <= fence]
    high = max([float(inside.max())] + [float(k) for k in keep if math.isfinite(k)])
    return float(v.min()), high
