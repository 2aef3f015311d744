"""One HistFactory workspace refitted with another model of the same structure (the per-fold
fits of a strategy reuse its pooled workspace): the templates changed in place, the MC-statistics
constraint widths and gamma ranges, mu's range and every parameter's starting state set as
HistFactory's own build of that model sets them (tests/limits/test_reuse.py: equal to the last bit).

Same structure: the channels' names and edges, the samples' names and their systematics' names,
MC statistics on or off, and the same bins with a gamma (relative error above the threshold).
Any other model is built afresh by the caller (`structure` differs, or None)."""

from __future__ import annotations

import numpy as np

from pnetviz.limits.histfactory import STAT_THRESHOLD
from pnetviz.limits.spec import FitModel, samples


def _rel_errors(ch) -> np.ndarray:
    """HistFactory's relative MC-statistics error of each bin: sqrt(sum_s sqrt(w2_s)^2) / sum_s n_s,
    summed in the samples' order as its C++ does (measured equal to the last bit)."""
    total = np.zeros(len(ch.signal.contents))
    err2 = np.zeros(len(ch.signal.contents))
    for s in samples(ch):
        total = total + np.asarray(s.contents, dtype=np.float64)
        e = np.sqrt(np.asarray(s.sumw2, dtype=np.float64))
        err2 = err2 + e * e
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(err2) / total


def structure(model: FitModel) -> tuple | None:
    """What must be equal for a workspace to serve `model` (a prepared one); None: never reused."""
    key = [model.mc_stat]
    for ch in model.channels:
        rel = _rel_errors(ch)
        if model.mc_stat and not np.all(np.isfinite(rel)):
            return None
        key.append((ch.name, tuple(float(e) for e in ch.edges), tuple((s.name, tuple(s.shape_systs)) for s in samples(ch)),
                    tuple(bool(r > STAT_THRESHOLD) for r in rel) if model.mc_stat else ()))  # fmt: skip
    return tuple(key)


def initial_state(ws) -> dict:
    """Every variable's value, range, error and constancy as HistFactory left them."""
    return {v.GetName(): (v.getVal(), v.getMin(), v.getMax(), v.getError(), v.isConstant()) for v in ws.allVars()}


def _fill(ws, name: str, values) -> None:
    func = ws.function(name)
    if not func:
        raise KeyError(name)
    hist = func.dataHist()
    for i, w in enumerate(np.asarray(values, dtype=np.float64)):
        hist.set(i, float(w), 0.0)


def retarget(ws, state: dict, model: FitModel, mu_max: float) -> None:
    """`ws` (built for a model of the same `structure`) made the workspace of `model` (prepared)."""
    for name, (val, lo, hi, err, const) in state.items():
        var = ws.var(name)
        var.setRange(lo, hi)
        var.setVal(val)
        var.setError(err)
        var.setConstant(const)
    ws.var("mu").setMax(mu_max)
    for ch in model.channels:
        for s in samples(ch):
            _fill(ws, f"{s.name}_{ch.name}_Hist_alphanominal", s.contents)
            for j, (up, down) in enumerate(s.shape_systs.values()):
                _fill(ws, f"{s.name}_{ch.name}_Hist_alpha_{j}low", down)
                _fill(ws, f"{s.name}_{ch.name}_Hist_alpha_{j}high", up)
        if model.mc_stat:
            for i, sigma in enumerate(_rel_errors(ch)):
                if sigma > STAT_THRESHOLD:
                    ws.obj(f"gamma_stat_{ch.name}_bin_{i}_sigma").changeVal(float(sigma))
                    gamma = ws.var(f"gamma_stat_{ch.name}_bin_{i}")
                    gamma.setMax(1 + 5 * float(sigma))
                    gamma.setError(float(sigma))
    for component in ws.components():
        component.setValueDirty()
        component.setShapeDirty()
