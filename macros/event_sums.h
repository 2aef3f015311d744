// pnetviz: sums over a split's (or every) event of the binary jobs, each the same number, bit for
// bit, as the numpy expression it replaces (tests/metrics/test_event_sums.py compares them), in
// one or a few passes over the columns instead of numpy's masked copies of them per class:
//   * class_yields: per class (and within an optional selection) evaluate.yields(w[cls]): the
//     events, np.sum(w), np.sum(|w|), the negative-weight events and np.sum(|w[w < 0]|), and the
//     sum of the weight mode's weights (hep.mode_weights: |w|, w, or w where w > 0 else 0), each
//     in numpy's pairwise order (pair_sums.h pairwise_block) over the class's events pushed in
//     event order, the four sums in one pass: no copy of them. The weights float64 or float32 (widened exactly, summed in
//     float64: the float64 column's sums);
//   * precision_recall: roc.precision_recall's two arrays;
//   * rates: BinaryCurve's tpr / fpr (cumulative / total, clipped to [0, 1] where monotone);
//   * edge_bin_sums: per bin of sorted edges (binning.bin_index: searchsorted(edges, s, "right") - 1
//     clipped to the bins) np.bincount's sums, in event order, of v = w scale and v^2 over the
//     selected events (jobs.fitbins.process_histograms).
#ifndef PNETVIZ_EVENT_SUMS_H
#define PNETVIZ_EVENT_SUMS_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pair_sums.h"

