"""Reading the prediction-ntuple contract and the bad-input catalogue (one clear InputError)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.io import branches, ntuple
from pnetviz.errors import InputError, PnetvizWarning
from pnetviz.io.ntuple import branch_types, read_columns, read_predictions
from pnetviz.rootenv import root


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


def test_narrow_read_keeps_float32_weights_and_uint8_labels(ntuple_factory):
    rng = np.random.default_rng(5)
    w = rng.normal(0.5, 1.0, 400).astype(np.float32)  # about a third negative
    path = ntuple_factory({"weight": w})
    wide, narrow = read_predictions(path), read_predictions(path, narrow=True)
    assert narrow.weight.dtype == np.float32 and np.array_equal(narrow.weight, w)
    assert wide.weight.dtype == np.float64 and np.array_equal(wide.weight, w.astype(np.float64))
    assert narrow.label.dtype == np.uint8 and np.array_equal(narrow.label, wide.label)
    doubles = read_predictions(ntuple_factory({"weight": w.astype(np.float64)}), narrow=True)
    assert doubles.weight.dtype == np.float64  # only a float32 branch stays narrow
    with pytest.raises(InputError, match="class 'ttZ' has zero total weight"):  # the checks see the float32 values
        read_predictions(ntuple_factory({"weight": np.where(np.arange(400) % 4 == 3, 0, w).astype(np.float32)}), narrow=True)


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


@pytest.mark.slow
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
    with pytest.warns(PnetvizWarning, match=r"has 133 values below 0 and 133 above 1 .* first and the last bin"):
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


# The compiled reader (macros/column_reader.h) against RDataFrame AsNumpy.

LEAF_DTYPES = ("bool", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64")


@pytest.mark.slow
def test_reader_copies_every_leaf_type_exactly(tmp_path):
    rng = np.random.default_rng(3)
    cols = {f"x_{d}": (rng.random(1000) * 200 - 50).astype(d) for d in LEAF_DTYPES}
    cols["x_int64"][:2] = [-(2**62) - 3, 2**62 + 5]  # beyond float64's 53-bit mantissa
    path = write_ntuple(tmp_path / "types.root", cols)
    types = branch_types(path, "Events")
    data = read_columns(path, "Events", {k: types[k] for k in cols}, 1000)
    reference = root().RDataFrame("Events", str(path)).AsNumpy(list(cols))
    for name, values in data.items():
        assert values.dtype == reference[name].dtype, name
        assert np.array_equal(values, reference[name]), name


def test_reader_threads_do_not_change_values(tmp_path):
    n = 300_000  # several 65536-entry pieces per thread
    rng = np.random.default_rng(4)
    cols = {"a": rng.random(n).astype(np.float32), "b": rng.normal(size=n), "c": rng.integers(0, 4, n).astype(np.int32)}
    path = write_ntuple(tmp_path / "big.root", cols)
    types = {k: branch_types(path, "Events")[k] for k in cols}
    one = read_columns(path, "Events", types, n, threads=1)
    three = read_columns(path, "Events", types, n, threads=3)
    for name in cols:
        assert np.array_equal(one[name], cols[name]) and np.array_equal(three[name], cols[name]), name


def test_reader_block_rows_share_one_matrix(tmp_path):
    cols = {"s0": np.arange(5, dtype=np.float32), "s1": np.arange(5, 10, dtype=np.float32), "w": np.ones(5)}
    path = write_ntuple(tmp_path / "block.root", cols)
    data = read_columns(path, "Events", {"s0": "Float_t", "s1": "Float_t", "w": "Double_t"}, 5, block=["s0", "s1"])
    assert data["s0"].base is data["s1"].base and data["s0"].base.shape == (2, 5)
    assert np.array_equal(data["s1"], cols["s1"])


def test_reader_rejects_array_branch(tmp_path):
    path = tmp_path / "array.root"
    root().gInterpreter.ProcessLine(
        f'{{ TFile f("{path}", "RECREATE"); TTree t("Events", ""); float s[2] = {{0.5f, 0.5f}};'
        ' t.Branch("x", s, "x[2]/F"); for (int i = 0; i < 10; ++i) t.Fill(); t.Write(); }'
    )
    with pytest.raises(InputError, match=r"array\.root: branch 'x' is not a flat scalar.*Fix:"):
        read_columns(path, "Events", {"x": "Float_t"}, 10)


def test_progress_bar_on_stderr(ntuple_factory, monkeypatch, capfd):
    monkeypatch.setattr(branches, "PROGRESS_MIN_ENTRIES", 100)  # the flat-branch reader (io.branches) draws the bar
    read_predictions(ntuple_factory(n=400), progress=True)
    err = capfd.readouterr().err  # not a terminal: one line per quarter, no carriage returns
    assert "Reading " in err and "100% 0.0/0.0 M entries" in err and "\r" not in err
