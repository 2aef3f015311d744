// pnetviz: a histogram or graph of plots.root described and written in one call
// (python/pnetviz/draw/rootfile.py: describe, _axis_titles; draw/standalone.py: drawn_alone and
// default_palette do the same for the objects this leaves to Python). ~40 PyROOT calls an object
// before: ~260 objects a multi-class set.
#ifndef PNETVIZ_ROOT_STORE_H
#define PNETVIZ_ROOT_STORE_H

#include "TDirectory.h"
#include "TNamed.h"
#include "TH1.h"
#include "TGraph.h"
#include "TAxis.h"
#include "TAttAxis.h"
#include "TPad.h"
#include "TList.h"
#include "TPave.h"
#include "TPaletteAxis.h"
#include "TString.h"
#include "TClass.h"
#include <unordered_map>
#include <vector>

namespace pnetviz_store {

// What `Writer::store` did: written, left to Python (not a TH1 or TGraph: nothing done), or
// described but not written because its y axis has bin labels (Python sizes them: call again).
enum Result { kWritten = 0, kOther = 1, kLabels = 2 };

// The constants of draw/standalone.py, given once by Python (one place for their values).
struct Alone {
   float axis_size, label_offset, x_title_offset, auto_offset, z_label_size;
   short font;
   double margin, palette_x1, palette_x2;
};

class Writer {
public:
   Writer(float axis_size, float label_offset, float x_title_offset, float auto_offset, float z_label_size, short font,
          double margin, double palette_x1, double palette_x2)
      : fAlone{axis_size, label_offset, x_title_offset, auto_offset, z_label_size, font, margin, palette_x1, palette_x2} {}

   // describe() (name, literal title also on a graph's frame, axis titles from the frame of the
   // pad in `pads` that holds it, no stats and Sumw2 on a histogram), then the object written as
   // `name` into `directory` of `file` (made when missing) with drawn_alone's attributes. With
   // y_label_size < 0, an object whose y axis has bin labels is described only (kLabels).
   int store(TDirectory* file, const char* directory, TObject* obj, const char* name, const char* title,
             const std::vector<TPad*>& pads, bool describe, double y_label_size, double y_title_offset) const
   {
      TH1* hist = dynamic_cast<TH1*>(obj);
      TGraph* graph = hist ? nullptr : dynamic_cast<TGraph*>(obj);
      if (!hist && !graph) return kOther;
      if (describe) Describe(obj, hist, graph, name, title, pads);
      TH1* shown = graph ? graph->GetHistogram() : hist;  // drawn_alone's `hist` (and _axes's)
      TAxis* axes[3] = {nullptr, nullptr, nullptr};
      int n = 0;
      if (shown) {
         axes[0] = shown->GetXaxis(), axes[1] = shown->GetYaxis(), n = 2;
         if (shown->GetDimension() == 2) axes[2] = shown->GetZaxis(), n = 3;
      }
      if (n && y_label_size < 0 && HasLabels(axes[1])) return kLabels;
      TDirectory* target = *directory ? file->GetDirectory(directory) : file;
      if (!target) target = file->mkdir(directory, "", true);
      TAttAxis saved[3];
      TString titles[3];
      for (int i = 0; i < n; ++i) {
         axes[i]->TAttAxis::Copy(saved[i]);
         titles[i] = axes[i]->GetTitle();
      }
      const bool no_title = shown && shown->TestBit(TH1::kNoTitle);
      if (shown) shown->ResetBit(TH1::kNoTitle);  // the title box says what it is
      for (int i = 0; i < n; ++i) {
         TAxis* a = axes[i];
         a->SetLabelSize(fAlone.axis_size);
         a->SetLabelOffset(fAlone.label_offset);
         a->SetTitleSize(fAlone.axis_size);
         a->SetLabelFont(fAlone.font);
         a->SetTitleFont(fAlone.font);
         a->SetTitleOffset(i == 0 ? fAlone.x_title_offset : fAlone.auto_offset);
         if (i == 1 && HasLabels(a)) {
            a->SetLabelSize(y_label_size);
            a->SetTitleOffset(y_title_offset);
         }
      }
      if (n == 3) {
         axes[2]->SetTitle("");
         axes[2]->SetLabelSize(fAlone.z_label_size);
         WithPalette(shown, target, obj, name);
      } else {
         target->WriteTObject(obj, name);
      }
      for (int i = 0; i < n; ++i) {
         saved[i].Copy(*axes[i]);
         axes[i]->SetTitle(titles[i].Data());
      }
      if (no_title) shown->SetBit(TH1::kNoTitle);
      return kWritten;
   }

private:
   Alone fAlone;

   // Python's truth of axis.GetLabels(): a list that is there and not empty.
   static bool HasLabels(TAxis* axis) { return axis->GetLabels() && axis->GetLabels()->GetSize() > 0; }

