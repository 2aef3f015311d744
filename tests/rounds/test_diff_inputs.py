"""`pnetviz diff` on damaged or unusual campaign summaries (issue 49, A7-A9 and the minor list):
a row whose channel is a list, rows of the wrong type, and names that are not UTF-8 (as a campaign
writes them for such a directory). Each is one line naming the file and the field, exit 2, or a
right result; the page carries a Content-Security-Policy; the event-paired p-value needs no scipy.
The rounds are hand-written summaries (two models, two folds): no campaign is run."""

from __future__ import annotations

import json
import math

import pytest
from scipy import stats

from pnetviz.rounds import diff
from pnetviz.rounds.diffevents import two_sided_normal
from pnetviz.cli.commands import run_command
from pnetviz.errors import InputError

MODEL = "ParticleNet-nNodes128-Adam-binary-"


def row(channel: str, pair: str, fold: int, auc: float) -> dict:
    return {"channel": channel, "signal": "MHc130_MA90", "m_hc": 130, "m_a": 90, "kind": "binary", "pair": pair,
            "model": MODEL + pair, "fold": fold, "auc_test": auc, "eps_b_0.5": 0.02, "eps_b_0.9": 0.1,
            "fip2": 0.5 + auc / 10, "events_test_signal": 100, "events_test_background": 100,
            "events_train_signal": 400, "events_train_background": 400}  # fmt: skip


def summary(directory, rows) -> object:
    (directory / "campaign").mkdir(parents=True)
    (directory / "campaign" / diff.SUMMARY).write_text(json.dumps({"rows": rows, "jobs": []}))
    return directory


def rows_of(channel: str, shift: float = 0.0) -> list[dict]:
    return [row(channel, pair, fold, 0.8 + 0.01 * fold + shift + (0.05 if pair == "ttZ" else 0.0))
            for pair in ("diboson", "ttZ") for fold in (0, 1)]  # fmt: skip


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("channel", ["Run3Mu"], "rows[1].channel ['Run3Mu'] is not a string"),
    ("signal", {"a": 1}, "rows[1].signal {'a': 1} is not a string"),
    ("pair", 7, "rows[1].pair 7 is not a string"),
    ("model", ["m"], "rows[1].model ['m'] is not a string"),
    ("channel", "../../etc", "rows[1].channel '../../etc' is not a directory name"),
])  # fmt: skip
def test_a_summary_row_with_a_non_name_is_one_line(tmp_path, capsys, field, value, shown):
    a = summary(tmp_path / "a", rows_of("Run3Mu"))
    damaged = rows_of("Run3Mu")
    damaged[1][field] = value
    b = summary(tmp_path / "b", damaged)
    assert run_command("diff", [str(a), str(b), "--output", str(tmp_path / "out"), "--formats", "none", "-q"]) == 2
    err = one_error(capsys)
    assert str(b / "campaign" / diff.SUMMARY) in err and shown in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("rows", "shown"), [
    ("abc", "rows 'abc' is not a list of objects"),
    ({"0": {}}, "rows {'0': {}} is not a list of objects"),
    ([1, None], "rows[0] 1 is not an object"),
])  # fmt: skip
def test_rows_of_the_wrong_type_are_one_line_not_zero_models(tmp_path, capsys, rows, shown):
    a = summary(tmp_path / "a", rows_of("Run3Mu"))
    b = summary(tmp_path / "b", rows)
    assert run_command("diff", [str(a), str(b), "--output", str(tmp_path / "out"), "--formats", "none", "-q"]) == 2
    err = one_error(capsys)
    assert str(b / "campaign" / diff.SUMMARY) in err and shown in err
    with pytest.raises(InputError, match="is not a list of objects|is not an object"):
        diff.load_rows(b / "campaign")


