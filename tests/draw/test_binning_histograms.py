"""The chosen binning's TH1Ds filled in one call per array (draw.binningplots.fit_histogram) are
the histograms the bin-by-bin fill made: contents, errors, entries and statistics to the bit."""

from __future__ import annotations

import numpy as np

from pnetviz.draw import binningplots
from pnetviz.rootenv import root


def bin_by_bin(name: str, edges: np.ndarray, sum_w: np.ndarray, sum_w2: np.ndarray) -> object:
    """The fill fit_histogram replaced: SetBinContent and SetBinError per bin, then ResetStats."""
    hist = root().TH1D(name, "", edges.size - 1, np.ascontiguousarray(edges, dtype=np.float64))
    hist.Sumw2()
    for i, (w, w2) in enumerate(zip(sum_w, sum_w2, strict=True), start=1):
        hist.SetBinContent(i, float(w))
        hist.SetBinError(i, float(np.sqrt(w2)))
    hist.ResetStats()
    return hist


def state(hist) -> tuple:
    stats = np.zeros(4)
    hist.GetStats(stats)
    n = hist.GetNcells()
    return ([hist.GetBinContent(i) for i in range(n)], [hist.GetBinError(i) for i in range(n)],
            hist.GetEntries(), hist.GetEffectiveEntries(), stats.tolist(), hist.GetSumw2N(), hist.GetMean(), hist.GetStdDev())  # fmt: skip


def test_fit_histogram_is_the_bin_by_bin_fill():
    rng = np.random.default_rng(33)
    for k in (1, 2, 9, 20):
        edges = np.r_[0.0, np.sort(rng.uniform(0.0, 1.0, k - 1)), 1.0]
        sum_w = rng.exponential(3.0, k) * (rng.random(k) < 0.8)  # some empty bins
        sum_w2 = sum_w * rng.uniform(0.1, 2.0, k)
        got = binningplots.fit_histogram(f"h_new_{k}", edges, sum_w, sum_w2, "Signal: yield per bin")
        want = bin_by_bin(f"h_old_{k}", edges, sum_w, sum_w2)
        assert state(got) == state(want)
        assert got.GetTitle() == "Signal: yield per bin"
        contents = binningplots._contents(got)
        assert contents.tolist() == sum_w.tolist() and contents.flags.owndata
