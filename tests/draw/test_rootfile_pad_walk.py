"""rootfile's pad walks in C++ (frame_of, no_stats) do what the PyROOT loops they replace did:
the frame of an object is the first other histogram of its pad, and every histogram of a stored
canvas and its sub-pads loses its statistics and title boxes, other primitives untouched."""

from __future__ import annotations

from pnetviz.draw import rootfile
from pnetviz.rootenv import root


def _canvas(tag: str):
    ROOT = root()
    canvas = ROOT.TCanvas(f"pw_canvas_{tag}", "", 200, 200)
    sub = ROOT.TPad("pw_sub", "", 0.0, 0.0, 1.0, 0.5)
    inner = ROOT.TPad("pw_inner", "", 0.0, 0.0, 1.0, 0.5)
    frame = ROOT.TH1F("pw_frame", "", 2, 0.0, 1.0)
    other = ROOT.TH1F("pw_other", "", 2, 0.0, 1.0)
    deep = ROOT.TH2F("pw_deep", "", 2, 0.0, 1.0, 2, 0.0, 1.0)
    graph = ROOT.TGraph(2)
    prims = canvas.GetListOfPrimitives()
    prims.Add(graph, "l")
    prims.Add(frame)
    prims.Add(other, "same")
    prims.Add(sub)
    sub.GetListOfPrimitives().Add(inner)
    inner.GetListOfPrimitives().Add(deep, "colz")
    keep = (canvas, sub, inner, frame, other, deep, graph)
    for obj in keep:  # the pads' lists hold them: left to ROOT (a test's few objects), never freed twice
        ROOT.SetOwnership(obj, False)
    return keep


def test_frame_of_is_the_first_other_histogram():
    canvas, sub, inner, frame, other, deep, graph = _canvas("frame")
    frame_of = rootfile._kernels().frame_of
    assert frame_of(canvas, graph).GetName() == "pw_frame"
    assert frame_of(canvas, frame).GetName() == "pw_other"  # not itself
    assert frame_of(canvas, other).GetName() == "pw_frame"
    assert not frame_of(sub, graph)  # sub-pads are not looked into: the pad's own primitives only
    assert frame_of(inner, graph).GetName() == "pw_deep"


def test_no_stats_reaches_every_histogram_of_every_pad():
    ROOT = root()
    canvas, sub, inner, frame, other, deep, graph = _canvas("stats")
    for h in (frame, other, deep):
        h.SetStats(True)
        h.ResetBit(ROOT.TH1.kNoTitle)
    graph_bits = graph.TestBits(0xFFFFFF)
    rootfile._no_stats(canvas)
    for h in (frame, other, deep):
        assert h.TestBit(ROOT.TH1.kNoStats) and h.TestBit(ROOT.TH1.kNoTitle), h.GetName()
    assert graph.TestBits(0xFFFFFF) == graph_bits
