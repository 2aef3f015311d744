// pnetviz: sums over a split's (or every) event of the binary jobs, each the same number, bit for
// bit, as the numpy expression it replaces (tests/metrics/test_event_sums.py compares them), in
// one or a few passes over the columns instead of numpy's masked copies of them per class:
//   * class_yields: per class (and within an optional selection) evaluate.yields(w[cls]): the
//     events, np.sum(w), np.sum(|w|), the negative-weight events and np.sum(|w[w < 0]|), and the
//     sum of the weight mode's weights (hep.mode_weights: |w|, w, or w where w > 0 else 0), each
//     in numpy's pairwise order (pair_sums.h pairwise_block) over the class's events streamed in
//     event order: no copy of them. The weights float64 or float32 (widened exactly, summed in
//     float64: the float64 column's sums);
//   * rates: BinaryCurve's tpr / fpr (cumulative / total, clipped to [0, 1] where monotone);
//   * edge_bin_sums: per bin of sorted edges (binning.bin_index: searchsorted(edges, s, "right") - 1
//     clipped to the bins) np.bincount's sums, in event order, of v = w scale and v^2 over the
//     selected events (jobs.fitbins.process_histograms).
#ifndef PNETVIZ_EVENT_SUMS_H
#define PNETVIZ_EVENT_SUMS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "pair_sums.h"

