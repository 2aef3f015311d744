// pnetviz: the weighted ROC of float32 scores by one scatter on the key's top 16 bits, each bucket
// then sorted in cache and swept at once (used by weighted_roc.h's roc_curve).
//
// Why: continuous scores (few ties) leave roc_distinct.h to a radix sort. roc_split.h's LSD sort
// moves every record through memory once per 16-bit digit (2 passes), its sweep reads the sorted
// runs once more and merges the two classes (a mispredicted branch an event), and its buffers (16
// bytes an event) are first touched by each call; on the 2-core VM (memory at ~5 GB/s) that was
// ~60 ns an event in the evaluation. Here one pass scatters the records (8 bytes: the key's low
// 16 bits, the class, the weight as a float32 when every weight is one) into 2^16 buckets by the
// key's top 16 bits (sign, exponent, 7 mantissa bits: a bucket of [0.5, 1) is 1/256 wide), in
// the fps output itself. Buckets come in key order: each is copied into cache, sorted on its low
// 16 bits (two 8-bit LSD passes, insertion sort when small) and swept into the curve before the
// next. The records cross memory twice (scatter, bucket read), the curve once.
// Values: the same as roc_split.h's sort_classes + sweep_classes, bit for bit: the scatter and the
// passes are stable, so each class's events of one key stay in input order and tp, fp and the
// chunk sums add the same weights in the same order (the other class's events add +0.0 to a sum
// that is never -0.0: no bit changes), points and chunks close at the same keys.
#ifndef PNETVIZ_ROC_MSD_H
#define PNETVIZ_ROC_MSD_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "roc_keys.h"

namespace pnetviz {
namespace detail {

constexpr int kMsdBits = 16;
constexpr std::size_t kMsdBuckets = std::size_t(1) << kMsdBits;
constexpr std::size_t kMsdInsertion = 24; // buckets up to this size: insertion sort

// A record in its bucket: `low` holds the key's low 16 bits above bit 16 and the class in bit 0
// (1 = signal); the bucket holds the top 16 bits.
template <typename W>
struct __attribute__((packed)) MsdRecord {
   std::uint32_t low;
   W weight;
};

// A record read bytewise (records lie in an output buffer of doubles).
template <typename W>
inline MsdRecord<W> load(const MsdRecord<W> *p)
{
   MsdRecord<W> r;
   std::memcpy(static_cast<void *>(&r), p, sizeof r);
   return r;
}

// One bucket's n records read from src and sorted stably on their key bits (16 to 31 of `low`)
// into out, through tmp (both with room for n). Passes in which every key shares the digit are
// skipped.
template <typename W>
void sort_bucket(const MsdRecord<W> *src, std::size_t n, MsdRecord<W> *out, MsdRecord<W> *tmp)
{
   using R = MsdRecord<W>;
   if (n <= kMsdInsertion) {
      std::memcpy(static_cast<void *>(out), src, n * sizeof(R));
      for (std::size_t i = 1; i < n; ++i) {
         const R x = out[i];
         std::size_t j = i;
         for (; j > 0 && (out[j - 1].low >> 16) > (x.low >> 16); --j)
            out[j] = out[j - 1];
         out[j] = x;
      }
      return;
   }
   std::uint32_t count[2][256] = {};
   for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t k = load(src + i).low;
      ++count[0][(k >> 16) & 0xff];
      ++count[1][k >> 24];
   }
   const std::uint32_t k0 = load(src).low;
   int passes[2], q = 0;
   for (int p = 0; p < 2; ++p) {
      std::uint32_t *cc = count[p];
      if (cc[(k0 >> (16 + 8 * p)) & 0xff] == n) continue;
      std::uint32_t sum = 0;
      for (int b = 0; b < 256; ++b) {
         const std::uint32_t v = cc[b];
         cc[b] = sum;
         sum += v;
      }
      passes[q++] = p;
   }
   if (q == 0) {
      std::memcpy(static_cast<void *>(out), src, n * sizeof(R));
      return;
   }
   R *first = q == 2 ? tmp : out; // the last pass writes out
   const int s0 = 16 + 8 * passes[0];
   std::uint32_t *cc = count[passes[0]];
   for (std::size_t i = 0; i < n; ++i) {
      const R r = load(src + i);
      first[cc[(r.low >> s0) & 0xff]++] = r;
   }
   if (q == 2) {
      cc = count[passes[1]];
      for (std::size_t i = 0; i < n; ++i)
         out[cc[tmp[i].low >> 24]++] = tmp[i];
   }
}

// roc_split.h's sweep_classes over the buckets in turn, each one sorted run of both classes.
struct MsdSweep {
   double *tps, *fps, *thresholds;
   std::size_t min_chunk;
   double *ws, *vs, *wb, *vb;
   std::size_t m = 1, in_chunk = 0, chunks = 0;
   double tp = 0., fp = 0., area = 0., a = 0., a2 = 0., c = 0., c2 = 0.;