namespace pnetviz {
namespace detail {

// numpy's pairwise tree (pair_sums.h pairwise_block: leaves of up to 128 values, halves at multiples
// of 8 above) over n values given one at a time in their order (push, no copy of them all): the
// tree's leaves and additions planned from n in the order the recursion makes them (post-order),
// each leaf summed when its last value arrives, the additions done as soon as both sides are.
// Each value is also summed as |v| and as the weight mode's value (0: |v|, 1: v, 2: v > 0 ? v : 0)
// over the same tree (kSums = 3), with its square (kSums = 2: v, v^2), or alone (kSums = 1: |v|).
template <int kSums>
class PairwisePush {
public:
   void plan(std::size_t n, int mode)
   {
      mode_ = mode;
      ops_.clear();
      stack_.clear();
      op_ = have_ = 0;
      if (n > 0)
         add_ops(n);
      leaf_ = n > 0 ? static_cast<std::size_t>(ops_[0]) : kNever;
   }
   // the next value: written at the end of the current leaf; counted when `take` (branch-free compaction)
   void offer(double v, bool take)
   {
      buf_[have_] = v;
      have_ += take;
      if (have_ == leaf_)
         flush();
   }
   void result(double *sums) const
   {
      for (int k = 0; k < kSums; ++k)
         sums[k] = 0. + (stack_.empty() ? -0. : stack_[0][k]);
   }

private:
   using Sums = std::array<double, kSums>;
   static constexpr std::size_t kNever = ~std::size_t(0);
   void add_ops(std::size_t n)
   {
      if (n <= 128) {
         ops_.push_back(static_cast<std::int64_t>(n));
         return;
      }
      std::size_t n2 = n / 2;
      n2 -= n2 % 8;
      add_ops(n2);
      add_ops(n - n2);
      ops_.push_back(-1);
   }
   void flush()
   {
#pragma clang fp contract(off)
      Sums s;
      if (kSums == 1) {
         for (std::size_t i = 0; i < have_; ++i)
            buf_[i] = std::fabs(buf_[i]);
         s[0] = pairwise_block(buf_, have_);
      } else if (kSums == 2) {
         double a[128];
         s[0] = pairwise_block(buf_, have_);
         for (std::size_t i = 0; i < have_; ++i)
            a[i] = buf_[i] * buf_[i];
         s[kSums - 1] = pairwise_block(a, have_);
      } else {
         double a[128];
         s[0] = pairwise_block(buf_, have_);
         for (std::size_t i = 0; i < have_; ++i)
            a[i] = std::fabs(buf_[i]);
         s[1] = pairwise_block(a, have_);
         for (std::size_t i = 0; i < have_; ++i)
            a[i] = mode_ == 0 ? std::fabs(buf_[i]) : mode_ == 1 ? buf_[i] : (buf_[i] > 0 ? buf_[i] : 0.);
         s[kSums - 1] = pairwise_block(a, have_);
      }
      stack_.push_back(s);
      have_ = 0;
      ++op_;
      while (op_ < ops_.size() && ops_[op_] < 0) {
         const Sums right = stack_.back();
         stack_.pop_back();
         for (int k = 0; k < kSums; ++k)
            stack_.back()[k] = stack_.back()[k] + right[k];
         ++op_;
      }
      leaf_ = op_ < ops_.size() ? static_cast<std::size_t>(ops_[op_]) : kNever;
   }
   std::vector<std::int64_t> ops_;
   std::vector<Sums> stack_;
   std::size_t op_ = 0, have_ = 0, leaf_ = kNever;
   int mode_ = 0;
   double buf_[129];
};

template <typename W>
void class_yields(const W *w, const std::uint8_t *y, const std::uint8_t *keep, std::size_t n, int mode, double *out)
{
   // the events of each class and its negative-weight ones (numpy's weights < 0: NaN is not)
   std::size_t count[2] = {0, 0}, negative[2] = {0, 0};
   for (std::size_t i = 0; i < n; ++i) {
      const std::size_t in = keep == nullptr || keep[i] != 0;
      const std::size_t signal = y[i] != 0, below = static_cast<double>(w[i]) < 0;
      count[0] += in & signal;
      count[1] += in & (signal ^ 1);
      negative[0] += in & signal & below;
      negative[1] += in & (signal ^ 1) & below;
   }
   PairwisePush<3> all[2];
   PairwisePush<1> neg[2];
   for (int k = 0; k < 2; ++k) {
      all[k].plan(count[k], mode);
      neg[k].plan(negative[k], 0);
   }
   if (negative[0] + negative[1] == 0) { // one pass: each event offered to the two classes' sums, taken by its own
      for (std::size_t i = 0; i < n; ++i) {
         const double v = static_cast<double>(w[i]);
         const bool in = keep == nullptr || keep[i] != 0;
         const bool signal = y[i] != 0;
         all[0].offer(v, in && signal);
         all[1].offer(v, in && !signal);
      }
   } else { // and to the negative weights' sums
      for (std::size_t i = 0; i < n; ++i) {
         const double v = static_cast<double>(w[i]);
         const bool in = keep == nullptr || keep[i] != 0;
         const bool signal = y[i] != 0, below = v < 0;
         all[0].offer(v, in && signal);
         all[1].offer(v, in && !signal);
         neg[0].offer(v, in && signal && below);
         neg[1].offer(v, in && !signal && below);
      }
   }
   for (int k = 0; k < 2; ++k) {
      double sums[3], negs[1];
      all[k].result(sums);
      neg[k].result(negs);
      double *o = out + 6 * k;
      o[0] = static_cast<double>(count[k]);
      o[1] = sums[0];
      o[2] = sums[1];
      o[3] = static_cast<double>(negative[k]);
      o[4] = negs[0];
      o[5] = sums[2];
   }
}

inline void class_totals(const double *w, const std::uint8_t *y, std::size_t n, double *out)
{
   std::size_t signal = 0;
   for (std::size_t i = 0; i < n; ++i)
      signal += y[i] != 0;
   PairwisePush<2> sums[2];
   sums[0].plan(signal, 0);
   sums[1].plan(n - signal, 0);
   for (std::size_t i = 0; i < n; ++i) {
      const bool is = y[i] != 0;
      sums[0].offer(w[i], is);
      sums[1].offer(w[i], !is);
   }
   sums[0].result(out);
   sums[1].result(out + 2);
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

/// roc.precision_recall's arrays of a curve of m points (cumulative tps, fps): for j < m - 1 and point i = m - 1 - j,
/// precision[j] = tps[i] / (tps[i] + fps[i]) (0 where that sum is 0) and recall[j] = tps[i] / total; then the final
/// point (precision 1, recall 0): numpy's reversed-view divisions in one pass.
inline void precision_recall(const double *tps, const double *fps, std::size_t m, double total, double *precision,
                             double *recall)
{
   const std::size_t n = m - 1;
   for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = m - 1 - j;
      const double selected = tps[i] + fps[i];
      precision[j] = selected != 0 ? tps[i] / selected : 0.;
      recall[j] = tps[i] / total;
   }
   precision[n] = 1.;
   recall[n] = 0.;
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

/// Signal sum w, sum w^2, background sum w, sum w^2, each as np.sum of the class's events in order: the
/// classes' weights pushed through numpy's pairwise tree in one pass (no copy of either class).
inline void class_totals(const double *w, const std::uint8_t *y, std::size_t n, double *out)
{
   detail::class_totals(w, y, n, out);
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
