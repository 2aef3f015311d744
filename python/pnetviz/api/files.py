"""Reading a finished output set for the API: its figures (checked before they are drawn),
its tables (CSV as records, or pandas DataFrames) and its JSON reports."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path

from pnetviz.api.figure import Figure
from pnetviz.draw.stored import check_canvas, check_streamers
from pnetviz.errors import InputError
from pnetviz.escape import text_line
from pnetviz.io import readers
from pnetviz.io.layout import root_path
from pnetviz.output.render import canvas_names, figure_name, read_canvases

NOTHING_SHOWN = "nothing was shown"
TABLE_FIX = "re-run `pnetviz campaign` for this round"


def read_figure(root_file: Path, name: str, jsroot: str) -> Figure:
    """The canvas of figure `name` stored in `root_file` (canvases/<key>), as a Figure. The file's
    declared classes and then the canvas read are checked (draw.stored) before anything draws it:
    InputError naming the file, the canvas and what would run."""
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    keys = {figure_name(key): key for key in canvas_names(root_file)}
    if name not in keys:
        raise InputError(f"{text_line(root_file)}: no figure {text_line(name)!r}. Fix: choose one of "
                         f"{', '.join(sorted(map(text_line, keys)))}.")  # fmt: skip
    with root_path(root_file) as literal, quiet_root():
        tfile = ROOT.TFile.Open(literal, "READ")
        if not tfile or tfile.IsZombie():
            raise InputError(f"{text_line(root_file)}: ROOT cannot open it. Fix: re-run the evaluation that wrote it.")
        try:
            check_streamers(tfile, root_file, NOTHING_SHOWN)  # before any object is read
            [(_, canvas, palette)] = read_canvases(tfile, [keys[name]])  # as `pnetviz render` reads it
            check_canvas(canvas, root_file, keys[name], NOTHING_SHOWN)  # the object that will be drawn
        finally:
            tfile.Close()
    return Figure(name, canvas, jsroot, palette=palette)


class Figures(Mapping):
    """The figures of one ROOT file by name, each read (and checked) when first asked for."""

    def __init__(self, root_file: Path, jsroot: str) -> None:
        self.root_file = Path(root_file)
        self.jsroot = jsroot
        self._names: list[str] | None = None
        self._read: dict[str, Figure] = {}

    def _all(self) -> list[str]:
        if self._names is None:
            self._names = [figure_name(key) for key in canvas_names(self.root_file)] if self.root_file.is_file() else []
        return self._names

    def __getitem__(self, name: str) -> Figure:
        if name not in self._read:
            if name not in self._all():
                raise KeyError(name)
            self._read[name] = read_figure(self.root_file, name, self.jsroot)
        return self._read[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"<pnetviz figures of {text_line(self.root_file)}: {', '.join(map(text_line, self._all()))}>"


def number(text: str) -> object:
    """A CSV cell as a float when it is a number, else the text ('' stays '', '> 6.8' stays text)."""
    try:
        return float(text)
    except ValueError:
        return text


def read_table(path: Path, frame: bool | None = None) -> object:
    """A CSV table of pnetviz: a pandas.DataFrame when pandas is importable (or `frame` is True),
    else a list of records (dicts, numbers as floats)."""
    use_pandas = importlib.util.find_spec("pandas") is not None if frame is None else frame
    if use_pandas:
        import io  # noqa: PLC0415

        import pandas  # noqa: PLC0415

        # the bytes through the guarded reader (a regular file, size-capped: a FIFO never hangs), then pandas
        data = readers.read_bytes(Path(path), "campaign table", readers.MAX_CSV_BYTES, fix=TABLE_FIX)
        return pandas.read_csv(io.BytesIO(data))
    _, rows = readers.read_csv(Path(path), "campaign table", TABLE_FIX)
    return [{key: number(value) for key, value in row.items()} for row in rows]


def read_json(path: Path) -> dict:
    """A JSON report of an output set; InputError naming it if it is missing or damaged."""
    return readers.read_json(Path(path), "output-set report", "re-run the evaluation that wrote it", finite=False)

