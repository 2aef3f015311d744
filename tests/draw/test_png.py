"""draw.png: a PNG written from the pixels ROOT paints. The file decodes (libpng, through ROOT's
TASImage) to the array it was given; a canvas written by save_png has the pixels of the same
canvas written by ROOT's SaveAs, in a file of the same size, colour type and chunks but IDAT."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from pnetviz.draw import native
from pnetviz.draw.png import argb_to_rgb, encode_png, encode_rows, painted_rgb, painted_rows, save_png
from pnetviz.rootenv import root


def decoded(path) -> np.ndarray:
    """The ARGB words of a PNG file as ROOT's image library reads it."""
    ROOT = root()
    image = ROOT.TImage.Open(str(path))
    ROOT.SetOwnership(image, True)
    width, height = image.GetWidth(), image.GetHeight()
    words = image.GetArgbArray()
    words.reshape((width * height,))
    return np.frombuffer(words, dtype=np.uint32, count=width * height).reshape(height, width).copy()


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    out, at = [], 8
    while at < len(data):
        (size,) = struct.unpack(">I", data[at : at + 4])
        kind, body, crc = data[at + 4 : at + 8], data[at + 8 : at + 8 + size], data[at + 8 + size : at + 12 + size]
        assert struct.unpack(">I", crc)[0] == zlib.crc32(kind + body)  # every chunk's CRC right
        out.append((kind, body))
        at += 12 + size
    return out


def test_encoded_array_decodes_to_itself(tmp_path):
    rgb = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]], [[1, 2, 3], [250, 128, 7], [0, 0, 0]]], dtype=np.uint8)
    path = tmp_path / "toy.png"
    path.write_bytes(encode_png(rgb))
    expected = np.array([[0xFFFF0000, 0xFF00FF00, 0xFF0000FF], [0xFF010203, 0xFFFA8007, 0xFF000000]], dtype=np.uint32)
    assert np.array_equal(decoded(path), expected)
    kinds = chunks(path.read_bytes())
    assert kinds[0] == (b"IHDR", struct.pack(">IIBBBBB", 3, 2, 8, 2, 0, 0, 0))
    assert [k for k, _ in kinds] == [b"IHDR", b"bKGD", b"IDAT", b"IEND"]
    rows = zlib.decompress(kinds[2][1])
    assert rows == b"\x00" + rgb[0].tobytes() + b"\x00" + rgb[1].tobytes()  # filter 0 on every row


def test_argb_words_to_rgb():
    words = np.array([0x80FF1002, 0x00000000, 0xFF123456, 0x01ABCDEF], dtype=np.uint32)  # alpha dropped
    assert argb_to_rgb(words, 2, 2).tolist() == [[[255, 16, 2], [0, 0, 0]], [[0x12, 0x34, 0x56], [0xAB, 0xCD, 0xEF]]]


def test_encode_png_takes_rgb_bytes_only():
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2, 4), dtype=np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2, 3), dtype=np.float32))


def test_canvas_has_the_pixels_of_saveas(tmp_path):
    """Lines, a filled translucent histogram, markers and text: ROOT's file and ours decode to
    the same pixels; the chunks but IDAT are ROOT's."""
    ROOT = root()
    canvas = ROOT.TCanvas("png_pixels", "", 400, 300)
    hist = ROOT.TH1D("png_pixels_h", ";score;events", 20, 0.0, 1.0)
    for i in range(1, 21):
        hist.SetBinContent(i, (i * 7) % 11 + 1)
    hist.SetStats(False)
    hist.SetFillColorAlpha(ROOT.kAzure + 1, 0.35)
    hist.SetMarkerStyle(20)
    hist.Draw("HIST")
    hist.Draw("P SAME")
    text = ROOT.TLatex(0.2, 0.85, "#sqrt{s} = 13 TeV")
    text.SetNDC()
    text.Draw()
    canvas.Modified()
    canvas.Update()
    theirs, ours = tmp_path / "root.png", tmp_path / "ours.png"
    canvas_width, canvas_height = canvas.GetWw(), canvas.GetWh()
    canvas.SaveAs(str(theirs))
    canvas.Modified()
    save_png(canvas, ours)
    canvas.Close()
    a, b = theirs.read_bytes(), ours.read_bytes()
    assert a != b
    assert [c for c in chunks(a) if c[0] != b"IDAT"] == [c for c in chunks(b) if c[0] != b"IDAT"]
    pa, pb = decoded(theirs), decoded(ours)
    assert pa.shape == pb.shape == (canvas_height, canvas_width)
    assert len(np.unique(pa)) > 10  # a drawn figure, not a blank image
    assert np.array_equal(pa, pb)


