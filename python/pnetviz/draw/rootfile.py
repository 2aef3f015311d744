"""One ROOT file per output set: every histogram, graph, TH2 and canvas, in directories, made to
read well in TBrowser in a plain ROOT session (no cmsstyle).

Every object written gets: its key name as its name (no hash suffix), a title saying what it is
(its legend label or key, the plot, and the output set's context: model, channel, fold), axis
titles (those of the frame it was drawn on when it has none), no statistics box (kNoStats, also on
every histogram inside the stored canvases), and Sumw2 on histograms.

Key and directory names are those of the figures (class, background and model names in them)
made readable by path (io.layout.root_key): a `;`, `:`, `%`, line break or other non-printable
character is written as `%XX` (`t;tX_test` -> `t%3BtX_test`), so that TFile::Get("dir/name"),
uproot and JSROOT find every object; the title keeps the name as it is.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pnetviz.draw import native
from pnetviz.draw.canvas import Figure
from pnetviz.draw.canvascolors import palette_exec_number, used_colors, without_palette_execs
from pnetviz.draw.standalone import drawn_alone, pad_vector, write_alone
from pnetviz.io.layout import root_key_path, root_literal, root_path
from pnetviz.rootenv import compiled, root, set_title, start_colors

BAD_TITLES = {"", "Graph", "htemp"}
# ZSTD level 1 (ROOT's algorithm 5): 12-14% smaller than LZ4-1 on the demo's sets (a binary set
# 233 -> 201 kB, a multi-class one 837 -> 734 kB; palettes' colour tables 10 kB instead of 12 kB
# a canvas) in about the same time; ZLIB-1, ROOT's older default, is both larger and 3x slower.
# JSROOT reads it with modules/base/zstd.mjs of its own package (copied with the site's JSROOT).
COMPRESSION = 501
MAX_TITLE = 79  # TBrowser and a default canvas show a title of up to this length whole (pads' titles are cut to it)
# The colour indices every reader has built in: ROOT's basic colours and colour wheel (long
# before 6.34 too), in JSROOT's default table as well (modules/base/colors.mjs, createRootColors;
# 7.11.2's values up to 1/255 off ROOT's). Not 100-127 (kGrape ... kP10Cyan, white_dark: new in
# ROOT 6.34, pnetviz's line colours; older JSROOT tables have red at 100 and white at 110) nor
# the default palette's 924-1178: a stored canvas keeps those.
BUILT_IN_COLORS = frozenset((*range(0, 100), *range(201, 229), *range(390, 405), *range(406, 421), *range(422, 437),
                             *range(590, 605), *range(606, 621), *range(622, 637), *range(791, 911), *range(920, 924)))


START_PALETTE = range(924, 1179)  # kBird's colours, made when ROOT starts (JSROOT takes a palette's from the palette)


def short(title: str) -> str:
    """`title` cut to MAX_TITLE characters (the long description is the file's README object)."""
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 3].rstrip() + "..."


def write_root_file(path: Path, figures: Iterable[Figure], extra: dict[str, object] | None = None,
                    context: str = "") -> None:  # fmt: skip
    """Objects go to the directory named by their key ("roc/test" -> roc/, key test);
    canvases to canvases/<figure name>. Keys repeated across figures are written once. Every
    directory and key name is as io.layout.root_key makes it (readable by path). ROOT gets
    `path` by a name it takes literally (`#`, `$`, `?` in it are only characters)."""
    path = Path(path)
    objects = file_keys(list(figures), extra)
    if root_literal(str(path)):
        _write(str(path), path, objects, context)
        return
    plain = f"pnetviz-{secrets.token_hex(4)}.root"
    with root_path(path.parent, directory=True) as where:
        _write(f"{where}/{plain}", path, objects, context)
    os.rename(path.parent / plain, path)


