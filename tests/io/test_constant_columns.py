"""A mapping whose only expressions are constants (`--column valid_mask=false`, the boolean literal
issue 49 asks for): the compiled loop reads no branch for them. It ended in a cppyy TypeError
traceback (exit 1): the empty array of branch addresses is no pointer. Now the values are the
constants', the same as RDataFrame's Define gives."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.io import columns as mapped
from pnetviz.io import expressions
from pnetviz.io.columns import parse_columns
from pnetviz.io.ntuple import read_predictions

N = 7


@pytest.fixture(scope="module")
def ntuple(tmp_path_factory):
    rng = np.random.default_rng(3)
    cols = {"true_label": np.array([0, 1, 0, 1, 1, 0, 0], np.int32), "score_signal": rng.random(N).astype(np.float32),
            "weight": rng.random(N).astype(np.float32), "train_mask": np.array([1, 1, 0, 0, 1, 0, 1], bool),
            "test_mask": np.array([0, 0, 1, 1, 0, 1, 0], bool), "valid_mask": np.ones(N, bool)}  # fmt: skip
    return write_ntuple(tmp_path_factory.mktemp("constants") / "c.root", cols, "tree"), cols


@pytest.mark.parametrize("rdataframe", [False, True])
@pytest.mark.parametrize(("pairs", "valid", "weight"), [
    (["valid_mask=false"], np.zeros(N, bool), None),
    (["valid_mask=true"], np.ones(N, bool), None),
    (["valid_mask=1 < 0", "weight=2.5"], np.zeros(N, bool), np.full(N, 2.5)),
])  # fmt: skip
def test_only_constant_expressions(ntuple, rdataframe, monkeypatch, pairs, valid, weight):
    path, cols = ntuple
    if rdataframe:  # the fallback path computes the same values
        monkeypatch.setattr(expressions, "result_types", lambda *a: None)
    else:
        monkeypatch.setattr(mapped, "_read_frame", lambda *a: pytest.fail("RDataFrame used for constants"))
    preds = read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree", binary=True,
                             columns=parse_columns(pairs, None))  # fmt: skip
    np.testing.assert_array_equal(preds.masks["valid"], valid)
    np.testing.assert_array_equal(preds.weight, cols["weight"] if weight is None else weight)
    np.testing.assert_array_equal(preds.label, cols["true_label"])


def test_the_kernel_alone_with_no_branch():
    out = expressions.evaluate((("valid_mask", "false"), ("weight", "1.5f")), {}, {}, 4)
    np.testing.assert_array_equal(out["valid_mask"], np.zeros(4, bool))
    assert out["weight"].dtype == np.float32 and out["weight"].tolist() == [1.5] * 4