def test_outside_batch_mode_saveas_writes_the_file(tmp_path, monkeypatch):
    """With graphics on (a session that turned batch mode off), save_png leaves the file to SaveAs."""
    ROOT = root()
    canvas = ROOT.TCanvas("png_not_batch", "", 200, 150)
    calls = []
    monkeypatch.setattr(ROOT.gROOT, "IsBatch", lambda: False, raising=False)
    monkeypatch.setattr(canvas, "SaveAs", lambda path: calls.append(path), raising=False)
    save_png(canvas, tmp_path / "x.png")
    canvas.Close()
    assert calls == [str(tmp_path / "x.png")] and not (tmp_path / "x.png").exists()


def _marker_canvas(ROOT, name: str):
    """Circle markers (filled, open, translucent; sizes 0.4-3) all over a frame, some on its
    edges and past the image's border, over a filled histogram and text: every path of
    png_paint.h's LocalCircles (drawn in a copied square, or on the image where the square
    would leave it)."""
    canvas = ROOT.TCanvas(name, "", 300, 240)
    canvas.SetMargin(0.0, 0.0, 0.0, 0.0)
    hist = ROOT.TH1D(f"{name}_h", "", 12, 0.0, 1.0)
    for i in range(1, 13):
        hist.SetBinContent(i, (i * 5) % 7 + 1)
    hist.SetStats(False)
    hist.SetFillColorAlpha(ROOT.kOrange + 1, 0.4)
    hist.Draw("HIST")
    keep = [hist]
    k = np.arange(40)
    x, y = (k * 0.0263) % 1.0, 0.2 + (k * 0.37) % 7.5
    x[:4], y[:4] = [0.0, 1.0, 0.5, 0.999], [4.0, 4.0, 0.0, 8.0]  # on the image's border
    markers = ((20, 1.2, ROOT.kBlue, 1.0), (24, 1.5, ROOT.kRed, 1.0), (20, 2.4, ROOT.kGreen + 2, 0.5),
               (24, 3.0, ROOT.kBlack, 1.0), (8, 0.4, ROOT.kMagenta, 1.0), (4, 0.9, ROOT.kCyan + 2, 1.0))  # fmt: skip
    for style, size, color, alpha in markers:
        graph = ROOT.TGraph(k.size, np.ascontiguousarray(x), np.ascontiguousarray(y))
        graph.SetMarkerStyle(style)
        graph.SetMarkerSize(size)
        graph.SetMarkerColorAlpha(color, alpha)
        graph.Draw("P SAME")
        keep.append(graph)
        x, y = (x + 0.011) % 1.0, y * 0.97 + 0.1
    text = ROOT.TLatex(0.3, 6.5, "#sqrt{s} = 13 TeV")
    text.Draw()
    keep.append(text)
    canvas.Modified()
    return canvas, keep


def test_painted_rows_are_frompads_pixels():
    """The compiled painter (macros/png_paint.h) gives FromPad's pixels, circle markers included."""
    if native.kernels() is None:
        pytest.skip("no C++ compiler here: save_png paints with FromPad")
    ROOT = root()
    canvas, keep = _marker_canvas(ROOT, "png_rows_markers")
    width, height = canvas.GetWw(), canvas.GetWh()
    rows = painted_rows(canvas)
    canvas.Modified()
    rgb = painted_rgb(canvas)
    canvas.Close()
    assert rows is not None and rgb is not None
    assert rows.shape == (height, 1 + 3 * width) and not rows[:, 0].any()
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 20  # markers of several colours, blended
    assert np.array_equal(rows[:, 1:].reshape(rgb.shape), rgb)


def test_encode_rows_takes_png_rows_only():
    with pytest.raises(ValueError, match="1 \\+ 3 \\* width"):
        encode_rows(np.zeros((2, 6), dtype=np.uint8))
    with pytest.raises(ValueError, match="contiguous"):
        encode_rows(np.zeros((2, 14), dtype=np.uint8)[:, :7])
    rows = np.arange(14, dtype=np.uint8).reshape(2, 7)
    rows[:, 0] = 0
    kinds = chunks(encode_rows(rows))
    assert kinds[0] == (b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
    assert zlib.decompress(kinds[2][1]) == rows.tobytes()
