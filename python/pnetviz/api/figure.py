"""Figures that display inline in Jupyter: JSROOT drawing the canvas's JSON, a PNG beside it.

A `Figure` holds one ROOT canvas: one read from a pnetviz ROOT file (checked by draw.stored
before it is ever drawn: nothing a file carries runs) or one the API built (an overlay). A canvas
read from a file keeps the palette its reading made current (a COLZ figure's stored palette),
set again each time it is drawn or turned into JSON.
`_repr_mimebundle_` gives Jupyter `text/html` (a <div> and a module script importing JSROOT and
drawing `TBufferJSON::ToJSON(canvas)`) and `image/png` (the canvas rendered by ROOT): a
notebook reopened untrusted, which does not run scripts, shows the PNG.
"""

from __future__ import annotations

import base64
import contextlib
import os
import tempfile
import uuid
from pathlib import Path

from pnetviz.draw.canvascolors import current_palette, set_palette
from pnetviz.output.render import paint_stored
from pnetviz.web.site import JSROOT_URL
from pnetviz.web.siteassets import AS_ROOT_DRAWS_JS
from pnetviz.errors import InputError
from pnetviz.escape import html, plain_text, script_literal, text_line

SAVE_FORMATS = ("png", "pdf", "svg", "root")


def jsroot_base(plots_dir: Path | None = None, explicit: str | None = None) -> str:
    """Where a figure's HTML imports JSROOT from, as the web report finds it: `explicit` if given,
    else the local copy a campaign put in <plots_dir>/jsroot/ (`pnetviz campaign --jsroot`, or the
    cached copy `./run.sh demo` fetches), as a path relative to the working directory (the
    notebook's) when it is inside it or its parent (`../plots/jsroot/` from examples/: what a
    Jupyter server started in the checkout serves), else the pinned official release."""
    if explicit:
        return explicit if explicit.endswith("/") else explicit + "/"
    local = Path(plots_dir) / "jsroot" if plots_dir is not None else None
    if local is not None and (local / "modules" / "main.mjs").is_file():
        relative = Path(os.path.relpath(os.path.abspath(local), os.getcwd())).as_posix()  # as served: symbolic links kept
        ups = relative.split("/").count("..")
        if ups <= 1:
            return (relative if ups else "./" + relative) + "/"
    return JSROOT_URL


