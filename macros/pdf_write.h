// pnetviz: a canvas written as PDF as TPad::SaveAs writes it in batch mode, the same file for less
// work (python/pnetviz/draw/pdf.py; compiled into draw_kernels.cxx's library only, cling never
// sees it).
//
// SaveAs(".pdf") makes a TPDF through the plugin manager, opens the file (portrait, or landscape
// for a canvas wider than high), marks it kPrintingPS, paints the canvas into it (gPad the canvas)
// and deletes it, which closes the file. About a third of that time is TPDF::WriteReal, which
// writes every coordinate with snprintf(" %g") (glibc's exact but slow conversion; "%10.8f" where
// %g would print an exponent). `save` does the same steps with a TPDF whose WriteReal writes the
// %g text by std::to_chars(general, precision 6), which is specified as printf's %g and exact
// (the file's bytes are the same; snprintf still writes what has an exponent, a NaN or an inf).
#ifndef PNETVIZ_PDF_WRITE_H
#define PNETVIZ_PDF_WRITE_H

#include "TCanvas.h"
#include "TPDF.h"
#include "TVirtualPS.h"
#include "TVirtualPad.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace pnetviz_pdf {

// the text TPDF::WriteReal writes for `z` (after a space where `space`) into `out` (16 bytes)
inline void real_text(float z, bool space, char* out) {
   char* at = out + (space ? 1 : 0);
   out[0] = ' ';
   const double value = z;
   if (std::isfinite(value)) {
      const auto result = std::to_chars(at, out + 15, value, std::chars_format::general, 6);
      if (result.ec == std::errc() && !std::memchr(at, 'e', result.ptr - at)) {
         *result.ptr = '\0';
         return;
      }
   }
   std::snprintf(out, 15, space ? " %g" : "%g", value);  // TPDF's own, as it writes it
   if (std::strchr(out, 'e') || std::strchr(out, 'E'))
      std::snprintf(out, 15, space ? " %10.8f" : "%10.8f", value);
}

class FastReals : public TPDF {
public:
   void WriteReal(Float_t z, Bool_t space) override {
      char text[16];
      real_text(z, space, text);
      PrintStr(text);
   }
};

// `canvas` written as the PDF `path` as canvas->SaveAs(path) writes it in batch mode
inline void save(TCanvas* canvas, const char* path) {
   const Double_t width = canvas->XtoPixel(canvas->GetX2());
   const Double_t height = canvas->YtoPixel(canvas->GetY1());
   const Int_t type = height / width < 1 ? 112 : 111;  // landscape, portrait
   TVirtualPad::TContext context(canvas, kTRUE);
   TVirtualPS* saved = gVirtualPS;
   auto* pdf = new FastReals();  // TPDF's constructor makes it gVirtualPS
   gVirtualPS = pdf;
   pdf->SetName(path);
   pdf->Open(path, type);
   pdf->SetBit(TPad::kPrintingPS);
   canvas->Paint();
   delete pdf;  // closes the file
   gVirtualPS = saved;
}

}  // namespace pnetviz_pdf

#endif
