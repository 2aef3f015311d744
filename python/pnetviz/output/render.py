"""Images on demand: the PNG/PDF of every canvas an output set stores, written later.

An evaluation run with `--formats none` (a campaign with `--images none|summary`) writes
`plots.root` with every canvas (`canvases/<name>`) and the reports, but no image: the drawing
is done, only the export (most of a warm evaluation's time) is left out. `render_set` exports
those canvases as the run would have (the stored canvas drawn at its own size carries its style
and palette: the figure linter checks that such a redraw equals the script's PNG) and
republishes the set with them, all or nothing, under the set's lock.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.io.layout import name_problem, real_name, root_literal, root_path
from pnetviz.output.atomic import MARKER, transaction

ROOT_FILES = ("plots.root", "campaign.root")


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
                if key.GetName() not in names and ROOT.TClass.GetClass(key.GetClassName()).InheritsFrom("TPad"):
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


def export(root_file: Path, directory: Path, formats: Sequence[str]) -> list[Path]:
    """Every stored canvas of `root_file` as <figure name>.<format> in `directory` (a staging
    directory): the images the evaluation would have written."""
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    written = []
    with root_path(root_file) as literal, root_path(directory, directory=True) as out, quiet_root():
        tfile = ROOT.TFile.Open(literal, "READ")
        try:
            for key in canvas_names(root_file):
                canvas = tfile.Get(f"canvases/{key}")
                name = figure_name(key)
                width, height = int(canvas.GetWw()), int(canvas.GetWh())
                canvas.Draw()
                canvas.SetCanvasSize(width, height)  # batch mode takes the window decoration off a second time
                canvas.Modified()
                canvas.Update()
                plain = name if root_literal(name) else f"pnetviz-figure-{secrets.token_hex(4)}"  # as publish.save_literal
                for fmt in formats:
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


def render_set(directory: Path, formats: Sequence[str], wait: bool = False) -> int:
    """Republish the set `directory` with the images of its canvases in `formats` (its other files
    unchanged, its marker's provenance kept); returns the number of images."""
    from pnetviz.io.readers import read_marker  # noqa: PLC0415 - the marker's guarded reader

    marker = read_marker(directory / MARKER)
    files = [f for f in marker.get("files", []) if (directory / f).is_file()]
    root_file = next(directory / n for n in ROOT_FILES if (directory / n).is_file())
    meta = {k: v for k, v in marker.items() if k not in ("files", "pid", "written")}
    with transaction([directory], wait=wait, meta={**meta, "rendered": list(formats)}) as stages:
        stage = stages[directory]
        for name in files:
            shutil.copy2(directory / name, stage / name)
        for sub in (p for p in directory.iterdir() if p.is_dir() and not p.name.startswith(".")):
            shutil.copytree(sub, stage / sub.name)  # e.g. the campaign's site/
        return len(export(stage / root_file.name, stage, formats))
