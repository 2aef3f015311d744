// pnetviz: a figure's canvas and frame in one compiled call (python/pnetviz/draw/figures.py: the
// same calls in the same order as its Python path, cms_canvas, frame_histogram, _paint_ranges and
// painted_frame). Why: each ROOT method PyROOT calls for the first time in a process costs a call
// wrapper JIT-compiled by cling (~5 ms); these make ~40 of them, none through ctypes.
#ifndef PNETVIZ_FRAME_CANVAS_H
#define PNETVIZ_FRAME_CANVAS_H

#include "TAxis.h"
#include "TCanvas.h"
#include "TFrame.h"
#include "TH1.h"
#include "TList.h"
#include "TBox.h"
#include <cstring>
#include "TPaletteAxis.h"

namespace pnetviz_frame {
constexpr int kFrameBins = 1000;  // TPad::DrawFrame's (figures.FRAME_BINS)

// figures.frame_histogram: TPad::DrawFrame's "hframe", not drawn; `edges` (n + 1 of them, a log x
// frame) or nullptr for bins even in x; owned by the pad it is drawn in, in no directory.
inline TH1F* frame_histogram(double xmin, double ymin, double xmax, double ymax, const char* title, const double* edges) {
   TH1F* hframe = edges ? new TH1F("hframe", title, kFrameBins, edges) : new TH1F("hframe", title, kFrameBins, xmin, xmax);
   hframe->SetBit(TH1::kNoStats);
   hframe->SetBit(TObject::kCanDelete);
   hframe->SetMinimum(ymin);
   hframe->SetMaximum(ymax);
   hframe->GetYaxis()->SetLimits(ymin, ymax);
   hframe->SetDirectory(nullptr);
   return hframe;
}

// figures._paint_ranges: the pad's ranges as a paint of its linear frame sets them (TPad's
// margins are Float_t, 1 - left - right computed in float).
inline void paint_ranges(TPad* pad, double xmin, double ymin, double xmax, double ymax) {
   const float one = 1.0f;
   double dx = (xmax - xmin) / double(one - pad->GetLeftMargin() - pad->GetRightMargin());
   double dy = (ymax - ymin) / double(one - pad->GetBottomMargin() - pad->GetTopMargin());
   pad->Range(xmin - dx * pad->GetLeftMargin(), ymin - dy * pad->GetBottomMargin(), xmax + dx * pad->GetRightMargin(),
              ymax + dy * pad->GetTopMargin());
   pad->RangeAxis(xmin, ymin, xmax, ymax);
}

// figures.cms_canvas up to cmsstyle's CMS_lumi (which the caller draws next): the canvas, its
// margins, the frame histogram drawn with "AXIS", the pad's ranges.
inline TCanvas* cms_canvas_start(const char* name, int width, double left, double right, double top, double bottom,
                                 double xmin, double ymin, double xmax, double ymax, const char* xtitle,
                                 const char* ytitle, double y_offset) {
   TCanvas* canvas = new TCanvas(name, name, 50, 50, width, 600);
   canvas->SetFillColor(0);
   canvas->SetBorderMode(0);
   canvas->SetFrameFillStyle(0);
   canvas->SetFrameBorderMode(0);
   canvas->SetLeftMargin(left);
   canvas->SetRightMargin(right);
   canvas->SetTopMargin(top);
   canvas->SetBottomMargin(bottom);
   TH1F* hframe = frame_histogram(xmin, ymin, xmax, ymax, "", nullptr);
   canvas->cd();
   hframe->GetYaxis()->SetTitleOffset(y_offset);
   hframe->GetXaxis()->SetTitleOffset(1.05);
   hframe->GetXaxis()->SetTitle(xtitle);
   hframe->GetYaxis()->SetTitle(ytitle);
   hframe->Draw("AXIS");
   TAxis* axis = hframe->GetXaxis();
   paint_ranges(canvas, axis->GetBinLowEdge(1), ymin, axis->GetBinUpEdge(kFrameBins), ymax);
   return canvas;
}

// figures.cms_canvas after the CMS label: cmsCanvas's UpdatePad, unpainted.
inline void cms_canvas_finish(TCanvas* canvas) {
   canvas->RedrawAxis();
   canvas->Modified();
   canvas->RedrawAxis();
   canvas->GetFrame()->Draw();
}

// figures.painted_frame: the TFrame's range as a paint sets it, first among the pad's primitives.
inline void painted_frame(TPad* pad, double x1, double y1, double x2, double y2) {
   TFrame* tframe = pad->GetFrame();
   tframe->SetX1(x1);
   tframe->SetY1(y1);
   tframe->SetX2(x2);
   tframe->SetY2(y2);
   tframe->SetBit(TObject::kMustCleanup);
   pad->GetListOfPrimitives()->AddFirst(tframe);
}

// figures.figure's last settings of the canvas: the image's size, the log flags.
inline void canvas_shape(TCanvas* canvas, int width, bool logy, bool logx) {
   canvas->SetCanvasSize(width, 600);
   canvas->SetLogy(logy);
   canvas->SetLogx(logx);
}
// matrices.place_palette after the CMS label: the COLZ histogram's palette (made as THistPainter
// makes it, first among its functions, where it has none) placed at (x1, y1, x2, y2) in the pad's
// coordinates and at (u1, v1, u2, v2) in NDC, the pad marked modified.
inline void place_palette(TH1* hist, TPad* pad, double x1, double x2, double y1, double y2, double u1, double u2,
                          double v1, double v2) {
   TList* functions = hist->GetListOfFunctions();
   TObject* found = functions->FindObject("palette");
   TPaletteAxis* palette = static_cast<TPaletteAxis*>(found);
   if (!found) {
      palette = new TPaletteAxis(0.0, 0.0, 0.0, 0.0, hist);
      functions->AddFirst(palette);
   }
   palette->SetX1(x1);
   palette->SetX2(x2);
   palette->SetY1(y1);
   palette->SetY2(y2);
   palette->SetX1NDC(u1);
   palette->SetX2NDC(u2);
   palette->SetY1NDC(v1);
   palette->SetY2NDC(v2);
   pad->Modified();
}
// figures.reframe once its frames are found movable: the frame histogram and its axis copies given
// the new y range, the TFrame's top and the pad's ranges as the paint of the new frame sets them.
inline void reframe_top(TPad* pad, double ymin, double ymax) {
   TIter next(pad->GetListOfPrimitives());
   while (TObject* obj = next()) {
      if (obj->InheritsFrom("TH1") && (!std::strcmp(obj->GetName(), "hframe") || !std::strcmp(obj->GetName(), "hframe_copy"))) {
         static_cast<TH1*>(obj)->SetMaximum(ymax);
         static_cast<TH1*>(obj)->GetYaxis()->SetLimits(ymin, ymax);
      }
   }
   TBox* tframe = dynamic_cast<TBox*>(pad->GetListOfPrimitives()->FindObject("TFrame"));
   if (!tframe)  // a plain_figure: its pad's ranges are the paint's
      return;
   tframe->SetY2(ymax);
   paint_ranges(pad, pad->GetUxmin(), ymin, pad->GetUxmax(), ymax);
}
}  // namespace pnetviz_frame

#endif
