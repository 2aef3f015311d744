"""A stored canvas carries only the colours it uses that a plain ROOT session does not have built
in (draw.rootfile.stored_colors): read alone in a fresh ROOT (no cmsstyle, no pnetviz) it still
draws pnetviz's own colours (a custom one, a transparent one, ROOT 6.34's Petroff ones, a built-in
one changed); the other built-in ones are left out, and so are the colours of a palette the
writer made before (kLightTemperature, the campaign's) that the canvas does not use; the
writer's colour list is the same after the write. A canvas that draws a palette stores it as
colours, never as the TExec that sets it while the writer draws (draw.stored): a kBird matrix
stores kBird's numbers (a reader has those colours from its start: none in the list of colours)
and paints its cells in kBird's colours in a reader whose palette was another; a matrix whose
TExec sets kLightTemperature stores that palette and its colours (also when another is current
at the write), read back whole by ROOT 6.40 even where those colours are new; a COLZ canvas
without palette TExec the current one (also one made of built-in colours)."""

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
LIGHT = 87  # kLightTemperature: the campaign's difference maps
GREY = (0.5, 0.5, 0.5)  # what the reader sets kRed and kP6Blue to before reading
CHANGED, NEW_RGB = 20, (0.1, 0.2, 0.3)  # a built-in colour (#ccc6aa) the writer has changed

READ = textwrap.dedent(r'''
    import json, sys, warnings
    warnings.filterwarnings("ignore")
    import ROOT
    ROOT.gROOT.SetBatch(True)
    assert "cmsstyle" not in sys.modules and "pnetviz" not in sys.modules
    path, own_palette, light, grey, changed, png = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    for index in (2, 103):  # kRed (built in everywhere), kP6Blue (new in ROOT 6.34): back only if stored
        ROOT.gROOT.GetColor(index).SetRGB(*grey)
    ROOT.gStyle.SetPalette(55)  # kRainBow: reading the kBird matrix makes its stored kBird current
    rgba = lambda c: [c.GetRed(), c.GetGreen(), c.GetBlue(), c.GetAlpha()]
    current = lambda: [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    f = ROOT.TFile.Open(path)
    before = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    lines = f.Get("canvases/lines")
    after_lines = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
    graphs = {p.GetName(): p for p in lines.GetListOfPrimitives() if p.InheritsFrom("TGraph")}
    matrix = f.Get("canvases/matrix")
    matrix_sets_palette = current() != before  # its own stored
    execs = [p.ClassName() for p in matrix.GetListOfPrimitives() if p.InheritsFrom("TExec")]
    matrix.Draw()
    matrix.Update()  # paints its cells in the palette its reading set
    palette = current()
    pixels = painted_cells(matrix, png)
    ROOT.TFile.Open(light).Get("canvases/matrix")
    light = current()
    ROOT.gROOT.GetColor(3).SetRGB(*grey)  # kGreen: left out unless a palette colour
    ROOT.TFile.Open(own_palette).Get("canvases/matrix")
    own = current()
    print(json.dumps({
        "custom": rgba(ROOT.gROOT.GetColor(graphs["custom"].GetLineColor())),
        "band": rgba(ROOT.gROOT.GetColor(graphs["band"].GetFillColor())),
        "petroff": rgba(ROOT.gROOT.GetColor(graphs["petroff"].GetLineColor())),
        "red": rgba(ROOT.gROOT.GetColor(2)),
        "changed": rgba(ROOT.gROOT.GetColor(changed)),
        "palette": [rgba(ROOT.gROOT.GetColor(i)) for i in palette],
        "pixels": pixels,
        "light": [rgba(ROOT.gROOT.GetColor(i)) for i in light],
        "lines_keep_palette": after_lines == before and len(before) > 0,
        "matrix_sets_palette": matrix_sets_palette and len(before) > 0,
        "execs": execs,
        "own_palette": [[i, *rgba(ROOT.gROOT.GetColor(i))] for i in own],
    }))
''')


