"""Canvases read back from a ROOT file on disk: nothing in them may run code when they are drawn.

A stored canvas is painted by ROOT as it is: a `TExec` anywhere it paints (a pad's primitives, a
histogram's functions, a graph's, a multigraph's or a stack's frame histogram, ...) has its
command (its title) run by the interpreter, a `TF1`/`TFormula` is C++ compiled while it is read
and run when painted, a `TButton` runs its method when clicked. Output trees are shared, so a
`plots.root` that someone else could write must not run anything as whoever draws it.

Instead of listing the places code can hide (there is always one more), the file's classes are
checked against the classes pnetviz itself writes (ALLOWED_CLASSES), in two steps:

* `check_records`, before any object is read: every class the file's records name
  (macros/stored_classes.h) - the streamer-info record (every class written anywhere in the file,
  its bases and its members' classes), each key's class, and each class tagged inside each key's
  object bytes (ROOT instantiates an object reached by a pointer or a list by the class name
  stored before it). A TF1 is thus refused before ROOT could compile it.
* `check_canvas`, on each canvas read: every object it reaches, through every persistent pointer
  member and every list entry, must be of an allowed class.

pnetviz writes no executable object: a COLZ figure's palette is stored as its colours
(draw.rootfile, TCanvas's CurrentColorPalette). Sets written before stored it as
`TExec("palette", "gStyle->SetPalette(<n>);")` (PALETTES) among a pad's primitives: that exact
TExec, there, is still accepted, so that older sets render (it sets a palette, nothing else); a
TExec anywhere else, in a key that is not a canvas, or with any other name or command refuses
the file. Dropping "TExec" from ALLOWED_CLASSES refuses those older sets too.
Reading a canvas (TFile::Get) does not paint it: the callers draw the objects checked, and only
once every canvas of the file has passed.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pnetviz.errors import InputError
from pnetviz.escape import text_line

PALETTE_NAME = "palette"
PALETTES = (57, 87)  # kBird (matrices, maps), kLightTemperature (the campaign's difference maps)
# What pnetviz writes into a plots.root/campaign.root (found by the records of every command's
# output: binary, multiclass, compare, campaign, ga, diff): the objects' classes and the classes
# of their bases and members. TExec only as a palette command (above).
ALLOWED_CLASSES = frozenset((
    "TCanvas", "TPad", "TFrame", "TDirectoryFile", "TDirectory", "TNamed", "TObject", "TString", "TObjString",
    "TCollection", "TSeqCollection", "TList", "THashList", "TObjArray", "TColor",
    "TH1", "TH1D", "TH1F", "TH2", "TH2D", "TArray", "TArrayD", "TArrayF", "TAxis", "TAxisModLab",
    "TGraph", "TGraphErrors", "TGraphAsymmErrors", "TLegend", "TLegendEntry", "TPave", "TPaletteAxis", "TGaxis",
    "TText", "TLatex", "TLine", "TBox", "TWbox", "TVirtualPad", "TQObject",
    "TAttAxis", "TAttBBox2D", "TAttCanvas", "TAttFill", "TAttLine", "TAttMarker", "TAttPad", "TAttText",
    "TExec"))  # fmt: skip  (TExec: older sets' palette command only, see above)
TEXT_LIMIT = 80  # characters of a command or class name quoted in a message
# a string in an object's bytes after a class tag that ROOT could take for a class name (type
# characters, a letter among them): anything else names no class (numbers' bytes, mostly)
TYPE_LIKE = re.compile(r"[A-Za-z0-9_:<>,*&\s]*[A-Za-z_][A-Za-z0-9_:<>,*&\s]*")
PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*")


class CodeInFile(InputError):
    """A ROOT file read from disk carries executable code, or classes pnetviz does not write."""


def palette_command(number: int) -> str:
    """The command of the TExec that stores palette `number` with a COLZ canvas (PALETTES only)."""
    if number not in PALETTES:
        raise ValueError(f"palette {number}: not one of the palettes a stored canvas may set {PALETTES}")
    return f"gStyle->SetPalette({number});"


ALLOWED_EXECS = frozenset((PALETTE_NAME, palette_command(n)) for n in PALETTES)


def _quoted(text: object) -> str:
    """`text` shortened and made one printable line, in quotes, for a message."""
    text = text.decode("latin-1") if isinstance(text, bytes) else str(text)
    short = text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 3] + "..."
    return f"'{text_line(short)}'"


def _refusal(source: Path, what: str, where: str, outcome: str) -> CodeInFile:
    return CodeInFile(f"{text_line(source)}: this ROOT file carries {what}{where}: executable code, or a class pnetviz "
                      f"never writes; {outcome}. Fix: draw only ROOT files pnetviz wrote (re-run the evaluation to "
                      "write a new one); inspect this one with care, without drawing it.")  # fmt: skip


@functools.cache
def _kernel():
    from pnetviz.rootenv import compiled  # noqa: PLC0415

    return compiled('#include "stored_classes.h"', "stored_classes.h").pnetviz_stored


def _text(value: object) -> str:
    """A std::string from C++ as text (cppyy gives bytes for one that is not UTF-8)."""
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


@functools.cache
def _makes_a_class(name: str) -> bool:
    """Whether ROOT could take `name`, found after a class tag in an object's bytes, for a class
    other than the allowed ones: a plain (qualified) name ROOT finds a class of (as TClass::Load
    looks it up), or any other type-like text (spaces, templates, pointers: refused unasked)."""
    if not TYPE_LIKE.fullmatch(name):
        return False
    if not PLAIN_NAME.fullmatch(name):
        return True
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    with quiet_root():
        found = ROOT.TClass.GetClass(name, True, True)
    return bool(found) and str(found.GetName()) not in ALLOWED_CLASSES


def records_problem(tfile) -> str | None:
    """What in the records of the open TFile `tfile` names a class pnetviz does not write, as a
    phrase ("objects of class 'TF1' (key canvases/roc)"), or None. Nothing of the file is read
    as an object. A TExec (older sets' palette command) only inside a canvas under canvases/."""
    kernel = _kernel()
    found = kernel.file_classes(tfile)
    key_class: dict[str, str] = {}  # each key's class (listed before the classes in its bytes)
    for raw, raw_where in zip(kernel.names(found), kernel.places(found)):
        name, where = _text(raw), _text(raw_where)
        if where.startswith("unreadable key "):
            return f"a record ROOT cannot uncompress whole ({_quoted(where.removeprefix('unreadable key '))})"
        if where.startswith("key "):
            key_class[where.removeprefix("key ")] = name
        if name == "TExec" and where != "streamer info" and not _in_a_canvas(where, key_class):
            return f"objects of class 'TExec' ({text_line(where)}: not a canvas)"
        if name in ALLOWED_CLASSES:
            continue
        if where.startswith("object of key ") and not _makes_a_class(name):
            continue
        return f"objects of class {_quoted(name)} ({text_line(where)})"
    return None


def _in_a_canvas(where: str, key_class: dict[str, str]) -> bool:
    """Whether `where` ("object of key <path>") is inside a canvas stored under canvases/."""
    path = where.removeprefix("object of key ")
    return where.startswith("object of key canvases/") and key_class.get(path) in ("TCanvas", "TPad")


def check_records(tfile, source: Path, outcome: str = "nothing was drawn") -> None:
    """CodeInFile if the records of the open TFile `tfile` name a class outside ALLOWED_CLASSES
    (records_problem): called before any object of the file is read."""
    found = records_problem(tfile)
    if found:
        raise _refusal(source, found, "", outcome)


check_streamers = check_records  # the name api.files calls it by


def executable_part(canvas) -> str | None:
    """What in `canvas` (a pad read from a file) is outside what pnetviz writes, as a phrase
    ("TExec 'x' running '...' in pad 'p1'"), or None: every object it reaches is checked (its
    class allowed; a TExec only as a palette command among a pad's primitives)."""
    for obj in _kernel().reached(canvas):
        cls, name, title, pad = _text(obj.cls), _text(obj.name), _text(obj.title), _text(obj.pad)
        where = f" in pad {_quoted(pad)}" if pad else ""
        if cls == "TExec":
            if (name, title) in ALLOWED_EXECS and obj.primitive:
                continue
            place = "" if obj.primitive else " outside a pad's primitives"
            return f"TExec {_quoted(name)} running {_quoted(title)}{place}{where}"
        if cls not in ALLOWED_CLASSES:
            return f"{cls} {_quoted(name)}{where}" if cls else f"an object of no known class{where}"
    return None


def check_canvas(canvas, source: Path, key: str, outcome: str = "nothing was drawn") -> None:
    """CodeInFile naming `source`, the canvas `key` and what is not pnetviz's, if `canvas`
    reaches anything executable or of a class pnetviz does not write."""
    found = executable_part(canvas)
    if found:
        raise _refusal(source, found, f" in canvas {_quoted(key)}", outcome)


def check_file(source: Path, outcome: str = "nothing was drawn") -> int:
    """check_records, then check_canvas on every canvas under canvases/ of the ROOT file
    `source` (read, never drawn); returns the number of canvases checked."""
    from pnetviz.io.layout import root_path  # noqa: PLC0415
    from pnetviz.rootenv import quiet_root, root  # noqa: PLC0415

    ROOT = root()
    with root_path(source) as literal, quiet_root():
        tfile = ROOT.TFile.Open(literal, "READ")
        if not tfile or tfile.IsZombie():
            raise InputError(f"{text_line(source)}: ROOT cannot open it. Fix: re-run the evaluation that wrote it.")
        try:
            check_records(tfile, source, outcome)
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
