"""A canvas written as PDF: the file of ROOT's SaveAs, written by the compiled library
(macros/pdf_write.h through draw.native: SaveAs's steps, with a TPDF whose numbers are formatted
by std::to_chars instead of snprintf, a third of the PDF's time; the same bytes). SaveAs itself
outside batch mode or where the library cannot be had."""

from __future__ import annotations

from pathlib import Path

from pnetviz.draw import native
from pnetviz.rootenv import root


def save_pdf(canvas, path: Path | str) -> None:
    """Write the TCanvas `canvas` as the PDF `path`, as canvas.SaveAs(path) writes it."""
    kernels = native.kernels()
    if kernels is None or not root().gROOT.IsBatch():
        canvas.SaveAs(str(path))
        return
    kernels.pdf_save(canvas, str(path))
