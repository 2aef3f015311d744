"""The three decisions a GA search ends in, and how far retraining noise can move them (plain data).

1. The search's best: the lowest recomputed fitness over every model of every iteration
   (metrics.ga.evaluate's `best`).
2. The trainer's final choice: `best_chromosome` of ga_optimization_results.json, the lowest
   fitness of the final population (metrics.ga.evaluate's `trainer_choice`).
3. The deployed model, by the analysis' rule (summarizeGALoss.py, copy_best_model): among the
   models of the last iteration (as listed in its model_info.csv), the lowest
   training_summary.best_valid_loss, no overfitting penalty, the first listed on a tie; this is the
   model copied to best_model/ and run by the analysis.

Retraining noise: a chromosome trained more than once (survivors are retrained each iteration,
and duplicates occur) gives as many fitness values for one set of hyperparameters; their spread
(max - min) is an estimate of how much the fitness moves by retraining alone. When two of the
decisions name different chromosomes whose fitness differs by less than the largest such spread,
the ranking between them is within the noise: a warning says so.
"""

from __future__ import annotations

import math

import numpy as np

from pnetviz.io.ga import GARun

RULES = {
    "search_best": "lowest recomputed fitness over all iterations",
    "trainer_choice": "the trainer's best_chromosome: lowest fitness of the final population",
    "deployed": "the last iteration's lowest training_summary.best_valid_loss, no penalty (summarizeGALoss.py, best_model/)",
}


def deployed(run: GARun, rows: list[dict]) -> dict | None:
    """The model the analysis deploys (module docstring, rule 3), with its recomputed fitness; None
    when no model of the last iteration has best_valid_loss and best_train_loss."""
    if not run.models:
        return None
    last = max(m.iteration for m in run.models)
    candidates = [m for m in run.models if m.iteration == last and _number(m.summary.get("best_valid_loss")) is not None
                  and _number(m.summary.get("best_train_loss")) is not None]  # fmt: skip
    if not candidates:
        return None
    chosen = min(candidates, key=lambda m: _number(m.summary["best_valid_loss"]))  # min keeps the first listed on a tie
    row = next(r for r in rows if (r["iteration"], r["index"]) == chosen.key)
    return {"iteration": last, "model": chosen.name, "index": chosen.index, "chromosome": list(chosen.chromosome),
            "best_valid_loss": float(chosen.summary["best_valid_loss"]), "fitness": row["fitness"], "rank": row.get("rank")}  # fmt: skip


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def retraining(rows: list[dict]) -> dict:
    """Per chromosome trained more than once: its trainings and fitness spread (max - min); the
    largest and the median spread over those chromosomes (None without any)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault(tuple(r["chromosome"]), []).append(r)
    repeated = []
    for chromosome, members in groups.items():
        if len(members) < 2:
            continue
        fits = [m["fitness"] for m in members]
        repeated.append({"chromosome": list(chromosome), "trainings": len(members),
                         "models": [f"GA-iter{m['iteration']}/{m['model']}" for m in members], "fitness": fits,
                         "spread": float(max(fits) - min(fits)), "std": float(np.std(fits, ddof=1))})  # fmt: skip
    repeated.sort(key=lambda c: -c["spread"])
    spreads = [c["spread"] for c in repeated]
    return {"chromosomes": repeated, "max_spread": max(spreads) if spreads else None,
            "median_spread": float(np.median(spreads)) if spreads else None}  # fmt: skip


def decide(run: GARun, ev: dict) -> dict:
    """The three decisions side by side, a line for each pair that names different models, the
    retraining spreads, and a warning for each pair of different chromosomes closer in fitness than
    the largest spread. `ev`: metrics.ga.evaluate's result."""
    rows, best, tc = ev["models"], ev["best"], ev["trainer_choice"]
    choices = {"search_best": {k: best[k] for k in ("iteration", "model", "index", "chromosome", "fitness")}}
    if tc and tc.get("iteration") is not None:
        row = next((r for r in rows if r["iteration"] == tc["iteration"] and r["model"] == tc["model"]), None)
        if row is not None:
            choices["trainer_choice"] = {k: row[k] for k in ("iteration", "model", "index", "chromosome", "fitness")}
    deploy = deployed(run, rows)
    if deploy is not None:
        choices["deployed"] = deploy
    for name, choice in choices.items():
        choice["rule"] = RULES[name]
    noise = retraining(rows)
    differ, warnings = [], []
    names = list(choices)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ca, cb = choices[a], choices[b]
            if (ca["iteration"], ca["index"]) == (cb["iteration"], cb["index"]):
                continue
            gap = abs(ca["fitness"] - cb["fitness"])
            same = ca["chromosome"] == cb["chromosome"]
            differ.append(f"{_title(a)} (GA-iter{ca['iteration']}/{ca['model']}, fitness {ca['fitness']:.6f}) and "
                          f"{_title(b)} (GA-iter{cb['iteration']}/{cb['model']}, fitness {cb['fitness']:.6f}) differ: "
                          f"fitness gap {gap:.6f}" + ("; the same chromosome, retrained" if same else ""))  # fmt: skip
            spread = noise["max_spread"]
            if not same and spread is not None and gap < spread:
                warnings.append(f"{_title(a)} and {_title(b)} differ in fitness by {gap:.6f}, less than the retraining "
                                f"spread {spread:.6f} of one chromosome trained more than once: their order is within "
                                "retraining noise")  # fmt: skip
    runner = next((r for r in sorted(rows, key=lambda r: r["rank"]) if r["chromosome"] != best["chromosome"]), None)
    if runner is not None and noise["max_spread"] is not None and runner["fitness"] - best["fitness"] < noise["max_spread"]:
        warnings.append(f"the search's best and its runner-up of another chromosome (GA-iter{runner['iteration']}/"
                        f"{runner['model']}) differ in fitness by {runner['fitness'] - best['fitness']:.6f}, less than the "
                        f"retraining spread {noise['max_spread']:.6f}")  # fmt: skip
    return {"choices": choices, "differ": differ, "retraining": noise, "warnings": warnings}


def _title(name: str) -> str:
    return {"search_best": "the search's best", "trainer_choice": "the trainer's final choice",
            "deployed": "the deployed model"}[name]  # fmt: skip


def text_lines(decisions: dict) -> list[str]:
    """The summary's lines on the three decisions (metrics.gadecisions): each model and its rule,
    a line for each pair that differs, the retraining spreads, the warnings."""
    out = ["", "decisions:"]
    for name, c in decisions["choices"].items():
        extra = f", best_valid_loss {c['best_valid_loss']:.6f}" if "best_valid_loss" in c else ""
        out.append(f"  {name}: GA-iter{c['iteration']}/{c['model']}, fitness {c['fitness']:.6f}{extra} ({c['rule']})")
    out += [f"  DIFFER: {line}" for line in decisions["differ"]] or ["  all decisions name the same model"]
    for c in decisions["retraining"]["chromosomes"]:
        out.append(f"  retrained {c['trainings']}x: {tuple(c['chromosome'])!r}, fitness spread {c['spread']:.6f} "
                   f"({', '.join(c['models'])})")  # fmt: skip
    out += [f"  WARNING: {w}" for w in decisions["warnings"]]
    return out + [""]


def is_deployed(ev: dict, row: dict) -> bool:
    """Whether `row` (a model of metrics.ga.evaluate) is the deployed model of `ev["decisions"]`."""
    d = ev.get("decisions", {}).get("choices", {}).get("deployed")
    return bool(d and (d["iteration"], d["index"]) == (row["iteration"], row["index"]))
