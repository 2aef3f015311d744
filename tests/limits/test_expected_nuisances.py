"""Expected results with MC-statistics nuisances (Barlow-Beeston lite) and one shape systematic:
pyhf on the written pyhf JSON is the oracle (its own implementation of the likelihood), and the
HS3 JSON read back into ROOT gives the same numbers."""

from __future__ import annotations

import json
from statistics import NormalDist

import pyhf
import pytest

from pnetviz.limits.expect import from_workspace
from pnetviz.limits.histfactory import import_hs3
from pnetviz.limits.model import expected, write_outputs
from pnetviz.limits.prepare import mu_scale, prepare
from limits_toys import with_nuisances

BANDS = ("m2", "m1", "median", "p1", "p2")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    directory = tmp_path_factory.mktemp("limits")
    model = with_nuisances()
    return directory, write_outputs(model, directory, "toy"), expected(model)


def pyhf_model(path):
    pyhf.set_backend("numpy")
    ws = pyhf.Workspace(json.loads(path.read_text()))
    model = ws.model()
    return model, ws.data(model)


def test_the_fit_has_the_nuisances(written):
    _, _, result = written
    assert result.error is None
    assert set(result.nuisances) == {"alpha_jes", "gamma_stat_SR_bin_0", "gamma_stat_SR_bin_1", "gamma_stat_SR_bin_2"}


@pytest.mark.slow  # pyhf's root finding: about 15 hypothesis tests
def test_limit_is_pyhfs(written):
    directory, names, result = written
    model, data = pyhf_model(directory / names["pyhf"])
    _, bands = pyhf.infer.intervals.upper_limits.upper_limit(data, model, test_stat="qtilde")
    assert [getattr(result.limit, b) for b in BANDS] == pytest.approx([float(b) for b in bands], rel=0.02)


@pytest.mark.slow
def test_pyhfs_expected_cls_is_005_at_our_limits(written):
    """Sharper than the limits themselves: pyhf's expected CLs of each band, at our mu of that
    band, is the 5 % the limit is defined by (pyhf's root finding stops at rtol 1e-4 in mu)."""
    directory, names, result = written
    model, data = pyhf_model(directory / names["pyhf"])
    for index, band in enumerate(BANDS):
        _, cls = pyhf.infer.hypotest(getattr(result.limit, band), data, model, test_stat="qtilde", return_expected_set=True)
        assert float(cls[index]) == pytest.approx(0.05, abs=5e-4), band


@pytest.mark.slow
def test_significance_is_pyhfs_q0(written):
    directory, names, result = written
    model, data = pyhf_model(directory / names["pyhf"])
    pars = model.config.suggested_init()  # the nominal nuisances (pre-fit Asimov, as Combine's -t -1)
    pars[model.config.poi_index] = 1.0
    asimov = model.expected_data(pars)
    p0 = float(pyhf.infer.hypotest(0.0, asimov, model, test_stat="q0"))
    assert result.significance == pytest.approx(NormalDist().inv_cdf(1 - p0), rel=0.005)


def test_nuisances_weaken_the_limit(written):
    """The same templates without nuisances give a stronger limit and a larger significance."""
    _, _, result = written
    bare = expected(with_nuisances().__class__(with_nuisances().channels, mc_stat=False))
    assert bare.limit.median < result.limit.median
    assert bare.significance > result.significance


def test_hs3_read_back_gives_the_same_limit(written):
    directory, names, result = written
    start = mu_scale(prepare(with_nuisances()).model) / 2  # where expected() starts its root finding
    again = from_workspace(import_hs3(directory / names["hs3"]), mu_start=start)
    assert again.error is None
    assert again.significance == pytest.approx(result.significance, rel=1e-3)
    for band in BANDS:
        assert getattr(again.limit, band) == pytest.approx(getattr(result.limit, band), rel=1e-3)
