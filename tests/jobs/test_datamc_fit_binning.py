"""`pnetviz datamc --fit-binning`: the chosen K's edges of an evaluation's binning.json (one pair
or a multi-class document's --fit-pair), every other file one line."""

from __future__ import annotations

import json

import pytest

from pnetviz.errors import InputError
from pnetviz.jobs.datamc import fit_edges


def _pair(edges_by_k: dict[int, list[float]], chosen: int) -> dict:
    return {"by_k": [{"k": k, "edges": e} for k, e in edges_by_k.items()], "chosen_k": chosen}


def test_the_chosen_edges(tmp_path):
    one = tmp_path / "binning.json"
    one.write_text(json.dumps({"format": 1, "pair": "signal vs diboson", **_pair({1: [0, 1], 2: [0, 0.4, 1]}, 2)}))
    assert fit_edges(one, None) == (0.0, 0.4, 1.0)
    multi = tmp_path / "multi.json"
    multi.write_text(json.dumps({"pairs": {"signal_vs_ttX": _pair({3: [0, 0.2, 0.7, 1]}, 3),
                                           "signal_vs_diboson": _pair({1: [0, 1]}, 1)}}))  # fmt: skip
    assert fit_edges(multi, "signal_vs_ttX") == (0.0, 0.2, 0.7, 1.0)
    with pytest.raises(InputError, match="binning for 2 pairs .* Fix: choose one with --fit-pair"):
        fit_edges(multi, None)
    with pytest.raises(InputError, match="no pair 'nope'"):
        fit_edges(multi, "nope")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"pair": "x", **_pair({2: [0, 0.5, 0.5, 1]}, 2)}))
    with pytest.raises(InputError, match="no chosen binning"):
        fit_edges(bad, None)
