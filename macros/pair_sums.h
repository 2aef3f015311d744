// pnetviz: one-pass sums and sweeps of the pair metrics (python/pnetviz/metrics/pairsweeps.py),
// each the same number, bit for bit, as the numpy expression it replaces (tests/metrics/
// test_pairsweeps.py compares them), without numpy's per-metric temporaries over millions of
// events or curve points:
//   * pairwise_sum: numpy's np.sum of a contiguous float64 array (its pairwise summation: blocks
//     of up to 128 with 8 accumulators, halves at multiples of 8 above), so sums over a selection
//     gathered here equal np.sum(w[mask]);
//   * class_bin_sums: per bin of N equal bins of [0, 1] (class_tables.h's equal_bin, numpy's
//     rule) the sums np.bincount makes in event order: all w, w per class, w^2 per class, w x,
//     and the events with non-zero weight;
//   * cut_w2_sums: per cut s >= t and class, the sums of w^2 of the passing and failing events;
//   * curve_bin_sums: curvesums.curve_sums's chunked searchsorted + bincount + np.sum;
//   * ks_distance: max |r_a - r_b| of two step curves over the union of their thresholds;
//   * last_at_least: per query threshold (decreasing) the last index of a decreasing array >= it;
//   * vertices_mask: roc.vertices (points not inside an axis-parallel straight run);
//   * precision: roc._precision, tps / (tps + fps) after point 0, 0 where nothing is selected.
#ifndef PNETVIZ_PAIR_SUMS_H
#define PNETVIZ_PAIR_SUMS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "class_tables.h"

