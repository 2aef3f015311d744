"""--column / --columns: another group's ntuple read through a mapping (pnetviz.io.columns)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.errors import InputError
from pnetviz.io import columns as mapped
from pnetviz.io.columns import parse_columns
from pnetviz.io.ntuple import read_predictions

MAPPING = ("true_label=isSignal ? 0 : 1", "score_signal=bdt_score", "weight=evt_weight",
           "train_mask=is_train", "test_mask=event % 5 == 3")  # fmt: skip


def other_group(n: int = 500, seed: int = 3) -> dict[str, np.ndarray]:
    """Another group's branch names: a sample flag, a BDT score, a weight, its own masks, an event counter."""
    rng = np.random.default_rng(seed)
    sig = rng.random(n) < 0.4
    event = np.arange(n, dtype=np.uint64) * 7 + 11
    return {"isSignal": sig, "bdt_score": np.clip(rng.normal(np.where(sig, 0.65, 0.4), 0.18), 0, 1).astype(np.float32),
            "evt_weight": rng.uniform(0.2, 1.5, n), "is_train": (event % 5) < 3, "is_test": (event % 5) == 3,
            "event": event}  # fmt: skip


@pytest.fixture
def other(tmp_path):
    return write_ntuple(tmp_path / "other.root", other_group(), "tree"), other_group()


def test_parse_pairs_file_and_precedence(tmp_path):
    file = tmp_path / "map.json"
    file.write_text(json.dumps({"weight": "w1", "true_label": "isSignal ? 0 : 1"}))
    got = dict(parse_columns(["weight=evt_weight", "test_mask=event % 5 == 3"], file))
    assert got == {"weight": "evt_weight", "true_label": "isSignal ? 0 : 1", "test_mask": "event % 5 == 3"}


@pytest.mark.parametrize("bad", ["weight", "1x=evt", "weight=", "weight=a\nb"])
def test_parse_rejects_bad_pairs(bad):
    with pytest.raises(InputError, match="--column"):
        parse_columns([bad], None)


def test_parse_rejects_a_column_mapped_twice():
    with pytest.raises(InputError, match="mapped twice"):
        parse_columns(["weight=a", "weight=b"], None)


def test_columns_file_that_is_not_an_object(tmp_path):
    file = tmp_path / "map.json"
    file.write_text("[1, 2]")
    with pytest.raises(InputError, match="--columns"):
        parse_columns(None, file)


def test_expression_mapping_reads_the_contract_values(other):
    path, cols = other
    preds = read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree", binary=True,
                             columns=parse_columns(MAPPING, None))  # fmt: skip
    np.testing.assert_array_equal(preds.label, np.where(cols["isSignal"], 0, 1))
    np.testing.assert_array_equal(preds.scores["signal"], cols["bdt_score"])
    np.testing.assert_array_equal(preds.weight, cols["evt_weight"])
    np.testing.assert_array_equal(preds.masks["test"], cols["event"] % 5 == 3)
    np.testing.assert_array_equal(preds.masks["train"], cols["is_train"])


def test_plain_branches_keep_the_compiled_reader(tmp_path, monkeypatch):
    cols = other_group()
    cols["label"] = np.where(cols["isSignal"], 0, 1).astype(np.int32)
    path = write_ntuple(tmp_path / "plain.root", cols, "tree")
    monkeypatch.setattr(mapped, "_read_frame", lambda *a: pytest.fail("RDataFrame used for plain branches"))
    preds = read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree", binary=True,
                             columns=parse_columns(["true_label=label", "score_signal=bdt_score", "weight=evt_weight",
                                                    "train_mask=is_train", "test_mask=is_test"], None))  # fmt: skip
    np.testing.assert_array_equal(preds.label, cols["label"])
    np.testing.assert_array_equal(preds.masks["test"], cols["is_test"])


def test_missing_mapped_branch_names_it_and_the_option(other):
    with pytest.raises(InputError, match=r"--column weight=evtweight: branch 'evtweight' is missing in tree 'tree'"):
        read_predictions(other[0], classes=("signal", "bkg"), score_classes=("signal",), tree="tree",
                         columns=parse_columns([m for m in MAPPING if not m.startswith("weight")] + ["weight=evtweight"], None))  # fmt: skip


