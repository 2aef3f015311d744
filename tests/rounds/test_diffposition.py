"""rounds.diffposition (issue 51, item 6): two ntuples' test events are the same events by position
when their counts, true_label, weight and shared observer sequences agree entry by entry; the first
difference is named otherwise. Hand-made ntuples of eight events (five in the test split)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import write_ntuple
from pnetviz.rounds.diffposition import observers, same_events

LABEL = np.array([0, 1, 0, 1, 1, 0, 1, 0], dtype=np.int32)
TEST = np.array([1, 1, 0, 1, 1, 0, 0, 1], dtype=bool)  # test events: entries 0 1 3 4 7


def ntuple(path, score=None, label=LABEL, weight=None, test=TEST, **observed):
    score = np.linspace(0.1, 0.8, 8, dtype=np.float32) if score is None else np.asarray(score, np.float32)
    weight = np.array([1.0, -0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75], np.float32) if weight is None else weight
    columns = {"score_signal": score, "score_bg1": (1 - score).astype(np.float32), "true_label": label,
               "weight": np.asarray(weight, np.float32), "train_mask": ~test, "test_mask": test, **observed}  # fmt: skip
    return write_ntuple(path, columns)


def test_the_same_events_by_position_come_back_aligned_with_each_rounds_scores(tmp_path):
    m = np.array([91.0, 12.5, 7.0, 40.0, 88.0, 20.0, 33.0, 1.0], np.float32)
    a = ntuple(tmp_path / "a.root", m_mumu=m)
    b = ntuple(tmp_path / "b.root", score=np.linspace(0.9, 0.2, 8), m_mumu=m)
    (sa, is_signal, wa), (sb, is_signal_b, wb) = same_events(a, b, ("abs", "signed"))
    assert sa.tolist() == pytest.approx([0.1, 0.2, 0.4, 0.5, 0.8])
    assert sb.tolist() == pytest.approx([0.9, 0.8, 0.6, 0.5, 0.2])
    assert is_signal.tolist() == is_signal_b.tolist() == [True, False, False, False, True]
    assert wa.tolist() == [1.0, 0.5, 1.5, 0.25, 0.75] and wb.tolist() == [1.0, -0.5, 1.5, 0.25, 0.75]
    assert observers(a) == {"m_mumu"}


def test_an_unreadable_observer_is_named(tmp_path):
    a = ntuple(tmp_path / "a.root", m_mumu=np.array([1, 2, np.nan, 4, 5, 6, 7, 8], np.float32))
    b = ntuple(tmp_path / "b.root", m_mumu=np.arange(8, dtype=np.float32))
    why = same_events(a, b, ("abs", "abs"))
    assert why.startswith("round A's ntuple is not read as a binary model with the observers m_mumu (")
    assert "m_mumu" in why.split("(", 1)[1] and "entry 2" in why


@pytest.mark.parametrize(
    ("change", "why"),
    [({"label": np.array([0, 1, 0, 0, 1, 0, 1, 1], np.int32)}, "true_label differs at test event 2 of 5"),  # entry 3
     ({"weight": np.array([1.0, -0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.7500001], np.float32)}, "weight differs at test event 4 of 5"),
     ({"test": np.array([1, 1, 0, 1, 1, 0, 1, 1], bool)}, "5 test events in round A, 6 in round B"),
     ({"m_mumu": np.array([91, 12.5, 7, 40, 88.5, 20, 33, 1], np.float32)}, "observer m_mumu differs at test event 3 of 5")],
)  # fmt: skip
def test_the_first_difference_is_named(tmp_path, change, why):
    m = np.array([91, 12.5, 7, 40, 88, 20, 33, 1], np.float32)
    a = ntuple(tmp_path / "a.root", m_mumu=m)
    b = ntuple(tmp_path / "b.root", **({"m_mumu": m} | change))
    assert same_events(a, b, ("abs", "abs")) == why


def test_an_observer_of_one_round_only_is_not_compared_and_scores_are_no_observers(tmp_path):
    a = ntuple(tmp_path / "a.root", pt_lead=np.arange(8, dtype=np.float32))
    b = ntuple(tmp_path / "b.root")
    assert observers(a) == {"pt_lead"} and observers(b) == set()
    assert not isinstance(same_events(a, b, ("abs", "abs")), str)


def test_two_events_swapped_are_not_the_same_events(tmp_path):
    order = np.array([1, 0, 2, 3, 4, 5, 6, 7])  # one signal and one background test event swapped
    a = ntuple(tmp_path / "a.root")
    b = ntuple(tmp_path / "b.root", score=np.linspace(0.1, 0.8, 8)[order], label=LABEL[order],
               weight=np.array([1.0, -0.5, 2.0, 1.5, 0.25, 1.0, 3.0, 0.75], np.float32)[order], test=TEST[order])  # fmt: skip
    assert same_events(a, b, ("abs", "abs")) == "true_label differs at test event 0 of 5"
