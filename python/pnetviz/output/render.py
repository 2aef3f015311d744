"""Images on demand: the PNG/PDF of every canvas an output set stores, written later.

An evaluation run with `--formats none` writes `plots.root` with every canvas
(`canvases/<name>`) and the reports, but no image (with `--images site`, a campaign's default:
only the web report's figures; output.imageset): the drawing is done, only the export (most of
a warm evaluation's time) is left out. `render_set` exports
those canvases as the run would have (the stored canvas drawn at its own size carries its style
and palette: the figure linter checks that such a redraw equals the script's PNG) and
republishes the set with them, all or nothing, under the set's lock.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from pnetviz.draw.canvascolors import current_palette, set_palette
from pnetviz.draw.stored import check_canvas, check_records
from pnetviz.errors import InputError
from pnetviz.escape import text_line
from pnetviz.io.layout import name_problem, real_name, root_literal, root_path
from pnetviz.io.readers import read_marker
from pnetviz.output import imageset
from pnetviz.output.atomic import MARKER, transaction

ROOT_FILES = ("plots.root", "campaign.root")
NOTHING_RENDERED = "nothing was rendered"


def output_sets(paths: Iterable[Path]) -> list[Path]:
    """The output sets (directories with a marker and a plots.root or campaign.root) at or below
    `paths` (directories, or a set's ROOT file); InputError for a path that holds none."""
    found: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_file() and path.name in ROOT_FILES:
            candidates = [path.parent]
        elif path.is_dir():
            candidates = [path] + [p.parent for name in ROOT_FILES for p in sorted(path.rglob(name))]
        else:
            raise InputError(f"{path}: not a directory or a plots.root. Fix: give an output directory of pnetviz.")
        sets = [d for d in dict.fromkeys(candidates) if (d / MARKER).is_file() and any((d / n).is_file() for n in ROOT_FILES)
                and not any(part.startswith(".") for part in d.relative_to(path if path.is_dir() else d).parts)]  # fmt: skip
        if not sets:
            raise InputError(f"{path}: holds no pnetviz output set (a directory with .pnetviz-set.json and plots.root).")
        found += sets
    return list(dict.fromkeys(found))


def canvas_names(root_file: Path) -> list[str]:
    """Names of the canvases stored under canvases/ of a pnetviz ROOT file."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    with root_path(root_file) as literal:
        tfile = ROOT.TFile.Open(literal, "READ")
        try:
            directory = tfile.GetDirectory("canvases") if tfile and not tfile.IsZombie() else None
            if not directory:
                raise InputError(f"{root_file}: no canvases/ directory. Fix: re-run the evaluation with this pnetviz.")
            names = []
            for key in directory.GetListOfKeys():
                cls = ROOT.TClass.GetClass(key.GetClassName())
                if key.GetName() not in names and cls and cls.InheritsFrom("TPad"):
                    names.append(key.GetName())
            return names
        finally:
            if tfile:
                tfile.Close()


def figure_name(key: str) -> str:
    """The figure (image file stem) of the canvas stored under `key` in canvases/: the name the
    key stands for (io.layout.real_name: `signal_vs_t%3BtX_roc_curve` -> `signal_vs_t;tX_roc_curve`,
    as the evaluation named its images), or the key when that is no plain file name."""
    name = real_name(key)
    return key if name_problem(name) else name


def export(root_file: Path, directory: Path, formats: Sequence[str], source: Path | None = None) -> list[Path]:
    """Every stored canvas of `root_file` as <figure name>.<format> in `directory` (a staging
    directory): the images the evaluation would have written. InputError (naming `source`, the
    file `root_file` is a copy of) before anything is drawn if a canvas carries executable code
    (draw.stored): the canvases checked are the objects then drawn."""
    from pnetviz.draw.png import save_png  # noqa: PLC0415
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    written = []
    with root_path(root_file) as literal, root_path(directory, directory=True) as out, quiet_root():
        tfile = ROOT.TFile.Open(literal, "READ")
        try:
            check_records(tfile, source or root_file, NOTHING_RENDERED)  # every class the file names, before any object is read
            canvases = read_canvases(tfile, canvas_names(root_file))
            for key, canvas, _ in canvases:  # every canvas checked before the first is drawn
                check_canvas(canvas, source or root_file, key, NOTHING_RENDERED)
            for key, canvas, palette in canvases:
                name = figure_name(key)
                paint_stored(canvas, palette)
                plain = name if root_literal(name) else f"pnetviz-figure-{secrets.token_hex(4)}"  # as publish.save_literal
                for fmt in formats:
                    if fmt == "png":  # ROOT's pixels, encoded by draw.png (half the time of ROOT's writer)
                        save_png(canvas, f"{out}/{plain}.{fmt}")
                    else:
                        canvas.SaveAs(f"{out}/{plain}.{fmt}")
                    if plain != name and (directory / f"{plain}.{fmt}").exists():
                        os.rename(directory / f"{plain}.{fmt}", directory / f"{name}.{fmt}")
                    written.append(directory / f"{name}.{fmt}")
                canvas.Close()
        finally:
            tfile.Close()
    missing = [p.name for p in written if not p.is_file()]
    if missing:
        raise InputError(f"{root_file}: {', '.join(missing[:3])} not written. Nothing was published. Fix: check free disk space.")
    return written


def paint_stored(canvas, palette) -> None:
    """Paint the canvas `canvas` read from a file (read_canvases) as the run drew it, before it is
    saved: `palette` (the one its reading set) made current, the canvas at its own size. The one
    drawing of a stored canvas, for `pnetviz render` and the API's figures (their PNG)."""
    set_palette(palette)
    width, height = int(canvas.GetWw()), int(canvas.GetWh())
    canvas.Draw()
    canvas.SetCanvasSize(width, height)  # batch mode takes the window decoration off a second time
    canvas.Modified()
    canvas.Update()


def read_canvases(tfile, keys: Sequence[str]) -> list[tuple[str, object, object]]:
    """(key, canvas, palette) of each canvas `keys` of the open `tfile` (under canvases/), read in
    turn and never drawn: its palette is the one ROOT made current when it read the canvas (the
    colours a pnetviz canvas stores with a COLZ figure; the palette current before reading the
    first canvas when it stores none), to be set again before the canvas is painted. Read with
    ROOT's ForceStyle off (a style forced on would replace the canvas's own: log y, colours, the
    frame's statistics box)."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    start = current_palette()
    read = []
    forced = bool(ROOT.gROOT.GetForceStyle())
    ROOT.gROOT.ForceStyle(False)
    try:
        for key in keys:
            set_palette(start)
            canvas = tfile.Get(f"canvases/{key}")
            read.append((key, canvas, current_palette()))
    finally:
        ROOT.gROOT.ForceStyle(forced)
    return read


def render_set(directory: Path, formats: Sequence[str], wait: bool = False) -> int:
    """Republish the set `directory` with the images of its canvases in `formats` (its other files
    unchanged, its marker's provenance kept); returns the number of images."""
    check_links(directory)  # before anything of the set is read or copied
    marker = read_marker(directory / MARKER)
    files = [f for f in listed_files(directory, marker.get("files", [])) if (directory / f).is_file()]
    root_file = next(directory / n for n in ROOT_FILES if (directory / n).is_file())
    meta = {k: v for k, v in marker.items() if k not in ("files", "pid", "written")}
    meta |= {"rendered": list(formats), "images": imageset.rendered(marker.get("images"), formats)}
    with transaction([directory], wait=wait, meta=meta) as stages:
        stage = stages[directory]
        for name in files:  # a link put in after check_links is copied as a link, which publishing refuses
            shutil.copy2(directory / name, stage / name, follow_symlinks=False)
        for sub in (p for p in directory.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")):
            shutil.copytree(sub, stage / sub.name, symlinks=True)  # e.g. the campaign's site/
        return len(export(stage / root_file.name, stage, formats, source=root_file))


def listed_files(directory: Path, files: object) -> list[str]:
    """The marker's `files` of the set `directory`: plain names of entries inside it (no `/`, no
    `..`, no absolute path), else InputError before anything is copied."""
    if not isinstance(files, list):
        raise InputError(f"{text_line(directory / MARKER)}: 'files' is not a list of names; nothing was rendered. Fix: re-run "
                         "the evaluation that wrote this set.")  # fmt: skip
    for name in files:
        if not isinstance(name, str) or not name or "/" in name or "\0" in name or name in (".", ".."):
            raise InputError(f"{text_line(directory / MARKER)}: 'files' lists {text_line(repr(name))}, not a plain name of "
                             "a file inside the set; nothing was rendered. Fix: re-run the evaluation that wrote this set.")  # fmt: skip
    return files


def check_links(directory: Path) -> None:
    """InputError before anything is copied if the set `directory` holds a symbolic link or a
    special file anywhere (render refuses such a set rather than copy a link's target, a private
    file, into the republished set, or block on a FIFO)."""
    for top, dirs, names in os.walk(directory):  # links are listed, never followed
        for name in sorted(dirs + names):
            path = Path(top) / name
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                what = "a symbolic link" if stat.S_ISLNK(mode) else "a special file (not a regular file or directory)"
                raise InputError(f"{text_line(path)}: {what} inside the output set {text_line(directory)}; pnetviz render "
                                 "copies no links or special files into a republished set and refuses the set (nothing "
                                 "was rendered or changed). Fix: remove it, or move its target into the set as a "
                                 "regular file.")  # fmt: skip