def test_a_name_that_is_no_branch_is_one_line_without_cling_output(other, capfd):
    with pytest.raises(InputError) as err:
        read_predictions(other[0], classes=("signal", "bkg"), score_classes=("signal",), tree="tree",
                         columns=parse_columns([*MAPPING[:4], "test_mask=evnt % 5 == 3"], None))  # fmt: skip
    text = str(err.value)
    assert "\n" not in text and "--column test_mask=evnt % 5 == 3" in text and "not branches of 'tree': evnt" in text
    assert "error" not in capfd.readouterr().err


def test_an_incomplete_expression_is_refused_where_the_mapping_is_parsed():
    with pytest.raises(InputError) as err:
        parse_columns([*MAPPING[:4], "test_mask=evnt % 5 =="], None)
    text = str(err.value)
    assert "\n" not in text and text.startswith("--column 'test_mask=evnt % 5 ==': at position 12 of the expression")


@pytest.mark.slow
def test_expressions_of_branches_are_compiled_once_with_define_types_and_values(other, monkeypatch):
    path, cols = other
    exprs = (("true_label", "isSignal ? 0 : 1"), ("weight", "evt_weight * 2"), ("test_mask", "event % 5 == 3"),
             ("score_signal", "bdt_score > 0.5f ? bdt_score : 0.5f * bdt_score"))  # fmt: skip
    types = {"isSignal": "Bool_t", "evt_weight": "Double_t", "event": "ULong64_t", "bdt_score": "Float_t"}
    branches = tuple(sorted(cols))
    define_types = mapped._expression_types(path, "tree", exprs, branches)  # RDataFrame's Define
    define_values = mapped._read_frame(path, "tree", exprs, tuple(n for n, _ in exprs), branches, len(cols["event"]))
    monkeypatch.setattr(mapped, "_read_frame", lambda *a: pytest.fail("RDataFrame used for expressions of branches"))
    monkeypatch.setattr(mapped, "_expression_types", lambda *a: pytest.fail("RDataFrame used for the types"))
    got = mapped.read_view(path, "tree", exprs, {**define_types}, types, len(cols["event"]), False, ())
    assert mapped.view_types(path, "tree", types, exprs, True) == {**types, **define_types}
    assert define_types == {"true_label": "int", "weight": "double", "test_mask": "bool", "score_signal": "float"}
    for name, values in define_values.items():
        assert got[name].dtype == values.dtype
        np.testing.assert_array_equal(got[name], values)


@pytest.mark.parametrize("expr", ["bdt_score % 5 == 3", "rdfentry_ % 5 == 3"])
@pytest.mark.slow
def test_other_expressions_still_go_through_rdataframe(other, expr, capfd):
    path, cols = other
    pairs = [*MAPPING[:4], f"test_mask={expr}"]
    if expr.startswith("rdfentry_"):  # not a branch: RDataFrame's own column
        preds = read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree",
                                 columns=parse_columns(pairs, None))  # fmt: skip
        np.testing.assert_array_equal(preds.masks["test"], np.arange(len(cols["event"])) % 5 == 3)
        return
    with pytest.raises(InputError, match="ROOT cannot compile this expression for the types of its branches") as err:
        read_predictions(path, classes=("signal", "bkg"), score_classes=("signal",), tree="tree",
                         columns=parse_columns(pairs, None))  # fmt: skip
    assert "\n" not in str(err.value) and "error" not in capfd.readouterr().err


def test_an_expression_of_its_own_branch_reads_the_branch(other, monkeypatch):
    path, cols = other
    exprs = (("is_test", "is_test && event % 2 == 0"), ("evt_weight", "-evt_weight"))
    types = {"is_test": "Bool_t", "event": "ULong64_t", "evt_weight": "Double_t"}
    monkeypatch.setattr(mapped, "_read_frame", lambda *a: pytest.fail("RDataFrame used for expressions of branches"))
    got = mapped.read_view(path, "tree", exprs, {"is_test": "bool", "evt_weight": "double"}, types,
                           len(cols["event"]), False, ())  # fmt: skip
    np.testing.assert_array_equal(got["is_test"], cols["is_test"] & (cols["event"] % 2 == 0))
    np.testing.assert_array_equal(got["evt_weight"], -cols["evt_weight"])
