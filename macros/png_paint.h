// pnetviz: a pad painted into an image as TASImage::FromPad paints it in batch mode, the same
// pixels for less work (python/pnetviz/draw/png.py; compiled into draw_kernels.cxx's library only,
// cling never sees it).
//
// FromPad in batch mode makes a TImageDump through the interpreter (ProcessLineFast, "new
// TImageDump()"), paints the pad into its TASImage, clones that image and its ARGB32 buffer; the
// caller then copies the pixels out (GetArgbArray) and drops the alpha byte. Here the dump is made
// directly, painted the same way (its own image as the stream, BeginPaint as FromPad, gPad the
// pad for the paint), and its ARGB32 buffer is written straight into PNG rows (filter byte 0, then
// R, G, B a pixel): no clone, no interpreter.
//
// The dump's image is a LocalCircles: TASImage::DrawCircle (the circle markers, 20 and 24, and
// their alpha variants) makes a libAfterImage draw context over the whole image for every circle,
// a scratch canvas of width*height words cleared and then scanned whole to apply the path
// (~0.15 ms a marker on a 600x600 image, most of a score distribution's paint). A circle's pixels
// depend only on the pixels around it (the path is drawn, flood-filled and blended within its
// bounding box), so LocalCircles copies a square around the circle into a small image, draws the
// same circle there (TASImage::DrawCircle, the centre shifted by whole pixels) and copies the
// square back: the same pixels. A circle whose square would leave the image is drawn on the image
// itself, as before.
#ifndef PNETVIZ_PNG_PAINT_H
#define PNETVIZ_PNG_PAINT_H

#include "TASImage.h"
#include "TImageDump.h"
#include "TVirtualPS.h"
#include "TVirtualPad.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace pnetviz_png {

// pixels of slack around a circle's radius and brush in the copied square (libAfterImage's
// anti-aliased outline reaches about one pixel past the brush)
constexpr int CIRCLE_SLACK = 4;

class LocalCircles : public TASImage {
public:
   void DrawCircle(Int_t x, Int_t y, Int_t r, const char* col, Int_t thick) override {
      const Int_t width = GetWidth(), height = GetHeight();
      const Int_t reach = r + std::abs(thick) + CIRCLE_SLACK;
      const Int_t x0 = x - reach, y0 = y - reach, side = 2 * reach + 1;
      UInt_t* canvas = (r < 1 || x0 < 0 || y0 < 0 || x0 + side > width || y0 + side > height) ? nullptr : GetArgbArray();
      if (!canvas) {
         TASImage::DrawCircle(x, y, r, col, thick);
         return;
      }
      if (!fLocal || Int_t(fLocal->GetWidth()) != side) {
         fLocal = std::make_unique<TASImage>(side, side);
         fLocal->BeginPaint();
      }
      UInt_t* local = fLocal->GetArgbArray();
      for (Int_t j = 0; j < side; ++j)
         std::memcpy(local + std::size_t(j) * side, canvas + std::size_t(y0 + j) * width + x0, side * sizeof(UInt_t));
      fLocal->DrawCircle(x - x0, y - y0, r, col, thick);
      for (Int_t j = 0; j < side; ++j)
         std::memcpy(canvas + std::size_t(y0 + j) * width + x0, local + std::size_t(j) * side, side * sizeof(UInt_t));
   }

private:
   std::unique_ptr<TASImage> fLocal;  // the square a circle is drawn in, kept for the next of the same size
};

// TImageDump with a LocalCircles as its image (TImageDump::Open makes a TASImage through TImage::Create)
class Dump : public TImageDump {
public:
   explicit Dump(const char* name) : TImageDump() {
      fImage = new LocalCircles();
      fType = 114;  // in memory: nothing written when the dump closes
      SetName(name);
   }
   TASImage* image() const { return static_cast<TASImage*>(fImage); }
};

// `pad` painted as FromPad paints it in batch mode; the dump (owner of the image) for rows(), its
// image's width and height in `width`, `height` (0, 0 where nothing was painted)
inline Dump* paint(TVirtualPad* pad, unsigned* width, unsigned* height) {
   TVirtualPS* saved = gVirtualPS;
   auto* dump = new Dump(pad->GetName());  // TVirtualPS's constructor makes it gVirtualPS
   gVirtualPS = dump;
   dump->SetBit(BIT(11));  // kPrintingPS, as FromPad
   TASImage* image = dump->image();
   if (image->GetImage())
      image->BeginPaint();
   {
      TVirtualPad::TContext context(pad, kFALSE);
      pad->Paint();
   }
   gVirtualPS = saved;
   const bool painted = image->GetImage() != nullptr;
   *width = painted ? image->GetWidth() : 0;
   *height = painted ? image->GetHeight() : 0;
   return dump;
}

// the dump's pixels as PNG rows (filter byte 0, then R, G, B a pixel; alpha dropped, as
// libAfterImage writes an image without alpha) into `out` (height * (1 + 3 * width) bytes);
// the dump is deleted (gVirtualPS kept: TImageDump's destructor clears it)
inline void rows(Dump* dump, std::uint8_t* out) {
   TASImage* image = dump->image();
   if (image->GetImage()) {
      const std::size_t width = image->GetWidth(), height = image->GetHeight();
      const UInt_t* argb = image->GetArgbArray();
      for (std::size_t j = 0; j < height; ++j, argb += width) {
         *out++ = 0;
         for (std::size_t i = 0; i < width; ++i, out += 3) {
            const UInt_t word = argb[i];
            out[0] = std::uint8_t(word >> 16);
            out[1] = std::uint8_t(word >> 8);
            out[2] = std::uint8_t(word);
         }
      }
   }
   TVirtualPS* saved = gVirtualPS;
   delete dump;
   gVirtualPS = saved;
}

}  // namespace pnetviz_png

#endif