# RGB (0-255) of the PNG `png` of the painted matrix canvas at a point of each cell clear of its
# number; shared by the writer and the fresh reader.
PAINTED_CELLS = textwrap.dedent(r'''
    def painted_cells(canvas, png):
        import ROOT
        hist = next(p for p in canvas.GetListOfPrimitives() if p.InheritsFrom("TH2"))
        canvas.SaveAs(png)
        image = ROOT.TASImage.Open(png)
        argb, width, pixels = image.GetArgbArray(), image.GetWidth(), []
        for i in range(1, hist.GetNbinsX() + 1):
            for j in range(1, hist.GetNbinsY() + 1):
                x = hist.GetXaxis().GetBinLowEdge(i) + 0.15 * hist.GetXaxis().GetBinWidth(i)
                y = hist.GetYaxis().GetBinLowEdge(j) + 0.15 * hist.GetYaxis().GetBinWidth(j)
                value = argb[canvas.YtoAbsPixel(y) * width + canvas.XtoAbsPixel(x)]
                pixels.append([(value >> 16) & 255, (value >> 8) & 255, value & 255])
        return pixels
''')


def _figures():
    """A frame with a custom line, a transparent band, a Petroff line and a changed built-in
    colour; a COLZ matrix (kBird TExec)."""
    x = np.linspace(0.0, 1.0, 11)
    with cms_style(StyleOptions()):
        lines = canvas.figure("lines", canvas.Frame((0.0, 1.0), (0.0, 1.0), "x", "y"))
        canvas.add_graph(lines, "lines/custom", x, x, "custom", line_color=color(CUSTOM))
        canvas.add_graph(lines, "lines/petroff", x, x**2, "petroff", line_color=color("signal"))
        canvas.add_band(lines, "lines/band", x, x**2, x, "band", band_color=color("background"), alpha=0.3)
        canvas.add_graph(lines, "lines/changed", x, x**3, "changed", line_color=CHANGED)
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


def _palette_exec(fig):
    """The palette TExec of `fig`'s pad."""
    return next(p for p in fig.pads[0].GetListOfPrimitives() if p.InheritsFrom("TExec"))


def _palette_rgba(number: int) -> list[list[float]]:
    """RGBA of the colours of palette `number` (set, read, kBird set back)."""
    ROOT = root()
    ROOT.gStyle.SetPalette(number)
    try:
        return [_rgba(ROOT.gROOT.GetColor(ROOT.TColor.GetColorPalette(i))) for i in range(ROOT.TColor.GetNumberOfColors())]
    finally:
        ROOT.gStyle.SetPalette(57)


