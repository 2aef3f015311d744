"""`pnetviz binary --stream` end to end on a small ntuple: the streamed set's numbers equal the
in-memory evaluation's (AUC to 1e-9), its files, the line that says what it leaves out, the
automatic switch above --memory-budget, and the options it refuses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import contract_columns, write_ntuple
from pnetviz.cli import binary
from pnetviz.cli.common import run
from pnetviz.jobs import streamed

STREAMED = ["roc_curve", "roc_curve_logx", "rejection_curve", "precision_recall_curve", "score_distributions"]


@pytest.fixture(scope="module")
def ntuple(tmp_path_factory):
    cols = contract_columns(n=3000, seed=5, n_classes=2)
    cols["score_signal"][:600] = np.round(cols["score_signal"][:600] * 40) / 40  # ties
    return write_ntuple(tmp_path_factory.mktemp("streamed") / "pred.root", cols)


@pytest.fixture(scope="module")
def both(ntuple, tmp_path_factory):
    """(in-memory report, streamed report, streamed directory, the streamed run's stdout lines)."""
    out = tmp_path_factory.mktemp("sets")
    base = ["--predictions", str(ntuple), "--fold", "0", "--formats", "png"]
    assert run(binary.main, [*base, "--output", str(out / "memory"), "-q"]) == 0
    import contextlib, io  # noqa: E401, PLC0415 - the streamed run's printed lines

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert run(binary.main, [*base, "--output", str(out / "stream"), "--stream"]) == 0
    read = lambda d: json.loads((out / d / "summary_report.json").read_text())  # noqa: E731
    return read("memory"), read("stream"), out / "stream", printed.getvalue().splitlines()


@pytest.mark.slow  # two evaluations
def test_streamed_numbers_equal_the_in_memory_ones(both):
    memory, stream, _, _ = both
    for split in ("train", "test"):
        assert abs(stream["auc"][split] - memory["auc"][split]) < 1e-9
        m, s = memory["hep_metrics"][split], stream["hep_metrics"][split]
        assert s["auc_bound"] == 0.0  # exact float32 keys
        for key in ("binned_fip_50", "fip2_hull", "average_precision"):
            assert s[key] == pytest.approx(m[key], rel=1e-9), key
        for key in ("fip1", "punzi", "asimov"):
            assert s[key]["value"] == pytest.approx(m[key]["value"], rel=1e-9), key
            assert s[key]["threshold"] == m[key]["threshold"], key
        for eff, value in m["rejection"].items():
            assert s["rejection"][eff] == pytest.approx(value, rel=1e-9), eff
        assert s["effective_events"]["background"] == pytest.approx(m["effective_events"]["background"], rel=1e-9)
        assert stream["events"][split] == memory["events"][split]


@pytest.mark.slow
def test_streamed_set_files_and_the_line_naming_what_it_leaves_out(both):
    _, stream, directory, lines = both
    for stem in STREAMED:
        assert (directory / f"{stem}.png").exists(), stem
    assert not (directory / "confusion_matrix.png").exists() and not (directory / "working_points.json").exists()
    fine = json.loads((directory / streamed.FINE_FILE).read_text())
    assert fine["edges"][0] == 0.0 and fine["edges"][-1] == 1.0 and len(fine["splits"]["test"]["signal"]) == len(fine["edges"]) - 1
    total = stream["sum_weights"]["test"]["signal"]
    assert sum(fine["splits"]["test"]["signal"]) == pytest.approx(total, rel=1e-12)
    assert stream["evaluation"]["path"] == "streamed" and stream["evaluation"]["left_out"] == streamed.LEFT_OUT
    said = [line for line in lines if "left out" in line]
    assert len(said) == 1 and "streaming (--stream)" in said[0] and "bootstrap errors" in said[0]


@pytest.mark.slow
def test_streams_by_itself_above_the_memory_budget(ntuple, tmp_path, capsys):
    argv = ["--predictions", str(ntuple), "--fold", "0", "--formats", "none", "--output", str(tmp_path / "s"),
            "--memory-budget", "0.5"]  # fmt: skip
    assert run(binary.main, argv) == 0
    out = capsys.readouterr().out
    assert "above --memory-budget 0.5 GB; streaming it in chunks instead" in out
    assert json.loads((tmp_path / "s" / "summary_report.json").read_text())["evaluation"]["path"] == "streamed"


def test_the_rule_of_the_switch():
    assert streamed.estimate_gb(0) == streamed.IN_MEMORY_FLOOR_GB
    assert streamed.estimate_gb(10**8) == pytest.approx(0.55 + 10.0)


@pytest.mark.slow  # the module's ntuple is written first
def test_options_that_need_the_events_are_refused(ntuple, tmp_path, capsys):
    argv = ["--predictions", str(ntuple), "--fold", "0", "--output", str(tmp_path / "s"), "--stream", "--subset", "has_bjet", "-q"]
    assert run(binary.main, argv) == 2
    err = capsys.readouterr().err
    assert "--subset need the events in memory" in err and "Traceback" not in err


def test_one_fold_at_a_time(tmp_path, capsys):
    assert run(binary.main, ["--results-dir", str(tmp_path), "--fold", "all", "--stream", "-q"]) == 2
    assert "--stream evaluates one fold at a time (--fold all)" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["in#put", "a?b"])
def test_a_path_with_root_specials_is_streamed_as_it_is(ntuple, tmp_path, name):
    """The entry count and the chunks open the ntuple under a name ROOT takes literally (a '#' or
    '?' in a directory is a character, not an anchor or options)."""
    d = tmp_path / name
    d.mkdir()
    path = d / "pred.root"
    path.write_bytes(ntuple.read_bytes())
    from pnetviz.jobs import stream  # noqa: PLC0415

    assert stream.entries(path) == 3000
    assert sum(c["weight"].size for c in stream.chunks(path, ["weight"], chunk=1000)) == 3000


@pytest.mark.slow  # two evaluations (the module's fixture)
def test_the_streamed_auc_carries_the_weighted_delong_error_of_its_events(both):
    """No bootstrap in the streamed set (it needs each event): its AUC error is the weighted DeLong
    error, from the per-score sums, equal to metrics.delong on the test events (|w|, the default)."""
    from pnetviz.metrics.delong import delong_error  # noqa: PLC0415

    cols = contract_columns(n=3000, seed=5, n_classes=2)
    cols["score_signal"][:600] = np.round(cols["score_signal"][:600] * 40) / 40
    test = cols["test_mask"]
    expected = delong_error(cols["score_signal"][test].astype(np.float32), cols["true_label"][test] == 0,
                            np.abs(cols["weight"][test]))  # fmt: skip
    _, stream, _, _ = both
    assert stream["hep_metrics"]["test"]["auc_error"] == pytest.approx(expected, rel=1e-9)
    assert stream["hep_metrics"]["test"]["auc_error_method"] == "delong"
