"""The campaign's request (requests/campaign.py): one field per option, typed and frozen; the jobs'
command lines (campaign.plan.Job) rebuild exactly the evaluation requests the campaign settled,
and a job still pickles as plain data."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from pnetviz.cli import binary, campaign, common, multiclass
from pnetviz.errors import InputError
from pnetviz.requests.campaign import CampaignRequest
from pnetviz.requests.evaluation import EvaluationOptions


def test_the_fields_are_the_options_dests():
    dests = {a.dest for a in campaign.parser("pnetviz campaign")._actions if a.dest != "help"}
    assert {f.name for f in dataclasses.fields(CampaignRequest)} == dests


def test_parse_args_gives_a_typed_frozen_request(tmp_path):
    request = campaign.parse_args(["--results-dir", str(tmp_path), "--workers", "0", "--column", "weight=w",
                                   "--jsroot", "js", "--images", "none", "--job-timeout", "60"], None)  # fmt: skip
    assert isinstance(request, CampaignRequest) and request.results_dir == tmp_path
    assert request.column == ("weight=w",) and request.jsroot == Path("js") and request.images == "none"
    assert (request.workers, request.job_timeout) == (0, 60.0) and type(request.job_timeout) is float
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.workers = 3
    default = campaign.parse_args(["--results-dir", str(tmp_path)], None)
    assert default.workers >= 1  # the local cluster's size settled once, in the request


def test_the_legacy_output_is_the_plots_dir():
    with pytest.warns(UserWarning, match="--plots-dir"):
        request = campaign.parse_args(["--output", "out/tree", "--workers", "0"], None)
    assert request.plots_dir == Path("out/tree") and request.legacy_output == "out/tree"


@pytest.mark.parametrize(("kind", "sub"), [("binary", binary), ("multiclass", multiclass)])
def test_a_jobs_argv_rebuilds_the_campaigns_evaluation_options(kind, sub, tmp_path):
    """What a worker does with a job's command line (cli.commands -> <kind>.main) gives a request
    whose shared evaluation options are the campaign's, field by field (--images all, so the
    formats pass unchanged)."""
    request = campaign.parse_args(["--results-dir", str(tmp_path), "--workers", "0", "--images", "all",
                                   "--formats", "png", "--energy", "13.6", "--bootstrap", "7", "--syst", "all",
                                   "--column", "weight=w", "--hull", "--labels", "ttX=t#bar{t}X"], None)  # fmt: skip
    argv = common.passthrough(request, kind)
    job = common.evaluation_request(kind, sub.parser("pnetviz").parse_args(argv))
    shared = [f.name for f in dataclasses.fields(EvaluationOptions)]
    assert {n: getattr(job, n) for n in shared} == {n: getattr(request, n) for n in shared}
    assert (job.energy, job.bootstrap, job.column, job.formats) == (13.6, 7, ("weight=w",), "png")


def test_a_job_record_still_pickles_as_plain_data(tmp_path):
    from pnetviz.campaign.plan import Job  # noqa: PLC0415

    request = campaign.parse_args(["--results-dir", str(tmp_path), "--workers", "0", "--syst", "all"], None)
    job = Job("binary", "Run3Mu", "MHc130_MA90", "m", "ttZ", (0, 1), "binary",
              tuple(common.passthrough(request, "binary")), (), ())  # fmt: skip
    again = pickle.loads(pickle.dumps(job))
    assert again == job and "--syst" in again.argv
    assert pickle.loads(pickle.dumps(request)) == request  # the request pickles too (frozen dataclass)


def test_a_wrong_type_is_one_line():
    with pytest.raises(InputError, match=r"^CampaignRequest\.cluster \(--cluster\) = 'pbs': not one of 'local', "):
        CampaignRequest(cluster="pbs")