def file_keys(figures: list[Figure], extra: dict[str, object] | None) -> list[tuple[str, str, object, Figure | None]]:
    """(key path in the file, key as the figure names it, object, figure) of every object to
    write, each key once (the first figure's object). The key paths are io.layout.root_key_path
    of the keys: one-to-one, so two different keys never land on one key path."""
    objects = [(key, obj, fig) for fig in figures for key, obj in fig.objects.items()]
    objects += [(key, obj, None) for key, obj in (extra or {}).items()]
    objects += [(f"canvases/{fig.name}", fig.canvas, fig) for fig in figures]
    first = {}
    for key, obj, fig in objects:
        first.setdefault(key, (obj, fig))
    return [(root_key_path(key), key, obj, fig) for key, (obj, fig) in first.items()]


def _write(literal: str, path: Path, objects: list[tuple[str, str, object, Figure | None]], context: str) -> None:
    ROOT = root()
    try:
        tfile = ROOT.TFile.Open(literal, "RECREATE", "", COMPRESSION)
    except OSError:  # PyROOT raises where C++ returns nullptr
        tfile = None
    if not tfile or tfile.IsZombie():
        raise OSError(errno.EIO, "ROOT cannot create the file", str(path))
    try:
        if context:
            readme = ROOT.TNamed("README", f"pnetviz output set: {context}. Directories hold the objects of each plot "
                                           "(titles: what each is); canvases/ the plots as drawn.")  # fmt: skip
            tfile.WriteTObject(readme, "README")
        pads, no_pads = {}, pad_vector([])
        with stored_colors() as colors:
            for stored, key, obj, fig in objects:
                directory, _, name = stored.rpartition("/")
                if fig is not None and id(fig) not in pads:
                    pads[id(fig)] = pad_vector(fig.pads)
                if write_alone(tfile, directory, obj, name, object_title(obj, name, key, fig),
                               pads[id(fig)] if fig is not None else no_pads):  # fmt: skip
                    continue  # a histogram or graph: described and written in one C++ call
                describe(obj, name, key, fig, context)
                target = tfile.GetDirectory(directory) if directory else tfile
                if not target:
                    target = tfile.mkdir(directory, "", True)
                if obj.InheritsFrom("TCanvas"):
                    write_canvas(target, obj, name, colors)
                    continue
                with contextlib.nullcontext() if obj.InheritsFrom("TPad") else drawn_alone(obj):  # ROOT's default sizes alone
                    target.WriteTObject(obj, name)  # what PyROOT's WriteObject calls for a TObject
    finally:
        tfile.Close()


@functools.cache
def _kernels():
    """The compiled library's kernels (draw.native), else rootfile_kernels.h declared to cling."""
    built = native.kernels()
    return built if built is not None else compiled('#include "rootfile_kernels.h"', "rootfile_kernels.h").pnetviz_rootfile


def _draws_palette():
    return _kernels().draws_palette


@dataclass
class StoredColors:
    """What the canvases store of the colours (TObjArrays named as TCanvas::Streamer names them,
    not owning their TColors), made for each canvas by `attach`: gROOT's colours as {number: slot
    in its list} (`slots`), the numbers a canvas stores when it uses them (`kept`: not built in),
    and the current palette, in order (`palette`); palettes of other numbers once looked up; the
    colours of the palette a ROOT reader starts with, as they are here (`fresh`: a kBird canvas
    stores its palette's numbers, not its colours)."""

    slots: dict[int, int]
    kept: frozenset[int]
    palette: list[int]
    palettes: dict[int, list[int]] = field(default_factory=dict)
    fresh: frozenset[int] = frozenset()

    def attach(self, canvas) -> tuple[object, ...]:
        """Add to `canvas`'s primitives what it stores (as TCanvas::Streamer adds them: the colours,
        then the palette); returns what was added. The colours: those `canvas` uses
        (canvascolors.used_colors) that are `kept`; the palette (and its colours) only in a canvas
        that draws one: the palette its palette TExec sets in this process (the current one for a
        canvas without one), which ROOT makes current when it reads the canvas and JSROOT fills
        its cells from (the TExec itself is not written: write_canvas)."""
        colors = [i for i in used_colors(canvas) if i in self.kept]
        palette = self._palette_of(palette_exec_number(canvas)) if _draws_palette()(canvas) else []
        if not palette:  # no colour to store: no list
            added = (_color_array("ListOfColors", sorted(self.slots[i] for i in colors)),) if colors else ()
        else:
            in_palette = set(palette)
            slots = sorted(self.slots[i] for i in colors if i not in in_palette)
            slots += [self.slots[i] for i in sorted(in_palette) if i not in self.fresh]  # a reader's own: no need
            added = (_color_array("ListOfColors", slots), _color_array("CurrentColorPalette", [self.slots[i] for i in palette], copies=True))
        primitives = canvas.GetListOfPrimitives()
        for array in added:
            primitives.Add(array)
        return added

    def _palette_of(self, number: int) -> list[int]:
        """The colour numbers of palette `number` (a canvas's palette TExec's: canvascolors.palette_exec_number)."""
        if number <= 0:  # no palette TExec, or several different ones: the current palette
            return self.palette
        if number not in self.palettes:
            self.palettes[number] = self._look_up(number)
        return self.palettes[number]

    def _look_up(self, number: int) -> list[int]:
        """Palette `number`'s colour numbers: set, read, and the current palette set back (ROOT
        reuses a palette made before: a canvas that drew with it made it; one never made is made
        here, its colours added to gROOT and to `slots`)."""
        ROOT, kernels = root(), _kernels()
        current = np.asarray(self.palette, dtype=np.int32)
        ROOT.gStyle.SetPalette(number)
        numbers = np.empty(ROOT.TColor.GetNumberOfColors(), np.int64)
        kernels.palette_numbers(numbers, numbers.size)
        if numbers.tolist() != self.palette:
            ROOT.TColor.SetPalette(int(current.size), current)
        if not set(numbers.tolist()) <= self.slots.keys():
            self.slots = _color_table()[0]
            self.kept = self.kept | set(numbers.tolist())
        return numbers.tolist()


