"""Canvases read back from a ROOT file on disk: nothing in them may run code when they are drawn.

A stored canvas is painted by ROOT as it is: a `TExec` among a pad's primitives (or in a
histogram's list of functions, a pad's list of execs, ...) has its command (its title) run by
the interpreter at each paint, a `TF1`/`TFormula` is C++ compiled (when read) and run (when
painted), a `TButton`/`TSlider` runs its method when clicked. Output trees are shared, so a
`plots.root` that someone else could write must not run anything as whoever draws it.

pnetviz itself stores exactly one kind of executable primitive: the palette of a COLZ figure,
`TExec("palette", "gStyle->SetPalette(<n>);")` for the palettes in PALETTES. Everything else
that can run code is refused, before any canvas of the file is drawn:

* `check_streamers`: the classes the file declares (its streamer-info record, read without
  building any object) must not include a code-carrying class (CODE_CLASSES) - a TF1/TFormula
  is compiled by the interpreter while it is being read, before any walk could see it;
* `check_canvas`: a walk over everything a canvas holds (sub-pads, primitives, pads' execs,
  functions of histograms and graphs, graphs of a TMultiGraph, histograms of a THStack, legend
  entries' objects, a palette's histogram, text boxes' lines) refuses any TExec that is not
  exactly one of pnetviz's palette commands (name and command) and any object of CODE_CLASSES.

Reading a canvas (TFile::Get) does not paint it: the checks run on the objects read, and the
caller draws those same objects only once every canvas of the file has passed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import text_line

PALETTE_NAME = "palette"
PALETTES = (57, 87)  # kBird (matrices, maps), kLightTemperature (the campaign's difference maps)
# classes whose objects run or compile code when read, painted or clicked (and their subclasses)
CODE_CLASSES = ("TExec", "TF1", "TF2", "TF3", "TF12", "TFormula", "TF1Convolution", "TF1NormSum", "TButton", "TGroupButton",
                "TSlider", "TSliderBox", "TDialogCanvas", "TInspectCanvas", "TMacro", "TTreeFormula", "TParallelCoord",
                "TSpider", "TClassTree", "TPaveClass")  # fmt: skip
TEXT_LIMIT = 80  # characters of a command quoted in a message


class CodeInFile(InputError):
    """A ROOT file read from disk carries executable code that pnetviz did not write."""


def palette_command(number: int) -> str:
    """The command of the TExec that stores palette `number` with a COLZ canvas (PALETTES only)."""
    if number not in PALETTES:
        raise ValueError(f"palette {number}: not one of the palettes a stored canvas may set {PALETTES}")
    return f"gStyle->SetPalette({number});"


ALLOWED_EXECS = frozenset((PALETTE_NAME, palette_command(n)) for n in PALETTES)


def _quoted(text: str) -> str:
    """`text` shortened and made one printable line, in quotes, for a message."""
    short = text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 3] + "..."
    return f"'{text_line(short)}'"


def _refusal(source: Path, what: str, where: str, outcome: str) -> CodeInFile:
    return CodeInFile(f"{text_line(source)}: this ROOT file carries executable code ({what}{where}); it was not written by "
                      f"pnetviz; {outcome}. Fix: draw only ROOT files pnetviz wrote (re-run the evaluation to write a new "
                      "one); inspect this one with care, without drawing it.")  # fmt: skip


def check_streamers(tfile, source: Path, outcome: str = "nothing was drawn") -> None:
    """CodeInFile if the open TFile `tfile` declares a class of CODE_CLASSES other than TExec
    (which is checked object by object): called before any object of the file is read."""
    for info in tfile.GetStreamerInfoList() or []:
        name = str(info.GetName())
        if name in CODE_CLASSES and name != "TExec":
            raise _refusal(source, f"objects of class {name}", "", outcome)


def _children(obj) -> Iterator[object]:
    """The objects `obj` holds that ROOT paints (or runs) with it."""
    lists = []
    if obj.InheritsFrom("TCollection"):
        lists.append(obj)
    if obj.InheritsFrom("TPad"):
        lists += [obj.GetListOfPrimitives(), obj.GetListOfExecs()]
    if obj.InheritsFrom("TH1") or obj.InheritsFrom("TGraph") or obj.InheritsFrom("TGraph2D") or obj.InheritsFrom("TMultiGraph"):
        lists.append(obj.GetListOfFunctions())
    if obj.InheritsFrom("TMultiGraph"):
        lists.append(obj.GetListOfGraphs())
    if obj.InheritsFrom("THStack"):
        lists.append(obj.GetHists())
    if obj.InheritsFrom("TLegend"):
        lists.append(obj.GetListOfPrimitives())
    elif obj.InheritsFrom("TPaveText"):
        lists.append(obj.GetListOfLines())
    for items in lists:
        yield from (item for item in (items or []) if item)
    if obj.InheritsFrom("TLegendEntry") and obj.GetObject():
        yield obj.GetObject()
    if obj.InheritsFrom("TPaletteAxis") and obj.GetHistogram():
        yield obj.GetHistogram()


def executable_part(canvas) -> str | None:
    """What in `canvas` (a pad read from a file) would run code, as a phrase ("TExec '...' in pad
    p1"), or None: every object it holds is walked (each once; the lists may refer to each other)."""
    from pnetviz.rootenv import root  # noqa: PLC0415

    ROOT = root()
    seen: set[int] = set()
    top = ROOT.addressof(canvas)
    pending = [(canvas, "")]
    while pending:
        obj, where = pending.pop()
        address = ROOT.addressof(obj)
        if address in seen:
            continue
        seen.add(address)
        if obj.InheritsFrom("TExec"):
            if (str(obj.GetName()), str(obj.GetTitle())) not in ALLOWED_EXECS:
                return f"TExec {_quoted(str(obj.GetName()))} running {_quoted(str(obj.GetTitle()))}{where}"
            continue
        code = next((name for name in CODE_CLASSES if obj.InheritsFrom(name)), None)
        if code:
            return f"{obj.ClassName()} {_quoted(str(obj.GetName()))}{where}"
        inner = f" in pad {_quoted(str(obj.GetName()))}" if obj.InheritsFrom("TPad") and address != top else where
        pending += [(child, inner) for child in _children(obj)]
    return None


def check_canvas(canvas, source: Path, key: str, outcome: str = "nothing was drawn") -> None:
    """CodeInFile naming `source`, the canvas `key` and what would run, if `canvas` holds anything
    executable besides pnetviz's palette commands."""
    found = executable_part(canvas)
    if found:
        raise _refusal(source, found, f" in canvas {_quoted(key)}", outcome)


def check_file(source: Path, outcome: str = "nothing was drawn") -> int:
    """check_streamers, then check_canvas on every canvas under canvases/ of the ROOT file
    `source` (read, never drawn); returns the number of canvases checked."""
    from pnetviz.io.layout import root_path  # noqa: PLC0415
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    with root_path(source) as literal, quiet_root():
        tfile = ROOT.TFile.Open(literal, "READ")
        if not tfile or tfile.IsZombie():
            raise InputError(f"{text_line(source)}: ROOT cannot open it. Fix: re-run the evaluation that wrote it.")
        try:
            check_streamers(tfile, source, outcome)
            directory = tfile.GetDirectory("canvases")
            checked = 0
            for key in directory.GetListOfKeys() if directory else []:
                cls = ROOT.TClass.GetClass(key.GetClassName())
                if cls and cls.InheritsFrom("TPad"):
                    canvas = key.ReadObj()
                    try:
                        check_canvas(canvas, source, str(key.GetName()), outcome)
                    finally:
                        canvas.Close()
                    checked += 1
            return checked
        finally:
            tfile.Close()
