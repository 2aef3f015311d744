// pnetviz: the weighted ROC of float32 scores by one scatter per class on the key's top 16 bits,
// each bucket then sorted in cache and swept at once (used by roc_split.h's roc_split).
//
// Why: continuous scores (few ties) leave roc_distinct.h to the radix sort. An LSD sort moves
// every record through memory once per digit (2 passes of 16 bits, or 3 of 11) and the sweep
// reads the sorted runs once more; on a 2-core VM whose memory streams at ~5 GB/s each pass cost
// ~7 ns an event, and the per-pass buffers (16 bytes an event, first touched by each call) as
// much again in page faults. Here one pass scatters each class's records (key, weight: 8 bytes)
// into 2^16 buckets by the key's top 16 bits (sign, exponent, 7 mantissa bits: a bucket of
// [0.5, 1) is 1/256 wide), in one buffer of 8 bytes an event. Buckets come in key order: each
// is sorted on its low 16 bits in cache (two 8-bit LSD passes through a scratch the size of the
// largest bucket, insertion sort when small) and swept into the curve before the next: the
// records cross memory twice (scatter, bucket read), the curve once.
// Values: the same as roc_split.h's sort_classes + sweep_classes, bit for bit: the scatter and
// the passes are stable (a class's events of one key stay in input order), the sweep adds the
// same weights in the same order, point by point and chunk by chunk.
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

template <typename W>
struct __attribute__((packed)) MsdRecord {
   std::uint32_t key;
   W weight;
};

// The sweep of roc_split.h's sweep_classes, fed one bucket (its signal and background records,
// each sorted by key) at a time; keys of a later bucket are above those of an earlier one.
struct MsdSweep {
   double *tps, *fps, *thresholds;
   std::size_t min_chunk;
   double *ws, *vs, *wb, *vb;
   std::size_t m = 1, in_chunk = 0, chunks = 0;
   double tp = 0., fp = 0., area = 0., a = 0., a2 = 0., c = 0., c2 = 0.;