   template <bool Chunks, typename W>
   void feed(const MsdRecord<W> *r, std::size_t n, std::uint32_t top)
   {
      for (std::size_t i = 0; i < n; ++i) {
         const double w = r[i].weight;
         const bool s = r[i].low & 1u;
         tp += s ? w : 0.;
         fp += s ? 0. : w;
         if constexpr (Chunks) {
            a += s ? w : 0.;
            a2 += s ? w * w : 0.;
            c += s ? 0. : w;
            c2 += s ? 0. : w * w;
            ++in_chunk;
         }
         const std::uint32_t k = r[i].low >> 16;
         if (i + 1 < n && (r[i + 1].low >> 16) == k) continue;
         area += (fp - fps[m - 1]) * (tp + tps[m - 1]);
         tps[m] = tp;
         fps[m] = fp;
         thresholds[m] = key_value(std::uint32_t(top | k));
         ++m;
         if constexpr (Chunks)
            if (in_chunk >= min_chunk) close();
      }
   }
   void close()
   {
      ws[chunks] = a, vs[chunks] = a2, wb[chunks] = c, vb[chunks] = c2;
      ++chunks;
      a = a2 = c = c2 = 0.;
      in_chunk = 0;
   }
   // The last key closes the last chunk (sweep_classes: `i == ns && j == nb`).
   std::size_t finish(double *auc, std::size_t *n_chunks)
   {
      if (min_chunk && in_chunk > 0) close();
      if (n_chunks) *n_chunks = chunks;
      *auc = (tp != 0. && fp != 0.) ? 0.5 * area / (tp * fp) : std::numeric_limits<double>::quiet_NaN();
      return m;
   }
};

// The curve (and chunk sums) with weights of type W (float when every non-zero weight is a float32
// value). counts: kMsdBuckets top-digit counts of the events with non-zero weight, `largest` the
// largest. The records lie bucket after bucket in fps[1, n + 1) when they take 8 bytes: a bucket's
// points are written (at indices at most the number of records of it and of the buckets before)
// after its records have been copied out, so a point never overwrites a record still to be read;
// 12-byte records lie in a buffer of their own.
template <typename W, typename Score>
std::size_t roc_msd_w(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                      std::uint32_t *counts, std::uint32_t largest, std::size_t total, double *tps, double *fps,
                      double *thresholds, double *auc, std::size_t min_chunk, double *chunks, std::size_t *n_chunks)
{
   using R = MsdRecord<W>;
   Buffer<R> own;
   if (sizeof(R) != sizeof(double)) own = make_array<R>(total);
   unsigned char *rec = own ? reinterpret_cast<unsigned char *>(own.get()) : reinterpret_cast<unsigned char *>(fps + 1);
   std::uint32_t sum = 0;
   for (std::size_t b = 0; b < kMsdBuckets; ++b) { // counts -> bucket starts
      const std::uint32_t v = counts[b];
      counts[b] = sum;
      sum += v;
   }
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      const std::uint32_t k = desc_key(score[i]);
      const R r{(k << 16) | (is_signal[i] ? 1u : 0u), static_cast<W>(w)};
      std::memcpy(rec + sizeof(R) * std::size_t(counts[k >> 16]++), &r, sizeof(R));
   }
   // counts[b]: the end of bucket b
   Buffer<R> scratch = make_array<R>(2 * std::size_t(largest));
   R *out = scratch.get(), *tmp = out + largest;
   const std::size_t cap = min_chunk ? n / min_chunk + 1 : 0;
   MsdSweep sweep{tps, fps, thresholds, min_chunk, chunks, chunks + cap, chunks + 2 * cap, chunks + 3 * cap};
   tps[0] = 0.;
   fps[0] = 0.; // before the records
   thresholds[0] = std::numeric_limits<double>::infinity();
   std::uint32_t start = 0;
   for (std::size_t b = 0; b < kMsdBuckets; ++b) {
      const std::uint32_t end = counts[b];
      if (end == start) continue;
      sort_bucket(reinterpret_cast<const R *>(rec + sizeof(R) * std::size_t(start)), end - start, out, tmp);
      if (min_chunk)
         sweep.feed<true>(out, end - start, std::uint32_t(b) << 16);
      else
         sweep.feed<false>(out, end - start, std::uint32_t(b) << 16);
      start = end;
   }
   return sweep.finish(auc, n_chunks);
}

// The ROC (and the chunk sums when min_chunk > 0) of float32 scores; n < 2^32.
template <typename Score>
std::size_t roc_msd(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                    double *tps, double *fps, double *thresholds, double *auc, std::size_t min_chunk, double *chunks,
                    std::size_t *n_chunks)
{
   std::vector<std::uint32_t> counts(kMsdBuckets, 0);
   std::size_t total = 0;
   bool exact = true;
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      ++counts[desc_key(score[i]) >> 16];
      ++total;
      exact &= double(float(w)) == w;
   }
   std::uint32_t largest = 0;
   for (const std::uint32_t v : counts)
      largest = v > largest ? v : largest;
   if (exact)
      return roc_msd_w<float>(score, weight, is_signal, n, counts.data(), largest, total, tps, fps, thresholds, auc,
                              min_chunk, chunks, n_chunks);
   return roc_msd_w<double>(score, weight, is_signal, n, counts.data(), largest, total, tps, fps, thresholds, auc,
                            min_chunk, chunks, n_chunks);
}

} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_MSD_H
