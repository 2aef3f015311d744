// pnetviz: plots.root's writer kernels (python/pnetviz/draw/rootfile.py): which pad draws with the
// palette, a pad's frame, no statistics boxes, gROOT's colour table, the arrays of colours a
// canvas stores.
// A pad draws with the palette when it holds a palette axis, a 2-D/3-D histogram or graph (COL,
// CONT, SURF, LEGO, TEXT colours), pnetviz's palette TExec, or an object drawn with palette colours
// (PFC, PLC, PMC): then its canvas stores the palette, otherwise not.
#ifndef PNETVIZ_ROOTFILE_KERNELS_H
#define PNETVIZ_ROOTFILE_KERNELS_H

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

// `array` given the colours at `slots` of gROOT's list, in that order (not owning them), or
// copies of them (owned): a palette's, which a reader must not find deleted with the list of
// colours (ROOT 6.40's TCanvas::Streamer deletes that list's colours before it reads the palette
// from them, so the palette a canvas shares them with comes back wrong when they are new there).
inline void add_colors(TObjArray* array, const std::int64_t* slots, std::size_t n, bool copies) {
   auto* list = static_cast<TObjArray*>(gROOT->GetListOfColors());
   if (copies) array->SetOwner(true);
   for (std::size_t k = 0; k < n; ++k) {
      auto* color = static_cast<TColor*>(list->UncheckedAt(Int_t(slots[k])));
      array->Add(copies ? new TColor(*color) : color);
   }
}
}

#endif
