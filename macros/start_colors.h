// pnetviz: the colours ROOT defines, read in one call (python/pnetviz/rootenv.py records those
// ROOT starts with: rootenv.start_colors). Through PyROOT the same read took ~3000 calls (~30 ms).
#ifndef PNETVIZ_START_COLORS_H
#define PNETVIZ_START_COLORS_H

#include <TColor.h>
#include <TROOT.h>
#include <TSeqCollection.h>

#include <cstddef>

namespace pnetviz {

// Each colour of gROOT's list, in the list's order (empty slots skipped, as TIter does), as one row
// of 5 doubles in out: number, red, green, blue, alpha (TColor's values). Writes at most cap
// rows; returns the number of colours (all written when it is at most cap).
inline std::size_t color_rows(double *out, std::size_t cap)
{
   std::size_t n = 0;
   TIter next(gROOT->GetListOfColors());
   while (TObject *obj = next()) {
      if (n < cap) {
         auto *color = static_cast<TColor *>(obj);
         double *row = out + 5 * n;
         row[0] = color->GetNumber();
         row[1] = color->GetRed();
         row[2] = color->GetGreen();
         row[3] = color->GetBlue();
         row[4] = color->GetAlpha();
      }
      ++n;
   }
   return n;
}

} // namespace pnetviz

#endif