def _color_array(name: str, slots: list[int], copies: bool = False) -> object:
    """A TObjArray `name` holding the colours at `slots` of gROOT's list (not owning them), or
    copies of them (`copies`, owned: a palette's, see add_colors)."""
    array = root().TObjArray()
    array.SetName(name)
    if slots:  # (an empty numpy array is no buffer to PyROOT)
        _kernels().add_colors(array, np.asarray(slots, dtype=np.int64), len(slots), copies)
    return array


def _color_table() -> tuple[dict[int, int], dict[int, tuple], list[int]]:
    """gROOT's colours as {number: slot in the list}, {number: RGBA (rootenv.color_values)}, in list
    order, a repeated number at its first place with its last colour (as a dict built over the
    list), and the current palette's numbers: read in C++ (~1000 PyROOT calls less a file)."""
    ROOT, kernels = root(), _kernels()
    cap = ROOT.gROOT.GetListOfColors().Capacity()
    slots, numbers, rgba = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty((cap, 4), np.float32)
    n = kernels.color_table(slots, numbers, rgba, cap)
    palette = np.empty(ROOT.TColor.GetNumberOfColors(), np.int64)
    kernels.palette_numbers(palette, palette.size)
    numbers_list = numbers[:n].tolist()
    return dict(zip(numbers_list, slots[:n].tolist())), dict(zip(numbers_list, map(tuple, rgba[:n].tolist()))), palette.tolist()


@contextlib.contextmanager
def stored_colors() -> Iterator[StoredColors]:
    """The colours stored canvases carry, written by pnetviz itself instead of TCanvas::Streamer
    (TColor::DefinedColors off inside the block, back as it was after): of the colours a canvas
    uses (canvascolors.used_colors), those not built in (BUILT_IN_COLORS still as ROOT started with
    them, rootenv.start_colors); and the palette only in a canvas that draws one (_DRAWS_PALETTE:
    a COLZ matrix or map), as data: no TExec is written (draw.stored). A reader (ROOT, JSROOT)
    sets or creates each stored colour, has the others built in, and makes a stored palette its
    current one when it reads the canvas, so a canvas read alone draws as written (pnetviz render
    and the notebook API set each canvas's palette again before they paint it). ROOT's streamer
    would store the whole list (~630 colours once cmsstyle has called TColor.DefinedColors(1))
    and the palette (255 colours) in every canvas: 10.7 kB per canvas compressed (measured on the
    demo: 2/3 of all plots.root bytes); left out, a ROC canvas stores a few colours. Nothing may
    draw inside the block, and the gROOT list is not changed (unless a canvas's palette TExec
    names a palette never made before)."""
    ROOT = root()
    start = start_colors()
    by_index, values, palette = _color_table()  # number -> slot in gROOT's list, number -> RGBA
    kept = frozenset(i for i in by_index if i not in BUILT_IN_COLORS or values[i] != start.get(i))
    fresh = frozenset(i for i in START_PALETTE if i in values and values[i] == start.get(i))
    stored = StoredColors(by_index, kept, palette, fresh=fresh)
    always = ROOT.TColor.DefinedColors() and ROOT.TColor.DefinedColors()  # True twice: always on (cmsstyle)
    ROOT.TColor.DefinedColors(-1)
    try:
        yield stored
    finally:
        ROOT.TColor.DefinedColors(1 if always else -1)


