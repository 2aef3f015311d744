"""`pnetviz datamc` end to end on a synthetic samples tree (demo.samples): the stored ratio, band and
pulls equal a hand computation, the mismodelled region disagrees, blinding holds in the figure's
canvas, plots.root and datamc.json (and --unblind lifts it, saying so). The figure checks:
tests/draw/test_datamc_figure.py."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pnetviz.demo import samples as demo
from pnetviz.io.samples import CENTRAL, SampleSpec, read_samples
from pnetviz.jobs import datamc as job_module
from pnetviz.rootenv import root

pytestmark = pytest.mark.slow

EDGES = tuple(np.linspace(0.0, 1.0, 11))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("datamc")
    samples = demo.write_samples(base / "samples", mc_events=1000, seed=11)
    job = job_module.DatamcJob(samples_dir=samples, era=demo.ERA, channels=demo.CHANNELS, masspoint=demo.MASSPOINT,
                               method=demo.METHOD, output=base / "blind", formats=("png",), edges=EDGES)  # fmt: skip
    _, blind = job_module.run(job)
    _, unblind = job_module.run(replace(job, output=base / "unblind", unblind=True))
    return samples, base, blind, unblind


def _region(report: dict, channel: str) -> dict:
    return next(r for r in report["regions"] if r["channel"] == channel and r["score"] == "signal")


def _hand(samples_dir: Path, channel: str) -> dict:
    """The comparison computed here from the samples: numpy histograms, no pnetviz statistics."""
    s = read_samples(SampleSpec(samples_dir, demo.ERA, channel, demo.MASSPOINT, demo.METHOD))
    edges = np.asarray(EDGES)
    clip = lambda v: np.clip(v, edges[0], np.nextafter(edges[-1], 0))  # noqa: E731 - outside values in the edge bins
    hist = lambda t, w: np.histogram(clip(t.scores["signal"]), edges, weights=w)[0]  # noqa: E731
    backgrounds = [p for p in s.processes if p != demo.MASSPOINT]
    mu = sum(hist(s.simulation[p][CENTRAL], s.simulation[p][CENTRAL].weight) for p in backgrounds)
    w2 = sum(hist(s.simulation[p][CENTRAL], s.simulation[p][CENTRAL].weight ** 2) for p in backgrounds)
    deltas = []
    for syst in s.systematics:
        up = sum(hist(s.variation(p, syst, "Up"), s.variation(p, syst, "Up").weight) for p in backgrounds)
        down = sum(hist(s.variation(p, syst, "Down"), s.variation(p, syst, "Down").weight) for p in backgrounds)
        deltas.append((up - down) / 2)
    data = np.histogram(clip(s.data.scores["signal"]), edges)[0].astype(float)
    var = mu + w2 + sum(d * d for d in deltas)
    ok = mu > 0  # a bin without background: no ratio (not drawn), band and pull 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"data": data, "mu": mu, "ok": ok, "ratio": (data / mu)[ok],
                "band": np.where(ok, np.sqrt(w2 + sum(d * d for d in deltas)) / mu, 0.0),
                "pulls": np.where(ok, (data - mu) / np.sqrt(var), 0.0)}


def _file(path: Path):
    f = root().TFile.Open(str(path))
    assert f and not f.IsZombie()
    return f


def _graph_y(graph) -> tuple[np.ndarray, np.ndarray]:
    n = graph.GetN()
    return np.array([graph.GetPointX(i) for i in range(n)]), np.array([graph.GetPointY(i) for i in range(n)])


def test_stored_ratio_band_and_pulls_equal_a_hand_computation(runs):
    samples, base, _, _ = runs
    hand = _hand(samples, "WZ3Mu")
    assert hand["ok"].sum() >= 8
    f = _file(base / "blind" / "plots.root")
    _, ratio = _graph_y(f.Get("WZ3Mu/signal/ratio"))
    band, pulls = f.Get("WZ3Mu/signal/ratio_band"), f.Get("WZ3Mu/signal/pulls")
    assert np.allclose(ratio, hand["ratio"], rtol=1e-12, atol=0)
    assert np.allclose([band.GetBinError(i) for i in range(1, 11)], hand["band"], rtol=1e-12, atol=0)
    assert np.allclose([pulls.GetBinContent(i) for i in range(1, 11)], hand["pulls"], rtol=1e-12, atol=1e-15)
    f.Close()


def test_the_mismodelled_region_disagrees_and_the_good_one_agrees(runs):
    _, _, report, _ = runs
    assert _region(report, "ZG3Mu")["chi2"]["p_value"] < 1e-3
    assert _region(report, "ZG3Mu")["verdict"].startswith("disagree")
    assert _region(report, "WZ3Mu")["chi2"]["p_value"] > 0.01 and _region(report, "WZ3Mu")["verdict"].startswith("agree")
    assert _region(report, "WZ3Mu")["working_points"][0]["data"] is not None


def _canvas_values(pad) -> tuple[list[float], list[str]]:
    """Every number a drawn graph or histogram holds and every text, through every sub-pad."""
    values, texts = [], []
    for obj in pad.GetListOfPrimitives():
        if obj.InheritsFrom("TPad"):
            v, t = _canvas_values(obj)
            values, texts = values + v, texts + t
        elif obj.InheritsFrom("TGraph"):
            values += _graph_y(obj)[1].tolist()
        elif obj.InheritsFrom("TH1"):
            values += [obj.GetBinContent(i) for i in range(1, obj.GetNbinsX() + 1)]
        elif obj.InheritsFrom("TLegend"):
            texts += [e.GetLabel() for e in obj.GetListOfPrimitives()]
        elif obj.InheritsFrom("TText"):
            texts.append(obj.GetTitle())
    return values, texts


def test_blinded_bins_appear_nowhere_and_unblind_shows_them(runs):
    samples, base, blind, unblind = runs
    hand = _hand(samples, "SR3Mu")
    entry = _region(blind, "SR3Mu")
    masked = np.array(entry["masked"])
    assert masked.any() and not masked.all() and blind["unblinded"] is False
    hidden = {float(v) for v in hand["data"][masked] if v > 0}
    assert hidden
    # datamc.json
    doc = json.loads((base / "blind" / "datamc.json").read_text())
    sr = next(r for r in doc["regions"] if r["channel"] == "SR3Mu" and r["score"] == "signal")
    for field in ("data", "data_low", "data_high", "ratio", "pulls"):
        assert all(v is None for v, m in zip(sr[field], masked) if m), field
    assert all(p["data"] is None and p["data_pass"] is None for p in sr["working_points"])
    assert [v for v, m in zip(sr["data"], masked) if not m] == hand["data"][~masked].tolist()
    # plots.root: the stored objects and the canvas the PNG was drawn from
    f = _file(base / "blind" / "plots.root")
    x, y = _graph_y(f.Get("SR3Mu/signal/data"))
    centres = 0.5 * (np.asarray(EDGES)[:-1] + np.asarray(EDGES)[1:])
    assert np.allclose(x, centres[~masked]) and y.tolist() == hand["data"][~masked].tolist()
    values, texts = _canvas_values(f.Get("canvases/datamc_SR3Mu_signal"))
    assert not hidden & set(values)
    assert any("blinded" in t for t in texts) and not any("UNBLINDED" in t for t in texts)
    f.Close()
    # --unblind: every bin shown, and said so
    assert unblind["unblinded"] is True and not any(_region(unblind, "SR3Mu")["masked"])
    assert any("UNBLINDED" in line for line in job_module.summary_lines(unblind))
    f = _file(base / "unblind" / "plots.root")
    assert _graph_y(f.Get("SR3Mu/signal/data"))[1].tolist() == hand["data"].tolist()
    values, texts = _canvas_values(f.Get("canvases/datamc_SR3Mu_signal"))
    assert hidden <= set(values) and any("UNBLINDED" in t for t in texts)
    f.Close()
    assert json.loads((base / "unblind" / "datamc.json").read_text())["unblinded"] is True


def test_chi2_p_values_are_uniform_over_pseudo_data_of_the_well_modelled_region(runs):
    """The covariance as built from the samples' own trees (MC sum w^2, each variation tree's
    symmetrised shift): 200 pseudo-data sets drawn from that model (MC statistics and each
    systematic a Gaussian nuisance, then Poisson) give uniform chi2 p-values (scipy's KS, p > 0.01)."""
    from scipy import stats

    from pnetviz.metrics import datamc

    samples, _, _, _ = runs
    s = read_samples(SampleSpec(samples, demo.ERA, "WZ3Mu", demo.MASSPOINT, demo.METHOD))
    backgrounds = [p for p in s.processes if p != demo.MASSPOINT]
    pooled = np.concatenate([s.simulation[p][CENTRAL].scores["signal"] for p in backgrounds])
    edges = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, 7)))
    edges[0], edges[-1] = 0.0, 1.0
    central = {p: (s.simulation[p][CENTRAL].scores["signal"], s.simulation[p][CENTRAL].weight) for p in backgrounds}
    variations = {syst: tuple({p: (s.variation(p, syst, side).scores["signal"], s.variation(p, syst, side).weight)
                               for p in backgrounds} for side in ("Up", "Down")) for syst in s.systematics}  # fmt: skip
    comp = datamc.compare(edges, s.data.scores["signal"], central, variations, np.zeros(edges.size - 1, bool))
    assert comp.total.min() > 100 and len(comp.deltas) == 3
    rng = np.random.default_rng(2026)
    p = []
    for _ in range(200):
        truth = comp.total + rng.normal(0.0, np.sqrt(comp.mc_sumw2)) + sum(rng.normal() * d for d in comp.deltas.values())
        comp.data = rng.poisson(truth).astype(float)
        p.append(comp.chi2()["p_value"])
    assert stats.kstest(p, "uniform").pvalue > 0.01