def _rgba(c) -> list[float]:
    return [c.GetRed(), c.GetGreen(), c.GetBlue(), c.GetAlpha()]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    ROOT = root()
    out = tmp_path_factory.mktemp("colors")
    figures = _figures()
    matrix_exec = _palette_exec(figures[1])
    changed = ROOT.gROOT.GetColor(CHANGED)
    start = _rgba(changed)
    changed.SetRGB(*NEW_RGB)  # a built-in colour changed since ROOT started: stored
    try:
        light = _palette_rgba(LIGHT)  # the campaign's palette made before: its colours stay in gROOT
        ROOT.gStyle.SetPalette(LIGHT)
        light_numbers = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
        canvas.paint(figures[1].canvas)  # its TExec's kBird set (palette_set) for the paint
        pixels = _painted_cells(figures[1].canvas, out / "writer.png")
        drawn = figures[0].objects
        written = {"custom": _rgba(ROOT.gROOT.GetColor(drawn["lines/custom"].GetLineColor())),
                   "band": _rgba(ROOT.gROOT.GetColor(drawn["lines/band"].GetFillColor())),
                   "petroff": _rgba(ROOT.gROOT.GetColor(drawn["lines/petroff"].GetLineColor())),
                   "changed": _rgba(changed), "light": light, "light_numbers": light_numbers,
                   "palette": _palette_rgba(57), "pixels": pixels,
                   "own_palette": [[i, *_rgba(ROOT.gROOT.GetColor(i))] for i in OWN_PALETTE]}
        colors = ROOT.gROOT.GetListOfColors()
        before = (_colors(), colors.GetEntries(), colors.GetLast())
        ROOT.gStyle.SetPalette(LIGHT)  # current at the write, as after the campaign's difference maps
        rootfile.write_root_file(out / "trimmed.root", figures, context="colour test")
        after = (_colors(), colors.GetEntries(), colors.GetLast())
        with pytest.MonkeyPatch.context() as mp:  # uncompressed: the stored bytes can be looked into
            mp.setattr(rootfile, "COMPRESSION", 0)
            rootfile.write_root_file(out / "plain.root", figures, context="colour test")
            ROOT.gStyle.SetPalette(57)
            matrix_exec.SetTitle(f"gStyle->SetPalette({LIGHT});")  # a difference map's: stored, kBird current
            rootfile.write_root_file(out / "light.root", figures, context="colour test")
        matrix_exec.SetTitle("gStyle->SetPalette(57);")
        figures[1].canvas.GetListOfPrimitives().Remove(matrix_exec)  # no TExec: the current palette stored
        ROOT.gStyle.SetPalette(len(OWN_PALETTE), array("i", OWN_PALETTE))
        rootfile.write_root_file(out / "own_palette.root", figures, context="colour test")
        figures[1].canvas.GetListOfPrimitives().AddFirst(matrix_exec)
        ROOT.gStyle.SetPalette(57)
        with pytest.MonkeyPatch.context() as mp:  # ROOT's way: every colour and the palette in every canvas
            mp.setattr(rootfile, "write_canvas", _streamer_colors)
            rootfile.write_root_file(out / "full.root", figures, context="colour test")
    finally:
        changed.SetRGB(*start[:3])
        ROOT.gStyle.SetPalette(57)
        for fig in figures:
            fig.close()
    return {"path": out / "trimmed.root", "plain": out / "plain.root", "own_palette": out / "own_palette.root",
            "full": out / "full.root", "light": out / "light.root", "png": out / "reader.png",
            "before": before, "after": after, "written": written}


def _painted_cells(canvas, png) -> list[list[int]]:
    """PAINTED_CELLS run on `canvas` in this process (the reader runs the same text)."""
    scope = {}
    exec(PAINTED_CELLS, scope)  # noqa: S102 (this test's own text)
    return scope["painted_cells"](canvas, str(png))


def test_the_writers_colour_list_is_unchanged(written):
    assert written["after"] == written["before"]  # the same TColor objects at the same indices


