"""The fit model of the limits package and what a fit of it answers (the public surface).

`expected(model)` gives the expected discovery significance and the expected 95 % CLs upper
limit on mu (asymptotic: median and +-1, +-2 sigma) on Asimov data; `write_outputs` writes the
Combine datacard with its shapes.root, the HS3 JSON workspace (written by ROOT) and the pyhf
JSON workspace. The likelihood and the conventions: docs/limits.md.
"""

from __future__ import annotations

from pathlib import Path

from pnetviz.limits.spec import Channel, Expected, FitModel, Limit, Sample

__all__ = ["Channel", "Expected", "FitModel", "Limit", "Sample", "expected", "write_outputs"]


def expected(model: FitModel) -> Expected:
    """The expected significance and CLs limit of `model` (asymptotic, Asimov data): RooFit fits
    of its HistFactory workspace, or the closed forms when it has no nuisance parameter."""
    from pnetviz.limits.expect import expected_results  # noqa: PLC0415 - ROOT only when asked

    return expected_results(model)


def write_outputs(model: FitModel, directory: Path, stem: str) -> dict[str, str]:
    """datacard (<stem>.txt), shapes (<stem>_shapes.root), HS3 JSON (<stem>_hs3.json), pyhf JSON
    (<stem>_pyhf.json); returns {"datacard","shapes","hs3","pyhf"} relative file names."""
    from pnetviz.limits.outputs import write_all  # noqa: PLC0415

    return write_all(model, Path(directory), stem)
