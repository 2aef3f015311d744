"""expected(): the expected significance and limit of a prepared model, by the closed forms
(no nuisance parameter) or by the Asimov fits of its HistFactory workspace."""

from __future__ import annotations

from pnetviz.limits import asymptotic
from pnetviz.limits.asymptotic import FitFailed
from pnetviz.limits.fit import AsimovFits
from pnetviz.limits.histfactory import quiet_messages, workspace
from pnetviz.limits.prepare import Prepared, has_nuisances, mu_scale, prepare, totals
from pnetviz.limits.spec import Expected, FitModel


def from_workspace(ws, mu_start: float) -> Expected:
    """The expected results of a workspace (HistFactory's, or one read back from HS3 JSON)."""
    fits = AsimovFits(ws)
    names = fits.nuisance_names()
    try:
        with quiet_messages():  # once around all the fits (each fit's own is then a cheap no-op)
            z = fits.significance()
            limit, _ = asymptotic.solve_limit(fits.sqrt_qa, mu_start)
    except FitFailed as err:
        return Expected(significance=None, limit=None, nuisances=names, error=str(err))
    except Exception as err:  # noqa: BLE001 - a C++ exception from RooFit (cppyy raises it as a Python one): one line, no number
        return Expected(significance=None, limit=None, nuisances=names, error=_one_line("the fit failed", err))
    return Expected(significance=z, limit=limit, nuisances=names, error=None)


def _one_line(what: str, err: BaseException) -> str:
    first = (str(err).strip().splitlines() or [""])[0][:200]
    return f"{what}: {type(err).__name__}: {first}" if first else f"{what}: {type(err).__name__}"


def expected_results(model: FitModel, prepared: Prepared | None = None, ws=None) -> Expected:
    """`prepared`: prepare(model) if already made; `ws`: its workspace (mu_max = 10 mu_scale), built
    here when None. A workspace whose HS3 JSON was exported first gives the same numbers."""
    prepared = prepared or prepare(model)
    model, report = prepared.model, prepared.negative_bins
    if prepared.problem:
        return Expected(significance=None, limit=None, error=prepared.problem, negative_bins=report)
    scale = mu_scale(model)
    if not has_nuisances(model):
        s, b = totals(model)
        return Expected(significance=asymptotic.closed_form_significance(s, b),
                        limit=asymptotic.closed_form_limit(s, b), nuisances=(), error=None, negative_bins=report)
    try:
        ws = workspace(model, mu_max=10 * scale) if ws is None else ws
    except Exception as err:  # noqa: BLE001 - HistFactory's C++ exceptions: one line, no number
        return Expected(significance=None, limit=None, error=_one_line("HistFactory could not build the model", err),
                        negative_bins=report)
    result = from_workspace(ws, mu_start=scale / 2)
    return Expected(result.significance, result.limit, result.nuisances, result.error, report)
