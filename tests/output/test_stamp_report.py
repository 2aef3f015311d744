"""rounds.stamp_report records the round in a staged summary_report.json without re-encoding it:
the file stays as report.dumps writes it (compact), its values exact."""

from __future__ import annotations

import json
import math

from pnetviz.output import rounds
from pnetviz.output.report import dumps, plain, write_reports

MINE = {"name": "ana-results", "results": "/x/ana/results"}


def test_round_appended_to_the_report_as_dumps_writes_it(tmp_path):
    report = {"auc": 0.1 + 0.2, "tiny": 1e-300, "big": 123456789.123456789, "none": math.nan,
              "curve": [0.1, 1 / 3, 2e-17], "nested": {"a": [{"b": 1}], "c": "x\"y"}}  # fmt: skip
    write_reports(tmp_path, report, "title")
    rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
    text = (tmp_path / "summary_report.json").read_text()
    expected = {**plain(report), rounds.KEY: MINE}
    assert text == dumps(expected) + "\n"  # compact as written, the round last
    assert list(json.loads(text)) == [*report, rounds.KEY] and json.loads(text) == expected
    assert '"curve":[0.1,0.3333333333333333,2e-17]' in text and "\n" not in text[:-1]


def test_a_report_with_another_round_gets_this_one_in_place(tmp_path):
    path = tmp_path / "summary_report.json"
    path.write_text(dumps({"a": 1, rounds.KEY: {"name": "old", "results": "/old"}, "z": [1.5, 2.5]}) + "\n")
    rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
    assert json.loads(path.read_text()) == {"a": 1, rounds.KEY: MINE, "z": [1.5, 2.5]}
    assert list(json.loads(path.read_text())) == ["a", rounds.KEY, "z"]


def test_same_round_empty_report_and_unreadable_files(tmp_path):
    path = tmp_path / "summary_report.json"
    same = dumps({"a": [1, 2], rounds.KEY: MINE}) + "\n"
    path.write_text(same)
    rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
    assert path.read_text() == same
    path.write_text("{}\n")
    rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
    assert json.loads(path.read_text()) == {rounds.KEY: MINE}
    for broken in ('{"a": 1', "[1, 2]\n", '{"a": 1e400}\n'):  # left to verification, untouched
        path.write_text(broken)
        rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
        assert path.read_text() == broken
    rounds.stamp_report(tmp_path, {})
    assert path.read_text() == broken


def test_round_appended_to_an_indented_report_of_an_older_pnetviz(tmp_path):
    path = tmp_path / "summary_report.json"
    path.write_text(json.dumps({"a": [1.5, 2.5], "b": {"c": None}}, indent=2) + "\n")
    rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
    assert json.loads(path.read_text()) == {"a": [1.5, 2.5], "b": {"c": None}, rounds.KEY: MINE}


def test_stamp_report_hands_verification_the_bytes_it_checked(tmp_path):
    """The bytes stamp_report returns are the file's (appended, unchanged or of another round: None
    where it re-encodes); verify_file parses a file holding other bytes as before: a report
    damaged after the stamp is refused with check_json's message."""
    from pnetviz.output.atomic import verify_file

    path = tmp_path / "summary_report.json"
    write_reports(tmp_path, {"auc": 0.9, "curve": [0.5, 1.5]}, "title")
    known = rounds.stamp_report(tmp_path, {rounds.KEY: MINE})
    assert known == path.read_bytes() and known.endswith(b',"round":{"name":"ana-results","results":"/x/ana/results"}}\n')
    assert rounds.stamp_report(tmp_path, {rounds.KEY: MINE}) == known  # already stamped: the file as it is
    assert verify_file(path, known) is None
    path.write_bytes(known[:-20])  # truncated after the stamp (a full disk)
    message = verify_file(path, known)
    assert message == verify_file(path) and message.startswith("does not read back as JSON (") and "not valid JSON" in message
    path.write_text(dumps({"a": 1, rounds.KEY: {"name": "old", "results": "/old"}}) + "\n")
    assert rounds.stamp_report(tmp_path, {rounds.KEY: MINE}) is None  # re-encoded: verification parses it
    assert rounds.stamp_report(tmp_path, {}) is None
