// pnetviz: the Poisson bootstrap of a weighted ROC, over one run of records sorted by
// decreasing score (weighted_roc.h's RocRecord, or any struct with `key`, `is_signal` and
// `weight`: events with equal keys form one point). Per replica every event's weight is
// multiplied by a Poisson(1) count; each replica gives its AUC and its background efficiency at
// a signal efficiency. Exact per-event replicas (`bootstrap`), or for large samples normal draws
// per chunk of events (`bootstrap_binned`, `bootstrap_chunks`). Included by weighted_roc.h.
#ifndef PNETVIZ_ROC_BOOTSTRAP_H
#define PNETVIZ_ROC_BOOTSTRAP_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>
#if defined(__AVX2__) || defined(__AVX512DQ__)
#include <immintrin.h>
#endif

namespace pnetviz {
namespace detail {

// Poisson(1) draws from one 64-bit uniform by table look-up (exact CDF up to k = 12).
class Poisson1 {
public:
   explicit Poisson1(std::uint64_t seed) : state_(seed ? seed : kGolden)
   {
      double cdf = 0., p = std::exp(-1.);
      for (int k = 0; k < kMax; ++k) {
         cdf += p;
         p /= (k + 1);
         thresholds_[k] = cdf >= 1. ? ~std::uint64_t(0) : std::uint64_t(cdf * 18446744073709551616.0);
      }
   }
   std::uint8_t operator()()
   {
      const std::uint64_t u = next();
      // Branch-free for k < 4 (98% of draws): the outcome is random, a loop exit mispredicts.
      std::uint8_t k = (u >= thresholds_[0]) + (u >= thresholds_[1]) + (u >= thresholds_[2]) + (u >= thresholds_[3]);
      if (k == 4)
         while (k < kMax && u >= thresholds_[k]) ++k;
      return k;
   }
   // The same stream `draws` further on (splitmix64's state is a counter): what `draws` calls
   // would leave, in one step.
   void skip(std::uint64_t draws) { state_ += draws * kGolden; }
   std::uint64_t state() const { return state_; }
   const std::uint64_t *thresholds() const { return thresholds_; }
   static constexpr int kMax = 12;
   static constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

private:
   std::uint64_t next() // splitmix64: fast, seedable, good enough for resampling
   {
      std::uint64_t z = (state_ += kGolden);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
   }
   std::uint64_t state_;
   std::uint64_t thresholds_[kMax];
};

// One replica of the Poisson bootstrap on one sorted run (its counts drawn by `poisson`): its
// AUC and its background efficiency at signal efficiency `eps_s` (linear interpolation between
// the curve points around it).
template <typename Record>
void bootstrap_replica(const Record *recs, std::size_t n, Poisson1 &poisson, double eps_s,
                       std::uint8_t *counts, double *auc, double *eps_b)
{
   double total_tp = 0., total_fp = 0.;
   for (std::size_t i = 0; i < n; ++i) { // branch-free: classes alternate at random
      counts[i] = poisson();
      const double cw = counts[i] * recs[i].weight, s = recs[i].is_signal;
      total_tp += s * cw;
      total_fp += (1. - s) * cw;
   }
   const double target = eps_s * total_tp;
   double tp = 0., fp = 0., tp_prev = 0., fp_prev = 0., area = 0.;
   double fp_at = std::numeric_limits<double>::quiet_NaN();
   for (std::size_t i = 0; i < n; ++i) {
      const double cw = counts[i] * recs[i].weight, s = recs[i].is_signal;
      tp += s * cw;
      fp += (1. - s) * cw;
      if (i + 1 == n || recs[i + 1].key != recs[i].key) {
         area += (fp - fp_prev) * (tp + tp_prev);
         if (fp_at != fp_at && tp >= target && tp > tp_prev)
            fp_at = fp_prev + (target - tp_prev) / (tp - tp_prev) * (fp - fp_prev);
         tp_prev = tp;
         fp_prev = fp;
      }
   }
   const bool ok = total_tp != 0. && total_fp != 0.;
   *auc = ok ? 0.5 * area / (total_tp * total_fp) : std::numeric_limits<double>::quiet_NaN();
   *eps_b = ok ? fp_at / total_fp : std::numeric_limits<double>::quiet_NaN();
}

constexpr std::size_t kLanes = 8; // replicas computed side by side, one vector lane each

// Eight 64-bit lanes (GCC/clang vector extension: one AVX-512 register, two AVX2 ones, or four
// SSE2 ones in cling's JIT code; the operations are lane by lane, so every lane computes what the
// scalar code computes, bit for bit).
typedef std::uint64_t vu8 __attribute__((vector_size(64)));
typedef std::int64_t vi8 __attribute__((vector_size(64)));
typedef double vd8 __attribute__((vector_size(64)));
typedef std::uint8_t vb8 __attribute__((vector_size(8)));

inline unsigned lane_bits(vi8 m) // lane l's mask (0 or -1) as bit l
{
#if defined(__AVX512DQ__)
   return _mm512_movepi64_mask((__m512i)m);
#elif defined(__AVX2__)
   __m256d half[2];
   std::memcpy(half, &m, sizeof m);
   return unsigned(_mm256_movemask_pd(half[0])) | unsigned(_mm256_movemask_pd(half[1])) << 4;
#else
   unsigned bits = 0;
   for (std::size_t l = 0; l < kLanes; ++l)
      bits |= unsigned(m[l] != 0) << l;
   return bits;
#endif
}

inline vd8 splat8(double x) { return vd8{x, x, x, x, x, x, x, x}; }
inline vu8 splat8u(std::uint64_t x) { return vu8{x, x, x, x, x, x, x, x}; }

constexpr std::size_t kStride = 256; // events between two of bootstrap_lanes' checkpoints

// Where pass 1 of bootstrap_lanes stood after a multiple of kStride events: its sums.
struct LaneCheckpoint {
   vd8 tp, fp, tp_prev, fp_prev;
};

// The lanes in `hit` (bit l: lane l's tp reached its target at this point): their fp at the
// target, interpolated linearly from the point before (indexable by lane: vd8 or double arrays);
// returns the bits of the lanes whose value is a number.
template <typename Lanes>
inline unsigned crossings(unsigned hit, const Lanes &target, const Lanes &tp, const Lanes &tp_prev, const Lanes &fp,
                          const Lanes &fp_prev, double *fp_at)
{
   unsigned found = 0;
   for (std::size_t l = 0; l < kLanes; ++l)
      if (hit >> l & 1u) {
         fp_at[l] = fp_prev[l] + (target[l] - tp_prev[l]) / (tp[l] - tp_prev[l]) * (fp[l] - fp_prev[l]);
         found |= unsigned(fp_at[l] == fp_at[l]) << l;
      }
   return found;
}

// Each lane's AUC and background efficiency from its totals, area and crossing (indexable by
// lane: vd8 or double arrays), NaN where a class of the replica has no weight.
template <typename Lanes>
inline void lane_results(const Lanes &total_tp, const Lanes &total_fp, const Lanes &area, const double *fp_at, double *auc,
                         double *eps_b)
{
   for (std::size_t l = 0; l < kLanes; ++l) {
      const bool ok = total_tp[l] != 0. && total_fp[l] != 0.;
      auc[l] = ok ? 0.5 * area[l] / (total_tp[l] * total_fp[l]) : std::numeric_limits<double>::quiet_NaN();
      eps_b[l] = ok ? fp_at[l] / total_fp[l] : std::numeric_limits<double>::quiet_NaN();
   }
}

// kLanes replicas at once, each exactly as bootstrap_replica computes it (the same draws, the
// same operations in the same order, lane by lane): lane l's generator is `first` skipped by
// l * n draws. The splitmix64 draws, the Poisson table look-up (k < 4, 98% of draws; the rest
// lane by lane) and the weighted sums run in vector registers; the background efficiency's
// interpolation, once a replica, lane by lane. `counts`: room for kLanes * n counts;
// `checkpoints`: room for n / kStride of them, or null. Pass 2 (the crossing of eps_s, whose
// target needs pass 1's totals) then resumes from the last checkpoint below every lane's target,
// with pass 1's sums there (the numbers pass 2 would have summed again), not from the first
// event: with weights >= 0 (the caller's check) tp never falls, so no point before a checkpoint
// whose tp is below the target can reach it (a crossing needs tp >= target).
template <typename Record>
void bootstrap_lanes(const Record *recs, std::size_t n, const Poisson1 &first, double eps_s, std::uint8_t *counts,
                     LaneCheckpoint *checkpoints, double *auc, double *eps_b)
{
#pragma clang fp contract(off)
   const std::uint64_t *th = first.thresholds();
   const vu8 golden = splat8u(Poisson1::kGolden), t0 = splat8u(th[0]), t1 = splat8u(th[1]), t2 = splat8u(th[2]),
             t3 = splat8u(th[3]);
   vu8 state;
   for (std::size_t l = 0; l < kLanes; ++l)
      state[l] = first.state() + std::uint64_t(l * n) * Poisson1::kGolden;
   // Pass 1: the counts, the cumulative sums and the area (it needs no total).
   vd8 tp = splat8(0.), fp = splat8(0.), tp_prev = splat8(0.), fp_prev = splat8(0.), area = splat8(0.);
   for (std::size_t i = 0; i < n; ++i) {
      state += golden; // splitmix64, lane by lane
      vu8 z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z = z ^ (z >> 31);
      const vi8 beyond = (vi8)(z >= t3);
      vi8 k = -((vi8)(z >= t0) + (vi8)(z >= t1) + (vi8)(z >= t2) + beyond);
      if (unsigned big = lane_bits(beyond)) { // k = 4 so far: the table's tail, lane by lane
         for (std::size_t l = 0; l < kLanes; ++l)
            if (big >> l & 1u) {
               std::int64_t kk = 4;
               while (kk < Poisson1::kMax && z[l] >= th[kk]) ++kk;
               k[l] = kk;
            }
      }
      const vb8 c = __builtin_convertvector(k, vb8);
      std::memcpy(counts + i * kLanes, &c, sizeof c);
      const double w = recs[i].weight, s = recs[i].is_signal;
      const vd8 cw = __builtin_convertvector(k, vd8) * w;
      tp += s * cw;
      fp += (1. - s) * cw;
      if (i + 1 == n || recs[i + 1].key != recs[i].key) {
         area += (fp - fp_prev) * (tp + tp_prev);
         tp_prev = tp;
         fp_prev = fp;
      }
      if (checkpoints && (i + 1) % kStride == 0)
         checkpoints[i / kStride] = LaneCheckpoint{tp, fp, tp_prev, fp_prev};
   }
   const vd8 total_tp = tp, total_fp = fp, target = eps_s * total_tp;
   // Pass 2: the same sums again from the counts, only until every lane has found its crossing,
   // from the last checkpoint whose tp is below every lane's target (a NaN target: from the start).
   double fp_at[kLanes];
   unsigned found = 0; // lanes whose fp_at is set (not NaN)
   for (std::size_t l = 0; l < kLanes; ++l)
      fp_at[l] = std::numeric_limits<double>::quiet_NaN();
   const unsigned all = (1u << kLanes) - 1;
   tp = fp = tp_prev = fp_prev = splat8(0.);
   std::size_t start = 0;
   for (std::size_t m = checkpoints ? n / kStride : 0; m-- > 0;)
      if (lane_bits((vi8)(checkpoints[m].tp < target)) == all) {
         const LaneCheckpoint &at = checkpoints[m];
         tp = at.tp, fp = at.fp, tp_prev = at.tp_prev, fp_prev = at.fp_prev;
         start = (m + 1) * kStride;
         break;
      }
   for (std::size_t i = start; i < n && found != all; ++i) {
      const double w = recs[i].weight, s = recs[i].is_signal;
      vb8 c;
      std::memcpy(&c, counts + i * kLanes, sizeof c);
      const vd8 cw = __builtin_convertvector(__builtin_convertvector(c, vi8), vd8) * w; // via int64: one vector op each
      tp += s * cw;
      fp += (1. - s) * cw;
      if (i + 1 == n || recs[i + 1].key != recs[i].key) {
         if (unsigned hit = lane_bits((tp >= target) & (tp > tp_prev)) & ~found)
            found |= crossings(hit, target, tp, tp_prev, fp, fp_prev, fp_at);
         tp_prev = tp;
         fp_prev = fp;
      }
   }
   lane_results(total_tp, total_fp, area, fp_at, auc, eps_b);
}

#if defined(__AVX2__) && !defined(__AVX512F__) // the lanes spelled out for AVX2 (the generic code scalarises there)
} // namespace detail
} // namespace pnetviz
#include "roc_bootstrap_avx2.h"
namespace pnetviz {
namespace detail {
using avx2::bootstrap_lanes_host;
#else
template <typename Record>
void bootstrap_lanes_host(const Record *recs, std::size_t n, const Poisson1 &first, double eps_s, std::uint8_t *counts,
                          LaneCheckpoint *checkpoints, double *auc, double *eps_b)
{
   bootstrap_lanes(recs, n, first, eps_s, counts, checkpoints, auc, eps_b);
}
#endif

// Poisson bootstrap on one sorted run: per replica, every event's weight is multiplied by a
// Poisson(1) count (replica r takes draws r * n to (r + 1) * n - 1 of one splitmix64 stream);
// writes each replica's AUC and eps_b at `eps_s` (bootstrap_replica), kLanes replicas at a time.
template <typename Record>
void bootstrap(const Record *recs, std::size_t n, std::size_t replicas, std::uint64_t seed, double eps_s,
               double *auc, double *eps_b)
{
   Poisson1 poisson(seed);
   std::vector<std::uint8_t> counts(kLanes * n);
   bool monotone = true; // every weight >= 0 (not NaN): the cumulative sums never fall
   for (std::size_t i = 0; i < n; ++i)
      monotone &= recs[i].weight >= 0.;
   std::vector<LaneCheckpoint> checkpoints(monotone && replicas >= kLanes ? n / kStride : 0);
   std::size_t r = 0;
   for (; r + kLanes <= replicas; r += kLanes) {
      bootstrap_lanes_host(recs, n, poisson, eps_s, counts.data(), monotone ? checkpoints.data() : nullptr, auc + r, eps_b + r);
      poisson.skip(kLanes * n);
   }
   for (; r < replicas; ++r)
      bootstrap_replica(recs, n, poisson, eps_s, counts.data(), auc + r, eps_b + r);
}

// Chunk sums for the binned bootstrap: the sorted run is cut into chunks of at least
// `min_chunk` events (cuts only between different scores); per chunk: signal sum w (ws) and
// sum w^2 (vs), background sum w (wb) and sum w^2 (vb). Outputs need n / min_chunk + 1
// entries; returns the number of chunks.
template <typename Record>
std::size_t chunk_sums(const Record *recs, std::size_t n, std::size_t min_chunk, double *ws, double *vs,
                       double *wb, double *vb)
{
   double a = 0., b = 0., c = 0., d = 0.;
   std::size_t in_chunk = 0, m = 0;
   for (std::size_t i = 0; i < n; ++i) {
      const double w = recs[i].weight, s = recs[i].is_signal;
      a += s * w;
      b += s * w * w;
      c += (1. - s) * w;
      d += (1. - s) * w * w;
      if ((++in_chunk >= min_chunk && (i + 1 == n || recs[i + 1].key != recs[i].key)) || i + 1 == n) {
         ws[m] = a, vs[m] = b, wb[m] = c, vb[m] = d;
         ++m;
         a = b = c = d = 0.;
         in_chunk = 0;
      }
   }
   return m;
}

// Binned Poisson bootstrap for large samples, from the chunk sums above: per chunk and class
// the replica's weight sum, a sum of Poisson(1) x w, is drawn from a normal with the same mean
// (sum w) and variance (sum w^2). A replica then costs O(chunks) instead of O(events). Chunks
// are tie groups for the replica curves, so this estimates the spread, not the AUC itself.
inline void bootstrap_chunks(const double *ws, const double *vs, const double *wb, const double *vb, std::size_t m,
                             std::size_t replicas, std::uint64_t seed, double eps_s, double *auc, double *eps_b)
{
   std::vector<double> sd_s(m), sd_b(m); // standard deviations once
   for (std::size_t k = 0; k < m; ++k) {
      sd_s[k] = std::sqrt(vs[k]);
      sd_b[k] = std::sqrt(vb[k]);
   }
   std::mt19937_64 rng(seed);
   std::normal_distribution<double> gauss(0., 1.);
   std::vector<double> tps(m), fps(m);
   for (std::size_t r = 0; r < replicas; ++r) {
      double tp = 0., fp = 0.;
      for (std::size_t k = 0; k < m; ++k) {
         tp += ws[k] + sd_s[k] * gauss(rng);
         fp += wb[k] + sd_b[k] * gauss(rng);
         tps[k] = tp;
         fps[k] = fp;
      }
      double area = 0., tp_prev = 0., fp_prev = 0., fp_at = std::numeric_limits<double>::quiet_NaN();
      const double target = eps_s * tp;
      for (std::size_t k = 0; k < m; ++k) {
         area += (fps[k] - fp_prev) * (tps[k] + tp_prev);
         if (fp_at != fp_at && tps[k] >= target && tps[k] > tp_prev)
            fp_at = fp_prev + (target - tp_prev) / (tps[k] - tp_prev) * (fps[k] - fp_prev);
         tp_prev = tps[k];
         fp_prev = fps[k];
      }
      const bool ok = tp != 0. && fp != 0.;
      auc[r] = ok ? 0.5 * area / (tp * fp) : std::numeric_limits<double>::quiet_NaN();
      eps_b[r] = ok ? fp_at / fp : std::numeric_limits<double>::quiet_NaN();
   }
}

template <typename Record>
void bootstrap_binned(const Record *recs, std::size_t n, std::size_t replicas, std::uint64_t seed,
                      double eps_s, std::size_t min_chunk, double *auc, double *eps_b)
{
   const std::size_t cap = n / min_chunk + 1;
   std::vector<double> ws(cap), vs(cap), wb(cap), vb(cap);
   const std::size_t m = chunk_sums(recs, n, min_chunk, ws.data(), vs.data(), wb.data(), vb.data());
   bootstrap_chunks(ws.data(), vs.data(), wb.data(), vb.data(), m, replicas, seed, eps_s, auc, eps_b);
}

} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_BOOTSTRAP_H
