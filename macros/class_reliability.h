// pnetviz: the reliability sums of every class score of a multi-class model in one pass over
// the events of one split (sel[i] != 0), weights w after the weight mode.
//
// For every class c, per bin of nbins equal bins of [0, 1] of P(c) (class_tables.h's
// equal_bin, numpy's rule): the sums calibration.reliability_sums takes of the split's events
// (pairsweeps.class_bin_sums' rows but the others' sum w): all w, w of class c (label == c),
// w^2 of class c, w^2 of the others, w x P(c), and the events with w != 0. Each sum runs over
// the events in order, as class_bin_sums does over the split's copies (p[sel], w[sel]): the same
// doubles, without the 3 k copies of the split's events. Layout: scores is k rows of n values
// (row c = P(class c)); out is k x 6 x nbins ((c * 6 + row) * nbins + bin), zeroed here.
// Pure function over arrays; python/pnetviz/jobs/multijob.py (class_reliability) calls it.
#ifndef PNETVIZ_CLASS_RELIABILITY_H
#define PNETVIZ_CLASS_RELIABILITY_H

#include <algorithm>
#include <cstdint>

#include "class_tables.h"

namespace pnetviz {

namespace detail {

template <typename Score>
void class_reliability(const Score *scores, std::int64_t n, int k, const std::int32_t *label, const double *w,
                       const std::uint8_t *sel, int nbins, double *out)
{
#pragma clang fp contract(off) // w x + sum unfused, as numpy's product then sum
   std::fill(out, out + std::int64_t(k) * 6 * nbins, 0.0);
   for (std::int64_t i = 0; i < n; ++i) {
      if (!sel[i]) continue;
      const double wi = w[i], events = wi != 0. ? 1. : 0.;
      const int t = label[i];
      for (int c = 0; c < k; ++c) {
         const double x = scores[std::int64_t(c) * n + i];
         const int bin = equal_bin(x, nbins);
         double *table = out + std::int64_t(c) * 6 * nbins + bin;
         table[0] += wi;
         if (t == c) {
            table[nbins] += wi;
            table[2 * nbins] += wi * wi;
         } else {
            table[3 * nbins] += wi * wi;
         }
         table[4 * nbins] += wi * x;
         table[5 * nbins] += events;
      }
   }
}

} // namespace detail

inline void class_reliability_f32(const float *scores, std::int64_t n, int k, const std::int32_t *label,
                                  const double *w, const std::uint8_t *sel, int nbins, double *out)
{
   detail::class_reliability(scores, n, k, label, w, sel, nbins, out);
}

inline void class_reliability_f64(const double *scores, std::int64_t n, int k, const std::int32_t *label,
                                  const double *w, const std::uint8_t *sel, int nbins, double *out)
{
   detail::class_reliability(scores, n, k, label, w, sel, nbins, out);
}

} // namespace pnetviz

#endif
