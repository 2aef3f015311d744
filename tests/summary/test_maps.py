"""Issue 34, items 7 and 8: campaign maps stored honestly (empty cells 0 with error 0 and left
blank when drawn, errors the fold standard error, undefined differences in a mask) and
difference maps coloured by the pull on a fixed symmetric palette."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pnetviz.summary import maps, summary
from pnetviz.metrics import hep
from pnetviz.rootenv import root

LIMIT = 1 / hep.eps_b_limit(1200.0)


def record(m_hc, m_a, auc_b, auc_m, std_b, std_m, rej_b, rej_m, limit_b=False, limit_m=False, se=0.002, p=0.3):
    up = lambda r: None if r is None else r * math.exp(0.4)  # noqa: E731 - a fold spread s = 0.4 in log space
    return {"channel": "Run3Mu", "signal": f"MHc{m_hc}_MA{m_a}", "m_hc": m_hc, "m_a": m_a, "tag": "", "background": "ttZ",
            "multiclass_class": "ttX", "auc_test_binary_mean": auc_b, "auc_test_binary_std": std_b,
            "auc_test_multiclass_mean": auc_m, "auc_test_multiclass_std": std_m, "n_folds_binary": 4, "n_folds_multiclass": 4,
            "rejection_0.5_binary_mean": rej_b, "rejection_0.5_binary_upper": None if limit_b else up(rej_b),
            "rejection_0.5_multiclass_mean": rej_m, "rejection_0.5_multiclass_upper": None if limit_m else up(rej_m),
            "rejection_0.5_binary_limit": limit_b, "rejection_0.5_multiclass_limit": limit_m,
            "auc_diff_standard_error": se, "auc_diff_p_value": p, "auc_diff_p_holm": p}  # the map stars use the Holm-adjusted p  # fmt: skip


COMPARED = [record(100, 95, 0.90, 0.91, 0.02, 0.01, 40.0, 50.0, se=0.004, p=0.04),
            record(100, 60, 0.80, 0.79, 0.04, 0.02, 20.0, 10.0, se=0.02),
            record(160, 85, 0.95, 0.96, 0.01, 0.03, LIMIT, LIMIT, True, True, se=0.001)]  # (160, 60), (160, 95) untrained


def specs():
    return {s.name: s for s in summary.map_specs([], COMPARED)}


def cells(h):
    return [(i, j) for i in range(1, h.GetNbinsX() + 1) for j in range(1, h.GetNbinsY() + 1)]


def test_stored_map_is_empty_where_untrained_and_carries_fold_standard_errors():
    fig = maps.map_figure(specs()["map_auc_test_binary_Run3Mu_ttZ_vs_ttX"])
    try:
        h = fig.objects["maps/map_auc_test_binary_Run3Mu_ttZ_vs_ttX"]
        xs = [h.GetXaxis().GetBinLabel(i) for i in range(1, h.GetNbinsX() + 1)]
        ys = [h.GetYaxis().GetBinLabel(j) for j in range(1, h.GetNbinsY() + 1)]
        trained = {(xs.index(str(c["m_hc"])) + 1, ys.index(str(c["m_a"])) + 1): c for c in COMPARED}
        assert len(cells(h)) == 6 and len(trained) == 3
        for cell in cells(h):
            if cell in trained:
                c = trained[cell]
                assert h.GetBinContent(*cell) == c["auc_test_binary_mean"]
                assert h.GetBinError(*cell) == pytest.approx(c["auc_test_binary_std"] / 2)  # std/sqrt(4 folds)
            else:
                assert (h.GetBinContent(*cell), h.GetBinError(*cell)) == (0.0, 0.0)
        assert h.Integral() == pytest.approx(0.90 + 0.80 + 0.95)
        assert 0 < h.GetMinimum() < 0.80 and h.GetOption() == "COLZ1"
    finally:
        fig.close()


def painted(h, cell) -> bool:
    """Whether the stored histogram, drawn alone with its own option, paints `cell` (not white)."""
    ROOT = root()
    c = ROOT.TCanvas("paint_check", "", 300, 300)
    c.SetMargin(0, 0, 0, 0)
    h.Draw(h.GetOption())
    c.Update()
    img = ROOT.TImage.Create()
    img.FromPad(c)
    nx, ny = h.GetNbinsX(), h.GetNbinsY()
    px = int((cell[0] - 0.5) / nx * img.GetWidth())
    py = int((1 - (cell[1] - 0.5) / ny) * img.GetHeight())
    argb = img.GetArgbArray()[py * img.GetWidth() + px] & 0xFFFFFF
    c.Close()
    return argb != 0xFFFFFF


def test_difference_map_stores_values_leaves_empty_cells_blank_and_masks_undefined_cells():
    spec = specs()["map_rejection_0p5_difference_Run3Mu_ttZ_vs_ttX"]
    fig = maps.map_figure(spec)
    try:
        h = fig.objects["maps/map_rejection_0p5_difference_Run3Mu_ttZ_vs_ttX"]
        mask = fig.objects["maps/map_rejection_0p5_difference_Run3Mu_ttZ_vs_ttX_undefined"]
        xs = [h.GetXaxis().GetBinLabel(i) for i in range(1, h.GetNbinsX() + 1)]
        ys = [h.GetYaxis().GetBinLabel(j) for j in range(1, h.GetNbinsY() + 1)]
        at = lambda m_hc, m_a: (xs.index(str(m_hc)) + 1, ys.index(str(m_a)) + 1)  # noqa: E731
        assert h.GetBinContent(*at(100, 95)) == 10.0 and h.GetBinContent(*at(100, 60)) == -10.0
        sem = lambda r: r * 0.4 / 2  # noqa: E731 - R s / sqrt(4)
        assert h.GetBinError(*at(100, 95)) == pytest.approx(math.hypot(sem(40.0), sem(50.0)))
        undefined = at(160, 85)
        assert (h.GetBinContent(*undefined), h.GetBinError(*undefined)) == (0.0, 0.0)  # not a sentinel
        assert [c for c in cells(mask) if mask.GetBinContent(*c) == 1.0] == [undefined]
        assert mask.Integral() == 1.0 and h.Integral() == pytest.approx(0.0)
        assert h.GetMinimum() < -10.0 < 10.0 < h.GetMaximum()
        assert painted(h, at(100, 95)) and painted(h, at(100, 60))
        assert not painted(h, undefined) and not painted(h, at(160, 60))  # blank, though 0 is inside the z range
    finally:
        fig.close()


def test_difference_map_is_coloured_by_the_pull_on_a_fixed_symmetric_palette():
    spec = specs()["map_auc_test_difference_Run3Mu_ttZ_vs_ttX"]
    fig = maps.map_figure(spec)
    try:
        drawn = next(o for o in fig.extras if getattr(o, "GetName", lambda: "")() == spec.name)
        assert (drawn.GetMinimum(), drawn.GetMaximum()) == (-maps.PULL_RANGE, maps.PULL_RANGE)
        assert "#sigma" in drawn.GetZaxis().GetTitle()
        xs = [drawn.GetXaxis().GetBinLabel(i) for i in range(1, drawn.GetNbinsX() + 1)]
        ys = [drawn.GetYaxis().GetBinLabel(j) for j in range(1, drawn.GetNbinsY() + 1)]
        pulls = {(int(xs[i - 1]), int(ys[j - 1])): drawn.GetBinContent(i, j) for i, j in cells(drawn)}
        assert pulls[(100, 95)] == pytest.approx((0.91 - 0.90) / 0.004)  # 2.5 sigma
        assert pulls[(100, 60)] == pytest.approx((0.79 - 0.80) / 0.02)  # -0.5 sigma: pale, not saturated
        assert pulls[(160, 85)] == pytest.approx(maps.PULL_RANGE)  # 10 sigma, drawn at the end of the palette
        assert np.all(np.abs(list(pulls.values())) <= maps.PULL_RANGE)
        assert spec.significant == ((100, 95),)
    finally:
        fig.close()