@pytest.mark.slow
def test_a_fresh_reader_draws_the_colours_written(written):
    paths = [str(written["path"]), str(written["own_palette"]), str(written["light"])]
    proc = subprocess.run([sys.executable, "-c", PAINTED_CELLS + READ, *paths, json.dumps(GREY), str(CHANGED), str(written["png"])],
                          capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    read = json.loads(proc.stdout.strip().splitlines()[-1])
    expected = written["written"]
    assert read["custom"] == expected["custom"]
    assert expected["custom"][:3] == pytest.approx([0x12 / 255, 0x34 / 255, 0x56 / 255], abs=1e-6)
    assert read["band"] == expected["band"] and read["band"][3] == pytest.approx(0.3)
    assert read["petroff"] == expected["petroff"] != [*GREY, 1.0]  # kept: unknown to ROOT < 6.34, old JSROOT
    assert read["palette"] == expected["palette"] and len(read["palette"]) == 255  # kBird, stored as data
    assert read["matrix_sets_palette"] and read["execs"] == []  # no TExec in the file: its palette is data
    # its cells as the writer painted them, in kBird's colours (the reader's palette was kRainBow)
    assert read["pixels"] == expected["pixels"] and len({tuple(p) for p in read["pixels"]}) == 4
    bird = np.array(expected["palette"])[:, :3] * 255
    for pixel in read["pixels"]:
        assert np.abs(bird - pixel).max(axis=1).min() <= 1.0, pixel
    # a kLightTemperature TExec: that palette stored, the reader's current once read, in order: a first
    # read of a palette of colours new to the reader too (ROOT 6.40 gave its numbers shifted by one
    # when the palette shared its colours with the list of colours, which it deletes first)
    light = {tuple(c) for c in expected["light"]}
    assert read["light"] == expected["light"]
    assert not light & {tuple(c) for c in expected["palette"]}
    assert read["lines_keep_palette"]  # a canvas without a palette leaves the reader's as it was
    assert read["red"] == pytest.approx([*GREY, 1.0])  # kRed left out: the reader's own stays
    assert read["changed"] == expected["changed"] == pytest.approx([*NEW_RGB, 1.0])  # changed: stored
    # no palette TExec: the current palette, here of built-in colours, kept (the streamer stores it by gROOT->GetColor)
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


def test_a_canvas_drawing_a_palette_stores_it_as_colours(written):
    stored, light = _stored(written["plain"]), _stored(written["light"])
    # a TColor holds its index as a 4-byte big-endian int
    bird = [i.to_bytes(4, "big") for i in range(924, 1179)]  # kBird, made at ROOT's start
    lights = [i.to_bytes(4, "big") for i in written["written"]["light_numbers"]]
    assert b"CurrentColorPalette" in stored["matrix"] and b"CurrentColorPalette" not in stored["lines"]
    assert sum(code in stored["matrix"] for code in bird) == 255  # kBird's numbers, in the palette only
    assert light["matrix"].count(b"CurrentColorPalette") == 1 and light["matrix"].count(b"ListOfColors") == 1
    assert sum(code in light["matrix"] for code in lights) == 255  # its TExec's palette, kBird current
    for name, data in stored.items() | {("light lines", light["lines"])}:
        assert b"TExec" not in data and b"SetPalette" not in data, name  # the palette as data, no command
    for name, data in (("lines", stored["lines"]), ("light lines", light["lines"])):
        # neither kBird's colours nor those of the palette made before (other numbers may match a few)
        assert sum(code in data for code in bird) < 10 and sum(code in data for code in lights) < 10, name
    # kBird's colours are the reader's own (numbers only); a new palette's twice (the list of colours, the palette)
    assert len(stored["matrix"]) < len(light["matrix"]) - 8000


def test_a_canvas_stores_only_the_colours_it_uses():
    ROOT = root()
    figures = _figures()
    try:
        ROOT.gStyle.SetPalette(LIGHT)  # made, as by the campaign's difference maps
        light = {ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())}
        drawn = figures[0].objects
        used = {drawn["lines/custom"].GetLineColor(), drawn["lines/band"].GetFillColor(), drawn["lines/petroff"].GetLineColor()}
        ROOT.gStyle.SetPalette(57)
        bird = [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())]
        with rootfile.stored_colors() as colors:
            added = colors.attach(figures[0].canvas)
            for array in added:
                figures[0].canvas.GetListOfPrimitives().Remove(array)
            matrix = colors.attach(figures[1].canvas)
            for array in matrix:
                figures[1].canvas.GetListOfPrimitives().Remove(array)
            _palette_exec(figures[1]).SetTitle(f"gStyle->SetPalette({LIGHT});")  # a difference map's
            map_arrays = colors.attach(figures[1].canvas)
            for array in map_arrays:
                figures[1].canvas.GetListOfPrimitives().Remove(array)
        stored_map = [map_arrays[1].At(i).GetNumber() for i in range(map_arrays[1].GetEntries())]
        assert [a.GetName() for a in map_arrays] == ["ListOfColors", "CurrentColorPalette"] and set(stored_map) == light
        assert [ROOT.TColor.GetColorPalette(i) for i in range(ROOT.TColor.GetNumberOfColors())] == bird  # set back
        numbers = {added[0].At(i).GetNumber() for i in range(added[0].GetEntries())}
        assert [a.GetName() for a in added] == ["ListOfColors"]
        assert [a.GetName() for a in matrix] == ["ListOfColors", "CurrentColorPalette"]  # the kBird matrix:
        assert matrix[0].GetEntries() == 0  # its colours a reader's own: its palette's numbers only
        assert [matrix[1].At(i).GetNumber() for i in range(matrix[1].GetEntries())] == bird
        assert used <= numbers and not numbers & light and len(light) == 255
        assert numbers <= used | set(range(100, 128))  # the custom ones and ROOT 6.34's (cmsstyle's lines, axes)
    finally:
        ROOT.gStyle.SetPalette(57)
        for fig in figures:
            fig.close()
