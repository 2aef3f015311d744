"""CMS style as data, and the one place that touches cmsstyle's global state.

`cms_style(options)` sets energy, run and extra text for the duration of a `with` block and
restores cmsstyle's previous settings afterwards; every drawing helper runs inside it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pnetviz.draw import native
from pnetviz.io.native import _private_dir, cache_dir
from pnetviz.rootenv import quiet_root, root

STYLE = {
    "colors": {
        "signal": "#5790fc",
        "background": "#e42536",
        "cycle": ("#5790fc", "#e42536", "#f89c20", "#964a8b", "#9c9ca1", "#7a21dd", "#3f90da", "#b9ac70"),
        "diagonal": "#9c9ca1",
        # one meaning per colour across every plot: blue signal, red background; the other roles
        # never reuse them (train and test differ by line style, not colour)
        "train": "#717581",  # train bands, bars and fold curves (solid); test in blue (dashed)
        "test": "#5790fc",
        "binary": "#f89c20",
        "multiclass": "#964a8b",
        "all_events": "#1f1f1f",
        "with_flag": "#7a21dd",
        "without_flag": "#b9ac70",
        "training": "#3f90da",
        "validation": "#f89c20",
        "reference": "#9c9ca1",
    },
    "line_width": 2,
    "marker_size": 0.9,
    "legend_text_size": 0.032,
    "label_text_size": 0.032,
    "train_line": 1,  # solid
    "test_line": 2,  # dashed
}


@dataclass(frozen=True)
class Encoding:
    """How one meaning is drawn: a STYLE colour key (None: the colour of what is drawn, e.g. the
    class, so that train and test of one class share it), a ROOT line style and a ROOT marker
    (0: drawn as a line, no marker)."""

    color: str | None
    line: int
    marker: int


# One mapping from meaning to style, for every plot. Each group is one choice a figure shows
# (train or test; binary or multi-class; all events, with or without a flag; nominal, profiled or
# the nuisance envelope); no two meanings share a (colour, line style, marker).
ENCODINGS: dict[str, Encoding] = {
    "train": Encoding(None, 1, 0),  # solid line in the class's colour
    "test": Encoding(None, 2, 20),  # dashed line, or points with errors, in the class's colour
    "binary": Encoding("binary", 1, 20),  # orange solid
    "multiclass": Encoding("multiclass", 7, 21),  # purple long dashes: never told apart by colour alone
    "all": Encoding("all_events", 1, 0),  # black solid
    "with": Encoding("with_flag", 5, 0),  # violet dash-dots (long dashes, 80 on 20 off, looked solid in a legend sample)
    "without": Encoding("without_flag", 3, 0),  # khaki dots
    "nominal": Encoding("signal", 1, 20),  # blue solid
    "profiled": Encoding("background", 7, 0),  # red long dashes
    "envelope": Encoding("background", 0, 0),  # a red band, no line
}
ENCODING_GROUPS = {"split": ("train", "test"), "model": ("binary", "multiclass"), "subset": ("all", "with", "without"),
                   "variation": ("nominal", "profiled", "envelope")}  # fmt: skip

# Bands that overlap stay distinguishable: the reference's band transparent with its outline,
# each compared one as its outline alone (draw.primitives.add_band's `outline` and `filled`)
BAND_STYLES = {"reference": {"outline": True}, "compared": {"filled": False}}
BAND_ALPHA = 0.25


def encoding(meaning: str) -> Encoding:
    """The style of `meaning` (an ENCODINGS key)."""
    return ENCODINGS[meaning]


def line_style(meaning: str) -> int:
    return ENCODINGS[meaning].line


def meaning_color(meaning: str, default: str = "signal") -> int:
    """The ROOT colour of `meaning`; `default` (a STYLE colour key) when it takes the drawn class's."""
    key = ENCODINGS[meaning].color
    return color(key if key is not None else default)


# --cms-label: "cms" is the bold CMS and --extra-text (the specification's default); "private" is
# what the CMS guidelines ask of unapproved plots shown in public: this text and no bold "CMS"
CMS_LABELS = ("cms", "private")
PRIVATE_TEXT = "Private work (CMS simulation)"
ENERGIES = (13.0, 13.6, 14.0)  # --energy in TeV: what cmsstyle labels, and 14 (HL-LHC), which pnetviz writes
CMSSTYLE_ENERGIES = (13.0, 13.6)  # the ones cmsstyle.SetEnergy knows


