"""One ROOT file per output set: every histogram, graph, TH2 and canvas, in directories."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .draw import Figure
from .rootenv import root


def write_root_file(path: Path, figures: Iterable[Figure], extra: dict[str, object] | None = None) -> None:
    """Objects go to the directory named by their key ("roc/test" -> roc/, key test);
    canvases to canvases/<figure name>. Keys repeated across figures are written once."""
    ROOT = root()
    tfile = ROOT.TFile.Open(str(path), "RECREATE")
    if not tfile or tfile.IsZombie():
        raise OSError(f"cannot create {path}")
    try:
        written: set[str] = set()
        objects = [(key, obj) for fig in figures for key, obj in fig.objects.items()]
        objects += list((extra or {}).items())
        for fig in figures:
            objects.append((f"canvases/{fig.name}", fig.canvas))
        for key, obj in objects:
            if key in written:
                continue
            written.add(key)
            directory, _, name = key.rpartition("/")
            target = tfile.GetDirectory(directory) if directory else tfile
            if not target:
                target = tfile.mkdir(directory, "", True)
            target.WriteObject(obj, name)
    finally:
        tfile.Close()
