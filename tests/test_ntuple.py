"""Reading the prediction-ntuple contract and the bad-input catalogue (one clear InputError)."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.errors import InputError, PnetvizWarning
from pnetviz.ntuple import read_predictions


def test_reads_every_contract_column(ntuple_factory):
    path = ntuple_factory(n=400)
    preds = read_predictions(path, subsets=["has_bjet"])
    assert preds.n_events == 400
    assert set(preds.scores) == {"signal", "nonprompt", "diboson", "ttZ"}
    assert preds.scores["signal"].dtype == np.float32
    assert preds.weight.dtype == np.float64 and np.any(preds.weight < 0)
    assert set(preds.masks) == {"train", "test"}
    assert np.array_equal(np.bincount(preds.label), [100, 100, 100, 100])
    assert preds.subsets["has_bjet"].dtype == bool


def test_configurable_class_names_and_integer_masks(ntuple_factory):
    cols = {"score_ttll": np.full(400, 0.5, np.float64), "score_nonprompt": None,
            "train_mask": np.resize([1, 0], 400).astype(np.int32),
            "test_mask": np.resize([0, 1], 400).astype(np.int32)}  # fmt: skip
    path = ntuple_factory(cols)
    preds = read_predictions(path, classes=("signal", "ttll", "diboson", "ttZ"))
    assert preds.scores["ttll"].dtype == np.float64
    assert preds.masks["train"].sum() == 200


def test_binary_model_reads_only_score_signal(ntuple_factory):
    path = ntuple_factory({"score_diboson": None, "score_ttZ": None, "score_nonprompt": None}, n_classes=2)
    preds = read_predictions(path, classes=("signal", "nonprompt"), score_classes=("signal",))
    assert list(preds.scores) == ["signal"]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"nope\.root: no such file"):
        read_predictions(tmp_path / "nope.root")


def test_corrupt_file(tmp_path, ntuple_factory):
    good = ntuple_factory().read_bytes()
    bad = tmp_path / "bad.root"
    bad.write_bytes(good[: len(good) // 2])
    with pytest.raises(InputError, match="not a readable ROOT file"):
        read_predictions(bad)
    text = tmp_path / "text.root"
    text.write_text("hello")
    with pytest.raises(InputError, match="not a readable ROOT file"):
        read_predictions(text)


def test_missing_tree_lists_what_is_there(ntuple_factory):
    path = ntuple_factory(tree="Other")
    with pytest.raises(InputError, match=r"no TTree named 'Events'.*Other \(TTree\).*--tree"):
        read_predictions(path)


def test_missing_branch_lists_branches_found(ntuple_factory):
    path = ntuple_factory({"score_ttZ": None})
    with pytest.raises(InputError, match=r"'score_ttZ' is missing; branches found: has_bjet, score_diboson"):
        read_predictions(path)


def test_wrong_branch_type(ntuple_factory):
    path = ntuple_factory({"weight": np.ones(400, dtype=np.int32)})
    with pytest.raises(InputError, match="branch 'weight' has type Int_t"):
        read_predictions(path)
    path = ntuple_factory({"true_label": np.zeros(400, dtype=np.float32)})
    with pytest.raises(InputError, match="branch 'true_label' has type Float_t"):
        read_predictions(path)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_scores(ntuple_factory, bad):
    s = np.full(400, 0.5, np.float32)
    s[17] = bad
    path = ntuple_factory({"score_diboson": s})
    with pytest.raises(InputError, match=r"'score_diboson' has 1 NaN/inf values \(first at entry 17\)"):
        read_predictions(path)


def test_scores_outside_unit_interval_warn(ntuple_factory):
    s = np.linspace(-1, 2, 400).astype(np.float32)
    path = ntuple_factory({"score_signal": s})
    with pytest.warns(PnetvizWarning, match="outside \\[0, 1\\]"):
        read_predictions(path)


def test_label_outside_class_list(ntuple_factory):
    label = np.resize(np.arange(5), 400).astype(np.int32)
    path = ntuple_factory({"true_label": label})
    with pytest.raises(InputError, match=r"values 4 outside the class list.*--classes"):
        read_predictions(path)


def test_class_without_events(ntuple_factory):
    label = np.resize(np.arange(3), 400).astype(np.int32)
    path = ntuple_factory({"true_label": label})
    with pytest.raises(InputError, match=r"class 'ttZ' \(true_label == 3\) has no events"):
        read_predictions(path)


def test_class_with_zero_weight(ntuple_factory):
    w = np.ones(400)
    w[np.resize(np.arange(4), 400) == 2] = 0.0
    path = ntuple_factory({"weight": w})
    with pytest.raises(InputError, match="class 'diboson' has zero total weight"):
        read_predictions(path)


def test_missing_subset_branch(ntuple_factory):
    with pytest.raises(InputError, match="'has_tau' is missing.*--subset"):
        read_predictions(ntuple_factory(), subsets=["has_tau"])
