"""Issue 34, items 7 and 8: campaign maps stored honestly (empty cells 0 with error 0 and left
blank when drawn, errors the fold standard error, undefined differences in a mask) and
difference maps coloured by the pull on a fixed symmetric palette."""

from __future__ import annotations

import math

from pathlib import Path

import numpy as np
import pytest

from pnetviz.summary import binningtable, maps, summary
from pnetviz.metrics.rounding import pdg
from pnetviz.rounds import diffplots
from pnetviz.rounds.diff import Diff
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
    return colour(h, cell) != 0xFFFFFF


def grey(index: int) -> int:
    c = root().gROOT.GetColor(index)
    return (round(c.GetRed() * 255) << 16) | (round(c.GetGreen() * 255) << 8) | round(c.GetBlue() * 255)


def colour(h, cell) -> int:
    """The RGB at the centre of `cell` of the stored histogram drawn alone with its own option."""
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
    return argb


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
        assert (h.GetBinContent(*undefined), h.GetBinError(*undefined)) == (0.0, 0.0)  # outside Integral() ...
        boxes = [o for o in h.GetListOfFunctions() if o.InheritsFrom("TBox")]  # ... and marked on the map itself
        assert [(b.GetX1(), b.GetY1(), b.GetX2(), b.GetY2()) for b in boxes] == [(undefined[0] - 1, undefined[1] - 1, *undefined)]
        assert "grey: undefined" in h.GetTitle()
        assert [c for c in cells(mask) if mask.GetBinContent(*c) == 1.0] == [undefined]
        assert mask.Integral() == 1.0 and h.Integral() == pytest.approx(0.0)
        assert h.GetMinimum() < -10.0 < 10.0 < h.GetMaximum()
        assert painted(h, at(100, 95)) and painted(h, at(100, 60))
        assert colour(h, undefined) == grey(maps.UNDEFINED_FILL)  # drawn alone (TBrowser): a grey cell ...
        assert not painted(h, at(160, 60))  # ... where no signal point is blank, though 0 is inside the z range
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


def drawn_texts(fig) -> dict[tuple[float, float], str]:
    """The cell texts of a map figure, (x, y) in bin units -> text, a two-line #splitline joined."""
    texts = {}
    for o in fig.extras:
        if o.ClassName() == "TLatex" and not o.TestBit(root().TText.kTextNDC):
            t = o.GetTitle()
            if t.startswith("#splitline{"):
                t = t.removeprefix("#splitline{").removesuffix("}").replace("}{", " ", 1)
            texts[(o.GetX(), o.GetY())] = t
    return texts


def test_cells_print_the_value_and_its_error_by_the_pdg_rule():
    s = specs()
    for name, cell, value, error, sign in (
        ("map_auc_test_binary_Run3Mu_ttZ_vs_ttX", (100, 95), 0.90, 0.02 / 2, ""),  # std / sqrt(4 folds)
        ("map_auc_test_multiclass_Run3Mu_ttZ_vs_ttX", (100, 60), 0.79, 0.02 / 2, ""),
        ("map_rejection_0p5_binary_Run3Mu_ttZ_vs_ttX", (100, 95), 40.0, 40.0 * 0.4 / 2, ""),
        ("map_auc_test_difference_Run3Mu_ttZ_vs_ttX", (100, 60), 0.79 - 0.80, 0.02, ""),
        ("map_rejection_0p5_difference_Run3Mu_ttZ_vs_ttX", (100, 95), 10.0, math.hypot(8.0, 10.0), "+"),
    ):  # fmt: skip
        fig = maps.map_figure(s[name])
        try:
            h = fig.objects[f"maps/{name}"]
            xs = [int(h.GetXaxis().GetBinLabel(i)) for i in range(1, h.GetNbinsX() + 1)]
            ys = [int(h.GetYaxis().GetBinLabel(j)) for j in range(1, h.GetNbinsY() + 1)]
            v, e = pdg(value, error)
            assert drawn_texts(fig)[(xs.index(cell[0]) + 0.5, ys.index(cell[1]) + 0.5)] == f"{sign}{v} #pm {e}", name
        finally:
            fig.close()
    assert pdg(0.90, 0.01) == ("0.900", "0.010") and pdg(10.0, math.hypot(8.0, 10.0)) == ("10", "13")  # by hand
    fig = maps.map_figure(s["map_auc_test_difference_Run3Mu_ttZ_vs_ttX"])  # significant: the star after the error
    try:
        assert "+0.010 #pm 0.004*" in drawn_texts(fig).values()
    finally:
        fig.close()


def test_an_undefined_difference_is_a_grey_n_a_cell_on_the_figure():
    spec = specs()["map_rejection_0p5_difference_Run3Mu_ttZ_vs_ttX"]
    fig = maps.map_figure(spec)
    try:
        drawn = next(o for o in fig.extras if getattr(o, "GetName", lambda: "")() == spec.name)
        xs = [int(drawn.GetXaxis().GetBinLabel(i)) for i in range(1, drawn.GetNbinsX() + 1)]
        ys = [int(drawn.GetYaxis().GetBinLabel(j)) for j in range(1, drawn.GetNbinsY() + 1)]
        i, j = xs.index(160), ys.index(85)
        assert drawn_texts(fig)[(i + 0.5, j + 0.5)] == "n/a"
        boxes = [o for o in fig.extras if o.ClassName() == "TBox"]
        assert [(b.GetX1(), b.GetY1(), b.GetX2(), b.GetY2(), b.GetFillColor()) for b in boxes] == [(i, j, i + 1, j + 1, maps.UNDEFINED_FILL)]
        assert "undefined" in " ".join(fig.caption)
    finally:
        fig.close()


