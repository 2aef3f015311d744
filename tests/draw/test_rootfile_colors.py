"""A stored canvas carries only the colours a plain ROOT session does not have built in
(draw.rootfile.stored_colors): read alone in a fresh ROOT (no cmsstyle, no pnetviz) it still
draws pnetviz's own colours (a custom one, a transparent one, ROOT 6.34's Petroff ones) and the
palette it was written with (also one made of built-in colours); the other built-in ones are left
out, and the writer's colour list is the same after the write. Only a canvas that draws a palette
(a COLZ matrix) stores it: a ROC-like canvas neither carries the palette's 255 colours nor changes
the reader's palette, and a matrix read after it still draws with its own."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from array import array

import numpy as np
import pytest

from pnetviz.draw import canvas, rootfile
from pnetviz.draw.style import StyleOptions, cms_style, color
from pnetviz.rootenv import root

CUSTOM = "#123456"  # no colour ROOT starts with
OWN_PALETTE = (3, 4, 5, 6, 7)  # kGreen ... kCyan: built in, yet stored when they make the palette
GREY = (0.5, 0.5, 0.5)  # what the reader sets kRed and kP6Blue to before reading
CHANGED, NEW_RGB = 20, (0.1, 0.2, 0.3)  # a built-in colour (#ccc6aa) the writer has changed

READ = textwrap.dedent(r'''
    import json, sys, warnings
    warnings.filterwarnings("ignore")
    import ROOT
    ROOT.gROOT.SetBatch(True)
    assert "cmsstyle" not in sys.modules and "pnetviz" not in sys.modules
    path, own_palette, grey, changed = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
    for index in (2, 103):  # kRed (built in everywhere), kP6Blue (new in ROOT 6.34): back only if stored
        ROOT.gROOT.GetColor(index).SetRGB(*grey)
    ROOT.gStyle.SetPalette(55)  # kRainBow: the matrix canvas brings its palette back
    rgba = lambda c: [c.GetRed(), c.GetGreen(), c.GetBlue(), c.GetAlpha()]
    f = ROOT.TFile.Open(path)
    before = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    lines = f.Get("canvases/lines")
    after_lines = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    graphs = {p.GetName(): p for p in lines.GetListOfPrimitives() if p.InheritsFrom("TGraph")}
    matrix = f.Get("canvases/matrix")
    palette = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    ROOT.gROOT.GetColor(3).SetRGB(*grey)  # kGreen: left out unless a palette colour
    ROOT.TFile.Open(own_palette).Get("canvases/matrix")
    own = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    print(json.dumps({
        "custom": rgba(ROOT.gROOT.GetColor(graphs["custom"].GetLineColor())),
        "band": rgba(ROOT.gROOT.GetColor(graphs["band"].GetFillColor())),
        "petroff": rgba(ROOT.gROOT.GetColor(graphs["petroff"].GetLineColor())),
        "red": rgba(ROOT.gROOT.GetColor(2)),
        "changed": rgba(ROOT.gROOT.GetColor(changed)),
        "palette": [rgba(ROOT.gROOT.GetColor(i)) for i in palette],
        "lines_keep_palette": after_lines == before and len(before) > 0,
        "own_palette": [[i, *rgba(ROOT.gROOT.GetColor(i))] for i in own],
    }))
''')


def _figures():
    """A frame with a custom line, a transparent band and a Petroff line; a COLZ matrix (kBird TExec)."""
    x = np.linspace(0.0, 1.0, 11)
    with cms_style(StyleOptions()):
        lines = canvas.figure("lines", canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y"))
        canvas.add_graph(lines, "lines/custom", x, x, "custom", line_color=color(CUSTOM))
        canvas.add_graph(lines, "lines/petroff", x, x**2, "petroff", line_color=color("signal"))
        canvas.add_band(lines, "lines/band", x, x**2, x, "band", band_color=color("background"), alpha=0.3)
        matrix = canvas.matrix_figure("matrix", labels=("a", "b"))
        canvas.add_matrix(matrix, "matrix/auc", np.array([[0.9, 0.4], [0.2, 0.7]]), ("a", "b"), ".2f", 0, "AUC")
    return [lines, matrix]


def _streamer_colors(target, canvas, name, colors) -> None:
    """A canvas written with the colours TCanvas::Streamer stores itself (all, and the palette)."""
    ROOT = root()
    ROOT.TColor.DefinedColors(1)
    try:
        target.WriteObject(canvas, name)
    finally:
        ROOT.TColor.DefinedColors(-1)


def _colors() -> list[tuple[int, int]]:
    """(index, address) of every colour in gROOT's list."""
    colors = root().gROOT.GetListOfColors()
    return [(i, root().addressof(colors.At(i))) for i in range(colors.GetLast() + 1) if colors.At(i)]


