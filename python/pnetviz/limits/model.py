"""The fit model of the limits package and what a fit of it answers (the public surface).

`expected(model)` gives the expected discovery significance and the expected 95 % CLs upper
limit on mu (asymptotic: median and +-1, +-2 sigma) on Asimov data; `write_outputs` writes the
Combine datacard with its shapes.root, the HS3 JSON workspace (written by ROOT) and the pyhf
JSON workspace. The likelihood and the conventions: docs/limits.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pnetviz.limits.spec import Channel, Expected, FitModel, Limit, Sample

__all__ = ["Built", "Channel", "Expected", "FitModel", "Limit", "Sample", "build", "expected", "refit", "write_outputs"]


@dataclass(frozen=True)
class Built:
    """A model prepared once (limits/prepare.py) and its HistFactory workspace (None without
    nuisance parameters, or when it cannot be built: then each caller builds and reports as alone),
    for `write_outputs` first (the HS3 JSON of the unfitted workspace) and `expected` after."""

    prepared: object
    workspace: object | None
    structure: tuple | None = None  # limits/reuse.py: the models whose fits may reuse the workspace
    state: dict | None = None  # the workspace's variables as HistFactory left them


def build(model: FitModel) -> Built:
    """`model` prepared and its workspace built once, for write_outputs then expected: the numbers
    and files are those of the separate calls (tests/limits/test_shared_build.py)."""
    from pnetviz.limits import reuse  # noqa: PLC0415
    from pnetviz.limits.histfactory import workspace  # noqa: PLC0415 - ROOT only when asked
    from pnetviz.limits.prepare import has_nuisances, mu_scale, prepare  # noqa: PLC0415

    prepared = prepare(model)
    if prepared.problem or not has_nuisances(prepared.model):
        return Built(prepared, None)
    try:
        ws = workspace(prepared.model, mu_max=10 * mu_scale(prepared.model))
    except Exception:  # noqa: BLE001 - built again by each caller, which reports it in its own words
        return Built(prepared, None)
    return Built(prepared, ws, reuse.structure(prepared.model), reuse.initial_state(ws))


def refit(model: FitModel, built: Built) -> Expected:
    """expected(model), with the workspace of `built` (already fitted or not) refitted in place when
    the prepared `model` has its structure (the per-fold fits of a strategy): the same numbers as a
    fresh build (tests/limits/test_reuse.py), without HistFactory's build."""
    from pnetviz.limits import reuse  # noqa: PLC0415
    from pnetviz.limits.prepare import has_nuisances, mu_scale, prepare  # noqa: PLC0415

    prepared = prepare(model)
    if (built.workspace is None or built.structure is None or prepared.problem or not has_nuisances(prepared.model)
            or reuse.structure(prepared.model) != built.structure):
        return expected(model, Built(prepared, None))
    reuse.retarget(built.workspace, built.state, prepared.model, mu_max=10 * mu_scale(prepared.model))
    return expected(model, Built(prepared, built.workspace))


def expected(model: FitModel, built: Built | None = None) -> Expected:
    """The expected significance and CLs limit of `model` (asymptotic, Asimov data): RooFit fits
    of its HistFactory workspace, or the closed forms when it has no nuisance parameter.
    `built`: build(model), if made (its workspace is fitted here: write_outputs before)."""
    from pnetviz.limits.expect import expected_results  # noqa: PLC0415 - ROOT only when asked

    if built is None:
        return expected_results(model)
    return expected_results(model, built.prepared, built.workspace)


def write_outputs(model: FitModel, directory: Path, stem: str, built: Built | None = None) -> dict[str, str]:
    """datacard (<stem>.txt), shapes (<stem>_shapes.root), HS3 JSON (<stem>_hs3.json), pyhf JSON
    (<stem>_pyhf.json); returns {"datacard","shapes","hs3","pyhf"} relative file names.
    `built`: build(model), if made (its workspace not fitted yet)."""
    from pnetviz.limits.outputs import write_all  # noqa: PLC0415

    if built is None:
        return write_all(model, Path(directory), stem)
    return write_all(model, Path(directory), stem, built.prepared, built.workspace)