def fit_binning_section() -> dict:
    """Three signal points compared (0.02 +- 0.005: 4 sigma; -0.01 +- 0.02; 0 +- 0 to round-off), one untrained."""
    def comparison(m_hc, m_a, diff, se, p):
        return {"channel": "Run3Mu", "signal": f"MHc{m_hc}_MA{m_a}", "m_hc": m_hc, "m_a": m_a, "tag": "", "background": "ttZ",
                "multiclass_class": "ttX", "diff_mean": diff, "diff_standard_error": se, "diff_p_holm": p}  # fmt: skip

    def row(m_hc, m_a, kind, value, std):
        return {"channel": "Run3Mu", "signal": f"MHc{m_hc}_MA{m_a}", "m_hc": m_hc, "m_a": m_a, "kind": kind, "model": "PN",
                "pair": "ttZ" if kind == "binary" else "ttX", "value_mean": value, "value_std": std,
                "fold_values": {"0": value, "1": value, "2": value, "3": value}}  # fmt: skip

    return {"rows": [row(100, 95, "binary", 0.30, 0.02), row(160, 85, "binary", 0.40, 0.04),
                     row(100, 95, "multiclass", 0.32, 0.02), row(160, 85, "multiclass", 0.39, 0.04)],
            "comparison": [comparison(100, 95, 0.02, 0.005, 0.01), comparison(160, 85, -0.01, 0.02, 0.6),
                           comparison(130, 90, 2.2204460492503132e-17, 0.0, 1.0),  # every fold the same binning (the demo's)
                           comparison(130, 100, 4e-5, 0.0, 1.0)]}  # fmt: skip  # printed "+0.000 +- 0": the centre too


def test_the_fit_binning_difference_map_colours_its_cells_by_the_pull_and_prints_errors():
    spec = next(s for s in binningtable.map_specs(fit_binning_section()) if s.name.startswith("map_fit_binning_difference"))
    fig = maps.map_figure(spec)
    try:
        drawn = next(o for o in fig.extras if getattr(o, "GetName", lambda: "")() == spec.name)
        xs = [int(drawn.GetXaxis().GetBinLabel(i)) for i in range(1, drawn.GetNbinsX() + 1)]
        ys = [int(drawn.GetYaxis().GetBinLabel(j)) for j in range(1, drawn.GetNbinsY() + 1)]
        pulls = {cell: drawn.GetBinContent(xs.index(cell[0]) + 1, ys.index(cell[1]) + 1) for cell in ((100, 95), (160, 85), (130, 90))}
        assert pulls == {(100, 95): pytest.approx(4.0), (160, 85): pytest.approx(-0.5), (130, 90): pytest.approx(0.0, abs=1e-6)}
        assert drawn.GetBinContent(xs.index(130) + 1, ys.index(100) + 1) == pytest.approx(0.0, abs=1e-6)  # not the palette's end
        assert pulls[(130, 90)] != 0.0  # coloured (COLZ1 leaves a content of 0 blank), at the palette's centre
        assert all(drawn.GetMinimum() < p < drawn.GetMaximum() for p in pulls.values())  # inside the palette
        assert drawn.GetBinContent(xs.index(100) + 1, ys.index(85) + 1) == 0.0  # no signal point: no colour
        assert "FIP" in drawn.GetZaxis().GetTitle() and "#sigma" in drawn.GetZaxis().GetTitle()
        assert set(drawn_texts(fig).values()) == {"+0.020 #pm 0.005*", "-0.010 #pm 0.020", "+0.000 #pm 0"}
    finally:
        fig.close()
    value_map = next(s for s in binningtable.map_specs(fit_binning_section()) if s.name.startswith("map_fit_binning_binary"))
    assert value_map.errors == {(100, 95): pytest.approx(0.01), (160, 85): pytest.approx(0.02)}  # std / sqrt(4)


def test_every_difference_map_names_its_quantity_on_the_palette():
    rows = [{"channel": "Run3Mu", "kind": "binary", "pair": "ttZ", "variant": "", "m_hc": m_hc, "m_a": m_a,
             "delta_auc": d, "delta_auc_standard_error": 0.01, "significant": False, "delta_fip2": 2 * d,
             "delta_fip2_standard_error": 0.02, "fip2_significant": False} for m_hc, m_a, d in ((100, 95, 0.01), (160, 85, -0.02), (130, 90, 0.0))]  # fmt: skip  # 0: coloured too
    diff_specs = diffplots.map_specs(Diff(Path("a"), Path("b"), rows=rows))
    summary_specs = [s for s in specs().values() if s.diverging]
    binning_specs = [s for s in binningtable.map_specs(fit_binning_section()) if s.diverging]
    expected = {"diff_map_auc": "AUC", "diff_map_fip2": "FIP2", "map_auc_test": "AUC", "map_rejection": "rejection",
                "map_fit_binning": "binned FIP"}  # fmt: skip
    assert len(diff_specs) == 2 and len(summary_specs) == 2 and len(binning_specs) == 1
    for spec in diff_specs + summary_specs + binning_specs:
        fig = maps.map_figure(spec)
        try:
            drawn = next(o for o in fig.extras if getattr(o, "GetName", lambda: "")() == spec.name)
            title = drawn.GetZaxis().GetTitle()
            what = next(v for k, v in expected.items() if spec.name.startswith(k))
            assert what in title and "#sigma" in title, (spec.name, title)
            assert all(drawn.GetBinContent(i, j) != 0 for i, j in cells(drawn)
                       if drawn_texts(fig).get((i - 0.5, j - 0.5), "n/a")[0] in "+-0123456789"
                       and "#pm" in drawn_texts(fig)[(i - 0.5, j - 0.5)]), spec.name  # a number with an error: a colour
        finally:
            fig.close()
