"""Maps of one quantity share one colour scale (issue 33 item 5): the binary and the multi-class map
of a background, in every channel, have the same z range; difference maps keep the fixed pull
range; the stored histograms carry the same range."""

from __future__ import annotations

import copy

import pytest

from pnetviz.summary import maps, summary
from test_maps import COMPARED  # tests/summary is on sys.path (rootdir conftest)


def channels() -> list[dict]:
    """The three records in Run3Mu and, with other values, in Run1E2Mu."""
    other = copy.deepcopy(COMPARED)
    for c, auc in zip(other, (0.70, 0.75, 0.72)):
        c["channel"], c["auc_test_binary_mean"], c["auc_test_multiclass_mean"] = "Run1E2Mu", auc, auc + 0.01
    return COMPARED + other


def test_one_quantity_one_background_one_z_range():
    specs = {s.name: s for s in summary.map_specs([], channels())}
    names = [f"map_auc_test_{side}_{ch}_ttZ_vs_ttX" for side in ("binary", "multiclass") for ch in ("Run3Mu", "Run1E2Mu")]
    ranges = {specs[n].zrange for n in names}
    assert len(ranges) == 1
    lo, hi = ranges.pop()
    assert lo == pytest.approx(0.70 - 0.02 * 0.26) and hi == pytest.approx(0.96 + 0.02 * 0.26)  # 0.70 .. 0.96 of all four maps
    assert specs["map_rejection_0p5_binary_Run3Mu_ttZ_vs_ttX"].zrange != (lo, hi)  # another quantity: its own scale
    assert specs["map_auc_test_difference_Run3Mu_ttZ_vs_ttX"].zrange is None  # the pull's fixed range
    figs = [maps.map_figure(specs[n]) for n in names]
    try:
        for fig, n in zip(figs, names):
            drawn = next(p for p in fig.canvas.GetListOfPrimitives() if p.InheritsFrom("TH2"))
            stored = fig.objects[f"maps/{n}"]
            for h in (drawn, stored):
                assert (h.GetMinimum(), h.GetMaximum()) == pytest.approx((lo, hi))
    finally:
        for fig in figs:
            fig.close()


def test_share_ranges_leaves_ungrouped_and_diverging_maps():
    a = maps.MapSpec("a", "A", "z", {(1, 1): 0.5, (1, 2): 0.6}, ".2f", group="g")
    b = maps.MapSpec("b", "B", "z", {(1, 1): 0.9}, ".2f", group="g")
    c = maps.MapSpec("c", "C", "z", {(1, 1): 5.0}, ".2f")
    d = maps.MapSpec("d", "D", "z", {(1, 1): 5.0}, ".2f", diverging=True, group="g")
    out = {s.name: s.zrange for s in maps.share_ranges([a, b, c, d])}
    assert out["a"] == out["b"] == pytest.approx((0.5 - 0.008, 0.9 + 0.008))
    assert out["c"] is None and out["d"] is None