   static void Describe(TObject* obj, TH1* hist, TGraph* graph, const char* name, const char* title,
                        const std::vector<TPad*>& pads)
   {
      if (hist) hist->SetName(name); else graph->SetName(name);  // (virtual: as PyROOT calls it)
      if (graph) {
         if (TH1* frame = graph->GetHistogram()) frame->TNamed::SetTitle(title);
         graph->TNamed::SetTitle(title);
      } else {
         hist->TNamed::SetTitle(title);
      }
      AxisTitles(obj, hist ? hist->GetXaxis() : graph->GetXaxis(), hist ? hist->GetYaxis() : graph->GetYaxis(), pads);
      if (hist) {
         hist->SetStats(false);
         if (hist->GetSumw2N() == 0) hist->Sumw2();
      }
   }

   // _axis_titles: the titles of the frame of the pad holding `obj` (the x title, when that
   // frame has none, from the first pad's frame that has one).
   static void AxisTitles(TObject* obj, TAxis* x, TAxis* y, const std::vector<TPad*>& pads)
   {
      if (!x || !y || (*x->GetTitle() && *y->GetTitle())) return;
      TH1* home = nullptr;
      bool found = false;
      for (TPad* pad : pads) {
         if (pad->GetListOfPrimitives()->FindObject(obj)) {
            home = Frame(pad, obj), found = true;
            break;
         }
      }
      if (!found || !home) return;
      if (!*y->GetTitle()) y->SetTitle(home->GetYaxis()->GetTitle());
      if (!*x->GetTitle()) {
         const char* text = home->GetXaxis()->GetTitle();
         for (std::size_t i = 0; i < pads.size() && !*text; ++i)
            if (TH1* f = Frame(pads[i], obj)) text = f->GetXaxis()->GetTitle();
         x->SetTitle(text);
      }
   }

   // p->InheritsFrom(TH1::Class()), looked up once a class.
   static bool IsHist(TObject* p)
   {
      static std::unordered_map<TClass*, bool> hists;
      TClass* cls = p->IsA();
      auto found = hists.find(cls);
      if (found == hists.end()) found = hists.emplace(cls, p->InheritsFrom(TH1::Class())).first;
      return found->second;
   }

   // The first histogram drawn on `pad` other than `obj` (rootfile's frame_of).
   static TH1* Frame(TPad* pad, TObject* obj)
   {
      for (TObjLink* link = pad->GetListOfPrimitives()->FirstLink(); link; link = link->Next()) {
         TObject* p = link->GetObject();
         if (p && p != obj && IsHist(p)) return static_cast<TH1*>(p);
      }
      return nullptr;
   }

   // default_palette: the COLZ histogram's palette beside the frame of a default canvas while
   // `obj` is written (its own moved there and back, or one made for the write).
   void WithPalette(TH1* hist, TDirectory* target, TObject* obj, const char* name) const
   {
#pragma STDC FP_CONTRACT OFF
      TList* functions = hist->GetListOfFunctions();
      TPave* palette = static_cast<TPave*>(functions->FindObject("palette"));
      const bool made = !palette;
      if (made) {
         palette = new TPaletteAxis(0.0, 0.0, 0.0, 0.0, hist);
         functions->AddFirst(palette);
      }
      const double saved[8] = {palette->GetX1(), palette->GetX2(), palette->GetY1(), palette->GetY2(),
                               palette->GetX1NDC(), palette->GetX2NDC(), palette->GetY1NDC(), palette->GetY2NDC()};
      TAxis* xa = hist->GetXaxis();
      TAxis* ya = hist->GetYaxis();
      const double inner = 1 - 2 * fAlone.margin;
      const double width = xa->GetXmax() - xa->GetXmin();
      const double f1 = (fAlone.palette_x1 - fAlone.margin) / inner;  // as Python: ((u - m) / inner) * width + xmin
      const double f2 = (fAlone.palette_x2 - fAlone.margin) / inner;
      const double s1 = f1 * width;
      const double s2 = f2 * width;
      const double x1 = xa->GetXmin() + s1;
      const double x2 = xa->GetXmin() + s2;
      Place(palette, {x1, x2, ya->GetXmin(), ya->GetXmax(), fAlone.palette_x1, fAlone.palette_x2, fAlone.margin,
                      1 - fAlone.margin});
      target->WriteTObject(obj, name);
      if (made) {
         functions->Remove(palette);
         delete palette;
      } else {
         Place(palette, {saved[0], saved[1], saved[2], saved[3], saved[4], saved[5], saved[6], saved[7]});
      }
   }

   struct Corners { double x1, x2, y1, y2, x1ndc, x2ndc, y1ndc, y2ndc; };

   static void Place(TPave* p, const Corners& c)
   {
      p->SetX1(c.x1), p->SetX2(c.x2), p->SetY1(c.y1), p->SetY2(c.y2);
      p->SetX1NDC(c.x1ndc), p->SetX2NDC(c.x2ndc), p->SetY1NDC(c.y1ndc), p->SetY2NDC(c.y2ndc);
   }
};

}  // namespace pnetviz_store

#endif
