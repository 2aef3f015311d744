"""A fold set's `out_of_fold_events.npz` (jobs.outoffold): read back exactly (dtypes, choice split,
expected yields), the same bytes from two writes (no time stamp: compare_trees compares runs byte
for byte), and a damaged or foreign file is None (the fold is then named as not pooled)."""

from __future__ import annotations

import json
import zipfile

import numpy as np

from pnetviz.jobs import outoffold
from pnetviz.metrics import outoffold as oof


def pairs() -> dict:
    test = oof.Split(np.array([0.1, 0.7, 0.9], np.float32), np.array([False, False, True]), np.array([1.0, 0.5, 2.0]))
    choice = oof.Split(np.array([0.2, 0.8]), np.array([False, True]), np.array([1.5, 0.25]))
    return {"S vs ttZ": {"prefix": "", "background": "ttZ", "pair": oof.FoldPair(test, choice, "valid", (3.0, 40.0))},
            "S vs ttX (LR)": {"prefix": "signal_vs_ttX_", "background": "ttX", "pair": oof.FoldPair(test, test, "train")}}


def test_round_trip_and_identical_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    outoffold.store(a, pairs())
    outoffold.store(b, pairs())
    assert (a / outoffold.EVENTS_FILE).read_bytes() == (b / outoffold.EVENTS_FILE).read_bytes()
    back = outoffold.load(a)
    assert list(back) == ["S vs ttZ", "S vs ttX (LR)"]
    first = back["S vs ttZ"]["pair"]
    assert first.test.scores.dtype == np.float32 and first.test.scores.tolist() == pairs()["S vs ttZ"]["pair"].test.scores.tolist()
    assert first.choice.weights.tolist() == [1.5, 0.25] and first.choice_split == "valid" and first.expected == (3.0, 40.0)
    assert back["S vs ttX (LR)"]["prefix"] == "signal_vs_ttX_" and back["S vs ttX (LR)"]["pair"].expected is None


def test_damaged_or_foreign_files_are_not_read(tmp_path):
    assert outoffold.load(tmp_path) is None  # none
    (tmp_path / outoffold.EVENTS_FILE).write_bytes(b"PK\x03\x04 truncated")
    assert outoffold.load(tmp_path) is None
    outoffold.store(tmp_path, pairs())
    with zipfile.ZipFile(tmp_path / outoffold.EVENTS_FILE) as z:  # an array missing
        kept = {n: z.read(n) for n in z.namelist() if n != "p1_choice_weights.npy"}
    with zipfile.ZipFile(tmp_path / outoffold.EVENTS_FILE, "w") as z:
        for n, data in kept.items():
            z.writestr(n, data)
    assert outoffold.load(tmp_path) is None
    np.savez(tmp_path / outoffold.EVENTS_FILE, meta=np.array(json.dumps({"format": 99, "pairs": []})))  # another format
    assert outoffold.load(tmp_path) is None


def test_a_file_that_would_inflate_past_the_bound_is_not_read(tmp_path, monkeypatch):
    outoffold.store(tmp_path, pairs())
    assert outoffold.load(tmp_path) is not None
    with zipfile.ZipFile(tmp_path / outoffold.EVENTS_FILE) as z:
        size = sum(i.file_size for i in z.infolist())
    monkeypatch.setattr(outoffold, "MAX_EVENT_BYTES", size - 1)  # a deflate bomb's declared sizes, scaled down
    assert outoffold.load(tmp_path) is None


def with_limit_columns() -> dict:
    """pairs() with the mass and one systematic on the first pair's splits."""
    out = pairs()
    pair = out["S vs ttZ"]["pair"]
    test = oof.Split(pair.test.scores, pair.test.is_signal, pair.test.weights, np.array([91.0, 30.0, 88.5]),
                     {"jes": (np.array([1.1, 0.6, 2.2]), np.array([0.9, 0.4, 1.8]))})  # fmt: skip
    choice = oof.Split(pair.choice.scores, pair.choice.is_signal, pair.choice.weights, np.array([50.0, 90.0]),
                       {"jes": (np.array([1.6, 0.3]), np.array([1.4, 0.2]))})  # fmt: skip
    out["S vs ttZ"]["pair"] = oof.FoldPair(test, choice, "valid", (3.0, 40.0))
    return out


