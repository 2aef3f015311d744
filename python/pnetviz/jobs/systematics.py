"""Nuisances from the ntuple and the command line, the profiled ROC of one pair, its figures.

Template variations are branches named the CMS way, `score_<class>__<syst>Up/Down` and
`weight__<syst>Up/Down`; `--syst NAME[,NAME]` or `all` chooses them. `--score-shift CLASS=TAU`
adds an analytic shift of one class's discriminant scores (`signal`, `background` or a class
name). Everything is evaluated on the test split; the machinery is `profiled.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from pnetviz.draw import canvas, plots
from pnetviz.metrics import profiled
from pnetviz.errors import InputError
from pnetviz.io.trainer import display_label
from pnetviz.metrics.evaluate import BinarySample
from pnetviz.metrics.folds import EFF_GRID, FPR_GRID, eps_b_on_grid, rejection_ratio_from_eps, tpr_on_grid
from pnetviz.metrics.folds import ratio_to_reference
from pnetviz.metrics.hep import mode_weights
from pnetviz.draw.plots import CurveSpec
from pnetviz.draw.style import cycle_color, line_style, meaning_color
from pnetviz.names import name as quantity
from pnetviz.metrics.rounding import pm

VARIATION = re.compile(r"^(weight|score_.+)__(.+)(Up|Down)$")


@dataclass(frozen=True)
class SystOptions:
    names: tuple[str, ...] = ()  # template nuisances asked for; ("all",) = every one in the ntuple
    kappa: float = 1.0
    shifts: dict = field(default_factory=dict)  # class -> tau

    @property
    def active(self) -> bool:
        return bool(self.names or self.shifts)


def find_templates(path, branches: Sequence[str], asked: Sequence[str]) -> dict[str, dict[str, str]]:
    """syst -> {base branch: variation stem} for the nuisances asked; InputError for an Up
    without its Down (or the reverse) and for a name the ntuple does not have."""
    found: dict[str, dict[str, set[str]]] = {}
    for branch in branches:
        m = VARIATION.match(branch)
        if m:
            found.setdefault(m.group(2), {}).setdefault(m.group(1), set()).add(m.group(3))
    for syst, bases in found.items():
        for base, sides in bases.items():
            if sides != {"Up", "Down"}:
                have, miss = next(iter(sides)), ({"Up", "Down"} - sides).pop()
                raise InputError(f"{path}: branch '{base}__{syst}{have}' has no '{base}__{syst}{miss}'. "
                                 "Fix: write both variations of every nuisance.")  # fmt: skip
    names = sorted(found) if list(asked) == ["all"] else list(asked)
    unknown = [n for n in names if n not in found]
    if unknown:
        raise InputError(f"{path}: no variation branches for --syst {', '.join(unknown)}; nuisances found: "
                         f"{', '.join(sorted(found)) or 'none'} (branches <score or weight>__<name>Up/Down).")  # fmt: skip
    return {n: {base: f"{base}__{n}" for base in found[n]} for n in names}


def templates_for(path, tree: str, opts: SystOptions, bases: set[str]) -> tuple[dict, list[str]]:
    """The template nuisances asked for (--syst) and the variation branches of `bases` to read."""
    if not opts.names:
        return {}, []
    from pnetviz.io.ntuple import branch_types  # noqa: PLC0415

    templates = find_templates(path, [b for b in branch_types(path, tree) if b], opts.names)
    return templates, variation_branches(templates, bases)


def variation_branches(templates: dict[str, dict[str, str]], wanted_bases: set[str]) -> list[str]:
    return [f"{stem}{side}" for bases in templates.values() for base, stem in bases.items() if base in wanted_bases
            for side in ("Up", "Down")]  # fmt: skip


def nuisances(nominal: BinarySample, templates: dict[str, dict[str, str]],
              variant: Callable[[dict[str, str], str], tuple[np.ndarray, np.ndarray]], shifts: dict[str, float],
              shift_mask: Callable[[str], np.ndarray | None], kappa: float, mode: str) -> list[profiled.Nuisance]:  # fmt: skip
    """profiled.Nuisance list of one pair. variant(bases, "Up") -> (scores, signed weights) of the
    pair's events with those branches varied; shift_mask(class) -> which events move (None: the
    class is not in this pair)."""
    out = []
    for name, bases in templates.items():
        sides = {}
        for side in ("Up", "Down"):
            scores, weights = variant(bases, side)
            sides[side] = BinarySample(scores, nominal.is_signal, weights, mode_weights(weights, mode))
        out.append(profiled.Nuisance(name, "template", sides["Up"], sides["Down"]))
    for cls, tau in shifts.items():
        mask = shift_mask(cls)
        if mask is None:
            continue
        moved = [BinarySample(nominal.scores + sign * kappa * tau * mask, nominal.is_signal, nominal.weights, nominal.used)
                 for sign in (1.0, -1.0)]  # fmt: skip
        out.append(profiled.Nuisance(f"shift_{cls}", "shift", *moved))
    return out


def report(prof: profiled.Profiled, nuisance_list: Sequence[profiled.Nuisance], templates: dict, opts: SystOptions) -> dict:
    described = []
    for n in nuisance_list:
        if n.kind == "template":
            described.append({"name": n.name, "kind": "template", "branches": sorted(templates[n.name].values())})
        else:
            cls = n.name.removeprefix("shift_")
            described.append({"name": n.name, "kind": "score shift", "class": cls, "tau": opts.shifts[cls],
                              "range": [-opts.kappa * opts.shifts[cls], opts.kappa * opts.shifts[cls]]})  # fmt: skip
    return {"split": "test", "kappa": opts.kappa, "nuisances": described, "interpolation": profiled.INTERPOLATION,
            "combination": profiled.COMBINATION, **profiled.summary(prof)}  # fmt: skip


def readable(name: str) -> str:
    """A nuisance's name for a legend: shift_background -> "Background score shift", bkgShape ->
    "Bkg shape", jes_total -> "Jes total" (the report keeps the names as given)."""
    if name.startswith("shift_"):
        cls = name.removeprefix("shift_")
        return f"{display_label(cls, {}) if cls not in ('signal', 'background') else cls.capitalize()} score shift"
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").split()
    return " ".join([words[0].capitalize(), *(w.lower() for w in words[1:])]) if words else name


def figures(prof: profiled.Profiled, key: str, context: Sequence[str], roc_name: str, rejection_name: str,
            nominal_error: float = float("nan")) -> list[canvas.Figure]:  # fmt: skip
    """ROC and rejection: nominal, the profiled curve and the band between the most and least
    favourable configurations; each variation (up dashed, down dotted) is stored in the ROOT file
    with the figure but not drawn (a legend line each would cover the curves at 8 cm)."""
    worst, best = prof.curve(), prof.curve(prof.fpr, prof.best_tpr)
    ctx = [*context, "test events, profiled"]
    roc = [CurveSpec(f"{key}/roc_nominal", prof.nominal.fpr, prof.nominal.tpr,
                     f"Nominal: AUC {pm(prof.nominal.auc, nominal_error, 'tlatex', '.3f')}",
                     meaning_color("nominal"), line_style("nominal")),
           CurveSpec(f"{key}/roc_profiled", worst.fpr, worst.tpr, f"Profiled: AUC {prof.auc:.3f}", meaning_color("profiled"),
                     line_style("profiled"))]  # fmt: skip
    rej = [_rejection_spec(f"{key}/rejection_nominal", prof.nominal.fpr, prof.nominal.tpr, "Nominal", meaning_color("nominal"),
                           line_style("nominal")),
           _rejection_spec(f"{key}/rejection_profiled", worst.fpr, worst.tpr, "Profiled", meaning_color("profiled"),
                           line_style("profiled"))]  # fmt: skip
    roc_variations, rejection_variations = [], []
    for i, ((name, side), (fpr, tpr)) in enumerate(prof.variations.items()):
        style, col = (2 if side == "up" else 3), cycle_color(2 + i // 2)
        label = f"{readable(name)}, {side}"
        roc_variations.append(CurveSpec(f"{key}/roc_{name}_{side}", fpr, tpr, label, col, style))
        rejection_variations.append(_rejection_spec(f"{key}/rejection_{name}_{side}", fpr, tpr, label, col, style))

    def roc_band(fig: canvas.Figure) -> None:
        canvas.add_band(fig, f"{key}/roc_band", FPR_GRID, np.interp(FPR_GRID, worst.fpr, worst.tpr),
                      np.interp(FPR_GRID, best.fpr, best.tpr), "Nuisance envelope", band_color=meaning_color("envelope"))  # fmt: skip

    def rejection_band(fig: canvas.Figure) -> None:
        with np.errstate(divide="ignore"):
            low, high = 1.0 / eps_b_on_grid(worst, EFF_GRID), 1.0 / eps_b_on_grid(best, EFF_GRID)
        canvas.add_band(fig, f"{key}/rejection_band", EFF_GRID, low, high, "Nuisance envelope", band_color=meaning_color("envelope"))

    roc_fig = plots.roc_figure(roc_name, roc, ctx, underlay=roc_band, ratio=_ratio_panel(key, "roc", prof, worst, best))
    rejection_fig = plots.rejection_figure(rejection_name, [c for c in rej if c.x.size], ctx, underlay=rejection_band,
                                           ratio=_ratio_panel(key, "rejection", prof, worst, best))  # fmt: skip
    plots.store_curves(roc_fig, roc_variations, quantity("background_efficiency"), quantity("signal_efficiency"))
    plots.store_curves(rejection_fig, [c for c in rejection_variations if c.x.size], quantity("signal_efficiency"),
                       quantity("rejection"))  # fmt: skip
    return [roc_fig, rejection_fig]


def _ratio_panel(key: str, kind: str, prof: profiled.Profiled, worst, best) -> plots.RatioPanel:
    """The profiled curve over the nominal one, its band the nuisance envelope over the nominal
    (signal efficiency at fixed eps_b for the ROC, rejection at fixed eps_s)."""
    if kind == "roc":
        nominal = tpr_on_grid(prof.nominal, FPR_GRID)
        line = ratio_to_reference(FPR_GRID, tpr_on_grid(worst, FPR_GRID), nominal)
        edges = [ratio_to_reference(FPR_GRID, tpr_on_grid(c, FPR_GRID), nominal).ratio for c in (worst, best)]
    else:
        nominal = eps_b_on_grid(prof.nominal, EFF_GRID)
        line = rejection_ratio_from_eps(EFF_GRID, eps_b_on_grid(worst, EFF_GRID), nominal)
        edges = [rejection_ratio_from_eps(EFF_GRID, eps_b_on_grid(c, EFF_GRID), nominal).ratio for c in (worst, best)]
    band = replace(line, low=np.fmin(*edges), high=np.fmax(*edges))
    return plots.RatioPanel("nominal", [plots.RatioSpec(f"{key}/{kind}_ratio_profiled", band, meaning_color("profiled"),
                                                        line_style("profiled"))])  # fmt: skip


def _rejection_spec(key: str, fpr: np.ndarray, tpr: np.ndarray, label: str, col: int, style: int) -> CurveSpec:
    ok = fpr > 0
    return CurveSpec(key, tpr[ok], 1.0 / fpr[ok], label, col, style)
