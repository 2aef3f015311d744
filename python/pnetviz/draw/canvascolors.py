"""What a stored canvas needs of the colours (draw.rootfile.stored_colors): the colour indices its
objects draw with, and the palette its palette TExec sets (stored as data, the TExec left out).

A canvas stores only the colours it uses (not every colour the writing process has defined: after
the campaign's difference maps, palette 87's 255 colours would go into every later canvas), found
by one C++ walk over its primitives (macros/canvas_colors.h): line, fill, marker and text colours
of every object, axis, label and title colours of every axis, the pads' frame and highlight
colours, and inside legends (entries), pave texts (lines), histograms (axes, functions: palette
axis, statistics box), graphs, multigraphs and stacks (their frame histograms and members).

A COLZ figure carries its palette as a TExec (`gStyle->SetPalette(<n>);`) while it is drawn here
(draw.matrices.palette_set sets that palette for each paint, the TExec never runs); the file gets
the palette's colours instead (TCanvas's CurrentColorPalette, which ROOT makes current when it
reads the canvas and JSROOT draws the cells with), never the TExec (without_palette_execs).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Sequence

import numpy as np

from pnetviz.draw import native
from pnetviz.rootenv import compiled, root


@functools.cache
def _kernels():
    """The compiled library's kernels (draw.native), else canvas_colors.h declared to cling."""
    built = native.kernels()
    return built if built is not None else compiled('#include "canvas_colors.h"', "canvas_colors.h").pnetviz_canvascolors


def used_colors(canvas) -> list[int]:
    """The colour indices `canvas` draws its objects with (C++ walk: ~10 us a canvas), ascending;
    not the palette's (a COLZ histogram's cells take theirs from the palette)."""
    out = np.empty(256, np.int64)
    n = _kernels().used_colors(canvas, out, out.size)
    if n > out.size:  # more than 256 colours: again, with room for all
        out = np.empty(n, np.int64)
        n = _kernels().used_colors(canvas, out, out.size)
    return out[:n].tolist()


def palette_exec_number(canvas) -> int:
    """The palette number the palette TExecs of `canvas` set (draw.stored.palette_command): 0 if
    it has none, -1 if they set different ones."""
    return int(_kernels().palette_exec_number(canvas))


@contextlib.contextmanager
def without_palette_execs(canvas) -> Iterator[None]:
    """`canvas` and its sub-pads without their palette TExecs inside the block (what is written to
    a file), each back in its place after."""
    if palette_exec_number(canvas) == 0:  # none (C++: the common case costs one call)
        yield
        return
    from pnetviz.draw.matrices import PALETTE_EXEC  # noqa: PLC0415 - matrices imports the drawing modules

    taken, pads = [], [canvas]
    while pads:
        primitives = pads.pop().GetListOfPrimitives()
        for obj in list(primitives):
            if obj.InheritsFrom("TPad"):
                pads.append(obj)
            elif obj.InheritsFrom("TExec") and PALETTE_EXEC.fullmatch(str(obj.GetTitle())):
                taken.append((primitives, obj, primitives.After(obj)))
                primitives.Remove(obj)
    try:
        yield
    finally:
        for primitives, obj, following in reversed(taken):  # the one after each is back before it
            if following:
                primitives.AddBefore(following, obj)
            else:
                primitives.Add(obj)


def current_palette() -> np.ndarray:
    """The colour numbers of ROOT's current palette, in order (TColor::GetColorPalette)."""
    out = np.empty(root().TColor.GetNumberOfColors(), np.int64)
    _kernels().palette_numbers(out, out.size)
    return out


def set_palette(numbers: Sequence[int]) -> None:
    """Make the colours `numbers` (current_palette of a canvas as read) ROOT's current palette."""
    numbers = np.asarray(numbers, dtype=np.int32)
    if numbers.size:
        root().TColor.SetPalette(int(numbers.size), numbers)
