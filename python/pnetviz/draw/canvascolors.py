"""What a stored canvas needs of the colours (draw.rootfile.stored_colors): the colour indices its
objects draw with, and the palette its palette TExec sets.

A canvas stores only the colours it uses (not every colour the writing process has defined: after
the campaign's difference maps, palette 87's 255 colours would go into every later canvas), found
by one C++ walk over its primitives: line, fill, marker and text colours of every object, axis,
label and title colours of every axis, the pads' frame and highlight colours, and inside legends
(entries), pave texts (lines), histograms (axes, functions: palette axis, statistics box), graphs,
multigraphs and stacks (their frame histograms and members).
"""

from __future__ import annotations

import functools

import numpy as np

from pnetviz.rootenv import compiled

# kBird: the palette a stored canvas needs not carry. ROOT runs the canvas's palette TExec
# (`gStyle->SetPalette(57);`) before its cells are painted; JSROOT ignores the TExec and fills
# the cells from its default palette, 57 too (settings.Palette in modules/core.mjs), unless the
# canvas stores a CurrentColorPalette (modules/gpad/TPadPainter.mjs, checkSpecial).
READERS_PALETTE = 57

_CANVAS_COLORS = r"""
#include "TPad.h"
#include "TList.h"
#include "TClass.h"
#include "TH1.h"
#include "TAxis.h"
#include "TAttLine.h"
#include "TAttFill.h"
#include "TAttMarker.h"
#include "TAttText.h"
#include "TAttAxis.h"
#include "TGraph.h"
#include "TMultiGraph.h"
#include "THStack.h"
#include "TLegend.h"
#include "TPaveText.h"
#include "TPaletteAxis.h"
#include "TGaxis.h"
#include "TExec.h"
#include "TString.h"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
namespace pnetviz_canvascolors {
inline void walk(TObject* obj, std::vector<Int_t>& out, int depth);

inline void walk_list(TList* list, std::vector<Int_t>& out, int depth) {
   if (!list) return;
   for (TObjLink* link = list->FirstLink(); link; link = link->Next()) walk(link->GetObject(), out, depth + 1);
}

// The object a pointer member `name` of `obj`'s class holds (a graph's fHistogram: its getter
// would make one), nullptr if the class has no such member.
inline TObject* member(TObject* obj, const char* name) {
   Long_t offset = obj->IsA()->GetDataMemberOffset(name);
   return offset > 0 ? *reinterpret_cast<TObject**>(reinterpret_cast<char*>(obj) + offset) : nullptr;
}

inline void axis_colors(TAttAxis* axis, std::vector<Int_t>& out) {
   out.push_back(axis->GetAxisColor());
   out.push_back(axis->GetLabelColor());
   out.push_back(axis->GetTitleColor());
}

inline void walk(TObject* obj, std::vector<Int_t>& out, int depth) {
   if (!obj || depth > 32) return;
   if (auto* a = dynamic_cast<TAttLine*>(obj)) out.push_back(a->GetLineColor());
   if (auto* a = dynamic_cast<TAttFill*>(obj)) out.push_back(a->GetFillColor());
   if (auto* a = dynamic_cast<TAttMarker*>(obj)) out.push_back(a->GetMarkerColor());
   if (auto* a = dynamic_cast<TAttText*>(obj)) out.push_back(a->GetTextColor());
   if (auto* a = dynamic_cast<TAttAxis*>(obj)) axis_colors(a, out);
   if (auto* pad = dynamic_cast<TPad*>(obj)) {
      out.push_back(pad->GetFrameFillColor());
      out.push_back(pad->GetFrameLineColor());
      out.push_back(pad->GetHighLightColor());
      walk_list(pad->GetListOfPrimitives(), out, depth);
   } else if (auto* h = dynamic_cast<TH1*>(obj)) {
      axis_colors(h->GetXaxis(), out);
      axis_colors(h->GetYaxis(), out);
      axis_colors(h->GetZaxis(), out);
      walk_list(h->GetListOfFunctions(), out, depth);
   } else if (auto* g = dynamic_cast<TGraph*>(obj)) {
      walk(member(g, "fHistogram"), out, depth + 1);
      walk_list(g->GetListOfFunctions(), out, depth);
   } else if (auto* m = dynamic_cast<TMultiGraph*>(obj)) {
      walk(member(m, "fHistogram"), out, depth + 1);
      walk_list(m->GetListOfGraphs(), out, depth);
      walk_list(m->GetListOfFunctions(), out, depth);
   } else if (auto* s = dynamic_cast<THStack*>(obj)) {
      walk(member(s, "fHistogram"), out, depth + 1);
      walk_list(s->GetHists(), out, depth);
   } else if (auto* legend = dynamic_cast<TLegend*>(obj)) {
      walk_list(legend->GetListOfPrimitives(), out, depth);
   } else if (auto* palette = dynamic_cast<TPaletteAxis*>(obj)) {
      walk(palette->GetAxis(), out, depth + 1);
   } else if (auto* pave = dynamic_cast<TPaveText*>(obj)) {
      walk_list(pave->GetListOfLines(), out, depth);
   } else if (auto* axis = dynamic_cast<TGaxis*>(obj)) {
      out.push_back(axis->GetLabelColor());
   }
}

// The colour indices `pad`, its sub-pads and their objects draw with, each once, ascending;
// returns how many (at most cap are written).
inline std::size_t used_colors(TPad* pad, std::int64_t* out, std::size_t cap) {
   std::vector<Int_t> found;
   walk(pad, found, 0);
   std::sort(found.begin(), found.end());
   found.erase(std::unique(found.begin(), found.end()), found.end());
   std::size_t n = 0;
   for (Int_t c : found) if (c >= 0 && n < cap) out[n++] = c;
   return n;
}

// The palette the palette TExecs (`gStyle->SetPalette(<n>);`) of `pad` and its sub-pads set:
// n when they all set the same, 0 with none, -1 when they differ.
inline int palette_exec_number(TPad* pad) {
   int found = 0;
   for (TObjLink* link = pad->GetListOfPrimitives()->FirstLink(); link; link = link->Next()) {
      TObject* obj = link->GetObject();
      int n = 0;
      if (!obj) continue;
      if (obj->InheritsFrom(TPad::Class())) {
         n = palette_exec_number(static_cast<TPad*>(obj));
      } else if (obj->InheritsFrom(TExec::Class())) {
         const char* title = obj->GetTitle();
         if (std::sscanf(title, "gStyle->SetPalette(%d);", &n) != 1 || TString::Format("gStyle->SetPalette(%d);", n) != title) n = 0;
      }
      if (n == 0) continue;
      if (n < 0 || (found && n != found)) return -1;
      found = n;
   }
   return found;
}
}
"""


@functools.cache
def _kernels():
    return compiled(_CANVAS_COLORS, "pnetviz_canvascolors").pnetviz_canvascolors


def used_colors(canvas) -> list[int]:
    """The colour indices `canvas` draws its objects with (C++ walk: ~10 us a canvas), ascending;
    not the palette's (a COLZ histogram's cells take theirs from the palette)."""
    out = np.empty(4096, np.int64)
    n = _kernels().used_colors(canvas, out, out.size)
    return out[:n].tolist()


def palette_exec_number(canvas) -> int:
    """The palette number the palette TExecs of `canvas` set (draw.stored.palette_command): 0 if
    it has none, -1 if they set different ones."""
    return int(_kernels().palette_exec_number(canvas))
