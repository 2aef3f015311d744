"""standalone.write_alone (macros/root_store.h: one C++ call an object) stores a histogram or graph
exactly as the Python path it replaces (rootfile.describe, then standalone.drawn_alone around
WriteTObject): every byte of the stored object (its TBufferJSON), and the object as it is after
(name, titles, axis attributes back, Sumw2, stats and title bits), on histograms and graphs without
axis titles drawn on a figure's pads, a class matrix with labelled axes and its own palette, one
without a palette, and an object of no figure."""

from __future__ import annotations

from pnetviz.draw import rootfile, standalone
from pnetviz.draw.geometry import Figure
from pnetviz.rootenv import root

CLASSES = ["signal", "nonprompt;x", "ttX with a long name", "diboson"]


def _figure(tag: str) -> tuple[Figure, dict]:
    """A two-pad figure (a frame on each; the lower one's holds the x title) and its objects,
    every one made the same way for each `tag`."""
    ROOT = root()
    canvas = ROOT.TCanvas(f"c_{tag}", "", 600, 600)
    top, bottom = ROOT.TPad(f"top_{tag}", "", 0, 0.3, 1, 1), ROOT.TPad(f"bot_{tag}", "", 0, 0, 1, 0.3)
    for pad in (top, bottom):
        canvas.cd()
        pad.Draw()
    top.cd()
    frame = ROOT.TH1D(f"frame_{tag}", "", 10, 0, 1)
    frame.GetYaxis().SetTitle("Events")
    frame.Draw("AXIS")
    hist = ROOT.TH1D(f"h_{tag}", "htemp", 10, 0, 1)
    for i in range(30):
        hist.Fill(0.05 + 0.1 * (i % 10), 1 + i)
    hist.Draw("HIST SAME")
    graph = ROOT.TGraph(3)
    for i in range(3):
        graph.SetPoint(i, 0.1 * i, 0.2 * i)
    graph.SetTitle("Graph")
    graph.Draw("L")
    bottom.cd()
    lower = ROOT.TH1D(f"lower_{tag}", "", 10, 0, 1)
    lower.GetXaxis().SetTitle("Score")
    lower.Draw("AXIS")
    ratio = ROOT.TGraph(2)
    ratio.SetPoint(0, 0.0, 1.0), ratio.SetPoint(1, 1.0, 1.1)
    ratio.Draw("L")
    matrix = ROOT.TH2D(f"m_{tag}", "confusion", 4, 0, 4, 4, 0, 4)
    for i, name in enumerate(CLASSES):
        matrix.GetXaxis().SetBinLabel(i + 1, name)
        matrix.GetYaxis().SetBinLabel(i + 1, name)
        matrix.SetBinContent(i + 1, i + 1, 0.5 + i)
    matrix.GetXaxis().SetTitle("Predicted")
    matrix.GetYaxis().SetTitle("True")
    palette = ROOT.TPaletteAxis(0.9, 0, 0.95, 4, matrix)
    ROOT.SetOwnership(palette, False)  # the histogram's list of functions owns it
    matrix.GetListOfFunctions().Add(palette)
    plain_map = ROOT.TH2D(f"map_{tag}", "map", 5, -1, 1, 3, 0, 30)
    plain_map.Fill(0.2, 5.0)
    plain_map.SetBit(ROOT.TH1.kNoTitle)
    figure = Figure("score_plot", canvas, [canvas, top, bottom], labels={"score/test": "Test; a label"})
    kept = [frame, lower, top, bottom]
    objects = {"score/test": (hist, figure), "score/graph": (graph, figure), "ratio/test": (ratio, figure),
               "matrix/test": (matrix, figure), "maps/plain": (plain_map, None)}  # fmt: skip
    return figure, {"objects": objects, "kept": kept}


def _state(obj) -> tuple:
    """What an object is after being written (titles, axis attributes, bits)."""
    axes = standalone._axes(obj)
    atts = [(a.GetTitle(), a.GetLabelSize(), a.GetTitleSize(), a.GetTitleOffset(), a.GetLabelOffset(), a.GetLabelFont())
            for a in axes]  # fmt: skip
    hist = obj.GetHistogram() if obj.InheritsFrom("TGraph") else obj
    extra = (hist.GetSumw2N(), hist.TestBit(root().TH1.kNoTitle), hist.GetListOfFunctions().GetSize()) if hist else ()
    palette = hist.GetListOfFunctions().FindObject("palette") if hist else None
    if palette:  # its place back
        extra += (palette.GetX1(), palette.GetX2(), palette.GetY1(), palette.GetY2(), palette.GetX1NDC(), palette.GetY2NDC())
    return obj.GetName(), obj.GetTitle(), atts, extra


def _write(path: str, fast: bool) -> tuple[dict, dict]:
    ROOT = root()
    tag = "fast" if fast else "slow"
    figure, made = _figure(tag)
    tfile = ROOT.TFile.Open(path, "RECREATE")
    pads = standalone.pad_vector(figure.pads)
    for key, (obj, fig) in made["objects"].items():
        directory, _, name = key.rpartition("/")
        if fast:
            assert standalone.write_alone(tfile, directory, obj, name, rootfile.object_title(obj, name, key, fig),
                                          pads if fig else standalone.pad_vector([]))  # fmt: skip
            continue
        rootfile.describe(obj, name, key, fig, "context")
        target = tfile.GetDirectory(directory) or tfile.mkdir(directory, "", True)
        with standalone.drawn_alone(obj):
            target.WriteTObject(obj, name)
    tfile.Close()
    after = {key: _state(obj) for key, (obj, _) in made["objects"].items()}
    read = ROOT.TFile.Open(path)
    stored = {key: str(ROOT.TBufferJSON.ToJSON(read.Get(key))) for key in made["objects"]}
    read.Close()
    figure.canvas.Close()
    return stored, after


def test_write_alone_stores_what_the_python_path_stores(tmp_path):
    stored, after = _write(str(tmp_path / "fast.root"), True)
    expected, expected_after = _write(str(tmp_path / "slow.root"), False)
    for key in expected:
        assert stored[key].replace("fast", "slow") == expected[key], key
        assert repr(after[key]).replace("fast", "slow") == repr(expected_after[key]), key
    assert '"fTitle" : "Test; a label, score plot"' in stored["score/test"]  # the label, whole (';' kept)
    assert '"fTitle" : "Score"' in stored["ratio/test"]  # the x title from the lower pad's frame
    assert '"fTitle" : "Events"' in stored["score/test"]  # the y title from its pad's frame
    assert [att[0] for att in after["matrix/test"][2]] == ["Predicted", "True", ""]  # the figure's titles back


def test_other_objects_are_left_to_the_caller(tmp_path):
    ROOT = root()
    tfile = ROOT.TFile.Open(str(tmp_path / "x.root"), "RECREATE")
    named = ROOT.TNamed("n", "title")
    assert not standalone.write_alone(tfile, "", named, "n", "new", standalone.pad_vector([]))
    assert named.GetName() == "n" and named.GetTitle() == "title" and not tfile.GetListOfKeys().GetSize()
    tfile.Close()
