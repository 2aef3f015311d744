"""Expected results without nuisance parameters: the closed-form binned Asimov Z, pyhf's CLs
limit on the written pyhf JSON, and the RooFit fit of the HistFactory workspace (the same numbers)."""

from __future__ import annotations

import json

import numpy as np
import pyhf
import pytest

from pnetviz.limits.expect import from_workspace
from pnetviz.limits.histfactory import workspace
from pnetviz.limits.model import expected, write_outputs
from pnetviz.limits.prepare import prepare
from limits_toys import no_nuisances


def asimov_z(s, b):
    return np.sqrt(np.sum(2 * ((s + b) * np.log(1 + s / b) - s)))


def pyhf_limits(path):
    pyhf.set_backend("numpy")
    ws = pyhf.Workspace(json.loads(path.read_text()))
    model = ws.model()
    median, bands = pyhf.infer.intervals.upper_limits.upper_limit(ws.data(model), model, test_stat="qtilde")
    return [float(b) for b in bands]


def test_significance_is_the_closed_form_asimov_z():
    model = no_nuisances()
    s = np.concatenate([ch.signal.contents for ch in model.channels])
    b = np.concatenate([sum(x.contents for x in ch.backgrounds) for ch in model.channels])
    result = expected(model)
    assert result.error is None and result.nuisances == ()
    assert result.significance == pytest.approx(asimov_z(s, b), rel=1e-3)
    assert result.significance == pytest.approx(2.8236, abs=1e-4)  # the toy's bins summed by hand


@pytest.mark.slow  # pyhf's root finding: about 15 hypothesis tests
def test_limit_is_pyhfs_on_the_written_workspace(tmp_path):
    model = no_nuisances()
    names = write_outputs(model, tmp_path, "toy")
    ours = expected(model).limit
    theirs = pyhf_limits(tmp_path / names["pyhf"])
    assert [ours.m2, ours.m1, ours.median, ours.p1, ours.p2] == pytest.approx(theirs, rel=0.01)
    assert ours.m2 < ours.m1 < ours.median < ours.p1 < ours.p2


def test_closed_form_equals_the_roofit_fit():
    """The fast path (no ROOT) gives the numbers of the full HistFactory fit."""
    prepared = prepare(no_nuisances()).model
    fast = expected(no_nuisances())
    full = from_workspace(workspace(prepared, mu_max=100.0), mu_start=1.0)
    assert full.nuisances == ()
    assert full.significance == pytest.approx(fast.significance, rel=1e-6)
    for band in ("m2", "m1", "median", "p1", "p2"):
        assert getattr(full.limit, band) == pytest.approx(getattr(fast.limit, band), rel=1e-3)
