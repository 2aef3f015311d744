// pnetviz: the occupancy grid (macros/occupancy.h) of what a pad drew, from its items in data
// coordinates (python/pnetviz/draw/sampling.py: drawn_items, packed by pack_items) in one call: the
// NDC transform, the samples and the cells of draw/sampling.drawn_parts followed by occupancy_fill,
// bit for bit (tests/draw/test_sampling_kernel.py holds that numpy form as the oracle).
// - NDC as draw/geometry.margins_to_ndc: start + f * ((1 - start) - end), f = (v - lo) / (hi - lo)
//   on a linear axis, log10(v / lo) / log10(hi / lo) on a log one (not finite off a log axis);
// - polylines: their points with finite NDC, each joined to the next such point by a segment
//   (sampled as occupancy_segment does), the last one a point;
// - markers: the centre and the 4 corners (+-half); error bars: at x, low + (high - low) * t for
//   each t of sampling.ERROR_T, their inner values (occupancy_error_inners) given;
// - bars: the segment low -> high at x where both ends are finite, else the one finite end.
// `view`: xlo, xhi, logx, ylo, yhi, logy (the frame), left, right, bottom, top (the margins: the
// grid keeps the samples inside the frame), step (SAMPLE_STEP), half (MARKER_HALF).
// The same operations in the same order as numpy's, no floating-point contraction: the same doubles
// (std::log10 is glibc's, as numpy's float64 log10 is where numpy has no AVX-512 SVML loop).
#ifndef PNETVIZ_OCCUPANCY_ITEMS_H
#define PNETVIZ_OCCUPANCY_ITEMS_H

#include "occupancy.h"

#include <cmath>
#include <vector>

