"""A warm process builds the top-level parser once and `remember.single` one parser for both of its
parses (each build costs ~1-2 ms of a warm evaluation); what they parse is unchanged."""

from __future__ import annotations

import json

import pytest

from pnetviz.cli import common, main, remember


def test_top_parser_is_built_once_and_still_answers():
    assert main.parser() is main.parser()
    with pytest.raises(SystemExit) as stop:
        main.main(["no-such-command"])
    assert stop.value.code == 2
    assert main.main([]) == 2


def test_single_builds_one_parser_for_both_parses(tmp_path):
    target = tmp_path / "fold-0"
    target.mkdir()
    recorded = ["pnetviz", "binary", "--results-dir", "r", "--syst", "all", "--formats", "png"]
    (target / ".pnetviz-set.json").write_text(json.dumps({"files": [], "command": recorded}))
    built = []

    def make_parser():
        built.append(1)
        return common.evaluation_parser("binary", None, "", "")

    argv = ["--results-dir", "r", "--formats", "png"]
    args = common.evaluation_parser("binary", None, "", "").parse_args(argv)
    changes = remember.single(args, argv, "binary", make_parser, [target])
    assert len(built) == 1
    assert changes.reused == {"--syst": "all"} and args.syst == "all"  # the recorded option, reused
    argv = [*argv, "--syst", "none"]
    args = common.evaluation_parser("binary", None, "", "").parse_args(argv)
    changes = remember.single(args, argv, "binary", make_parser, [target])
    assert len(built) == 2 and changes.reused == {} and set(changes.changed) == {"--syst"} and args.syst == "none"
