// pnetviz: the weighted ROC curve from one sorted run per class (used by weighted_roc.h's
// roc_curve for float64 scores, with or without the bootstrap's chunk sums; float32 scores take
// roc_msd.h's bucket sort, which gives the same bits).
//
// Why: the curve needs, at each distinct score, the signal and background weight summed so far.
// Sorting signal and background apart needs no class in a record: a record is its key and its
// weight, 8 bytes when every weight is a float32 value (a float32 tree's weights, as Python
// hands them over in float64: converted back exactly), 12 otherwise, instead of the 16 of a
// mixed record; the radix passes move half the bytes. The sweep then walks both runs by key.
// Values are the same, bit for bit, as one sort of mixed records: each class's events keep
// their input order within a score (stable sort), so tp and fp add the same weights in the same
// order (the mixed sweep added +-0 for the other class, which changes no sum), and the chunk
// sums close at the same score boundaries after the same number of events.
#ifndef PNETVIZ_ROC_SPLIT_H
#define PNETVIZ_ROC_SPLIT_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "roc_keys.h"

namespace pnetviz {
namespace detail {

// Digits of the per-class sort: 16 bits (2 passes for a float32's key, 4 for a float64's);
// 11-bit digits (3 passes) were slower at 1e7 on the 2-core VM (0.12 s against 0.10 s).
constexpr int kSplitBits = 16;
constexpr std::size_t kSplitBuckets = std::size_t(1) << kSplitBits;
template <typename Key>
constexpr int kSplitPasses = (8 * sizeof(Key) + kSplitBits - 1) / kSplitBits;

template <typename Key>
inline std::size_t split_digit(Key key, int pass)
{
   return (key >> (pass * kSplitBits)) & (kSplitBuckets - 1);
}

// The digit passes one class's keys need, from its counts (kSplitPasses x kSplitBuckets): a digit
// every key shares (that of k0, the class's first key, counted size times) needs no pass; each
// other digit's counts become exclusive prefix sums (the scatter offsets). Writes the passes in
// order to `passes` and returns their number.
template <typename Key>
inline int digit_passes(std::uint32_t *counts, std::uint32_t size, Key k0, int *passes)
{
   int q = 0;
   for (int p = 0; p < kSplitPasses<Key>; ++p) {
      std::uint32_t *cc = counts + p * kSplitBuckets;
      if (cc[split_digit(k0, p)] == size) continue;
      std::uint32_t sum = 0;
      for (std::size_t b = 0; b < kSplitBuckets; ++b) {
         const std::uint32_t v = cc[b];
         cc[b] = sum;
         sum += v;
      }
      passes[q++] = p;
   }
   return q;
}

template <typename Key, typename W>
struct __attribute__((packed)) KeyWeight {
   Key key;
   W weight;
};

// The per-class, per-pass digit counts of the events with non-zero weight (counts: 2 classes x
// kSplitPasses x kSplitBuckets, zeroed), their number per class and the first index of each class.
// Returns whether every such weight is a float32 value.
template <typename Key, typename Score>
bool count_classes(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                   std::uint32_t *counts, std::size_t *size, std::size_t *first)
{
   constexpr int P = kSplitPasses<Key>;
   bool exact = true;
   size[0] = size[1] = 0;
   first[0] = first[1] = n;
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      const int c = is_signal[i] ? 1 : 0;
      const Key k = desc_key(score[i]);
      std::uint32_t *cc = counts + c * P * kSplitBuckets;
      for (int p = 0; p < P; ++p)
         ++cc[p * kSplitBuckets + split_digit(k, p)];
      exact &= double(float(w)) == w;
      if (size[c]++ == 0) first[c] = i;
   }
   return exact;
}

// Both classes' runs sorted by key (stable), from the counts of count_classes: run[c] holds
// size[c] records. The first pass in which a class's keys differ scatters straight from the
// inputs, later ones buffer to buffer; passes in which all of a class's keys share the digit
// are skipped.
template <typename Key, typename W, typename Score>
void sort_classes(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                  std::uint32_t *counts, const std::size_t *size, const std::size_t *first,
                  Buffer<KeyWeight<Key, W>> *run)
{
   using R = KeyWeight<Key, W>;
   constexpr int P = kSplitPasses<Key>;
   int passes[2][P], q[2] = {0, 0};
   Buffer<R> tmp[2];
   R *dst[2];
   std::uint32_t *scatter[2] = {nullptr, nullptr};
   std::uint32_t fill[2] = {0, 0}; // a class of one key: records in input order
   for (int c = 0; c < 2; ++c) {
      run[c] = make_array<R>(size[c]);
      if (size[c] == 0) continue;
      const Key k0 = desc_key(score[first[c]]);
      q[c] = digit_passes(counts + c * P * kSplitBuckets, std::uint32_t(size[c]), k0, passes[c]);
      if (q[c] >= 2) tmp[c] = make_array<R>(size[c]);
      dst[c] = (q[c] % 2 == 0 && q[c] > 0 ? tmp[c] : run[c]).get();
      if (q[c] > 0) scatter[c] = counts + (c * P + passes[c][0]) * kSplitBuckets;
   }
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      const int c = is_signal[i] ? 1 : 0;
      const Key k = desc_key(score[i]);
      const std::uint32_t at = scatter[c] ? scatter[c][split_digit(k, passes[c][0])]++ : fill[c]++;
      dst[c][at] = R{k, static_cast<W>(w)};
   }
   for (int c = 0; c < 2; ++c) {
      for (int j = 1; j < q[c]; ++j) {
         const R *src = dst[c];
         dst[c] = (src == run[c].get() ? tmp[c] : run[c]).get();
         std::uint32_t *cc = counts + (c * P + passes[c][j]) * kSplitBuckets;
         for (std::size_t i = 0; i < size[c]; ++i)
            dst[c][cc[split_digit(src[i].key, passes[c][j])]++] = src[i];
      }
   }
}

