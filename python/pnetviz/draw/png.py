"""A canvas written as PNG from the pixels ROOT paints, encoded here (issue 55).

`canvas.SaveAs("x.png")` in batch mode paints the canvas into an image (TImage::FromPad: ROOT's
TImageDump painter into a TASImage) and hands it to libAfterImage and libpng, which try five row
filters on every row and deflate at zlib level 6: ~9.5 ms of a ~12 ms PNG. `save_png` paints the
same image (macros/png_paint.h through the compiled drawing library, draw.native: the same
painter, the circle markers drawn on a small copy of their neighbourhood, the rows written
straight from the painted buffer; FromPad where the library cannot be had) and deflates the rows
itself: no row filter, zlib-ng level 6 (zlib's level 6 where zlib-ng is not installed). The
pixels are ROOT's, byte for byte; the file keeps what ROOT's file holds for a reader: 8-bit RGB
(colour type 2, no alpha: libAfterImage drops it too), not interlaced, a bKGD chunk of black, no
gamma or sRGB chunk (ROOT writes none). The bytes of the compressed stream differ
(`benchmarks/compare_trees.py` compares PNGs by their pixels).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from pnetviz.draw import native

try:  # zlib-ng: the same deflate format, ~3x faster than zlib at level 6 on these images, and smaller
    from zlib_ng import zlib_ng as deflater
except ImportError:  # pragma: no cover - a dependency; zlib writes the same pixels
    deflater = zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# libpng's default; no row filter at level 6 is smaller than ROOT's files (zlib-ng: 16% smaller over
# the 61 figures of a multi-class evaluation, in 0.4x zlib's time; benchmarks/README.md, h62png)
ZLIB_LEVEL = 6
BACKGROUND = bytes(6)  # ROOT's bKGD chunk: the RGB background 0, 0, 0 (16 bits a channel)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(rgb: np.ndarray) -> bytes:
    """A PNG file of the (height, width, 3) uint8 array `rgb`: 8-bit RGB, filter 0 on every row."""
    height, width, channels = rgb.shape
    if channels != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"encode_png takes a (height, width, 3) uint8 array, not {rgb.shape} {rgb.dtype}")
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # each row: its filter byte (0, none), then the pixels
    rows[:, 1:] = rgb.reshape(height, 3 * width)
    return encode_rows(rows)


def encode_rows(rows: np.ndarray) -> bytes:
    """A PNG file of the (height, 1 + 3 * width) uint8 array `rows`: each row its filter byte
    (0: none), then the row's pixels as R, G, B bytes."""
    height, size = rows.shape
    if rows.dtype != np.uint8 or size % 3 != 1 or not rows.flags.c_contiguous:
        raise ValueError(f"encode_rows takes a contiguous (height, 1 + 3 * width) uint8 array, not {rows.shape}")
    # bit depth 8, colour type 2 (RGB), deflate, filter set 0, not interlaced
    header = struct.pack(">IIBBBBB", size // 3, height, 8, 2, 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header), _chunk(b"bKGD", BACKGROUND),
                     _chunk(b"IDAT", deflater.compress(rows, ZLIB_LEVEL)), _chunk(b"IEND", b"")))  # fmt: skip


def argb_to_rgb(argb: np.ndarray, width: int, height: int) -> np.ndarray:
    """TASImage's ARGB32 words (0xAARRGGBB, one a pixel, rows top down) as a (height, width, 3)
    uint8 RGB array; the alpha byte is dropped, as libAfterImage does for an image without alpha."""
    words = np.asarray(argb, dtype=np.uint32).reshape(height, width)
    rgb = np.empty((height, width, 3), dtype=np.uint8)
    rgb[..., 0] = words >> 16
    rgb[..., 1] = words >> 8
    rgb[..., 2] = words
    return rgb


def painted_rgb(canvas) -> np.ndarray | None:
    """The canvas painted into an image as SaveAs(".png") paints it in batch mode, as an RGB array;
    None outside batch mode or where ROOT has no image library (then save_png calls SaveAs)."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    if not ROOT.gROOT.IsBatch():  # a session that turned graphics on: FromPad grabs the window there, SaveAs decides
        return None
    image = ROOT.TImage.Create()
    if not image:
        return None
    ROOT.SetOwnership(image, True)  # deleted with its last Python reference (~2 MB of pixels a canvas)
    image.FromPad(canvas)
    width, height = int(image.GetWidth()), int(image.GetHeight())
    if width == 0 or height == 0:
        return None
    words = image.GetArgbArray()  # the image's own buffer: copied out (argb_to_rgb) before the image goes
    words.reshape((width * height,))
    return argb_to_rgb(np.frombuffer(words, dtype=np.uint32, count=width * height), width, height)


def painted_rows(canvas) -> np.ndarray | None:
    """The canvas painted as painted_rgb paints it, as PNG rows (encode_rows), by the compiled
    library's painter (macros/png_paint.h); None outside batch mode or without the library."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    kernels = native.kernels()
    if kernels is None or not root().gROOT.IsBatch():
        return None
    size = np.zeros(2, dtype=np.uint32)
    dump = kernels.png_paint(canvas, size[0:], size[1:])
    width, height = int(size[0]), int(size[1])
    rows = np.empty((height, 1 + 3 * width), dtype=np.uint8)
    kernels.png_rows(dump, rows)  # deletes the dump
    return rows if width and height else None


def save_png(canvas, path: Path | str) -> None:
    """Write `canvas` as the PNG `path` (pixels of ROOT's SaveAs, encoded by encode_rows)."""
    rows = painted_rows(canvas)
    if rows is not None:
        Path(path).write_bytes(encode_rows(rows))
        return
    rgb = painted_rgb(canvas)
    if rgb is None:
        canvas.SaveAs(str(path))
        return
    Path(path).write_bytes(encode_png(rgb))
