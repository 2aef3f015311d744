"""An output set's limits/ directory (the datacards and workspaces of a folds/ set): its files are
verified like the set's own and listed in the marker (`nested_files`); a damaged one stops the
publication."""

from __future__ import annotations

import json

import pytest

from pnetviz.output import atomic


def staged(tmp_path):
    stage = tmp_path / "stage"
    (stage / "limits").mkdir(parents=True)
    (stage / "limits.json").write_text('{"schema":1}\n')
    (stage / "limits" / "signal_vs_ttZ_score-fit.txt").write_text("imax 1\n")
    (stage / "limits" / "signal_vs_ttZ_score-fit_pyhf.json").write_text('{"channels":[]}\n')
    (stage / "other").mkdir()  # a directory that is not NESTED: not listed
    (stage / "other" / "x.txt").write_text("x\n")
    return stage


def test_nested_files_verified_and_listed(tmp_path):
    stage = staged(tmp_path)
    atomic.seal(stage, {})
    marker = json.loads((stage / atomic.MARKER).read_text())
    assert marker["files"] == ["limits.json"]
    assert marker["nested_files"] == ["limits/signal_vs_ttZ_score-fit.txt", "limits/signal_vs_ttZ_score-fit_pyhf.json"]


def test_a_damaged_nested_file_stops_publication(tmp_path):
    stage = staged(tmp_path)
    (stage / "limits" / "signal_vs_ttZ_score-fit_pyhf.json").write_text('{"channels": [')
    with pytest.raises(atomic.OutputError, match="limits/signal_vs_ttZ_score-fit_pyhf.json: does not read back as JSON"):
        atomic.seal(stage, {})
    (stage / "limits" / "signal_vs_ttZ_score-fit_pyhf.json").write_text("")
    with pytest.raises(atomic.OutputError, match="empty file"):
        atomic.seal(stage, {})
