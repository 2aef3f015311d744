// pnetviz: the occupancy grid of the legend search (python/pnetviz/draw/layout.py) and its first
// empty box. Pure functions over arrays; the grid is a (cells, words) array of 64-bit words: row i
// is the x cell i, bit j of the row (word j / 64, bit j % 64) the y cell j.
//
// occupancy_fill sets the cell of every sample of what a pad drew, exactly as
// draw/sampling.drawn_points and draw/layout.occupancy_points do in numpy:
// - each segment (x0, y0) -> (x1, y1) (NDC) sampled at x0 + t * (x1 - x0), t = k / n for
//   k = 0 .. n - 1, n = max(ceil(hypot(x1 - x0, y1 - y0) / step), 1) (its end excluded);
// - each point (px, py) as it is;
// a sample is kept if finite and inside [xlow, xhigh] x [ylow, yhigh] (the frame), and sets the cell
// (clip(int64(x * cells), 0, cells - 1), clip(int64(y * cells), 0, cells - 1)).
// first_empty: the index of the first box (x1, y1, x2, y2), 4 doubles each, whose cells widened by
// `gap` (floor((x1 - gap) * cells) .. floor((x2 + gap) * cells), clipped to the grid) hold no set
// cell; -1 if every box holds one. No floating-point contraction: the samples are numpy's, bit for bit.
#ifndef PNETVIZ_OCCUPANCY_H
#define PNETVIZ_OCCUPANCY_H

#include <cmath>
#include <cstdint>

namespace pnetviz {

inline std::int64_t occupancy_cell(double v, std::int64_t cells)
{
#pragma clang fp contract(off)
   const std::int64_t c = static_cast<std::int64_t>(v * static_cast<double>(cells));
   return c < 0 ? 0 : (c > cells - 1 ? cells - 1 : c);
}

inline void occupancy_set(std::uint64_t *grid, std::int64_t cells, std::int64_t words, double x, double y,
                          double xlow, double xhigh, double ylow, double yhigh)
{
   if (!(std::isfinite(x) && std::isfinite(y)) || !(x >= xlow && x <= xhigh && y >= ylow && y <= yhigh))
      return;
   const std::int64_t i = occupancy_cell(x, cells), j = occupancy_cell(y, cells);
   grid[i * words + (j >> 6)] |= std::uint64_t(1) << (j & 63);
}

// The samples of one segment (x0, y0) -> (x1, y1), its end excluded.
inline void occupancy_segment(double x0, double y0, double x1, double y1, double step, double xlow, double xhigh,
                              double ylow, double yhigh, std::int64_t cells, std::int64_t words, std::uint64_t *grid)
{
#pragma clang fp contract(off)
   const double dx = x1 - x0, dy = y1 - y0;
   const double len = std::ceil(std::hypot(dx, dy) / step);
   const std::int64_t n = len > 1.0 ? static_cast<std::int64_t>(len) : 1;
   for (std::int64_t k = 0; k < n; ++k) {
      const double t = static_cast<double>(k) / static_cast<double>(n);
      occupancy_set(grid, cells, words, x0 + t * dx, y0 + t * dy, xlow, xhigh, ylow, yhigh);
   }
}

inline void occupancy_fill(const double *x0, const double *y0, const double *x1, const double *y1, std::int64_t nseg,
                           double step, const double *px, const double *py, std::int64_t npts, double xlow,
                           double xhigh, double ylow, double yhigh, std::int64_t cells, std::int64_t words,
                           std::uint64_t *grid)
{
   for (std::int64_t s = 0; s < nseg; ++s)
      occupancy_segment(x0[s], y0[s], x1[s], y1[s], step, xlow, xhigh, ylow, yhigh, cells, words, grid);
   for (std::int64_t p = 0; p < npts; ++p)
      occupancy_set(grid, cells, words, px[p], py[p], xlow, xhigh, ylow, yhigh);
}

inline std::int64_t occupancy_bound(double v, std::int64_t cells, std::int64_t plus)
{
   const double f = std::floor(v * static_cast<double>(cells)) + static_cast<double>(plus);
   return f < 0.0 ? 0 : (f > static_cast<double>(cells) ? cells : static_cast<std::int64_t>(f));
}

inline std::int64_t first_empty(const std::uint64_t *grid, std::int64_t cells, std::int64_t words, const double *boxes,
                                std::int64_t nbox, double gap)
{
#pragma clang fp contract(off)
   for (std::int64_t b = 0; b < nbox; ++b) {
      const double *box = boxes + 4 * b;
      const std::int64_t i1 = occupancy_bound(box[0] - gap, cells, 0), j1 = occupancy_bound(box[1] - gap, cells, 0);
      const std::int64_t i2 = occupancy_bound(box[2] + gap, cells, 1), j2 = occupancy_bound(box[3] + gap, cells, 1);
      bool empty = true;
      if (i1 < i2 && j1 < j2) {
         const std::int64_t w1 = j1 >> 6, w2 = (j2 - 1) >> 6;
         const std::uint64_t first = ~std::uint64_t(0) << (j1 & 63);
         const std::uint64_t last = ~std::uint64_t(0) >> (63 - ((j2 - 1) & 63));
         for (std::int64_t i = i1; i < i2 && empty; ++i) {
            const std::uint64_t *row = grid + i * words;
            for (std::int64_t w = w1; w <= w2; ++w) {
               std::uint64_t mask = ~std::uint64_t(0);
               if (w == w1)
                  mask &= first;
               if (w == w2)
                  mask &= last;
               if (row[w] & mask) {
                  empty = false;
                  break;
               }
            }
         }
      }
      if (empty)
         return b;
   }
   return -1;
}

} // namespace pnetviz

#endif
