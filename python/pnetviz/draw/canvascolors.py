"""What a stored canvas needs of the colours (draw.rootfile.stored_colors): the colour indices its
objects draw with, and the palette its palette TExec sets.

A canvas stores only the colours it uses (not every colour the writing process has defined: after
the campaign's difference maps, palette 87's 255 colours would go into every later canvas), found
by one C++ walk over its primitives (macros/canvas_colors.h): line, fill, marker and text colours
of every object, axis, label and title colours of every axis, the pads' frame and highlight
colours, and inside legends (entries), pave texts (lines), histograms (axes, functions: palette
axis, statistics box), graphs, multigraphs and stacks (their frame histograms and members).
"""

from __future__ import annotations

import functools

import numpy as np

from pnetviz.rootenv import compiled

# kBird: the palette a stored canvas needs not carry. ROOT runs the canvas's palette TExec
# (`gStyle->SetPalette(57);`) before its cells are painted; JSROOT ignores the TExec and fills
# the cells from its default palette, 57 too (settings.Palette in modules/core.mjs), unless the
# canvas stores a CurrentColorPalette (modules/gpad/TPadPainter.mjs, checkSpecial).
READERS_PALETTE = 57



@functools.cache
def _kernels():
    return compiled('#include "canvas_colors.h"', "canvas_colors.h").pnetviz_canvascolors


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
