"""The API validates like the command line (issue 49, A10-A12 and the minor list): `column=` is one
--column per item (never joined with commas: C++'s comma operator made the weight the score), a
list for a single-value option is a TypeError naming the keyword, overlay's texts pass the TLatex
bound of --run/--extra-text (a deep brace nesting segfaulted ROOT), energy=NaN and split='nope'
are refused, and a damaged round summary is an InputError naming the file and the field."""

from __future__ import annotations

import json
import math

import pytest

import pnetviz
from pnetviz.api.options import to_argv
from pnetviz.cli import binary, campaign
from pnetviz.errors import InputError

from conftest import API_CHANNEL as CHANNEL, API_SIGNAL as SIGNAL

DEEP = "{" * 5000 + "x" + "}" * 5000


def test_column_gives_one_flag_per_item_or_dict_entry():
    parser = binary.parser("pnetviz binary")
    items = ["weight=abs(weight)", "score_signal=score_signal"]
    assert to_argv(parser, {"column": items}) == ["--column", items[0], "--column", items[1]]
    assert to_argv(parser, {"column": {"weight": "abs(weight)", "x": "max(a, b)"}}) == [
        "--column", "weight=abs(weight)", "--column", "x=max(a, b)"]  # fmt: skip
    assert parser.parse_args(to_argv(parser, {"column": {"x": "max(a, b)", "y": "b"}})).column == ["x=max(a, b)", "y=b"]
    assert to_argv(parser, {"column": "weight=w"}) == ["--column", "weight=w"]


def test_comma_list_options_take_lists_and_mappings():
    parser = binary.parser("pnetviz binary")
    assert to_argv(parser, {"working_points": [0.5, 0.8], "fold": (0, 1)}) == ["--working-points", "0.5,0.8", "--fold", "0,1"]
    assert to_argv(parser, {"labels": {"ttX": "t#bar{t}X", "nonprompt": "Fakes"}}) == ["--labels", "ttX=t#bar{t}X,nonprompt=Fakes"]
    assert to_argv(parser, {"run": "-x", "quiet": True, "hull": False}) == ["--run=-x", "--quiet"]
    assert parser.parse_args(to_argv(parser, {"run": "-x"})).run == "-x"
    with pytest.raises(InputError, match="observe=: the item 'a,b' holds a comma"):
        to_argv(parser, {"observe": ["a,b"]})


@pytest.mark.parametrize(("options", "keyword"), [
    ({"tree": ["Events", "Other"]}, "tree="), ({"output": ["a", "b"]}, "output="), ({"weights": {"a": 1}}, "weights="),
    ({"signal": {"MHc130_MA90"}}, "signal="), ({"quiet": 1}, "quiet="), ({"column": 5}, "column="),
    ({"column": [["a=b"]]}, "column="), ({"working_points": [[0.5]]}, "working_points="),
])  # fmt: skip
def test_a_value_of_the_wrong_kind_is_a_type_error_naming_the_keyword(options, keyword):
    with pytest.raises(TypeError, match=keyword):
        to_argv(binary.parser("pnetviz binary"), options)


def test_run_campaign_refuses_a_list_for_a_single_value_option(tmp_path):
    with pytest.raises(TypeError, match="plots_dir="):
        pnetviz.run_campaign(tmp_path / "results", plots_dir=[tmp_path / "a", tmp_path / "b"])
    assert to_argv(campaign.parser("pnetviz campaign"), {"signals": ["A", "B"]}) == ["--signals", "A,B"]


def test_evaluate_names_a_list_for_plots_dir_before_using_it(tmp_path):
    with pytest.raises(TypeError, match="plots_dir="):
        pnetviz.evaluate_binary(tmp_path / "x.root", plots_dir=[tmp_path / "a"])
    with pytest.raises(TypeError, match="jsroot="):
        pnetviz.evaluate_binary(tmp_path / "x.root", jsroot=["https://root.cern/js/"])


def test_a_column_list_gives_the_numbers_of_the_plain_evaluation(demo_round, tmp_path):
    where = {"results_dir": demo_round.results, "channel": CHANNEL, "signal": SIGNAL, "background": "diboson", "fold": 0,
             "bootstrap": 20}  # fmt: skip
    plain = pnetviz.evaluate_binary(**where, output=tmp_path / "plain")
    # weight=|weight| is what --weights abs uses anyway, the score mapped onto itself: the same numbers
    mapped = pnetviz.evaluate_binary(**where, output=tmp_path / "list", column=["weight=abs(weight)", "score_signal=score_signal"])
    as_dict = pnetviz.evaluate_binary(**where, output=tmp_path / "dict", column={"weight": "abs(weight)"})
    auc = plain.report["auc"]["test"]
    assert 0.5 < auc < 1.0
    assert mapped.report["auc"]["test"] == auc and as_dict.report["auc"]["test"] == auc
    assert mapped.command.count("--column") == 2 and "weight=abs(weight)" in mapped.command