namespace pnetviz {
namespace detail {

// numpy's pairwise_sum (loops_utils.h): below 8 terms in order; up to 128 with 8 accumulators
// combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), the rest in order; above, two halves split at a
// multiple of 8.
inline double pairwise_block(const double *a, std::size_t n)
{
   if (n < 8) {
      double res = -0.;
      for (std::size_t i = 0; i < n; ++i)
         res += a[i];
      return res;
   }
   if (n <= 128) {
      double r[8];
      for (int j = 0; j < 8; ++j)
         r[j] = a[j];
      std::size_t i = 8;
      for (; i < n - (n % 8); i += 8)
         for (int j = 0; j < 8; ++j)
            r[j] += a[i + j];
      double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
      for (; i < n; ++i)
         res += a[i];
      return res;
   }
   std::size_t n2 = n / 2;
   n2 -= n2 % 8;
   return pairwise_block(a, n2) + pairwise_block(a + n2, n - n2);
}

} // namespace detail

/// np.sum(a[:n]) of a contiguous float64 array, bit for bit (the reduction starts from +0).
inline double pairwise_sum(const double *a, std::size_t n)
{
   return 0. + detail::pairwise_block(a, n);
}

namespace detail {

template <typename Score>
void class_bin_sums(const Score *x, const double *w, const std::uint8_t *is_class, std::size_t n, int nbins,
                    double *out)
{
#pragma clang fp contract(off) // w x + sum unfused, as numpy's product then sum
   // rows of nbins: all w, w of the class, w of the others, w^2 of the class, w^2 of the others, w x, events w != 0
   std::fill(out, out + 7 * std::size_t(nbins), 0.);
   double *all = out, *wc = out + nbins, *w2c = out + 3 * nbins, *wx = out + 5 * nbins, *events = out + 6 * nbins;
   for (std::size_t i = 0; i < n; ++i) {
      const double v = x[i], wi = w[i];
      const int bin = equal_bin(v, nbins);
      const int other = is_class[i] ? 0 : 1;
      all[bin] += wi;
      wc[other * nbins + bin] += wi;
      w2c[other * nbins + bin] += wi * wi;
      wx[bin] += wi * v;
      events[bin] += wi != 0. ? 1. : 0.;
   }
}

template <typename Score>
void cut_w2_sums(const Score *s, const double *w, const std::uint8_t *is_signal, std::size_t n, const double *cuts,
                 std::size_t ncuts, double *out)
{
#pragma clang fp contract(off)
   // signal pass, signal fail, background pass, background fail: w^2 compacted in event order (the
   // buffer picked by index, no branch), the buffers reused for every cut
   std::unique_ptr<double[]> part[4];
   for (auto &p : part)
      p.reset(new double[n + 1]);
   for (std::size_t c = 0; c < ncuts; ++c) {
      std::size_t at[4] = {0, 0, 0, 0};
      const Score cut = Score(cuts[c]); // numpy compares a float32 array with a Python float in float32
      double *to[4] = {part[0].get(), part[1].get(), part[2].get(), part[3].get()};
      for (std::size_t i = 0; i < n; ++i) {
         const std::size_t k = (is_signal[i] ? 0 : 2) + (s[i] >= cut ? 0 : 1);
         *to[k]++ = w[i] * w[i];
      }
      for (int k = 0; k < 4; ++k)
         at[k] = std::size_t(to[k] - part[k].get());
      for (int k = 0; k < 4; ++k)
         out[4 * c + k] = pairwise_sum(part[k].get(), at[k]);
   }
}

// std::upper_bound(a, a + m, v) - a (np.searchsorted(a, v, "right")) without a branch per step: NaN
// after everything, as numpy sorts it.
inline std::size_t count_at_most(const double *a, std::size_t m, double v)
{
   if (m == 0) return 0;
   if (v != v) return m;
   const double *base = a;
   std::size_t len = m;
   while (len > 1) {
      const std::size_t half = len / 2;
      base = base[half] <= v ? base + half : base;
      len -= half;
   }
   return std::size_t(base - a) + (*base <= v ? 1 : 0);
}

template <typename Score>
void curve_bin_sums(const Score *s, const double *w, const std::uint8_t *is_signal, std::size_t n,
                    const double *ascending, std::size_t m, std::size_t chunk, double *bins, double *totals)
{
   // bins: 2 x (m + 1) sums of w^2 (signal, background) by how many thresholds an event reaches;
   // totals: signal sum w, sum w^2, background sum w, sum w^2. Chunk by chunk as curvesums.curve_sums.
   std::fill(bins, bins + 2 * (m + 1), 0.);
   std::fill(totals, totals + 4, 0.);
   std::vector<double> local(2 * (m + 1)), cw[2], cw2[2];
   for (int k = 0; k < 2; ++k) {
      cw[k].reserve(chunk);
      cw2[k].reserve(chunk);
   }
   for (std::size_t start = 0; start < n; start += chunk) {
      const std::size_t stop = std::min(n, start + chunk);
      std::fill(local.begin(), local.end(), 0.);
      for (int k = 0; k < 2; ++k) {
         cw[k].clear();
         cw2[k].clear();
      }
      for (std::size_t i = start; i < stop; ++i) {
         const double v = s[i], wi = w[i], w2 = wi * wi;
         const std::size_t reached = count_at_most(ascending, m, v);
         const int k = is_signal[i] ? 0 : 1;
         local[k * (m + 1) + reached] += w2;
         cw[k].push_back(wi);
         cw2[k].push_back(w2);
      }
      for (std::size_t j = 0; j < 2 * (m + 1); ++j)
         bins[j] += local[j];
      for (int k = 0; k < 2; ++k) {
         totals[2 * k] += pairwise_sum(cw[k].data(), cw[k].size());
         totals[2 * k + 1] += pairwise_sum(cw2[k].data(), cw2[k].size());
      }
   }
}

} // namespace detail

/// Per bin: all w, w of the class, of the others, w^2 of the class, of the others, w x, events (7 x nbins).
inline void class_bin_sums_f32(const float *x, const double *w, const std::uint8_t *is_class, std::size_t n, int nbins,
                               double *out)
{
   detail::class_bin_sums(x, w, is_class, n, nbins, out);
}
inline void class_bin_sums_f64(const double *x, const double *w, const std::uint8_t *is_class, std::size_t n,
                               int nbins, double *out)
{
   detail::class_bin_sums(x, w, is_class, n, nbins, out);
}

/// Per cut (4 entries): sum w^2 of the signal passing s >= cut, failing, of the background passing, failing.
inline void cut_w2_sums_f32(const float *s, const double *w, const std::uint8_t *is_signal, std::size_t n,
                            const double *cuts, std::size_t ncuts, double *out)
{
   detail::cut_w2_sums(s, w, is_signal, n, cuts, ncuts, out);
}
inline void cut_w2_sums_f64(const double *s, const double *w, const std::uint8_t *is_signal, std::size_t n,
                            const double *cuts, std::size_t ncuts, double *out)
{
   detail::cut_w2_sums(s, w, is_signal, n, cuts, ncuts, out);
}

inline void curve_bin_sums_f32(const float *s, const double *w, const std::uint8_t *is_signal, std::size_t n,
                               const double *ascending, std::size_t m, std::size_t chunk, double *bins, double *totals)
{
   detail::curve_bin_sums(s, w, is_signal, n, ascending, m, chunk, bins, totals);
}
inline void curve_bin_sums_f64(const double *s, const double *w, const std::uint8_t *is_signal, std::size_t n,
                               const double *ascending, std::size_t m, std::size_t chunk, double *bins, double *totals)
{
   detail::curve_bin_sums(s, w, is_signal, n, ascending, m, chunk, bins, totals);
}

/// *out = max |ra[i] - rb[j]| over the union of the decreasing thresholds ta (na points) and tb (nb), i and
/// j the last points of each curve at or above each value (both curves start at +inf).
inline void ks_distance(const double *ta, const double *ra, std::size_t na, const double *tb, const double *rb,
                        std::size_t nb, double *out)
{
   std::size_t i = 0, j = 0;
   double d = std::fabs(ra[0] - rb[0]);
   while (i + 1 < na || j + 1 < nb) {
      const bool step_a = i + 1 < na && (j + 1 >= nb || ta[i + 1] >= tb[j + 1]);
      const bool step_b = j + 1 < nb && (i + 1 >= na || tb[j + 1] >= ta[i + 1]);
      i += step_a;
      j += step_b;
      const double e = std::fabs(ra[i] - rb[j]);
      if (e > d || e != e) d = e; // NaN propagates as in np.max
   }
   *out = d;
}

/// For each query q[k] (decreasing), the last index of t (decreasing, t[0] >= every query) with t >= q[k].
inline void last_at_least(const double *t, std::size_t n, const double *q, std::size_t nq, std::int64_t *out)
{
   std::size_t i = 0;
   for (std::size_t k = 0; k < nq; ++k) {
      while (i + 1 < n && t[i + 1] >= q[k])
         ++i;
      out[k] = std::int64_t(i);
   }
}

/// roc.vertices as a mask: 1 at both ends and at every point not inside an axis-parallel run.
inline void vertices_mask(const double *x, const double *y, std::size_t n, std::uint8_t *keep)
{
   if (n == 0) return;
   keep[0] = 1;
   keep[n - 1] = 1;
   for (std::size_t k = 1; k + 1 < n; ++k) {
      const double a = x[k - 1], b = x[k], c = x[k + 1], d = y[k - 1], e = y[k], f = y[k + 1];
      const bool between_x = ((a <= b) & (b <= c)) | ((a >= b) & (b >= c));
      const bool between_y = ((d <= e) & (e <= f)) | ((d >= e) & (e >= f));
      const bool inside = ((d == e) & (e == f) & between_x) | ((a == b) & (b == c) & between_y);
      keep[k] = !inside;
   }
}

/// tps / (tps + fps) at points 1..m-1 (0 where tps + fps is 0): m - 1 entries.
inline void precision(const double *tps, const double *fps, std::size_t m, double *out)
{
   for (std::size_t i = 1; i < m; ++i) {
      const double selected = tps[i] + fps[i];
      out[i - 1] = selected != 0. ? tps[i] / selected : 0.;
   }
}

} // namespace pnetviz

#endif
