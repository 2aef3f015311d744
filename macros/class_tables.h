// pnetviz: the per-class tables of a multi-class model in one pass over the events.
//
// For the events of one split (sel[i] != 0), with weights w already after the weight mode:
//   * the argmax prediction (first maximum wins, as numpy.argmax) and the k x k confusion
//     matrix, rows = true class, columns = predicted class: summed w, and counts of w != 0;
//   * for every class score c and every true class t, the 50-bin (nbins) histogram of
//     P(c) on [0, 1]: summed w and w^2. Scores below 0 go to the first bin and scores >= 1 to
//     the last, exactly as evaluate.binned_sums (no event leaves the normalisation).
// Layout: scores is k rows of n values (row c = P(class c)); confusion and counts are k*k
// (t*k + p); hist and hist_w2 are k*k*nbins ((c*k + t)*nbins + bin). Outputs are zeroed here.
// Pure function over arrays; python/pnetviz/multiclass.py calls it once per split.
#ifndef PNETVIZ_CLASS_TABLES_H
#define PNETVIZ_CLASS_TABLES_H

#include <algorithm>
#include <cstdint>

namespace pnetviz {

namespace detail {

// The bin of x among nbins equal bins of [0, 1] by numpy.histogram's rule: int(x * nbins) corrected
// against the edges k * (1 / nbins) (0.58 * 50 = 28.999999999999996, yet 0.58 is the edge of bin 29);
// x <= 0 in the first bin, x >= 1 in the last. The same as evaluate.equal_bins.
inline int equal_bin(double x, int nbins)
{
   if (!(x > 0.0)) return 0;
   if (x >= 1.0) return nbins - 1;
   int bin = std::min(int(x * nbins), nbins - 1);
   const double step = 1.0 / nbins;
   if (bin > 0 && x < bin * step) --bin;
   else if (bin < nbins - 1 && x >= (bin + 1) * step) ++bin;
   return bin;
}

template <typename Score>
void class_tables(const Score *scores, std::int64_t n, int k, const std::int32_t *label, const double *w,
                  const std::uint8_t *sel, int nbins, double *confusion, double *counts, double *hist,
                  double *hist_w2)
{
   std::fill(confusion, confusion + k * k, 0.0);
   std::fill(counts, counts + k * k, 0.0);
   std::fill(hist, hist + std::int64_t(k) * k * nbins, 0.0);
   std::fill(hist_w2, hist_w2 + std::int64_t(k) * k * nbins, 0.0);
   for (std::int64_t i = 0; i < n; ++i) {
      if (!sel[i]) continue;
      const int t = label[i];
      const double wi = w[i];
      int best = 0;
      double best_score = scores[i];
      for (int c = 0; c < k; ++c) {
         const double x = scores[std::int64_t(c) * n + i];
         if (x > best_score) {
            best = c;
            best_score = x;
         }
         const int bin = equal_bin(x, nbins);
         const std::int64_t at = (std::int64_t(c) * k + t) * nbins + bin;
         hist[at] += wi;
         hist_w2[at] += wi * wi;
      }
      confusion[t * k + best] += wi;
      counts[t * k + best] += (wi != 0.0);
   }
}

} // namespace detail

inline void class_tables_f32(const float *scores, std::int64_t n, int k, const std::int32_t *label, const double *w,
                             const std::uint8_t *sel, int nbins, double *confusion, double *counts, double *hist,
                             double *hist_w2)
{
   detail::class_tables(scores, n, k, label, w, sel, nbins, confusion, counts, hist, hist_w2);
}

inline void class_tables_f64(const double *scores, std::int64_t n, int k, const std::int32_t *label, const double *w,
                             const std::uint8_t *sel, int nbins, double *confusion, double *counts, double *hist,
                             double *hist_w2)
{
   detail::class_tables(scores, n, k, label, w, sel, nbins, confusion, counts, hist, hist_w2);
}

} // namespace pnetviz

#endif // PNETVIZ_CLASS_TABLES_H