def _canvas_bytes(path) -> dict[str, int]:
    """Uncompressed size of each stored canvas (its key's ObjLen)."""
    f = root().TFile.Open(str(path))
    try:
        return {key.GetName(): key.GetObjlen() for key in f.GetDirectory("canvases").GetListOfKeys()}
    finally:
        f.Close()


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    ROOT = root()
    out = tmp_path_factory.mktemp("colors")
    figures = _figures()
    rgba = lambda c: [c.GetRed(), c.GetGreen(), c.GetBlue(), c.GetAlpha()]  # noqa: E731
    changed = ROOT.gROOT.GetColor(CHANGED)
    start = rgba(changed)
    changed.SetRGB(*NEW_RGB)  # a built-in colour changed since ROOT started: stored
    try:
        ROOT.gStyle.SetPalette(57)  # kBird, as the matrix's TExec sets it (the reader starts from kRainBow)
        drawn = figures[0].objects
        written = {"custom": rgba(ROOT.gROOT.GetColor(drawn["lines/custom"].GetLineColor())),
                   "band": rgba(ROOT.gROOT.GetColor(drawn["lines/band"].GetFillColor())),
                   "petroff": rgba(ROOT.gROOT.GetColor(drawn["lines/petroff"].GetLineColor())),
                   "changed": rgba(changed),
                   "palette": [rgba(ROOT.gROOT.GetColor(ROOT.TColor.GetColorPalette(i)))
                               for i in range(ROOT.TColor.GetNumberOfColors())],
                   "own_palette": [[i, *rgba(ROOT.gROOT.GetColor(i))] for i in OWN_PALETTE]}
        colors = ROOT.gROOT.GetListOfColors()
        before = (_colors(), colors.GetEntries(), colors.GetLast())
        rootfile.write_root_file(out / "trimmed.root", figures, context="colour test")
        after = (_colors(), colors.GetEntries(), colors.GetLast())
        with pytest.MonkeyPatch.context() as mp:  # uncompressed: the stored bytes can be looked into
            mp.setattr(rootfile, "COMPRESSION", 0)
            rootfile.write_root_file(out / "plain.root", figures, context="colour test")
        ROOT.gStyle.SetPalette(len(OWN_PALETTE), array("i", OWN_PALETTE))
        rootfile.write_root_file(out / "own_palette.root", figures, context="colour test")
        ROOT.gStyle.SetPalette(57)
        with pytest.MonkeyPatch.context() as mp:  # ROOT's way: every colour and the palette in every canvas
            mp.setattr(rootfile, "write_canvas", _streamer_colors)
            rootfile.write_root_file(out / "full.root", figures, context="colour test")
    finally:
        changed.SetRGB(*start[:3])
        for fig in figures:
            fig.close()
    return {"path": out / "trimmed.root", "plain": out / "plain.root", "own_palette": out / "own_palette.root", "full": out / "full.root",
            "before": before, "after": after, "written": written}


def test_the_writers_colour_list_is_unchanged(written):
    assert written["after"] == written["before"]  # the same TColor objects at the same indices


def test_a_fresh_reader_draws_the_colours_written(written):
    paths = [str(written["path"]), str(written["own_palette"])]
    proc = subprocess.run([sys.executable, "-c", READ, *paths, json.dumps(GREY), str(CHANGED)],
                          capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    read = json.loads(proc.stdout.strip().splitlines()[-1])
    expected = written["written"]
    assert read["custom"] == expected["custom"]
    assert expected["custom"][:3] == pytest.approx([0x12 / 255, 0x34 / 255, 0x56 / 255], abs=1e-6)
    assert read["band"] == expected["band"] and read["band"][3] == pytest.approx(0.3)
    assert read["petroff"] == expected["petroff"] != [*GREY, 1.0]  # kept: unknown to ROOT < 6.34, old JSROOT
    assert read["palette"] == expected["palette"] and len(read["palette"]) == 255
    assert read["lines_keep_palette"]  # a canvas without a palette leaves the reader's as it was
    assert read["red"] == pytest.approx([*GREY, 1.0])  # kRed left out: the reader's own stays
    assert read["changed"] == expected["changed"] == pytest.approx([*NEW_RGB, 1.0])  # changed: stored
    # a palette of built-in colours: kept (the streamer stores the palette by gROOT->GetColor)
    assert read["own_palette"] == expected["own_palette"] and read["own_palette"][0] == [3, 0.0, 1.0, 0.0, 1.0]
    assert "Error" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr


def test_stored_canvases_are_much_smaller(written):
    # ~340 built-in colours left out, ~75 bytes each: 73 -> 47 kB measured alone, 90 -> 65 kB after
    # the other tests (their palettes add colours, kept); the palette's 255 (~21 kB) only in the matrix
    trimmed, full = _canvas_bytes(written["path"]), _canvas_bytes(written["full"])
    assert trimmed.keys() == full.keys() == {"lines", "matrix"}
    for name in trimmed:
        assert full[name] - trimmed[name] > 20_000, (name, trimmed[name], full[name])


def _stored(path) -> dict[str, bytes]:
    """The bytes of each stored canvas of the uncompressed ROOT file `path`, as written (before
    TCanvas::Streamer takes the colours out of the primitives when reading)."""
    f = root().TFile.Open(str(path))
    try:
        keys = [(k.GetName(), k.GetSeekKey() + k.GetKeylen(), k.GetObjlen()) for k in f.GetDirectory("canvases").GetListOfKeys()]
    finally:
        f.Close()
    data = path.read_bytes()
    return {name: data[start : start + size] for name, start, size in keys}


def test_only_a_canvas_drawing_a_palette_stores_it(written):
    stored = _stored(written["plain"])
    assert stored["matrix"].count(b"CurrentColorPalette") == 1 and stored["matrix"].count(b"ListOfColors") == 1
    assert stored["lines"].count(b"ListOfColors") == 1 and b"CurrentColorPalette" not in stored["lines"]
    # a TColor holds its index as a 4-byte big-endian int: kBird's 924-1178 only in the matrix
    palette = [i.to_bytes(4, "big") for i in range(924, 1179)]
    assert sum(code in stored["matrix"] for code in palette) == 255
    assert sum(code in stored["lines"] for code in palette) < 10  # (other numbers in the canvas may match)