@dataclass(frozen=True)
class StyleOptions:
    """What the user can set from the command line (--energy, --run, --extra-text, --cms-label,
    --lumi: the integrated luminosity in fb^-1 the expected yields are normalised to)."""

    energy: float = 13.0
    run: str = "Run 2"
    extra_text: str = "Simulation Preliminary"
    cms_label: str = "cms"
    lumi: float | None = None
    score_bins: int | str = "auto"  # --score-bins: the score distributions' bins on [0, 1] (merged from the 50 filled; auto: plots.auto_score_bins)


def cmsstyle():
    """The cmsstyle module, imported after ROOT has been configured (it imports ROOT)."""
    root()
    import cmsstyle as cms  # noqa: PLC0415

    return cms


_GLOBALS = ("cms_energy", "cms_lumi", "extraText", "cmsText", "useCmsLogo", "lumiTextSize")
STANDARD_LUMI_TEXT = len("Run 2 (13 TeV)")  # the label line fits this beside "CMS Simulation Preliminary"


def energy_text(energy: float) -> str | None:
    """The label's energy text when cmsstyle cannot write it ('14 TeV'), None when it can."""
    if any(abs(energy - known) < 1e-3 for known in CMSSTYLE_ENERGIES):
        return None
    return f"{energy:g} TeV"


def lumi_text(lumi: float) -> str:
    """The label's luminosity text for `lumi` fb^-1: '138 fb^{-1}' (3 significant digits, as CMS writes it)."""
    return f"{lumi:.3g} fb^{{-1}}"


def _set_label(module, options: StyleOptions) -> None:
    """cmsstyle's energy, run and CMS/extra text from `options` (its module globals)."""
    text = energy_text(options.energy)
    if text is None:
        module.SetEnergy(options.energy)
    else:
        module.cms_energy = text
    module.SetLumi(None, run=options.run)
    if options.lumi is not None:  # the CMS convention for a luminosity: "138 fb^{-1} (13 TeV)", in place of the run
        module.cms_lumi = lumi_text(options.lumi)
    lumi = len(f"{module.cms_lumi} ({module.cms_energy})")  # as CMS_lumi writes it
    if lumi > STANDARD_LUMI_TEXT:  # a longer run or energy text ("HL-LHC (14 TeV)"): smaller, not into the extra text
        module.lumiTextSize *= max(0.98, STANDARD_LUMI_TEXT / lumi)  # 0.98: matrix labels stay at 7 pt
    module.cmsText = "" if options.cms_label == "private" else "CMS"  # SetExtraText clears it for 'Private' only
    module.SetExtraText(PRIVATE_TEXT if options.cms_label == "private" else options.extra_text)


@contextlib.contextmanager
def cms_style(options: StyleOptions) -> Iterator[None]:
    """Apply `options` to cmsstyle (and the CMS ROOT style) inside the block; restore after."""
    cmsstyle()
    import cmsstyle.cmsstyle as module  # noqa: PLC0415 - the module whose globals CMS_lumi reads

    cms, ROOT = module, root()
    saved = {name: getattr(module, name) for name in _GLOBALS}
    previous_style = ROOT.gStyle.GetName()  # by name: a TStyle proxy may outlive its object
    forced = bool(ROOT.gROOT.GetForceStyle())  # setCMSStyle forces the style on every object read after it
    try:
        if cms.getCMSStyle() is None:
            _set_cms_style(module)  # the TStyle once per process
        cms.getCMSStyle().cd()
        ROOT.gROOT.ForceStyle(True)  # inside every block as setCMSStyle left it in the first
        _set_label(module, options)
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
        style = ROOT.gROOT.GetStyle(previous_style)
        if style:
            style.cd()
        ROOT.gROOT.ForceStyle(forced)  # a canvas read later (a stored figure) keeps its own style: log y, colours, no stats box


def _style_file(module) -> Path | None:
    """Where cmsstyle's TStyle is kept (the kernels' cache), by cmsstyle's source and ROOT's version."""
    directory = cache_dir()
    if not _private_dir(directory):
        return None
    ROOT = root()
    digest = hashlib.sha256(Path(module.__file__).read_bytes())
    digest.update(str(ROOT.gROOT.GetVersion()).encode() + str(ROOT.gROOT.GetGitCommit()).encode())
    return directory / f"cmsstyle-{digest.hexdigest()[:20]}.root"


