"""draw.native: the drawing kernels built ahead of time (macros/draw_kernels.cxx) give what the
same headers compiled by cling give, on the same ROOT objects; PNETVIZ_KERNELS=jit and a cache
directory that cannot be used fall back to cling."""

from __future__ import annotations

import numpy as np
import pytest

from pnetviz.draw import native
from pnetviz.rootenv import compiled, root


@pytest.fixture
def built():
    kernels = native.kernels()
    if kernels is None:
        pytest.skip("no C++ compiler here: the library cannot be built (cling's kernels are tested elsewhere)")
    return kernels


def _canvas(ROOT):
    c = ROOT.TCanvas("native_colors", "", 400, 300)
    c.SetFrameLineColor(ROOT.TColor.GetColor("#123456"))
    h = ROOT.TH1D("native_h", "", 4, 0, 4)
    h.Fill(1.5)
    h.SetLineColor(ROOT.kRed + 2)
    h.GetXaxis().SetLabelColor(ROOT.kBlue + 1)
    h.Draw("HIST")
    legend = ROOT.TLegend(0.6, 0.6, 0.9, 0.9)
    legend.SetTextColor(ROOT.kGreen + 3)
    legend.AddEntry(h, "h", "l")
    legend.Draw()
    return c, h, legend


def test_the_library_walks_a_canvas_as_cling_does(built):
    ROOT = root()
    c, h, legend = _canvas(ROOT)
    cling = compiled('#include "canvas_colors.h"', "canvas_colors.h").pnetviz_canvascolors
    got, want = np.empty(64, np.int64), np.empty(64, np.int64)
    n, m = built.used_colors(c, got, got.size), cling.used_colors(c, want, want.size)
    assert n == m and got[:n].tolist() == want[:m].tolist()
    assert {ROOT.kRed + 2, ROOT.kBlue + 1, ROOT.kGreen + 3} <= set(got[:n].tolist())
    assert built.frame_of(c, legend) == h  # the returned TObject* comes back as the histogram
    assert built.draws_palette(c) is False and built.palette_exec_number(c) == 0
    c.Close()


def test_the_occupancy_kernel_gives_clings_bits(built):
    cling = compiled('#include "occupancy_items.h"', "occupancy_items.h").pnetviz
    rng = np.random.default_rng(55)
    elow, ehigh = rng.uniform(0.01, 1, 7), rng.uniform(1, 10, 7)
    t = np.linspace(0, 1, 5)
    a, b = np.empty(35), np.empty(35)
    built.occupancy_error_inners(elow, ehigh, 7, t, 5, 0.005, True, a)
    cling.occupancy_error_inners(elow, ehigh, 7, t, 5, 0.005, True, b)
    assert a.tobytes() == b.tobytes()
    assert a[0] == pytest.approx(np.log10(elow[0] / 0.005))


def test_jit_and_an_unusable_cache_fall_back_to_cling(monkeypatch, tmp_path):
    monkeypatch.setenv("PNETVIZ_KERNELS", "jit")
    assert native.kernels() is None
    monkeypatch.delenv("PNETVIZ_KERNELS")
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)  # writable by others: a library loaded from it could be anyone's
    assert native.library(shared) is None