def write_canvas(target, canvas, name: str, colors: StoredColors) -> None:
    """Write `canvas` as `name` into the directory `target` with the colours `colors` gives it
    (TCanvas::Streamer storing none: stored_colors) and its palette as data: its palette TExecs
    (which set the palette when this process paints it) left out of the file."""
    root().TColor.DefinedColors()  # a colour defined since: TCanvas::Streamer would store them all
    added = colors.attach(canvas)
    primitives = canvas.GetListOfPrimitives()
    try:
        with without_palette_execs(canvas):
            target.WriteTObject(canvas, name)
    finally:
        for array in added:
            primitives.Remove(array)


def describe(obj, name: str, key: str, fig: Figure | None, context: str) -> None:
    """Name (`name`: the key name it is written under), title (from `key`, the key as the figure
    names it), axis titles, no stats box, Sumw2: what a person needs in TBrowser."""
    obj.SetName(name)
    if obj.InheritsFrom("TPad"):
        obj.SetTitle(short(f"{fig.name.replace('_', ' ')}" + (f" | {context}" if context else "")))
        _no_stats(obj)
        return
    set_title(obj, object_title(obj, name, key, fig))  # literally: a name holding ';' stays whole
    if fig is not None:
        _axis_titles(obj, fig)
    if obj.InheritsFrom("TH1"):
        obj.SetStats(False)
        if obj.GetSumw2N() == 0:
            obj.Sumw2()


def object_title(obj, name: str, key: str, fig: Figure | None) -> str:
    """The title describe gives a stored object (not a pad): its own, unless it says nothing
    (BAD_TITLES, its name or key), then its legend label or key; and the plot's name."""
    title = obj.GetTitle()
    if title in BAD_TITLES or title in (name, key.rpartition("/")[2]) or title.startswith(key.replace("/", "_")):
        title = (fig.labels.get(key) if fig else None) or key.replace("/", " ")
    plot = f", {fig.name.replace('_', ' ')}" if fig else ""
    return f"{title}{plot}"  # whole: a histogram's title is what a datacard or a reader quotes (a pad's is short)


def _axis_titles(obj, fig: Figure) -> None:
    """Give an object without axis titles those of the frame of the pad it was drawn on; the x
    title from the panel below when the pad shares its x axis (a ratio panel shows it alone)."""
    x, y = obj.GetXaxis(), obj.GetYaxis()
    if not (x and y) or (x.GetTitle() and y.GetTitle()):
        return
    frame_of = _kernels().frame_of  # one C++ call a pad (a PyROOT loop over the primitives cost ~70 us an object)
    frames = {pad: frame_of(pad, obj) or None for pad in fig.pads}
    home = next((pad for pad in fig.pads if pad.GetListOfPrimitives().FindObject(obj)), None)
    if home is None or frames[home] is None:
        return
    if not y.GetTitle():
        y.SetTitle(frames[home].GetYaxis().GetTitle())
    if not x.GetTitle():
        titles = [frames[home].GetXaxis().GetTitle()] + [f.GetXaxis().GetTitle() for f in frames.values() if f]
        x.SetTitle(next((t for t in titles if t), ""))


def _no_stats(pad) -> None:
    """No statistics box and no title box on any histogram of a stored canvas: it redraws as
    saved in a plain session (gStyle's OptTitle and OptStat on); sub-pads too (C++: one call)."""
    _kernels().no_stats(pad)