namespace pnetviz {

// One axis of margins_to_ndc, its constant part computed once.
struct OccupancyAxis {
   double lo, denom, start, span;
   bool log;
};

inline OccupancyAxis occupancy_axis(double lo, double hi, bool log, double start, double end)
{
#pragma clang fp contract(off)
   return OccupancyAxis{lo, log ? std::log10(hi / lo) : hi - lo, start, (1.0 - start) - end, log};
}

// margins_to_ndc in two steps: the inner value g = log10(v / lo) or v - lo, then start + (g / denom) * span.
inline double occupancy_inner(const OccupancyAxis &a, double v)
{
#pragma clang fp contract(off)
   return a.log ? std::log10(v / a.lo) : v - a.lo;
}

inline double occupancy_outer(const OccupancyAxis &a, double g)
{
#pragma clang fp contract(off)
   return a.start + (g / a.denom) * a.span;
}

// The inner values of an error bar's samples low + (high - low) * t, in stages: the log10 calls independent
// of each other overlap (a third of the time of one loop doing all per sample).
inline void occupancy_inners(const OccupancyAxis &a, double low, double high, const double *et, std::int64_t nt,
                             double *inner)
{
#pragma clang fp contract(off)
   const double d = high - low;
   if (!a.log) {
      for (std::int64_t k = 0; k < nt; ++k)
         inner[k] = (low + d * et[k]) - a.lo;
      return;
   }
   for (std::int64_t k = 0; k < nt; ++k)
      inner[k] = (low + d * et[k]) / a.lo;
   for (std::int64_t k = 0; k < nt; ++k)
      inner[k] = std::log10(inner[k]);
}

inline double occupancy_ndc(const OccupancyAxis &a, double v)
{
   return occupancy_outer(a, occupancy_inner(a, v));
}

// occupancy_ndc of n values into `out`, in stages as occupancy_inners.
inline void occupancy_ndcs(const OccupancyAxis &a, const double *v, std::int64_t n, double *out)
{
#pragma clang fp contract(off)
   if (!a.log) {
      for (std::int64_t i = 0; i < n; ++i)
         out[i] = occupancy_outer(a, v[i] - a.lo);
      return;
   }
   for (std::int64_t i = 0; i < n; ++i)
      out[i] = v[i] / a.lo;
   for (std::int64_t i = 0; i < n; ++i)
      out[i] = std::log10(out[i]);
   for (std::int64_t i = 0; i < n; ++i)
      out[i] = occupancy_outer(a, out[i]);
}

// The inner values of every error bar's samples, bar e's at out[e * nt .. e * nt + nt): what
// occupancy_items is given (kept by the caller for other frames of the same y axis start `lo`).
inline void occupancy_error_inners(const double *elow, const double *ehigh, std::int64_t nerrors, const double *et,
                                   std::int64_t nt, double lo, bool log, double *out)
{
   const OccupancyAxis a{lo, 0.0, 0.0, 0.0, log}; // occupancy_inners reads lo and log only
   for (std::int64_t e = 0; e < nerrors; ++e)
      occupancy_inners(a, elow[e], ehigh[e], et, nt, out + e * nt);
}

// Error bars: nt points each at the bar's x (its cell found once), from their inner values.
inline void occupancy_error_bars(const OccupancyAxis &ax, const OccupancyAxis &ay, const double *ex,
                                 const double *einner, std::int64_t nerrors, std::int64_t nt, double xlow,
                                 double xhigh, double ylow, double yhigh, std::int64_t cells, std::int64_t words,
                                 std::uint64_t *grid)
{
   for (std::int64_t e = 0; e < nerrors; ++e) {
      const double X = occupancy_ndc(ax, ex[e]);
      if (!(std::isfinite(X) && X >= xlow && X <= xhigh))
         continue;
      std::uint64_t *row = grid + occupancy_cell(X, cells) * words;
      const double *inner = einner + e * nt;
      for (std::int64_t k = 0; k < nt; ++k) {
         const double Y = occupancy_outer(ay, inner[k]);
         if (std::isfinite(Y) && Y >= ylow && Y <= yhigh) {
            const std::int64_t j = occupancy_cell(Y, cells);
            row[j >> 6] |= std::uint64_t(1) << (j & 63);
         }
      }
   }
}

inline void occupancy_items(const double *lx, const double *ly, const std::int64_t *lend, std::int64_t nlines,
                            const double *mx, const double *my, std::int64_t nmarks, const double *ex,
                            const double *einner, std::int64_t nerrors, std::int64_t nt, const double *bx,
                            const double *blow, const double *bhigh,
                            std::int64_t nbars, const double *view, std::int64_t cells, std::int64_t words,
                            std::uint64_t *grid)
{
#pragma clang fp contract(off)
   const OccupancyAxis ax = occupancy_axis(view[0], view[1], view[2] != 0.0, view[6], view[7]);
   const OccupancyAxis ay = occupancy_axis(view[3], view[4], view[5] != 0.0, view[8], view[9]);
   const double xlow = view[6], xhigh = 1.0 - view[7], ylow = view[8], yhigh = 1.0 - view[9];
   const double step = view[10], half = view[11];
   const std::int64_t npoints = nlines > 0 ? lend[nlines - 1] : 0;
   std::int64_t most = npoints > nmarks ? npoints : nmarks;
   most = most > nbars ? most : nbars;
   std::vector<double> scratch(3 * (most > 0 ? most : 1));
   double *X = scratch.data(), *Y = X + most, *Z = Y + most;
   occupancy_ndcs(ax, lx, npoints, X);
   occupancy_ndcs(ay, ly, npoints, Y);
   std::int64_t begin = 0;
   for (std::int64_t l = 0; l < nlines; ++l) {
      bool have = false;
      double px = 0.0, py = 0.0;
      for (std::int64_t i = begin; i < lend[l]; ++i) {
         if (!(std::isfinite(X[i]) && std::isfinite(Y[i])))
            continue;
         if (have)
            occupancy_segment(px, py, X[i], Y[i], step, xlow, xhigh, ylow, yhigh, cells, words, grid);
         px = X[i];
         py = Y[i];
         have = true;
      }
      if (have)
         occupancy_set(grid, cells, words, px, py, xlow, xhigh, ylow, yhigh);
      begin = lend[l];
   }
   occupancy_ndcs(ax, mx, nmarks, X);
   occupancy_ndcs(ay, my, nmarks, Y);
   for (std::int64_t m = 0; m < nmarks; ++m) {
      occupancy_set(grid, cells, words, X[m], Y[m], xlow, xhigh, ylow, yhigh);
      occupancy_set(grid, cells, words, X[m] - half, Y[m] - half, xlow, xhigh, ylow, yhigh);
      occupancy_set(grid, cells, words, X[m] - half, Y[m] + half, xlow, xhigh, ylow, yhigh);
      occupancy_set(grid, cells, words, X[m] + half, Y[m] - half, xlow, xhigh, ylow, yhigh);
      occupancy_set(grid, cells, words, X[m] + half, Y[m] + half, xlow, xhigh, ylow, yhigh);
   }
   occupancy_error_bars(ax, ay, ex, einner, nerrors, nt, xlow, xhigh, ylow, yhigh, cells, words, grid);
   occupancy_ndcs(ax, bx, nbars, X);
   occupancy_ndcs(ay, blow, nbars, Y);
   occupancy_ndcs(ay, bhigh, nbars, Z);
   for (std::int64_t b = 0; b < nbars; ++b) {
      const bool ok0 = std::isfinite(X[b]) && std::isfinite(Y[b]), ok1 = std::isfinite(X[b]) && std::isfinite(Z[b]);
      if (ok0 && ok1)
         occupancy_segment(X[b], Y[b], X[b], Z[b], step, xlow, xhigh, ylow, yhigh, cells, words, grid);
      if (ok1)
         occupancy_set(grid, cells, words, X[b], Z[b], xlow, xhigh, ylow, yhigh);
      else if (ok0)
         occupancy_set(grid, cells, words, X[b], Y[b], xlow, xhigh, ylow, yhigh);
   }
}

} // namespace pnetviz

#endif
