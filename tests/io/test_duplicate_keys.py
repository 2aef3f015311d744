"""A key given twice in one JSON object of a record others can edit (a `--columns` mapping, a set's
marker, a round's round_options.json, the plots tree's rounds.json) is a bad file, one line naming
it and the key: `json` keeps the last value silently, so a colleague reading the file (its first
`"weight"`, its first `"command"`) saw one mapping or command line and pnetviz used another."""

from __future__ import annotations

import json

import pytest

from conftest import load_script
from pnetviz.cli import campaign as campaign_cli
from pnetviz.cli.common import run
from pnetviz.cli.remember import MANIFEST, MARKER, read_manifest, recorded_command
from pnetviz.demo.trainertree import ModelSpec, write_trainer_fold
from pnetviz.errors import InputError
from pnetviz.io.columns import parse_columns
from pnetviz.io.readers import parse_json
from pnetviz.io.roundname import REGISTRY, round_name

COMMAND = ["pnetviz", "binary", "--results-dir", "r"]


def test_a_columns_file_with_a_key_twice_is_refused(tmp_path):
    path = tmp_path / "mapping.json"
    path.write_text('{"weight": "weight", "true_label": "isSignal", "weight": "abs(weight)"}')
    with pytest.raises(InputError, match=f"^--columns {path}: the key 'weight' is given twice in one object"):
        parse_columns(None, path)
    path.write_text('{"weight": "weight", "Weight": "abs(weight)"}')  # two keys (contract names are case-sensitive)
    assert parse_columns(None, path) == (("weight", "weight"), ("Weight", "abs(weight)"))


def test_a_marker_with_its_command_twice_is_refused(tmp_path):
    (tmp_path / MARKER).write_text(f'{{"command": {json.dumps(COMMAND)}, "command": {json.dumps(COMMAND + ["-q"])}}}')
    with pytest.raises(InputError, match=f"^{tmp_path / MARKER}: the key 'command' is given twice in one object"):
        recorded_command(tmp_path)
    (tmp_path / MARKER).write_text(json.dumps({"command": COMMAND + ["-q"]}))
    assert recorded_command(tmp_path) == ["--results-dir", "r", "-q"]


def test_round_options_with_an_option_twice_are_refused(tmp_path):
    (tmp_path / MANIFEST).write_text('{"options": {"bootstrap": 200, "bootstrap": 0}}')
    with pytest.raises(InputError, match=f"^{tmp_path / MANIFEST}: the key 'bootstrap' is given twice in one object"):
        read_manifest(tmp_path, campaign_cli.parser(None))
    (tmp_path / MANIFEST).write_text('{"options": {"bootstrap": 200}}')
    assert read_manifest(tmp_path, campaign_cli.parser(None)) == {"bootstrap": 200}


def test_a_registry_with_a_round_twice_is_refused(tmp_path):
    (tmp_path / REGISTRY).write_text(f'{{"rounds": {{"results": "{tmp_path / "a"}", "results": "{tmp_path / "b"}"}}}}')
    with pytest.raises(InputError, match=f"^{tmp_path / REGISTRY}: the key 'results' is given twice in one object"):
        round_name(tmp_path, tmp_path / "b", None)


def test_other_files_keep_json_s_rule_and_the_key_is_shown_escaped():
    assert parse_json(b'{"a": 1, "a": 2}', "f") == {"a": 2}  # summaries, histories: not records others edit
    with pytest.raises(InputError, match=r"^f: the key '\\n\\x1b\[2J' is given twice"):
        parse_json(b'{"\\n\\u001b[2J": 1, "\\n\\u001b[2J": 2}', "f", unique=True)


def test_binary_with_such_a_mapping_is_one_line_and_exit_2(tmp_path, capsys):
    results = tmp_path / "results"
    write_trainer_fold(results, "Run3Mu", "MHc130_MA90", 0, models=(ModelSpec("binary", "nonprompt"),), events=200)
    mapping = tmp_path / "mapping.json"
    mapping.write_text('{"weight": "weight", "weight": "0 * weight"}')
    capsys.readouterr()
    argv = ["--results-dir", str(results), "--plots-dir", str(tmp_path / "plots"), "--background", "nonprompt",
            "--fold", "0", "--columns", str(mapping), "--bootstrap", "0", "--formats", "png", "-q"]  # fmt: skip
    assert run(load_script("visualizeBinary").main, argv) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert err == [f"pnetviz: error: --columns {mapping}: the key 'weight' is given twice in one object. Fix: write "
                   '{"<contract column>": "<branch or expression>", ...}.']  # fmt: skip
    published = [p.name for p in (tmp_path / "plots").rglob("*") if p.is_file()]
    assert published == [REGISTRY]  # nothing published (the round's name is claimed first)
