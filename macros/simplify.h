// pnetviz: the points of a drawn line to keep (python/pnetviz/draw/simplify.py). Ramer-Douglas-
// Peucker over each run of finite points: a run's two ends are kept; between two kept points, the
// point farthest from the segment joining them is kept when its distance exceeds `tolerance`, and
// the two halves are looked at in turn. Every dropped point is within `tolerance` of the segment
// between the kept points around it (the distance to a segment: to its nearest point, an end
// included), so the drawn line is within `tolerance` of the exact one. Coordinates are the caller's
// (the frame's fractions). A non-finite point is kept and splits the line, as ROOT's painter splits
// a graph there. Pure function over arrays; keep[i] = 1 for a kept point, 0 otherwise.
#ifndef PNETVIZ_SIMPLIFY_H
#define PNETVIZ_SIMPLIFY_H

#include <cmath>
#include <cstdint>
#include <cstddef>
#include <vector>

namespace pnetviz {

inline double segment_distance(double px, double py, double ax, double ay, double bx, double by)
{
   const double dx = bx - ax, dy = by - ay, qx = px - ax, qy = py - ay;
   const double length2 = dx * dx + dy * dy;
   if (length2 == 0.0)
      return std::hypot(qx, qy);
   const double t = (qx * dx + qy * dy) / length2;
   if (t <= 0.0)
      return std::hypot(qx, qy);
   if (t >= 1.0)
      return std::hypot(px - bx, py - by);
   return std::fabs(qx * dy - qy * dx) / std::sqrt(length2);
}

inline void simplify_run(const double *x, const double *y, std::int64_t first, std::int64_t last, double tolerance,
                         std::uint8_t *keep, std::vector<std::int64_t> &stack)
{
   keep[first] = keep[last] = 1;
   stack.clear();
   stack.push_back(first);
   stack.push_back(last);
   while (!stack.empty()) {
      const std::int64_t b = stack.back();
      stack.pop_back();
      const std::int64_t a = stack.back();
      stack.pop_back();
      double farthest = -1.0;
      std::int64_t at = -1;
      for (std::int64_t i = a + 1; i < b; ++i) {
         const double d = segment_distance(x[i], y[i], x[a], y[a], x[b], y[b]);
         if (d > farthest) {
            farthest = d;
            at = i;
         }
      }
      if (at >= 0 && farthest > tolerance) {
         keep[at] = 1;
         stack.push_back(a);
         stack.push_back(at);
         stack.push_back(at);
         stack.push_back(b);
      }
   }
}

inline void simplify_line(const double *x, const double *y, std::int64_t n, double tolerance, std::uint8_t *keep)
{
   std::vector<std::int64_t> stack;
   std::int64_t start = -1;
   for (std::int64_t i = 0; i <= n; ++i) {
      const bool finite = i < n && std::isfinite(x[i]) && std::isfinite(y[i]);
      if (i < n)
         keep[i] = finite ? 0 : 1;
      if (finite && start < 0)
         start = i;
      if (!finite && start >= 0) {
         simplify_run(x, y, start, i - 1, tolerance, keep, stack);
         start = -1;
      }
   }
}

// metrics.roc.decimate(x, y, step) as a mask, the same points (its arithmetic: the L1 segment
// lengths summed in order, floor(length / step) the bucket): both ends, each point where the
// bucket changes, and the point before a segment longer than step / 2. Finite points only.
inline void decimate_mask(const double *x, const double *y, std::int64_t n, double step, std::uint8_t *mark)
{
#pragma clang fp contract(off)
   for (std::int64_t i = 0; i < n; ++i)
      mark[i] = 0;
   if (n == 0)
      return;
   mark[0] = mark[n - 1] = 1;
   double length = 0.0, bucket = 0.0;
   for (std::int64_t i = 1; i < n; ++i) {
      const double seg = std::fabs(x[i] - x[i - 1]) + std::fabs(y[i] - y[i - 1]);
      length += seg;
      const double b = std::floor(length / step);
      if (b != bucket) {
         mark[i] = 1;
         if (seg > step / 2)
            mark[i - 1] = 1;
      }
      bucket = b;
   }
}

// The points of a drawn line to keep (draw/simplify.py `simplify`): of a line of finite points,
// those decimate_mask keeps at tolerance / 2 simplified at tolerance / 2 (each half bounding its
// own step, the first bounding the second's work); with a non-finite point, simplify_line at
// tolerance / 2 alone. keep[i] = 1 for a kept point.
inline void simplify_drawn(const double *x, const double *y, std::int64_t n, double tolerance, std::uint8_t *keep)
{
   bool finite = true;
   for (std::int64_t i = 0; i < n && finite; ++i)
      finite = std::isfinite(x[i]) && std::isfinite(y[i]);
   if (!finite) {
      simplify_line(x, y, n, tolerance / 2, keep);
      return;
   }
   decimate_mask(x, y, n, tolerance / 2, keep);
   std::vector<std::int64_t> at;
   for (std::int64_t i = 0; i < n; ++i)
      if (keep[i])
         at.push_back(i);
   std::vector<double> xs(at.size()), ys(at.size());
   for (std::size_t k = 0; k < at.size(); ++k) {
      xs[k] = x[at[k]];
      ys[k] = y[at[k]];
   }
   std::vector<std::uint8_t> kept(at.size());
   simplify_line(xs.data(), ys.data(), static_cast<std::int64_t>(at.size()), tolerance / 2, kept.data());
   for (std::size_t k = 0; k < at.size(); ++k)
      keep[at[k]] = kept[k];
}

} // namespace pnetviz

#endif