def test_mass_and_systematics_round_trip(tmp_path):
    outoffold.store(tmp_path, with_limit_columns())
    back = outoffold.load(tmp_path)
    first = back["S vs ttZ"]["pair"]
    assert first.test.mass.tolist() == [91.0, 30.0, 88.5] and first.choice.mass.tolist() == [50.0, 90.0]
    assert [a.tolist() for a in first.test.systs["jes"]] == [[1.1, 0.6, 2.2], [0.9, 0.4, 1.8]]
    assert [a.tolist() for a in first.choice.systs["jes"]] == [[1.6, 0.3], [1.4, 0.2]]
    second = back["S vs ttX (LR)"]["pair"]  # stored without: none read back
    assert second.test.mass is None and second.test.systs == {}
    pooled = oof.pool({0: first, 1: pairs()["S vs ttZ"]["pair"]})  # a fold without the mass: the pooled split has none
    assert pooled.test.mass is None and pooled.test.systs == {}
    pooled = oof.pool({0: first, 1: first})
    assert pooled.test.mass.tolist() == [91.0, 30.0, 88.5] * 2 and pooled.test.systs["jes"][1].tolist() == [0.9, 0.4, 1.8] * 2


def test_mass_of_another_length_is_not_read(tmp_path):
    outoffold.store(tmp_path, with_limit_columns())
    with zipfile.ZipFile(tmp_path / outoffold.EVENTS_FILE) as z:
        kept = {n: z.read(n) for n in z.namelist() if n != "p0_test_mass.npy"}
    with zipfile.ZipFile(tmp_path / outoffold.EVENTS_FILE, "w") as z:
        for n, data in kept.items():
            z.writestr(n, data)
        with z.open("p0_test_mass.npy", "w") as member:
            np.lib.format.write_array(member, np.array([1.0, 2.0]), allow_pickle=False)
    assert outoffold.load(tmp_path) is None


def test_limit_columns_from_the_ntuple_columns():
    class Preds:  # the fields of io.ntuple.Predictions that limit_columns reads
        weight = np.array([2.0, -1.0, 0.0, 4.0])
        extra = {"m": np.array([10.0, 20.0, 30.0, 40.0]), "weight__jesUp": np.array([3.0, -2.0, 5.0, 4.0]),
                 "weight__jesDown": np.array([1.0, -0.5, 1.0, 2.0]), "weight__loneUp": np.ones(4)}  # fmt: skip

    sel = np.array([True, True, True, False])
    used = np.array([2.0, 1.0, 0.0])  # |w| of the selected events
    got = outoffold.limit_columns(Preds, sel, used, "m")
    assert got["mass"].tolist() == [10.0, 20.0, 30.0]
    assert list(got["systs"]) == ["jes"]  # an Up without its Down is not a systematic
    up, down = got["systs"]["jes"]
    assert up.tolist() == [3.0, 2.0, 0.0] and down.tolist() == [1.0, 0.5, 0.0]  # |w| x variation / nominal


def test_floats_stored_narrow_where_exact_flags_deflated(tmp_path):
    """Weights that float32 holds exactly (|w| of a float branch) are stored as float32, others as
    float64; both read back as float64 with the same numbers. Only the 1-byte flags are deflated."""
    exact = np.array([0.5, 0.02106134034693241, 3.0])  # float32 numbers held as float64
    assert np.float32(exact[1]) == exact[1]
    inexact = np.array([0.1, 1.0, 2.0])  # 0.1 is not a float32
    test = oof.Split(np.array([0.1, 0.7, 0.9], np.float32), np.array([False, False, True]), exact, exact * 2,
                     {"jes": (exact, inexact)})  # fmt: skip
    choice = oof.Split(np.array([0.2, 0.8, 0.4]), np.array([False, True, True]), inexact, inexact, {"jes": (inexact, exact)})
    outoffold.store(tmp_path, {"S vs B": {"prefix": "", "background": "B", "pair": oof.FoldPair(test, choice, "valid")}})
    with np.load(tmp_path / outoffold.EVENTS_FILE) as data:
        stored = {k: data[k].dtype for k in data.files}
    assert stored["p0_test_weights"] == np.float32 and stored["p0_test_mass"] == np.float32
    assert stored["p0_choice_weights"] == np.float64 and stored["p0_test_syst0_down"] == np.float64
    assert stored["p0_test_scores"] == np.float32 and stored["p0_choice_scores"] == np.float64
    with zipfile.ZipFile(tmp_path / outoffold.EVENTS_FILE) as z:
        kinds = {i.filename: i.compress_type for i in z.infolist()}
    assert kinds["p0_test_signal.npy"] == zipfile.ZIP_DEFLATED and kinds["p0_test_weights.npy"] == zipfile.ZIP_STORED
    back = outoffold.load(tmp_path)["S vs B"]["pair"]
    for got, want in ((back.test.weights, exact), (back.test.mass, exact * 2), (back.choice.weights, inexact),
                      (back.test.systs["jes"][0], exact), (back.test.systs["jes"][1], inexact)):  # fmt: skip
        assert got.dtype == np.float64 and got.tolist() == want.tolist()