class Figure:
    """One pnetviz figure (a ROOT TCanvas) that Jupyter shows inline; `save` writes it to a file.

    Attributes: `name` (the figure's file stem, e.g. "roc_curve"), `canvas` (the TCanvas),
    `jsroot` (JSROOT's base URL for the HTML output)."""

    def __init__(self, name: str, canvas: object, jsroot: str = JSROOT_URL, keep: object = None, style: object = None,
                 palette: object = None) -> None:  # fmt: skip
        self.name = name
        self.canvas = canvas
        self.jsroot = jsroot
        self._keep = keep  # the drawn objects of a figure built here (draw.canvas.Figure): kept alive
        self._style = style  # draw.style.StyleOptions of a figure built here: its export is in the CMS style
        # a canvas read from a file (keep None): the palette its reading made current (output.render.read_canvases)
        self._palette = (palette if palette is not None else current_palette()) if keep is None else None
        canvas.SetName(f"{name}_{uuid.uuid4().hex[:8]}")  # TCanvas::Draw deletes a listed canvas of its name
        self._unlist()

    def _unlist(self) -> None:
        """Off ROOT's list of canvases: JupyROOT would display it again after the cell (as a
        second, PNG-only output), and no other canvas's Draw can delete it by name."""
        from pnetviz.rootenv import root  # noqa: PLC0415

        root().gROOT.GetListOfCanvases().Remove(self.canvas)

    def __repr__(self) -> str:
        return f"<pnetviz Figure {text_line(self.name)!s} {self.width}x{self.height}>"

    @property
    def width(self) -> int:
        return int(self.canvas.GetWw())

    @property
    def height(self) -> int:
        return int(self.canvas.GetWh())

    def to_json(self) -> str:
        """The canvas as ROOT's JSON (TBufferJSON::ToJSON), which JSROOT draws."""
        from pnetviz.rootenv import root  # noqa: PLC0415

        self._own_palette()  # TCanvas::Streamer stores the current palette with it
        return str(root().TBufferJSON.ToJSON(self.canvas).Data())

    def _own_palette(self) -> None:
        """The palette this figure's canvas was read with made current again (figures read since set theirs)."""
        if self._palette is not None:
            set_palette(self._palette)

    def to_html(self) -> str:
        """A <div> and a module script that imports JSROOT from `jsroot` and draws the canvas in it."""
        div = f"pnetviz-{uuid.uuid4().hex}"
        unloaded = (f"JSROOT could not be loaded from {self.jsroot}modules/main.mjs (offline? give jsroot= a local copy, "
                    "docs/notebooks.md; figure.save('name.png') draws it with ROOT): ")  # fmt: skip
        script = (f"let jsroot;\ntry {{\n  jsroot = await import({script_literal(self.jsroot + 'modules/main.mjs')});\n}} "
                  f"catch (err) {{\n  document.getElementById({script_literal(div)}).textContent = {script_literal(unloaded)} + err;\n"
                  "  throw err;\n}\n"
                  "jsroot.settings.SmallPad = null;  // a ratio panel's axes drawn whole, as in the web report\n"
                  f"const obj = jsroot.parse({script_literal(self.to_json())});\n"
                  f"await asRootDraws({script_literal(self.jsroot)}, obj);  // text sizes, symbols, log labels as ROOT draws them\n"
                  f"await jsroot.draw({script_literal(div)}, obj, '');\n{AS_ROOT_DRAWS_JS}")  # fmt: skip
        caption = self.caption
        note = f'\n<p class="pnetviz-caption">{html(caption)}</p>' if caption else ""  # context the frame had no room for
        return (f'<div id="{html(div)}" class="pnetviz-figure" title="{html(self.name)}" '
                f'style="width:{self.width}px;height:{self.height}px"></div>{note}\n<script type="module">\n{script}\n</script>')  # fmt: skip

    @property
    def caption(self) -> str:
        """The context the figure's frame had no room for (signal point, channel, ...), as plain
        text ("" when it is all on the canvas or the figure was read from a file)."""
        lines = getattr(self._keep, "caption", None) or []
        return "; ".join(plain_text(line) for line in lines)

    def to_png(self) -> bytes:
        """The canvas rendered by ROOT as PNG bytes."""
        with tempfile.TemporaryDirectory(prefix="pnetviz-figure-") as tmp:
            path = Path(tmp) / "figure.png"
            self._export(path)
            return path.read_bytes()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        """Jupyter's display: text/html (JSROOT) and image/png (ROOT), base64 text for the PNG."""
        return {"text/html": self.to_html(), "image/png": base64.b64encode(self.to_png()).decode("ascii"),
                "text/plain": repr(self)}  # fmt: skip

    def save(self, path: str | os.PathLike) -> Path:
        """Write the figure to `path`: .png, .pdf, .svg (rendered by ROOT) or .root (the canvas)."""
        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in SAVE_FORMATS:
            raise InputError(f"{text_line(path)}: save a figure as {', '.join('.' + f for f in SAVE_FORMATS)}.")
        if not path.parent.is_dir():
            raise InputError(f"{text_line(path)}: the directory {text_line(path.parent)} does not exist. Fix: create it first.")
        with tempfile.TemporaryDirectory(prefix=".pnetviz-save-", dir=path.parent) as tmp:
            staged = Path(tmp) / f"figure.{fmt}"
            self._export(staged)
            os.replace(staged, path)  # whole or not at all
        return path

    def _paint(self) -> None:
        """A canvas built here painted at its own size."""
        width, height = self.width, self.height
        self.canvas.Draw()
        self.canvas.SetCanvasSize(width, height)  # batch mode takes the window decoration off a second time
        self.canvas.Modified()
        self.canvas.Update()

    def _export(self, path: Path) -> None:
        """The canvas drawn at its own size into `path` (a plain name ROOT takes literally)."""
        from pnetviz.draw.png import save_png  # noqa: PLC0415
        from pnetviz.draw.style import cms_style  # noqa: PLC0415
        from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

        ROOT = root()
        with quiet_root(ROOT.kWarning), cms_style(self._style) if self._style else contextlib.nullcontext():
            if self._palette is not None:
                paint_stored(self.canvas, self._palette)  # a stored canvas: drawn as `pnetviz render` draws it
            else:
                self._paint()
            if path.suffix == ".png":  # ROOT's pixels, encoded by draw.png
                save_png(self.canvas, path)
            else:
                self.canvas.SaveAs(str(path))
        self._unlist()
        if not path.is_file():
            raise InputError(f"{text_line(path)}: ROOT did not write the figure. Fix: check free disk space.")