namespace pnetviz {
namespace detail {

// The weights of the selected events, in event order, one at a time: compacted a chunk of events
// at a time without a branch per event. An event is selected when keep (if any) is set, its class
// flag is `signal`, and (negative_only) its weight is below 0.
template <typename W>
class SelectedStream {
public:
   SelectedStream(const W *w, const std::uint8_t *y, const std::uint8_t *keep, std::size_t n, bool signal,
                  bool negative_only)
      : w_(w), y_(y), keep_(keep), n_(n), signal_(signal), negative_(negative_only)
   {
   }
   double next()
   {
      if (at_ == have_)
         refill();
      return buf_[at_++];
   }

private:
   static constexpr std::size_t kChunk = 1024;
   void refill()
   {
      have_ = at_ = 0;
      while (have_ == 0 && i_ < n_) {
         const std::size_t stop = std::min(n_, i_ + kChunk);
         for (; i_ < stop; ++i_) {
            const double v = static_cast<double>(w_[i_]);
            buf_[have_] = v;
            const bool in = (keep_ == nullptr || keep_[i_] != 0) && ((y_[i_] != 0) == signal_) && (!negative_ || v < 0);
            have_ += in;
         }
      }
   }
   const W *w_;
   const std::uint8_t *y_, *keep_;
   std::size_t n_, i_ = 0, have_ = 0, at_ = 0;
   bool signal_, negative_;
   double buf_[kChunk + 1];
};

// pairwise_block (numpy's tree) of the next n streamed values v, of |v| and of the mode's value
// (0: |v|, 1: v, 2: v > 0 ? v : 0), the three over the same tree.
template <typename Source>
void pairwise_yields(Source &src, std::size_t n, int mode, double *sums)
{
#pragma clang fp contract(off)
   if (n <= 128) {
      double a[3][128];
      for (std::size_t i = 0; i < n; ++i) {
         const double v = src.next();
         a[0][i] = v;
         a[1][i] = std::fabs(v);
         a[2][i] = mode == 0 ? std::fabs(v) : mode == 1 ? v : (v > 0 ? v : 0.);
      }
      for (int k = 0; k < 3; ++k)
         sums[k] = pairwise_block(a[k], n);
      return;
   }
   std::size_t n2 = n / 2;
   n2 -= n2 % 8;
   double left[3], right[3];
   pairwise_yields(src, n2, mode, left);
   pairwise_yields(src, n - n2, mode, right);
   for (int k = 0; k < 3; ++k)
      sums[k] = left[k] + right[k];
}

template <typename W>
void class_yields(const W *w, const std::uint8_t *y, const std::uint8_t *keep, std::size_t n, int mode, double *out)
{
   std::size_t count[2] = {0, 0}, negative[2] = {0, 0};
   for (std::size_t i = 0; i < n; ++i) {
      const bool in = keep == nullptr || keep[i] != 0;
      const int k = y[i] != 0 ? 0 : 1;
      count[k] += in;
      negative[k] += in && static_cast<double>(w[i]) < 0;
   }
   for (int k = 0; k < 2; ++k) {
      double sums[3] = {-0., -0., -0.}, neg[3] = {-0., -0., -0.};
      if (count[k] > 0) {
         SelectedStream<W> stream(w, y, keep, n, k == 0, false);
         pairwise_yields(stream, count[k], mode, sums);
      }
      if (negative[k] > 0) {
         SelectedStream<W> stream(w, y, keep, n, k == 0, true);
         pairwise_yields(stream, negative[k], 0, neg);
      }
      double *o = out + 6 * k;
      o[0] = static_cast<double>(count[k]);
      o[1] = 0. + sums[0];
      o[2] = 0. + sums[1];
      o[3] = static_cast<double>(negative[k]);
      o[4] = 0. + neg[1];
      o[5] = 0. + sums[2];
   }
}

template <typename Score>
void edge_bin_sums(const Score *s, const double *w, const std::uint8_t *sel, std::size_t n, const double *edges,
                   std::size_t nedges, double scale, double *out)
{
#pragma clang fp contract(off) // v = w scale and v v unfused, as numpy's products
   const std::size_t m = nedges - 1;
   std::fill(out, out + 2 * m, 0.);
   for (std::size_t i = 0; i < n; ++i) {
      if (sel[i] == 0)
         continue;
      const double x = static_cast<double>(s[i]);
      std::size_t b = static_cast<std::size_t>(std::upper_bound(edges, edges + nedges, x) - edges);
      b = b == 0 ? 0 : std::min(b - 1, m - 1);
      const double v = w[i] * scale;
      out[b] += v;
      out[m + b] += v * v;
   }
}

} // namespace detail

/// out[i] = c[i] / total (IEEE division), clipped to [0, 1] when `clip` as np.clip does it (NaN and -0 kept, below 0
/// to 0, above 1 to 1): BinaryCurve's rates in one pass instead of numpy's divide and clip.
inline void rates(const double *c, std::size_t n, double total, int clip, double *out)
{
   if (!clip) {
      for (std::size_t i = 0; i < n; ++i)
         out[i] = c[i] / total;
      return;
   }
   for (std::size_t i = 0; i < n; ++i) {
      const double r = c[i] / total;
      const double low = r < 0. ? 0. : r;
      out[i] = low > 1. ? 1. : low;
   }
}

/// Per class (0: y != 0, 1: y == 0), over the events with keep set (keep ignored when has_keep is
/// 0), 6 numbers: events, sum w, sum |w|, events with w < 0, sum |w| of those, sum of the mode's
/// weights (mode 0 abs, 1 signed, 2 drop); the sums as np.sum of the class's events.
inline void class_yields_w64(const double *w, const std::uint8_t *y, const std::uint8_t *keep, std::size_t n,
                             int has_keep, int mode, double *out)
{
   detail::class_yields(w, y, has_keep ? keep : nullptr, n, mode, out);
}
inline void class_yields_w32(const float *w, const std::uint8_t *y, const std::uint8_t *keep, std::size_t n,
                             int has_keep, int mode, double *out)
{
   detail::class_yields(w, y, has_keep ? keep : nullptr, n, mode, out);
}

/// out[b] = sum of v = w scale and out[m + b] = sum v^2 over the selected events of bin b of the m = nedges - 1
/// bins of the increasing edges (below the first edge in bin 0, at or above the last in bin m - 1), in event order.
inline void edge_bin_sums_f32(const float *s, const double *w, const std::uint8_t *sel, std::size_t n,
                              const double *edges, std::size_t nedges, double scale, double *out)
{
   detail::edge_bin_sums(s, w, sel, n, edges, nedges, scale, out);
}
inline void edge_bin_sums_f64(const double *s, const double *w, const std::uint8_t *sel, std::size_t n,
                              const double *edges, std::size_t nedges, double scale, double *out)
{
   detail::edge_bin_sums(s, w, sel, n, edges, nedges, scale, out);
}

} // namespace pnetviz

#endif
