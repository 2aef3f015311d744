// pnetviz: exact weighted ROC core.
//
// Stateless functions over plain arrays, JIT-compiled through cling (or built into a shared
// library by CMake). Conventions:
//   * signal is the positive class (label 1), background is label 0;
//   * an event is selected when score >= threshold; events with equal scores form one point;
//   * events with zero weight are dropped (as scikit-learn does), they cannot move a point;
//   * cumulative weights are accumulated in double precision.
//
// The work is split so that it can later be distributed: `sort_run_*` turns one chunk of
// events into a run of records sorted by decreasing score, runs can be merged with
// `merge_runs_*`, and `sweep_*` turns one sorted run into the cumulative (tps, fps) curve.
#ifndef PNETVIZ_WEIGHTED_ROC_H
#define PNETVIZ_WEIGHTED_ROC_H

#ifdef __CLING__
#pragma cling optimize(3)
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace pnetviz {

// One event in a sorted run: an order-preserving unsigned key (ascending key == descending
// score), the event weight and the class (1 = signal, 0 = background).
template <typename Key>
struct RocRecord {
   Key key;
   std::uint32_t is_signal;
   double weight;
};

namespace detail {

inline std::uint32_t desc_key(float f)
{
   if (f == 0.f) f = 0.f; // fold -0 onto +0: they are the same threshold
   std::uint32_t u;
   std::memcpy(&u, &f, sizeof u);
   u = (u & 0x80000000u) ? ~u : (u | 0x80000000u); // ascending in f
   return ~u;                                         // ascending in -f
}

inline std::uint64_t desc_key(double f)
{
   if (f == 0.) f = 0.;
   std::uint64_t u;
   std::memcpy(&u, &f, sizeof u);
   u = (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
   return ~u;
}

inline double key_value(std::uint32_t k)
{
   std::uint32_t u = ~k;
   u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
   float f;
   std::memcpy(&f, &u, sizeof f);
   return f;
}

inline double key_value(std::uint64_t k)
{
   std::uint64_t u = ~k;
   u = (u & 0x8000000000000000ull) ? (u & 0x7fffffffffffffffull) : ~u;
   double f;
   std::memcpy(&f, &u, sizeof f);
   return f;
}

// LSD radix sort on 11-bit digits; passes in which every key shares the digit are skipped.
template <typename Key>
void radix_sort(std::vector<RocRecord<Key>> &recs)
{
   constexpr int kBits = 11;
   constexpr std::size_t kBuckets = std::size_t(1) << kBits;
   constexpr int kPasses = (8 * sizeof(Key) + kBits - 1) / kBits;
   const std::size_t n = recs.size();
   if (n < 2) return;
   std::vector<std::size_t> counts(kPasses * kBuckets, 0);
   for (const auto &r : recs)
      for (int p = 0; p < kPasses; ++p)
         ++counts[p * kBuckets + ((r.key >> (p * kBits)) & (kBuckets - 1))];
   std::vector<RocRecord<Key>> tmp(n);
   for (int p = 0; p < kPasses; ++p) {
      std::size_t *c = &counts[p * kBuckets];
      const std::size_t first = (recs[0].key >> (p * kBits)) & (kBuckets - 1);
      if (c[first] == n) continue; // all keys share this digit
      std::size_t sum = 0;
      for (std::size_t b = 0; b < kBuckets; ++b) {
         const std::size_t cnt = c[b];
         c[b] = sum;
         sum += cnt;
      }
      for (const auto &r : recs)
         tmp[c[(r.key >> (p * kBits)) & (kBuckets - 1)]++] = r;
      recs.swap(tmp);
   }
}

template <typename Key, typename Score>
std::vector<RocRecord<Key>> sort_run(const Score *score, const double *weight, const std::uint8_t *is_signal,
                                     std::size_t n)
{
   std::vector<RocRecord<Key>> recs;
   recs.reserve(n);
   for (std::size_t i = 0; i < n; ++i) {
      if (weight[i] == 0.) continue;
      recs.push_back({desc_key(score[i]), is_signal[i] ? 1u : 0u, weight[i]});
   }
   radix_sort(recs);
   return recs;
}

// One point per distinct score; point 0 is (0, 0) at threshold +inf.
// Outputs need room for (number of records + 1) entries; returns the number of points written.
template <typename Key>
std::size_t sweep(const std::vector<RocRecord<Key>> &recs, double *tps, double *fps, double *thresholds)
{
   tps[0] = 0.;
   fps[0] = 0.;
   thresholds[0] = std::numeric_limits<double>::infinity();
   std::size_t m = 1;
   double tp = 0., fp = 0.;
   const std::size_t n = recs.size();
   for (std::size_t i = 0; i < n; ++i) {
      if (recs[i].is_signal)
         tp += recs[i].weight;
      else
         fp += recs[i].weight;
      if (i + 1 == n || recs[i + 1].key != recs[i].key) {
         tps[m] = tp;
         fps[m] = fp;
         thresholds[m] = key_value(recs[i].key);
         ++m;
      }
   }
   return m;
}

} // namespace detail

/// Exact weighted ROC of float32 scores: writes cumulative signal (tps) and background (fps)
/// weights at each distinct threshold, in decreasing threshold order, starting with (0, 0)
/// at +inf. Output arrays need n + 1 entries. Returns the number of points.
inline std::size_t roc_curve_f32(const float *score, const double *weight, const std::uint8_t *is_signal,
                                 std::size_t n, double *tps, double *fps, double *thresholds)
{
   const auto recs = detail::sort_run<std::uint32_t>(score, weight, is_signal, n);
   return detail::sweep(recs, tps, fps, thresholds);
}

/// As roc_curve_f32, for float64 scores (64-bit keys: no ties are invented by rounding).
inline std::size_t roc_curve_f64(const double *score, const double *weight, const std::uint8_t *is_signal,
                                 std::size_t n, double *tps, double *fps, double *thresholds)
{
   const auto recs = detail::sort_run<std::uint64_t>(score, weight, is_signal, n);
   return detail::sweep(recs, tps, fps, thresholds);
}

/// Sorted run of one chunk (float64 scores), for merging chunks processed separately.
inline std::vector<RocRecord<std::uint64_t>>
sort_run_f64(const double *score, const double *weight, const std::uint8_t *is_signal, std::size_t n)
{
   return detail::sort_run<std::uint64_t>(score, weight, is_signal, n);
}

/// Merge two sorted runs into one sorted run (stable, linear time).
inline std::vector<RocRecord<std::uint64_t>> merge_runs_f64(const std::vector<RocRecord<std::uint64_t>> &a,
                                                            const std::vector<RocRecord<std::uint64_t>> &b)
{
   std::vector<RocRecord<std::uint64_t>> out(a.size() + b.size());
   std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(),
              [](const auto &x, const auto &y) { return x.key < y.key; });
   return out;
}

/// Curve of a sorted (possibly merged) run; output arrays need run.size() + 1 entries.
inline std::size_t sweep_run_f64(const std::vector<RocRecord<std::uint64_t>> &run, double *tps, double *fps,
                                 double *thresholds)
{
   return detail::sweep(run, tps, fps, thresholds);
}

} // namespace pnetviz

#endif // PNETVIZ_WEIGHTED_ROC_H