// The curve of the two sorted runs (signal run s, background run b): as weighted_roc.h's
// sweep, and the bootstrap's chunk sums (roc_bootstrap.h's chunk_sums) when min_chunk > 0.
template <typename Key, typename W>
std::size_t sweep_classes(const KeyWeight<Key, W> *s, std::size_t ns, const KeyWeight<Key, W> *b, std::size_t nb,
                          double *tps, double *fps, double *thresholds, double *auc, std::size_t min_chunk,
                          double *ws, double *vs, double *wb, double *vb, std::size_t *n_chunks)
{
   tps[0] = 0.;
   fps[0] = 0.;
   thresholds[0] = std::numeric_limits<double>::infinity();
   std::size_t m = 1, i = 0, j = 0, in_chunk = 0, chunks = 0;
   double tp = 0., fp = 0., area = 0., a = 0., a2 = 0., c = 0., c2 = 0.;
   while (i < ns || j < nb) {
      const Key k = (j == nb || (i < ns && s[i].key <= b[j].key)) ? s[i].key : b[j].key;
      const std::size_t i0 = i, j0 = j;
      for (; i < ns && s[i].key == k; ++i) {
         const double w = s[i].weight;
         tp += w;
         if (min_chunk) a += w, a2 += w * w;
      }
      for (; j < nb && b[j].key == k; ++j) {
         const double w = b[j].weight;
         fp += w;
         if (min_chunk) c += w, c2 += w * w;
      }
      area += (fp - fps[m - 1]) * (tp + tps[m - 1]);
      tps[m] = tp;
      fps[m] = fp;
      thresholds[m] = key_value(k);
      ++m;
      if (min_chunk) {
         in_chunk += (i - i0) + (j - j0);
         if (in_chunk >= min_chunk || (i == ns && j == nb)) {
            ws[chunks] = a, vs[chunks] = a2, wb[chunks] = c, vb[chunks] = c2;
            ++chunks;
            a = a2 = c = c2 = 0.;
            in_chunk = 0;
         }
      }
   }
   if (n_chunks) *n_chunks = chunks;
   *auc = (tp != 0. && fp != 0.) ? 0.5 * area / (tp * fp) : std::numeric_limits<double>::quiet_NaN();
   return m;
}

template <typename Key, typename W, typename Score>
std::size_t roc_split_w(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                        std::uint32_t *counts, const std::size_t *size, const std::size_t *first, double *tps,
                        double *fps, double *thresholds, double *auc, std::size_t min_chunk, double *chunks,
                        std::size_t *n_chunks)
{
   Buffer<KeyWeight<Key, W>> run[2];
   sort_classes<Key, W>(score, weight, is_signal, n, counts, size, first, run);
   const std::size_t cap = min_chunk ? n / min_chunk + 1 : 0;
   return sweep_classes(run[1].get(), size[1], run[0].get(), size[0], tps, fps, thresholds, auc, min_chunk, chunks,
                        chunks + cap, chunks + 2 * cap, chunks + 3 * cap, n_chunks);
}

// The ROC (and the chunk sums when min_chunk > 0) by one sort per class; n < 2^32.
template <typename Key, typename Score>
std::size_t roc_split(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                      double *tps, double *fps, double *thresholds, double *auc, std::size_t min_chunk,
                      double *chunks, std::size_t *n_chunks)
{
   std::vector<std::uint32_t> counts(2 * kSplitPasses<Key> * kSplitBuckets, 0);
   std::size_t size[2], first[2];
   if (count_classes<Key>(score, weight, is_signal, n, counts.data(), size, first))
      return roc_split_w<Key, float>(score, weight, is_signal, n, counts.data(), size, first, tps, fps, thresholds,
                                     auc, min_chunk, chunks, n_chunks);
   return roc_split_w<Key, double>(score, weight, is_signal, n, counts.data(), size, first, tps, fps, thresholds,
                                   auc, min_chunk, chunks, n_chunks);
}

} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_SPLIT_H