def test_names_that_are_not_utf8_are_written_escaped(tmp_path):
    channel = "Run3Mu\udcff"  # how Python keeps the byte 0xff of a directory name; JSON writes it "\udcff"
    a, b = summary(tmp_path / "a", rows_of(channel)), summary(tmp_path / "b", rows_of(channel, 0.01))
    out = tmp_path / "out"
    assert run_command("diff", [str(a), str(b), "--output", str(out), "--formats", "none", "-q"]) == 0
    for name in ("diff_models.csv", "diff_unmatched.csv", "diff_models.tex", "index.html"):
        (out / name).read_bytes().decode("utf-8")  # valid UTF-8
    models = (out / "diff_models.csv").read_text().splitlines()
    assert len(models) == 3 and all(line.startswith("Run3Mu\\xff,") for line in models[1:])
    assert "Run3Mu\\textbackslash{}xff" in (out / "diff_models.tex").read_text()
    assert "Run3Mu\\xff" in (out / "index.html").read_text()
    result = json.loads((out / "diff.json").read_text())
    assert {m["channel"] for m in result["models"]} == {channel}  # JSON keeps the name itself
    assert [m["delta_auc"] for m in result["models"]] == pytest.approx([0.01, 0.01])


def test_the_page_has_a_content_security_policy_without_scripts(tmp_path):
    a, b = summary(tmp_path / "a", rows_of("Run3Mu")), summary(tmp_path / "b", rows_of("Run3Mu", -0.02))
    out = tmp_path / "out"
    assert run_command("diff", [str(a), str(b), "--output", str(out), "--formats", "none", "-q"]) == 0
    page = (out / "index.html").read_text()
    head = page[: page.index("</head>")]
    assert '<meta http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;;' in head
    assert "script-src" not in head and "<script" not in page


@pytest.mark.parametrize("z", [0.0, 1e-6, 0.5, 1.959963984540054, 3.0, 8.0, 20.0, 37.0, -2.5])
def test_the_paired_p_value_equals_scipys_normal_tail(z):
    expected = 2 * stats.norm.sf(abs(z))
    assert two_sided_normal(z) == pytest.approx(expected, rel=1e-12, abs=0.0)
    assert math.isfinite(two_sided_normal(z))


@pytest.mark.parametrize(("field", "value", "shown"), [
    ("auc_test", "0.9", "rows[1].auc_test '0.9' is not a number or null"),
    ("auc_test", True, "rows[1].auc_test True is not a number or null"),
    ("fold", "0", "rows[1].fold '0' is not a fold index (0 to 9999) or null"),
    ("fold", 0.5, "rows[1].fold 0.5 is not a fold index"),
    ("fold", True, "rows[1].fold True is not a fold index"),
    ("fold", -1, "rows[1].fold -1 is not a fold index"),
    ("fold", 10**30, "rows[1].fold 1000000000000000000000000000000 is not a fold index"),
])  # fmt: skip
def test_a_fold_or_auc_of_the_wrong_type_is_one_line_not_a_dropped_row(tmp_path, capsys, field, value, shown):
    """Before, such a row was left out without a word (as a pilot row is): the model's fold, or
    the model, silently missing from the comparison."""
    a = summary(tmp_path / "a", rows_of("Run3Mu"))
    damaged = rows_of("Run3Mu")
    damaged[1][field] = value
    b = summary(tmp_path / "b", damaged)
    assert run_command("diff", [str(a), str(b), "--output", str(tmp_path / "out"), "--formats", "none", "-q"]) == 2
    err = one_error(capsys)
    assert str(b / "campaign" / diff.SUMMARY) in err and shown in err
    assert not (tmp_path / "out").exists()


def test_null_fold_or_auc_rows_are_still_left_out(tmp_path):
    rows = rows_of("Run3Mu")
    rows[1]["auc_test"] = None
    rows[2]["fold"] = None  # a pilot row
    b = summary(tmp_path / "b", rows)
    assert [(r["pair"], r["fold"]) for r in diff.load_rows(b / "campaign")] == [("diboson", 0), ("ttZ", 1)]
