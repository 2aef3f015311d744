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

from pnetviz.draw.canvas import Figure
from pnetviz.draw.canvascolors import READERS_PALETTE, palette_exec_number, used_colors
from pnetviz.draw.standalone import drawn_alone, pad_vector, write_alone
from pnetviz.io.layout import root_key_path, root_literal, root_path
from pnetviz.rootenv import compiled, root, set_title, start_colors

BAD_TITLES = {"", "Graph", "htemp"}
# ZSTD level 1 (ROOT's algorithm 5): 12-14% smaller than LZ4-1 on the demo's sets (a binary set
# 233 -> 201 kB, a multi-class one 837 -> 734 kB; palettes' colour tables 10 kB instead of 12 kB
# a canvas) in about the same time; ZLIB-1, ROOT's older default, is both larger and 3x slower.
# JSROOT reads it with modules/base/zstd.mjs of its own package (copied with the site's JSROOT).
COMPRESSION = 501
MAX_TITLE = 79  # TBrowser and a default canvas show a title of up to this length whole
# The colour indices every reader has built in: ROOT's basic colours and colour wheel (long
# before 6.34 too), in JSROOT's default table as well (modules/base/colors.mjs, createRootColors;
# 7.11.2's values up to 1/255 off ROOT's). Not 100-127 (kGrape ... kP10Cyan, white_dark: new in
# ROOT 6.34, pnetviz's line colours; older JSROOT tables have red at 100 and white at 110) nor
# the default palette's 924-1178: a stored canvas keeps those.
BUILT_IN_COLORS = frozenset((*range(0, 100), *range(201, 229), *range(390, 405), *range(406, 421), *range(422, 437),
                             *range(590, 605), *range(606, 621), *range(622, 637), *range(791, 911), *range(920, 924)))


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


# A pad draws with the palette when it holds a palette axis, a 2-D/3-D histogram or graph (COL,
# CONT, SURF, LEGO, TEXT colours), pnetviz's palette TExec, or an object drawn with palette colours
# (PFC, PLC, PMC): then its canvas stores the palette, otherwise not.
_DRAWS_PALETTE = r"""
#include "TPad.h"
#include "TH1.h"
#include "TClass.h"
#include "TList.h"
#include "TColor.h"
#include "TObjArray.h"
#include "TROOT.h"
#include <cstdint>
#include "TString.h"
#include <unordered_map>
namespace pnetviz_rootfile {
// What draws_palette makes of an object's class: 1 a pad, 2 one drawn with the palette, 0 else
// (InheritsFrom once a class: ~1 us an object otherwise, ~60 primitives a canvas).
inline int palette_kind(TObject* obj) {
   static std::unordered_map<TClass*, int> kinds;
   TClass* cls = obj->IsA();
   auto found = kinds.find(cls);
   if (found == kinds.end()) {
      const bool palette = obj->InheritsFrom("TPaletteAxis") || obj->InheritsFrom("TH2") || obj->InheritsFrom("TH3")
                           || obj->InheritsFrom("TGraph2D") || obj->InheritsFrom("TExec");
      found = kinds.emplace(cls, obj->InheritsFrom(TPad::Class()) ? 1 : palette ? 2 : 0).first;
   }
   return found->second;
}

inline bool draws_palette(TPad* pad) {
   for (TObjLink* link = pad->GetListOfPrimitives()->FirstLink(); link; link = link->Next()) {
      TObject* obj = link->GetObject();
      if (!obj) continue;
      const int kind = palette_kind(obj);
      if (kind == 1) {
         if (draws_palette(static_cast<TPad*>(obj))) return true;
         continue;
      }
      if (kind == 2) return true;
      TString option = link->GetOption();
      option.ToUpper();
      if (option.Contains("PFC") || option.Contains("PLC") || option.Contains("PMC")) return true;
   }
   return false;
}

// The first histogram drawn on `pad` other than `obj` (its frame; nullptr if none).
inline TObject* frame_of(TPad* pad, TObject* obj) {
   for (TObjLink* link = pad->GetListOfPrimitives()->FirstLink(); link; link = link->Next()) {
      TObject* p = link->GetObject();
      if (p && p != obj && p->InheritsFrom(TH1::Class())) return p;
   }
   return nullptr;
}

// No statistics box and no title box on any histogram of `pad` and its sub-pads.
inline void no_stats(TPad* pad) {
   for (TObjLink* link = pad->GetListOfPrimitives()->FirstLink(); link; link = link->Next()) {
      TObject* p = link->GetObject();
      if (!p) continue;
      if (p->InheritsFrom(TH1::Class())) {
         dynamic_cast<TH1*>(p)->SetStats(false);
         p->SetBit(TH1::kNoTitle);
      } else if (p->InheritsFrom(TPad::Class())) {
         no_stats(static_cast<TPad*>(p));
      }
   }
}

// gROOT's colours in list order (empty slots skipped, as TIter does): slot, number and RGBA
// (4 a colour, as TColor's getters give them) of each; returns how many (at most cap).
inline std::size_t color_table(std::int64_t* slot, std::int64_t* number, float* rgba, std::size_t cap) {
   auto* list = static_cast<TObjArray*>(gROOT->GetListOfColors());
   std::size_t n = 0;
   for (Int_t i = 0; i < list->Capacity() && n < cap; ++i) {
      auto* c = static_cast<TColor*>(list->UncheckedAt(i));
      if (!c) continue;
      slot[n] = i;
      number[n] = c->GetNumber();
      rgba[4 * n] = c->GetRed(), rgba[4 * n + 1] = c->GetGreen(), rgba[4 * n + 2] = c->GetBlue(), rgba[4 * n + 3] = c->GetAlpha();
      ++n;
   }
   return n;
}

// The current palette's colour numbers (TColor::GetColorPalette(i), i < n).
inline void palette_numbers(std::int64_t* out, std::size_t n) {
   for (std::size_t i = 0; i < n; ++i) out[i] = TColor::GetColorPalette(Int_t(i));
}

// `array` given the colours at `slots` of gROOT's list, in that order (not owning them).
inline void add_colors(TObjArray* array, const std::int64_t* slots, std::size_t n) {
   auto* list = static_cast<TObjArray*>(gROOT->GetListOfColors());
   for (std::size_t k = 0; k < n; ++k) array->Add(list->UncheckedAt(Int_t(slots[k])));
}
}
"""


