"""jobs.limits' pure helpers: the files' stems are plain names, the per-fold parts of the pooled
test events are scaled to the pooled yields, the fold spread is the sample standard deviation."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.jobs import limits
from pnetviz.limits import strategies as st
from pnetviz.metrics import outoffold as oof


def test_file_stems_are_plain_names():
    assert limits.stem("signal_vs_ttZ", "cut-and-mass") == "signal_vs_ttZ_cut_and_mass"
    assert limits.stem("signal_vs_t t-bar.Z", "score-fit") == "signal_vs_t_t_bar_Z_score_fit"


def test_fold_parts_scaled_to_the_pooled_yields():
    split = oof.Split(np.array([0.1, 0.9, 0.2, 0.8, 0.7]), np.array([False, True, False, True, True]),
                      np.array([1.0, 2.0, 3.0, 4.0, 5.0]))  # fmt: skip
    pooled = oof.Pooled([0, 1], split, split, "valid", None, {0: 2, 1: 3})
    test = limits.columns(split, (1.0, 1.0))
    parts = limits.fold_parts(pooled, test)
    assert parts[0].weights.tolist() == pytest.approx([4.0, 11.0])  # signal 2 -> 11, background 1 -> 4
    assert parts[1].weights.tolist() == pytest.approx([4.0, 11.0 * 4 / 9, 11.0 * 5 / 9])
    scaled = limits.columns(split, (2.0, 0.5))
    assert scaled.weights.tolist() == [0.5, 4.0, 1.5, 8.0, 10.0]
    assert isinstance(scaled, st.Columns)


def test_spread_needs_two_folds():
    assert limits._std([1.0, None, 3.0]) == pytest.approx(np.std([1.0, 3.0], ddof=1))
    assert limits._std([1.0, None]) is None and limits._std([float("nan"), 2.0]) is None
