"""The requests of `pnetviz render` and `pnetviz diff` (requests/outputs.py): one field per option,
typed (paths as Path, a tuple of them), frozen; a wrong value is one InputError line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pnetviz.cli import diff, render
from pnetviz.errors import InputError
from pnetviz.requests.outputs import DiffRequest, RenderRequest, from_namespace

CLIS = {"render": render, "diff": diff}


@pytest.mark.parametrize(("command", "cls"), [("render", RenderRequest), ("diff", DiffRequest)])
def test_the_fields_are_the_options_dests(command, cls):
    dests = {a.dest for a in CLIS[command].parser("pnetviz")._actions if a.dest != "help"}
    assert {f.name for f in dataclasses.fields(cls)} == dests


def test_render_request():
    request = from_namespace("render", render.parser().parse_args(["plots/a", "plots/b/plots.root", "--formats", "pdf", "-q"]))
    assert request == RenderRequest(paths=(Path("plots/a"), Path("plots/b/plots.root")), formats="pdf", quiet=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.formats = "png"


def test_diff_request():
    request = from_namespace("diff", diff.parser().parse_args(["A", "B", "--alpha", "0.01", "--rename", "x=y"]))
    assert request == DiffRequest(Path("A"), Path("B"), rename="x=y", alpha=0.01)
    assert request.output == Path("diff") and type(request.alpha) is float


@pytest.mark.parametrize(("cls", "values", "start"), [
    (RenderRequest, {"paths": [Path("a")]}, "RenderRequest.paths (--paths) = [PosixPath('a')]: not a tuple of a pathlib.Path"),
    (RenderRequest, {"paths": ("a",)}, "RenderRequest.paths (--paths) = ('a',): not a tuple of a pathlib.Path"),
    (DiffRequest, {"round_a": Path("A"), "round_b": Path("B"), "alpha": "0.1"}, "DiffRequest.alpha (--alpha) = '0.1': not a finite number"),
])  # fmt: skip
def test_a_wrong_value_is_one_line(cls, values, start):
    with pytest.raises(InputError) as err:
        cls(**values)
    assert str(err.value).startswith(start) and "\n" not in str(err.value)
