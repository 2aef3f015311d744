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


def test_the_c_interface_reads_keys_as_clings_kernel(built, tmp_path):
    """unreadable through ctypes (names as a list of str, a result longer than the first buffer
    fetched again) gives cling's kernel's names; an intact file has none."""
    ROOT = root()
    cling = compiled('#include "root_keys.h"', "root_keys.h").pnetviz_rootkeys
    path = tmp_path / "keys.root"
    out = ROOT.TFile.Open(str(path), "RECREATE")
    for k in range(300):  # ~300 x 14 bytes of names: past the first 4096-byte buffer when all are cut off
        out.WriteObject(ROOT.TNamed(f"named_key_{k:04d}", "x"), f"named_key_{k:04d}")
    out.Close()
    tfile = ROOT.TFile.Open(str(path), "READ")
    assert built.unreadable(tfile, path.stat().st_size) == []
    cut = built.unreadable(tfile, 100)
    assert cut == [str(name) for name in cling.unreadable(tfile, 100)]
    assert len(cut) == 300 and sum(len(name) + 1 for name in cut) > 4096
    tfile.Close()


def test_a_figures_pads_go_to_the_c_interface_as_addresses(built):
    """standalone.pad_vector with the library: the pads' addresses, as the C interface's store takes them."""
    from pnetviz.draw import standalone  # noqa: PLC0415

    ROOT = root()
    c = ROOT.TCanvas("native_pads", "", 400, 300)
    c.Divide(2, 1)
    pads = [c, c.cd(1), c.cd(2)]
    got = standalone.pad_vector(pads)
    assert got.dtype == np.uint64 and got.tolist() == [ROOT.addressof(p) for p in pads]
    assert standalone.pad_vector([]).size == 0
    c.Close()
