"""One evaluation's request (requests.evaluation) after the command line: the model's files are
resolved once for the remembered options and the jobs, and the jobs' fields come from the request."""

from __future__ import annotations

import pytest

from pnetviz.cli import binary, common
from pnetviz.jobs import driver

from conftest import small_tree


@pytest.mark.slow  # a trainer tree written through ROOT first
def test_the_model_is_resolved_once_and_the_jobs_read_the_request(tmp_path, monkeypatch):
    results = small_tree(tmp_path / "results", signals=("MHc100_MA95",), events=300)
    argv = ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--channel", "Run3Mu",
            "--signal", "MHc100_MA95", "--background", "ttZ", "--fold", "0", "--bootstrap", "7", "--energy", "13.6",
            "--formats", "png", "-q"]  # fmt: skip
    request = common.evaluation_request("binary", binary.parser().parse_args(argv))
    calls, ran = [], []
    resolve = common.resolve_files
    monkeypatch.setattr(common, "resolve_files", lambda *a, **k: calls.append(a) or resolve(*a, **k))
    monkeypatch.setattr(driver, "run_jobs", lambda kind, todo, *a, **k: ran.extend(todo))
    assert common.evaluate_folds("binary", request, argv, binary.make_job(request), None, binary.what, "ttZ") == 0
    assert len(calls) == 1 and calls[0][0] is request
    (job,) = ran
    assert (job.fold, job.background, job.formats) == (0, "ttZ", ("png",))
    assert (job.hep.bootstrap, job.style.energy, job.progress) == (7, 13.6, False)
    assert job.output == tmp_path / "plots" / "results" / "Run3Mu" / "binary" / "MHc100_MA95" / job.model / "fold-0"