def _set_cms_style(module) -> None:
    """cmsstyle's setCMSStyle, its TStyle read from data: ~80 setters called through PyROOT cost
    ~0.45 s a process (each call's first resolution), one read of the stored object ~0.1 s. The
    first process calls the setter and stores its TStyle (a temporary file renamed into place);
    later ones read it and do what the setter does besides (the style made current, forced,
    cmsstyle's global set, TColor.DefinedColors as it calls it: in one compiled call, macros/stored_style.h,
    with the drawing kernels of draw.native). Any failure: the setter."""
    ROOT = root()
    path = _style_file(module)
    colors = module.env_type() != "jupyter" and float(".".join(re.split("\\.|/", ROOT.__version__)[0:2])) >= 6.32
    compiled = native.kernels()
    if compiled is not None and path is not None and path.is_file():  # the calls below in C++ (stored_style.h)
        with quiet_root(), contextlib.suppress(Exception):
            address = compiled.load_style(str(path), colors)
            if address:
                module.cmsStyle = ROOT.bind_object(address, "TStyle")
                return
    style = None
    if path is not None and path.is_file():
        with quiet_root(), contextlib.suppress(Exception):
            stored = ROOT.TFile.Open(str(path), "READ")
            if stored and not stored.IsZombie():
                style = stored.Get("cmsStyle")
                style = style if style and style.InheritsFrom("TStyle") and style.GetName() == "cmsStyle" else None
                stored.Close()
    if style is None:
        module.setCMSStyle()
        if path is not None:
            _store_style(module.cmsStyle, path)
        return
    ROOT.SetOwnership(style, False)  # ROOT's list of styles holds it, as the setter's TStyle
    old = ROOT.gROOT.GetStyle("cmsStyle")
    if old:
        ROOT.gROOT.GetListOfStyles().Remove(old)
    ROOT.gROOT.GetListOfStyles().Add(style)
    ROOT.gROOT.SetStyle("cmsStyle")
    ROOT.gROOT.ForceStyle(True)
    if colors:
        ROOT.TColor.DefinedColors(1)
    style.cd()
    module.cmsStyle = style


def _store_style(style, path: Path) -> None:
    """`style` into `path` (a temporary file renamed into place: another process may read it)."""
    ROOT = root()
    fd, scratch = tempfile.mkstemp(prefix=".cmsstyle-", suffix=".root", dir=path.parent)
    os.close(fd)
    try:
        with quiet_root():
            out = ROOT.TFile.Open(scratch, "RECREATE")
            if out and not out.IsZombie():
                out.WriteObject(style, "cmsStyle")
                out.Close()
                os.replace(scratch, path)
    except Exception:  # noqa: BLE001 - a style not stored is set by the setter next time
        pass
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(scratch)


@contextlib.contextmanager
def unpainted() -> Iterator[None]:
    """cmsstyle's helpers without their pad paints. cmsCanvas, CMS_lumi and GetPalette end with
    cmsstyle.UpdatePad (RedrawAxis, Modified, Update), and each Update paints the whole pad: ~1 ms,
    4 ms with a palette TExec, most of the drawing time of a warm evaluation. Inside the block
    UpdatePad keeps the RedrawAxis (it adds an axis copy to the pad) and Modified but not the paint,
    which changes nothing that a later paint (the export, a redraw of the stored canvas) does not
    compute again; what a figure needs before that (its frame, a palette) the callers set up."""
    import cmsstyle.cmsstyle as module  # noqa: PLC0415 - where cmsstyle's functions look UpdatePad up

    cmsstyle()
    painting = module.UpdatePad

    def update_pad(pad=None) -> None:
        pad = pad if pad is not None else root().gPad
        pad.RedrawAxis()
        pad.Modified()

    module.UpdatePad = update_pad
    try:
        yield
    finally:
        module.UpdatePad = painting


def color(hex_or_name: str) -> int:
    """ROOT colour index for '#rrggbb' or a STYLE['colors'] key."""
    value = STYLE["colors"].get(hex_or_name, hex_or_name)
    return root().TColor.GetColor(value)


def cycle_color(index: int) -> int:
    palette = STYLE["colors"]["cycle"]
    return color(palette[index % len(palette)])
