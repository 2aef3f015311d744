// pnetviz: the colours a stored canvas uses, the palette its palette TExec sets, the current palette
// (python/pnetviz/draw/canvascolors.py; draw/rootfile.py stores them with the canvas).
#ifndef PNETVIZ_CANVAS_COLORS_H
#define PNETVIZ_CANVAS_COLORS_H

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
#include "TColor.h"
#include "TString.h"
#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <unordered_map>
#include <vector>
namespace pnetviz_canvascolors {
inline void walk(TObject* obj, std::vector<Int_t>& out, int depth);

inline void walk_list(TList* list, std::vector<Int_t>& out, int depth) {
   if (!list) return;
   for (TObjLink* link = list->FirstLink(); link; link = link->Next()) walk(link->GetObject(), out, depth + 1);
}

// The histogram `obj`'s pointer member fHistogram holds (a graph's frame: its getter would make
// one), nullptr if its class has no such member; the offset looked up once a class.
inline TObject* histogram_of(TObject* obj) {
   static std::unordered_map<TClass*, Long_t> offsets;
   TClass* cls = obj->IsA();
   auto found = offsets.find(cls);
   if (found == offsets.end()) found = offsets.emplace(cls, cls->GetDataMemberOffset("fHistogram")).first;
   return found->second > 0 ? *reinterpret_cast<TObject**>(reinterpret_cast<char*>(obj) + found->second) : nullptr;
}

inline void axis_colors(TAttAxis* axis, std::vector<Int_t>& out) {
   out.push_back(axis->GetAxisColor());
   out.push_back(axis->GetLabelColor());
   out.push_back(axis->GetTitleColor());
}

enum Kind { kOther, kPad, kHist, kGraph, kMulti, kStack, kLegend, kPalette, kPaveText, kGaxis };

// Where a class's attribute bases sit from its TObject (-1: not one), and which kind of holder
// it is (and where that base sits): dynamic_cast once a class, not at every object (~8 casts).
struct Shape {
   std::ptrdiff_t line = -1, fill = -1, marker = -1, text = -1, axis = -1, base = 0;
   Kind kind = kOther;
};

template <class T> std::ptrdiff_t offset_of(TObject* obj) {
   T* p = dynamic_cast<T*>(obj);
   return p ? reinterpret_cast<char*>(p) - reinterpret_cast<char*>(obj) : -1;
}

template <class T> T* at(TObject* obj, std::ptrdiff_t offset) { return reinterpret_cast<T*>(reinterpret_cast<char*>(obj) + offset); }

template <class T> bool kind_of(TObject* obj, Kind kind, Shape& s) {
   std::ptrdiff_t offset = offset_of<T>(obj);
   if (offset < 0) return false;
   s.kind = kind, s.base = offset;
   return true;
}

inline const Shape& shape_of(TObject* obj) {
   static std::unordered_map<TClass*, Shape> shapes;
   TClass* cls = obj->IsA();
   auto found = shapes.find(cls);
   if (found != shapes.end()) return found->second;
   Shape s;
   s.line = offset_of<TAttLine>(obj), s.fill = offset_of<TAttFill>(obj), s.marker = offset_of<TAttMarker>(obj);
   s.text = offset_of<TAttText>(obj), s.axis = offset_of<TAttAxis>(obj);
   kind_of<TPad>(obj, kPad, s) || kind_of<TH1>(obj, kHist, s) || kind_of<TGraph>(obj, kGraph, s)
      || kind_of<TMultiGraph>(obj, kMulti, s) || kind_of<THStack>(obj, kStack, s) || kind_of<TLegend>(obj, kLegend, s)
      || kind_of<TPaletteAxis>(obj, kPalette, s) || kind_of<TPaveText>(obj, kPaveText, s) || kind_of<TGaxis>(obj, kGaxis, s);
   return shapes.emplace(cls, s).first->second;
}

inline void walk(TObject* obj, std::vector<Int_t>& out, int depth) {
   if (!obj || depth > 32) return;
   const Shape s = shape_of(obj);
   if (s.line >= 0) out.push_back(at<TAttLine>(obj, s.line)->GetLineColor());
   if (s.fill >= 0) out.push_back(at<TAttFill>(obj, s.fill)->GetFillColor());
   if (s.marker >= 0) out.push_back(at<TAttMarker>(obj, s.marker)->GetMarkerColor());
   if (s.text >= 0) out.push_back(at<TAttText>(obj, s.text)->GetTextColor());
   if (s.axis >= 0) axis_colors(at<TAttAxis>(obj, s.axis), out);
   switch (s.kind) {
   case kPad: {
      auto* pad = at<TPad>(obj, s.base);
      out.push_back(pad->GetFrameFillColor());
      out.push_back(pad->GetFrameLineColor());
      out.push_back(pad->GetHighLightColor());
      walk_list(pad->GetListOfPrimitives(), out, depth);
      break;
   }
   case kHist: {
      auto* h = at<TH1>(obj, s.base);
      axis_colors(h->GetXaxis(), out);
      axis_colors(h->GetYaxis(), out);
      axis_colors(h->GetZaxis(), out);
      walk_list(h->GetListOfFunctions(), out, depth);
      break;
   }
   case kGraph:
      walk(histogram_of(obj), out, depth + 1);
      walk_list(at<TGraph>(obj, s.base)->GetListOfFunctions(), out, depth);
      break;
   case kMulti:
      walk(histogram_of(obj), out, depth + 1);
      walk_list(at<TMultiGraph>(obj, s.base)->GetListOfGraphs(), out, depth);
      walk_list(at<TMultiGraph>(obj, s.base)->GetListOfFunctions(), out, depth);
      break;
   case kStack:
      walk(histogram_of(obj), out, depth + 1);
      walk_list(at<THStack>(obj, s.base)->GetHists(), out, depth);
      break;
   case kLegend: walk_list(at<TLegend>(obj, s.base)->GetListOfPrimitives(), out, depth); break;
   case kPalette: walk(at<TPaletteAxis>(obj, s.base)->GetAxis(), out, depth + 1); break;
   case kPaveText: walk_list(at<TPaveText>(obj, s.base)->GetListOfLines(), out, depth); break;
   case kGaxis: out.push_back(at<TGaxis>(obj, s.base)->GetLabelColor()); break;
   default: break;
   }
}

// The colour indices `pad`, its sub-pads and their objects draw with, each once, ascending:
// how many there are (the first cap of them written to `out`).
inline std::size_t used_colors(TPad* pad, std::int64_t* out, std::size_t cap) {
   std::vector<Int_t> found;
   walk(pad, found, 0);
   std::sort(found.begin(), found.end());
   found.erase(std::unique(found.begin(), found.end()), found.end());
   found.erase(found.begin(), std::lower_bound(found.begin(), found.end(), 0));  // no negative index
   for (std::size_t n = 0; n < found.size() && n < cap; ++n) out[n] = found[n];
   return found.size();
}

// The current palette's colour numbers (TColor::GetColorPalette(i), i < n).
inline void palette_numbers(std::int64_t* out, std::size_t n) {
   for (std::size_t i = 0; i < n; ++i) out[i] = TColor::GetColorPalette(Int_t(i));
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

#endif
