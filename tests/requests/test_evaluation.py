"""The evaluation requests (requests/evaluation.py): one field per option of the subcommand, typed;
the command line and the Python API make equal requests for the same options; a request is never
changed; a wrong value is one InputError line."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from pnetviz.api import evaluate as api
from pnetviz.cli import binary, common, compare, multiclass
from pnetviz.errors import InputError
from pnetviz.requests import evaluation, fields
from pnetviz.requests.evaluation import BinaryRequest, CompareRequest, MultiClassRequest

CLIS = {"binary": binary, "multiclass": multiclass, "compare": compare}
NOT_OPTIONS = {"binary": set(), "multiclass": set(), "compare": {"predictions", "history"}}  # compare reads no ntuple of its own


def cli_request(kind: str, argv: list[str]):
    """The request `pnetviz <kind> argv` makes (its main() does exactly this before any input is read)."""
    return common.evaluation_request(kind, CLIS[kind].parser("pnetviz").parse_args(argv))


@pytest.mark.parametrize("kind", ["binary", "multiclass", "compare"])
def test_the_fields_are_the_options_dests(kind):
    """An option added to the parser without a field (or a field without its option) fails here."""
    dests = {a.dest for a in CLIS[kind].parser("pnetviz")._actions if a.dest != "help"}
    assert {f.name for f in dataclasses.fields(evaluation.REQUESTS[kind])} == dests | NOT_OPTIONS[kind]


def test_compare_has_no_predictions_and_no_model_only_options():
    request = cli_request("compare", ["--binary-model", "v2", "--score", "weighted-lr", "--pair", "ttZ:ttX"])
    assert isinstance(request, CompareRequest) and (request.predictions, request.history) == (None, None)
    assert (request.binary_model, request.score, request.pair) == ("v2", "weighted-lr", "ttZ:ttX")
    assert not hasattr(request, "working_points") and not hasattr(request, "syst")  # binary/multiclass options only


@pytest.mark.parametrize("kind", ["binary", "multiclass", "compare"])
def test_the_defaults_are_the_parsers(kind):
    assert cli_request(kind, []) == evaluation.REQUESTS[kind]()


def test_field_types_from_the_command_line():
    request = cli_request("binary", ["--results-dir", "res", "--predictions", "a/b.root", "--history", "h.json",
                                     "--plots-dir", "./plots/", "--output", "out", "--column", "weight=w",
                                     "--column", "true_label=y", "--energy", "13.6", "--bootstrap", "0",
                                     "--deployed-fold", "2", "--weights", "signed", "--fold", "0,1"])  # fmt: skip
    assert request.results_dir == Path("res") and request.predictions == Path("a/b.root")
    assert request.history == Path("h.json") and request.output == Path("out")
    assert request.plots_dir == Path("plots") and isinstance(request.plots_dir, Path)
    assert request.column == ("weight=w", "true_label=y")  # a tuple, in the order given
    assert (request.energy, request.bootstrap, request.deployed_fold) == (13.6, 0, 2)
    assert type(request.bootstrap) is int and type(request.energy) is float
    assert request.weights == "signed" and request.fold == "0,1"
    hints = typing.get_type_hints(BinaryRequest)
    assert typing.get_args(hints["weights"]) == ("abs", "signed", "drop")
    assert typing.get_args(typing.get_type_hints(MultiClassRequest)["fit_score"]) == ("lr", "signal")
    assert typing.get_args(typing.get_type_hints(MultiClassRequest)["score"]) == ("lr", "weighted-lr")


def test_cli_and_api_make_equal_requests():
    argv = ["--predictions", "trees/m.root", "--output", "plots/m", "--working-points", "0.5,0.8",
            "--column", "weight=w", "--column", "true_label=y ? 0 : 1", "--labels", "ttX=t#bar{t}X,nonprompt=Fakes",
            "--no-bjet-comparison", "--energy", "13.6", "--fold", "0", "--bootstrap", "50", "-q"]  # fmt: skip
    from_api = api.binary_request("trees/m.root", output=Path("plots/m"), working_points=[0.5, 0.8],
                                  column={"weight": "w", "true_label": "y ? 0 : 1"},
                                  labels={"ttX": "t#bar{t}X", "nonprompt": "Fakes"}, no_bjet_comparison=True,
                                  energy=13.6, fold=0, bootstrap=50, quiet=True)  # fmt: skip
    assert from_api == cli_request("binary", argv)
    assert from_api.column == ("weight=w", "true_label=y ? 0 : 1")
    mc = api.multiclass_request(results_dir="res", classes=["signal", "nonprompt", "ttX"], score="weighted-lr",
                                fold="all", syst="all", score_shift={"background": 0.02})  # fmt: skip
    assert mc == cli_request("multiclass", ["--results-dir", "res", "--classes", "signal,nonprompt,ttX", "--score",
                                            "weighted-lr", "--fold", "all", "--syst", "all", "--score-shift",
                                            "background=0.02"])  # fmt: skip
    assert mc != cli_request("multiclass", ["--results-dir", "res", "--classes", "signal,nonprompt,ttX"])


def test_a_request_is_never_changed():
    request = cli_request("binary", ["--syst", "all"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.syst = "none"
    reused = fields.evolve(request, formats="png", column=["a=b"], output="elsewhere")
    assert (request.formats, request.column, request.output) == ("png,pdf", None, None)
    assert (reused.formats, reused.column, reused.output) == ("png", ("a=b",), Path("elsewhere"))
    assert reused.syst == "all" and reused != request
    assert hash(request) == hash(cli_request("binary", ["--syst", "all"]))  # frozen, so a key of a dict or set


@pytest.mark.parametrize(("options", "field"), [
    ({"weights": "squared"}, "--weights"),
    ({"energy": 12.0}, "--energy"),
    ({"bootstrap": -3}, "--bootstrap"),
    ({"plots_dir": "  "}, "--plots-dir"),
    ({"output": ""}, "--output"),
])  # fmt: skip
def test_a_bad_value_from_the_api_is_one_input_error_line(options, field):
    with pytest.raises(InputError) as err:
        api.binary_request("m.root", **options)
    assert field in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("field", "value", "wanted"), [
    ("energy", "13", "a finite number"),
    ("energy", float("nan"), "a finite number"),
    ("bootstrap", 2.5, "a whole number"),
    ("bootstrap", True, "a whole number"),
    ("hull", 1, "True or False"),
    ("results_dir", "results", "a pathlib.Path"),
    ("weights", "squared", "one of 'abs', 'signed', 'drop'"),
    ("column", ["a=b"], "a tuple of a string or None"),
    ("column", ("a=b", 3), "a tuple of a string or None"),
    ("channel", 5, "a string or None"),
])  # fmt: skip
def test_a_wrong_type_given_to_a_request_is_one_line_naming_the_field(field, value, wanted):
    with pytest.raises(InputError) as err:
        BinaryRequest(**{field: value})
    text = str(err.value)
    assert text.startswith(f"BinaryRequest.{field} ({fields.flag(field)}) = ") and wanted in text
    assert "\n" not in text


def test_a_whole_number_in_a_float_field_is_stored_as_a_float():
    request = BinaryRequest(energy=14, signal_scale=2)
    assert type(request.energy) is float and request.energy == 14.0 and type(request.signal_scale) is float
    assert request == BinaryRequest(energy=14.0, signal_scale=2.0)
