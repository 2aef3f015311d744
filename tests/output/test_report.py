"""output/report.py: the JSON-ready copy (plain) and the compact JSON text (dumps) of every summary file."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pnetviz.output.report import dumps, plain

CASES = [
    {},
    [],
    {"a": [], "b": {}},
    {"auc": {"test": 0.91, "train": 0.93}, "curve": [0.0, 0.5, 1.0], "names": ["signal", "t\"t\\X\n"]},
    {"matrix": [[1.0, 2.0], [3.0]], "rows": [{"k": 1}, {"k": [True, None]}], "deep": {"d": {"e": {"f": 1}}}},
    [1, [2, [3, [4]]], {"x": "é"}],
    3.5,
    "text",
    None,
]


@pytest.mark.parametrize("value", CASES)
def test_dumps_reads_back_as_the_same_document(value):
    """The same document as json.dumps(value) in every case, and as its compact text."""
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))
    assert dumps(value) == json.dumps(value, separators=(",", ":"))


def test_dumps_writes_compact_json_without_indentation_or_spaces():
    text = dumps({"x": [1, 2.5], "m": [[1, 2], [3]], "o": {"k": "v", "s": "a b: c, d"}})
    assert text == '{"x":[1,2.5],"m":[[1,2],[3]],"o":{"k":"v","s":"a b: c, d"}}'


def test_dumps_writes_non_finite_numbers_as_json_does():
    text = dumps({"a": [float("nan"), float("inf"), -float("inf")]})
    assert text == '{"a":[NaN,Infinity,-Infinity]}'
    values = json.loads(text)["a"]
    assert math.isnan(values[0]) and values[1:] == [math.inf, -math.inf]
    with pytest.raises(ValueError):
        dumps({"a": [float("nan")]}, allow_nan=False)
    assert dumps({"a": [1.5]}, allow_nan=False) == '{"a":[1.5]}'


def test_plain_arrays_become_python_numbers_and_non_finite_none():
    doc = plain({"f": np.array([1.5, np.nan, np.inf]), "i": np.array([[1, 2]], dtype=np.int32), "b": np.array([True]),
                 "f32": np.array([0.5], dtype=np.float32), "s": np.array(["a"]), "scalar": np.float64(2.0)})  # fmt: skip
    assert doc == {"f": [1.5, None, None], "i": [[1, 2]], "b": [True], "f32": [0.5], "s": ["a"], "scalar": 2.0}
    assert all(type(v) is float for v in (doc["f"][0], doc["f32"][0], doc["scalar"]))
    assert type(doc["i"][0][0]) is int
    kept = plain(np.array([np.nan, 1.0]), keep_nonfinite=True)
    assert math.isnan(kept[0]) and kept[1] == 1.0
