"""docs/rounds.md ("Comparing rounds"): its commands parse as written and run on the demo (the
campaigns with fast options appended: no bootstrap, PNG only, in-process), the second round placed
by --round beside the first, and the diff they end with writes its table, maps, overlays and page,
with no model significant between two seeds."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from conftest import REPO
from pnetviz.cli.commands import COMMANDS, parser_of, run_command

FAST = {"campaign": ["--workers", "0", "--bootstrap", "0", "--formats", "png", "--no-bjet-comparison", "-q"],
        "diff": ["--formats", "png", "-q"], "demo": []}  # fmt: skip


def doc_commands() -> list[list[str]]:
    text = (REPO / "docs" / "rounds.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [shlex.split(line)[1:] for block in blocks for line in block.splitlines() if line.startswith("pnetviz ")]


@pytest.mark.slow
def test_the_comparing_rounds_commands_run_on_the_demo(tmp_path, monkeypatch):
    commands = doc_commands()
    assert [c[0] for c in commands] == ["demo", "demo", "campaign", "campaign", "diff"]
    for argv in commands:
        assert argv[0] in COMMANDS
        parser_of(argv[0]).parse_args(argv[1:])
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        assert run_command(argv[0], [*argv[1:], *FAST[argv[0]]]) == 0, argv
    assert json.loads((tmp_path / "plots" / "rounds.json").read_text())["rounds"] == {
        "results": str(tmp_path / "week1" / "results"), "week2": str(tmp_path / "week2" / "results")}
    out = tmp_path / "plots" / "diff-week2"
    result = json.loads((out / "diff.json").read_text())
    assert len(result["models"]) == 3 and not any(m["significant"] for m in result["models"])
    assert (out / "index.html").is_file() and (out / "diff_models.tex").is_file()
    assert len(list(out.glob("*_roc_curve_folds.png"))) == 3  # one signal point: no map (docs/rounds.md)
    assert not list(out.glob("diff_map_*"))
    assert list((tmp_path / "plots" / "results" / "Run3Mu" / "binary").glob("*/*/fold-0/summary_report.json"))