@pytest.fixture(scope="module")
def models(demo_round):
    rnd = pnetviz.open_round(demo_round.plots, frames=False)
    return [rnd.model(kind="binary", pair=p) for p in ("nonprompt", "diboson")]


@pytest.mark.parametrize(("options", "error", "shown"), [
    ({"run": DEEP}, InputError, "overlay: run= .* 10001 characters"),  # a segfault of the kernel on main
    ({"extra_text": DEEP}, InputError, "overlay: extra_text= .* 10001 characters"),
    ({"run": "{" * 9 + "x" + "}" * 9}, InputError, "braces nested more than 8 deep"),
    ({"extra_text": "a{b"}, InputError, "not closed"),
    ({"run": ["Run 2"]}, TypeError, "run= takes a str"),
    ({"split": "nope"}, InputError, "split='nope'. Fix: choose 'train' or 'test'"),  # a bare KeyError on main
    ({"split": ["test"]}, TypeError, "split= takes a string"),
    ({"energy": math.nan}, InputError, "energy=nan"),  # accepted on main
    ({"energy": 12.0}, InputError, "energy=12.0"),
    ({"energy": "13"}, TypeError, "energy= takes a number"),
    ({"labels": "ab"}, TypeError, "labels= takes a list of strings"),
    ({"context": "line"}, TypeError, "context= takes a list of strings"),
    ({"pair": ["diboson"]}, TypeError, "pair= takes a str"),
    ({"kind": ["roc"]}, TypeError, "kind= takes a str"),
    ({"reference": [0]}, TypeError, "reference= takes a whole number"),
    ({"reference": 5}, InputError, "reference=5"),
])  # fmt: skip
def test_overlay_checks_its_arguments_as_the_command_line_does(models, options, error, shown):
    with pytest.raises(error, match=shown) as err:
        pnetviz.overlay(models, **options)
    assert "\n" not in str(err.value)


def test_overlay_draws_with_valid_texts_and_a_series_label_is_checked(models):
    fig = pnetviz.overlay(models, energy=13.6, run="Run 3", extra_text="Simulation", split="train")
    assert fig.canvas.GetListOfPrimitives().GetSize() >= 2
    with pytest.raises(TypeError, match="label= takes a string"):
        models[0].series(label=["x"])
    with pytest.raises(InputError, match="label .* 10001 characters"):
        models[0].series(label=DEEP)
    with pytest.raises(InputError, match="split='validation'"):
        models[0].series(split="validation")


def round_with(tmp_path, summary: dict):
    (tmp_path / "plots" / "campaign").mkdir(parents=True)
    path = tmp_path / "plots" / "campaign" / "campaign_summary.json"
    path.write_text(json.dumps(summary))
    return tmp_path / "plots", path


@pytest.mark.parametrize(("jobs", "shown"), [
    ("abc", "jobs 'abc' is not a list of objects"),  # a bare AttributeError on main
    ([1, None], "jobs[0] 1 is not an object"),
    ({"kind": "binary"}, "jobs {'kind': 'binary'} is not a list of objects"),
    ([{"kind": ["binary"]}], "jobs[0].kind ['binary'] is not a string"),  # unhashable on main
    ([{"kind": "binary", "pair": {"a": 1}}], "jobs[0].pair {'a': 1} is not a string"),
])  # fmt: skip
def test_open_round_on_a_bad_summary_is_an_input_error_naming_the_file(tmp_path, jobs, shown):
    plots, path = round_with(tmp_path, {"rows": [], "jobs": jobs})
    with pytest.raises(InputError) as err:
        pnetviz.open_round(plots, frames=False)
    assert str(err.value).startswith(f"{path}: ") and shown in str(err.value) and "\n" not in str(err.value)


def test_open_round_of_a_summary_without_jobs_has_no_models(tmp_path):
    plots, _ = round_with(tmp_path, {"rows": []})
    assert pnetviz.open_round(plots, frames=False).models == []


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e999])
@pytest.mark.parametrize("options", [lambda v: {"column": {"weight": v}}, lambda v: {"column": [v]},
                                     lambda v: {"working_points": [0.5, v]}, lambda v: {"bootstrap": v}])  # fmt: skip
def test_a_non_finite_number_is_refused_before_it_becomes_text(options, bad):
    """str(nan) is 'nan': column={'weight': nan} read a branch named 'nan' (or 'inf'), if the tree had one."""
    parser = binary.parser("pnetviz binary")
    with pytest.raises(InputError, match=r"=: (nan|inf|-inf) is not a finite number"):
        to_argv(parser, options(bad))
    assert to_argv(parser, options(0.5))  # a finite number passes