@functools.cache
def _kernels():
    return compiled(_DRAWS_PALETTE, "pnetviz_rootfile").pnetviz_rootfile


def _draws_palette():
    return _kernels().draws_palette


@dataclass
class StoredColors:
    """What the canvases store of the colours (TObjArrays named as TCanvas::Streamer names them,
    not owning their TColors), made for each canvas by `attach`: gROOT's colours as {number: slot
    in its list} (`slots`), the numbers a canvas stores when it uses them (`kept`: not built in),
    and the current palette, in order (`palette`); palettes of other numbers once looked up."""

    slots: dict[int, int]
    kept: frozenset[int]
    palette: list[int]
    palettes: dict[int, list[int]] = field(default_factory=dict)

    def attach(self, canvas) -> tuple[object, ...]:
        """Add to `canvas`'s primitives what it stores (as TCanvas::Streamer adds them: the colours,
        then the palette); returns what was added. The colours: those `canvas` uses
        (canvascolors.used_colors) that are `kept`; the palette (and its colours) only in a canvas
        that draws one and whose palette TExec sets another than READERS_PALETTE: the palette
        that TExec sets (the current one for a canvas without one), as JSROOT takes it."""
        colors = [i for i in used_colors(canvas) if i in self.kept]
        palette = self._palette_of(canvas) if _draws_palette()(canvas) else []
        if not palette:  # no colour to store: no list
            added = (_color_array("ListOfColors", sorted(self.slots[i] for i in colors)),) if colors else ()
        else:
            in_palette = set(palette)
            slots = sorted(self.slots[i] for i in colors if i not in in_palette) + [self.slots[i] for i in sorted(in_palette)]
            added = (_color_array("ListOfColors", slots), _color_array("CurrentColorPalette", [self.slots[i] for i in palette]))
        primitives = canvas.GetListOfPrimitives()
        for array in added:
            primitives.Add(array)
        return added

    def _palette_of(self, canvas) -> list[int]:
        """The palette numbers `canvas` stores ([] for READERS_PALETTE's TExec)."""
        number = palette_exec_number(canvas)
        if number == READERS_PALETTE:
            return []
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


def _color_array(name: str, slots: list[int]) -> object:
    """A TObjArray `name` holding the colours at `slots` of gROOT's list (not owning them)."""
    array = root().TObjArray()
    array.SetName(name)
    if slots:  # (an empty numpy array is no buffer to PyROOT)
        _kernels().add_colors(array, np.asarray(slots, dtype=np.int64), len(slots))
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
    them, rootenv.start_colors); and a palette only in a canvas that draws one (_DRAWS_PALETTE: a
    COLZ matrix or map) with another palette than kBird (READERS_PALETTE: ROOT's TExec sets it,
    JSROOT has it by default). A reader (ROOT, JSROOT) sets or creates each stored colour, has the
    others built in, and makes a stored palette its current one, so a canvas read alone draws as
    written. ROOT's streamer would store the whole list (~630 colours once cmsstyle has called
    TColor.DefinedColors(1)) and the palette (255 colours) in every canvas: 10.7 kB per canvas
    compressed (measured on the demo: 2/3 of all plots.root bytes); left out, a ROC canvas stores
    a few colours, a kBird matrix 7-9 kB less. Nothing may draw inside the block, and the gROOT
    list is not changed (unless a canvas's palette TExec names a palette never made before)."""
    ROOT = root()
    start = start_colors()
    by_index, values, palette = _color_table()  # number -> slot in gROOT's list, number -> RGBA
    kept = frozenset(i for i in by_index if i not in BUILT_IN_COLORS or values[i] != start.get(i))
    stored = StoredColors(by_index, kept, palette)
    always = ROOT.TColor.DefinedColors() and ROOT.TColor.DefinedColors()  # True twice: always on (cmsstyle)
    ROOT.TColor.DefinedColors(-1)
    try:
        yield stored
    finally:
        ROOT.TColor.DefinedColors(1 if always else -1)


def write_canvas(target, canvas, name: str, colors: StoredColors) -> None:
    """Write `canvas` as `name` into the directory `target` with the colours `colors` gives it
    (TCanvas::Streamer storing none: stored_colors)."""
    root().TColor.DefinedColors()  # a colour defined since: TCanvas::Streamer would store them all
    added = colors.attach(canvas)
    primitives = canvas.GetListOfPrimitives()
    try:
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
    return short(f"{title}{plot}")


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