   template <typename W>
   void feed(const MsdRecord<W> *s, std::size_t ns, const MsdRecord<W> *b, std::size_t nb)
   {
      std::size_t i = 0, j = 0;
      while (i < ns || j < nb) {
         const std::uint32_t k = (j == nb || (i < ns && s[i].key <= b[j].key)) ? s[i].key : b[j].key;
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
            if (in_chunk >= min_chunk) close();
         }
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

// A record read bytewise (records may lie in an output buffer of doubles).
template <typename W>
inline MsdRecord<W> load(const MsdRecord<W> *p)
{
   MsdRecord<W> r;
   std::memcpy(static_cast<void *>(&r), p, sizeof r);
   return r;
}

// One bucket's records (keys share their top 16 bits) read from src and sorted stably on the low 16 bits into out, through tmp (both with
// room for n records). Passes in which every key shares the digit are skipped.
template <typename W>
void sort_bucket(const MsdRecord<W> *src, std::size_t n, MsdRecord<W> *out, MsdRecord<W> *tmp)
{
   using R = MsdRecord<W>;
   if (n <= kMsdInsertion) {
      std::memcpy(static_cast<void *>(out), src, n * sizeof(R));
      for (std::size_t i = 1; i < n; ++i) {
         const R x = out[i];
         std::size_t j = i;
         for (; j > 0 && out[j - 1].key > x.key; --j)
            out[j] = out[j - 1];
         out[j] = x;
      }
      return;
   }
   std::uint32_t count[2][256] = {};
   for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t k = load(src + i).key;
      ++count[0][k & 0xff];
      ++count[1][(k >> 8) & 0xff];
   }
   const std::uint32_t k0 = load(src).key;
   int passes[2], q = 0;
   for (int p = 0; p < 2; ++p) {
      std::uint32_t *cc = count[p];
      if (cc[(k0 >> (8 * p)) & 0xff] == n) continue;
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
   std::uint32_t *cc = count[passes[0]];
   for (std::size_t i = 0; i < n; ++i) {
      const R r = load(src + i);
      first[cc[(r.key >> (8 * passes[0])) & 0xff]++] = r;
   }
   if (q == 2) {
      cc = count[passes[1]];
      for (std::size_t i = 0; i < n; ++i)
         out[cc[(tmp[i].key >> (8 * passes[1])) & 0xff]++] = tmp[i];
   }
}

// The curve (and chunk sums) of float32 scores with weights of type W (float when every non-zero
// weight is a float32 value), by the bucket scatter and per-bucket sort and sweep above.
// counts: 2 x kMsdBuckets top-digit counts per class (c = 1 signal) of the events with non-zero
// weight; size: their numbers per class. The records lie bucket after bucket (each bucket's
// signal, then its background). With 8-byte records they lie in fps[1, n + 1): the points of a
// bucket are written (at indices at most the number of records of it and the buckets before)
// after the bucket's records have been copied out, so a point never overwrites a record still
// to be read; otherwise in a buffer of their own.
template <typename W, typename Score>
std::size_t roc_msd_w(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                      std::uint32_t *counts, const std::size_t *size, double *tps, double *fps, double *thresholds,
                      double *auc, std::size_t min_chunk, double *chunks, std::size_t *n_chunks)
{
   using R = MsdRecord<W>;
   constexpr bool kInFps = sizeof(R) == sizeof(double);
   Buffer<R> own;
   unsigned char *rec = kInFps ? reinterpret_cast<unsigned char *>(fps + 1)
                               : reinterpret_cast<unsigned char *>((own = make_array<R>(size[0] + size[1])).get());
   std::uint32_t *at_s = counts + kMsdBuckets, *at_b = counts, largest = 0, sum = 0;
   for (std::size_t b = 0; b < kMsdBuckets; ++b) { // counts -> where each bucket's signal, background start
      const std::uint32_t ns = at_s[b], nb = at_b[b];
      largest = ns > largest ? ns : largest;
      largest = nb > largest ? nb : largest;
      at_s[b] = sum;
      at_b[b] = sum + ns;
      sum += ns + nb;
   }
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      const std::uint32_t k = desc_key(score[i]);
      std::uint32_t *at = is_signal[i] ? at_s : at_b;
      const R r{k, static_cast<W>(w)};
      std::memcpy(rec + sizeof(R) * std::size_t(at[k >> 16]++), &r, sizeof(R));
   }
   // at_s[b]: the end of bucket b's signal (the start of its background), at_b[b]: the bucket's end
   Buffer<R> scratch = make_array<R>(3 * std::size_t(largest));
   R *out_s = scratch.get(), *out_b = out_s + largest, *tmp = out_b + largest;
   const std::size_t cap = min_chunk ? n / min_chunk + 1 : 0;
   MsdSweep sweep{tps, fps, thresholds, min_chunk, chunks, chunks + cap, chunks + 2 * cap, chunks + 3 * cap};
   tps[0] = 0.;
   fps[0] = 0.; // before the records
   thresholds[0] = std::numeric_limits<double>::infinity();
   std::uint32_t start = 0;
   for (std::size_t b = 0; b < kMsdBuckets; ++b) {
      const std::uint32_t mid = at_s[b], end = at_b[b];
      if (end == start) continue;
      const std::size_t ns = mid - start, nb = end - mid;
      sort_bucket(reinterpret_cast<const R *>(rec + sizeof(R) * std::size_t(start)), ns, out_s, tmp);
      sort_bucket(reinterpret_cast<const R *>(rec + sizeof(R) * std::size_t(mid)), nb, out_b, tmp);
      sweep.feed(out_s, ns, out_b, nb);
      start = end;
   }
   return sweep.finish(auc, n_chunks);
}

// The ROC (and chunk sums when min_chunk > 0) of float32 scores; n < 2^32.
template <typename Score>
std::size_t roc_msd(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                    double *tps, double *fps, double *thresholds, double *auc, std::size_t min_chunk, double *chunks,
                    std::size_t *n_chunks)
{
   std::vector<std::uint32_t> counts(2 * kMsdBuckets, 0);
   std::size_t size[2] = {0, 0};
   bool exact = true;
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      const int c = is_signal[i] ? 1 : 0;
      ++counts[c * kMsdBuckets + (desc_key(score[i]) >> 16)];
      ++size[c];
      exact &= double(float(w)) == w;
   }
   if (exact)
      return roc_msd_w<float>(score, weight, is_signal, n, counts.data(), size, tps, fps, thresholds, auc, min_chunk,
                              chunks, n_chunks);
   return roc_msd_w<double>(score, weight, is_signal, n, counts.data(), size, tps, fps, thresholds, auc, min_chunk,
                            chunks, n_chunks);
}

} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_MSD_H
