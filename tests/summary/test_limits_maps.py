"""The expected-limit maps over the mass grid (summary.limitsmaps): the values stored in the ROOT
file the campaign writes (read back from disk), the fold standard errors, the best / score-fit
ratio, and empty cells where a signal point has no limit."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from conftest import limits_round
from pnetviz.output import publish
from pnetviz.rootenv import root
from pnetviz.summary import limits, limitsmaps, maps

pytestmark = pytest.mark.slow  # ROOT draws and stores the maps (a write_set)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """campaign.root with the maps of the fabricated round, as summary.write stores them."""
    base = tmp_path_factory.mktemp("limits")
    jobs = [j for j in limits_round(base / "round") if j["channel"] == "Run3Mu"]  # one model variant: no name suffix
    sec = limits.section({"jobs": jobs})
    out = base / "set"
    out.mkdir()
    specs = [s for s in limitsmaps.map_specs(sec) if "_binary-" in s.name or "_ratio_" in s.name]
    publish.write_set(out, [], publish.StyleOptions(), lambda: [maps.map_figure(s) for s in specs], {}, "maps",
                      root_name="campaign.root")
    return out / "campaign.root", sec


def cells(hist) -> dict[tuple[str, str], tuple[float, float]]:
    """(m_hc label, m_a label) -> (content, error) of every bin."""
    return {(hist.GetXaxis().GetBinLabel(i), hist.GetYaxis().GetBinLabel(j)): (hist.GetBinContent(i, j), hist.GetBinError(i, j))
            for i in range(1, hist.GetNbinsX() + 1) for j in range(1, hist.GetNbinsY() + 1)}  # fmt: skip


def read(path, key: str) -> dict:
    f = root().TFile.Open(str(path))
    try:
        hist = f.Get(key)
        assert hist, f"{key} not in {path}"
        return cells(hist)
    finally:
        f.Close()


def test_limit_map_per_strategy_stores_the_medians_and_fold_standard_errors(stored):
    path, _ = stored
    got = read(path, "maps/map_expected_limit_cut-and-mass_Run3Mu_binary-signal_vs_ttZ")
    assert set(got) == {("130", "90"), ("130", "100")}
    assert got[("130", "100")][0] == pytest.approx(0.827, rel=1e-12)
    assert got[("130", "100")][1] == pytest.approx(0.119 / math.sqrt(3), rel=1e-9)
    assert got[("130", "90")] == pytest.approx((1.5, 0.1 / math.sqrt(3)), rel=1e-9)


def test_a_failed_strategy_leaves_its_cell_empty(stored):
    path, _ = stored
    got = read(path, "maps/map_expected_limit_mass-x-score_Run3Mu_binary-signal_vs_ttZ")
    assert got[("130", "100")][0] == pytest.approx(0.9)
    assert ("130", "90") not in got  # its only other cell failed: the grid holds the measured point alone


def test_ratio_map_is_best_over_score_fit(stored):
    path, _ = stored
    got = read(path, "maps/map_expected_limit_ratio_Run3Mu_binary-signal_vs_ttZ")
    assert got[("130", "100")][0] == pytest.approx(0.827 / 1.6, rel=5e-4)  # 4 significant digits (maps.cell_content)
    assert got[("130", "90")][0] == pytest.approx(1.5 / 2.0, rel=5e-4)  # the failed mass-x-score is not the best
    mc = read(path, "maps/map_expected_limit_ratio_Run3Mu_multiclass-pair-signal_vs_ttZ")
    assert mc[("130", "100")][0] == pytest.approx(0.7 / 1.1, rel=5e-4)


def test_strategies_of_one_model_share_a_colour_range(stored):
    _, sec = stored
    specs = {s.name: s for s in limitsmaps.map_specs(sec)}
    ranges = {specs[f"map_expected_limit_{s}_Run3Mu_binary-signal_vs_ttZ"].zrange for s in limits.STRATEGIES}
    assert len(ranges) == 1
    lo, hi = ranges.pop()
    assert lo < 0.827 and hi > 2.0  # every strategy's values of that model inside


def test_the_maps_pass_the_figure_linter(stored):
    """CMS style, the frame's size at 8 cm, text inside the pad (tests/draw/figlint.py, loaded from its path)."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("figlint", Path(__file__).parents[1] / "draw" / "figlint.py")
    figlint = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figlint)
    path, _ = stored
    records = figlint.settled(figlint.lint_records([path], jobs=1))
    assert not records, figlint.summarize(records)
