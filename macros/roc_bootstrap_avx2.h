// pnetviz: bootstrap_lanes (roc_bootstrap.h) written for AVX2 without AVX-512 (e.g. AMD Zen 3,
// Intel before Skylake-X). GCC lowers the generic 8 x 64-bit vector code there poorly: the
// unsigned 64-bit compares and the int64 -> double conversions become lane-by-lane scalar code
// and the 64-byte vectors spill to the stack (11 ns an event and replica on a Zen 3, where the
// AVX-512 build of the same code takes ~3.5 ns on an AVX-512 CPU). Here the eight lanes are two
// 4-lane AVX2 registers and each operation is spelled out:
//   64-bit products by the splitmix64 constants: three 32 x 32 -> 64-bit products (vpmuludq);
//   unsigned compares: signed compares of both sides with the sign bit flipped;
//   the Poisson count k (0 to 12) to double: the bits of 2^52 + k, minus 2^52 (exact).
// Every lane computes what the generic code computes, bit for bit: the same integer draws, the
// same counts, and the same double operations in the same order (an add of a product, never
// fused: the kernels are built with -ffp-contract=off and these are separate mul and add
// instructions). tests/metrics/test_bootstrap_lanes.py and tests/io/test_kernels.py check it.
// Included by roc_bootstrap.h only where __AVX2__ is defined and __AVX512F__ is not.
#ifndef PNETVIZ_ROC_BOOTSTRAP_AVX2_H
#define PNETVIZ_ROC_BOOTSTRAP_AVX2_H

#include <immintrin.h>

namespace pnetviz {
namespace detail {
namespace avx2 {

struct Quads { // eight 64-bit lanes as two AVX2 registers: lanes 0-3, lanes 4-7
   __m256d a, b;
};

inline __m256i mul64(__m256i x, __m256i c_lo, __m256i c_hi) // x * c modulo 2^64, lane by lane
{
   const __m256i lo = _mm256_mul_epu32(x, c_lo);
   const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), c_lo), _mm256_mul_epu32(x, c_hi));
   return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

inline __m256i mix(__m256i z, __m256i c1_lo, __m256i c1_hi, __m256i c2_lo, __m256i c2_hi) // splitmix64's output
{
   z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), c1_lo, c1_hi);
   z = mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), c2_lo, c2_hi);
   return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

inline __m256d small_to_double(__m256i k) // 0 <= k < 2^52
{
   const __m256i magic = _mm256_set1_epi64x(0x4330000000000000ll);
   return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(k, magic)), _mm256_castsi256_pd(magic));
}

inline std::uint32_t low_bytes(__m256i k) // the low byte of each of the four lanes, lane 0 first
{
   const __m256i pick = _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                         0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
   const __m256i packed = _mm256_shuffle_epi8(k, pick);
   return std::uint32_t(_mm256_extract_epi16(packed, 0)) | std::uint32_t(_mm256_extract_epi16(packed, 8)) << 16;
}

inline void store(const Quads &q, vd8 &out) { std::memcpy(&out, &q, sizeof out); }
inline Quads load(const vd8 &in)
{
   Quads q;
   std::memcpy(&q, &in, sizeof q);
   return q;
}
inline Quads zeros() { return Quads{_mm256_setzero_pd(), _mm256_setzero_pd()}; }
inline void add_product(Quads &sum, double s, const Quads &cw) // sum += s * cw, lane by lane
{
   const __m256d sv = _mm256_set1_pd(s);
   sum.a = _mm256_add_pd(sum.a, _mm256_mul_pd(sv, cw.a));
   sum.b = _mm256_add_pd(sum.b, _mm256_mul_pd(sv, cw.b));
}

// bootstrap_lanes, AVX2: the same arguments, the same results.
template <typename Record>
void bootstrap_lanes_host(const Record *recs, std::size_t n, const Poisson1 &first, double eps_s, std::uint8_t *counts,
                     LaneCheckpoint *checkpoints, double *auc, double *eps_b)
{
   const std::uint64_t *th = first.thresholds();
   const __m256i sign = _mm256_set1_epi64x(std::int64_t(1ull << 63));
   const __m256i golden = _mm256_set1_epi64x(std::int64_t(Poisson1::kGolden));
   const __m256i c1_lo = _mm256_set1_epi64x(0xBF58476D1CE4E5B9ll & 0xFFFFFFFFll),
                 c1_hi = _mm256_set1_epi64x(std::int64_t(0xBF58476D1CE4E5B9ull >> 32)),
                 c2_lo = _mm256_set1_epi64x(0x94D049BB133111EBll & 0xFFFFFFFFll),
                 c2_hi = _mm256_set1_epi64x(std::int64_t(0x94D049BB133111EBull >> 32));
   __m256i t[4]; // the thresholds with the sign bit flipped: z >= t  <=>  !(t' > z') in signed compares
   for (int j = 0; j < 4; ++j)
      t[j] = _mm256_xor_si256(_mm256_set1_epi64x(std::int64_t(th[j])), sign);
   __m256i state[2];
   for (int h = 0; h < 2; ++h) {
      alignas(32) std::uint64_t s[4];
      for (int l = 0; l < 4; ++l)
         s[l] = first.state() + std::uint64_t((4 * h + l) * n) * Poisson1::kGolden;
      state[h] = _mm256_load_si256(reinterpret_cast<const __m256i *>(s));
   }
   Quads tp = zeros(), fp = zeros(), tp_prev = zeros(), fp_prev = zeros(), area = zeros();
   for (std::size_t i = 0; i < n; ++i) {
      __m256i k[2];
      for (int h = 0; h < 2; ++h) {
         state[h] = _mm256_add_epi64(state[h], golden);
         const __m256i z = mix(state[h], c1_lo, c1_hi, c2_lo, c2_hi), zs = _mm256_xor_si256(z, sign);
         const __m256i below3 = _mm256_cmpgt_epi64(t[3], zs); // -1 where z < t3
         // k = 4 - #(z < t_j): the masks are -1 where below
         k[h] = _mm256_add_epi64(_mm256_set1_epi64x(4),
                                 _mm256_add_epi64(_mm256_add_epi64(_mm256_cmpgt_epi64(t[0], zs), _mm256_cmpgt_epi64(t[1], zs)),
                                                  _mm256_add_epi64(_mm256_cmpgt_epi64(t[2], zs), below3)));
         if (const unsigned big = ~unsigned(_mm256_movemask_pd(_mm256_castsi256_pd(below3))) & 0xFu) {
            alignas(32) std::uint64_t zz[4], kk[4];
            _mm256_store_si256(reinterpret_cast<__m256i *>(zz), z);
            _mm256_store_si256(reinterpret_cast<__m256i *>(kk), k[h]);
            for (int l = 0; l < 4; ++l)
               if (big >> l & 1u) { // k = 4 so far: the table's tail
                  std::uint64_t c = 4;
                  while (c < std::uint64_t(Poisson1::kMax) && zz[l] >= th[c]) ++c;
                  kk[l] = c;
               }
            k[h] = _mm256_load_si256(reinterpret_cast<const __m256i *>(kk));
         }
      }
      const std::uint64_t bytes = std::uint64_t(low_bytes(k[0])) | std::uint64_t(low_bytes(k[1])) << 32;
      std::memcpy(counts + i * kLanes, &bytes, sizeof bytes);
      const __m256d w = _mm256_set1_pd(recs[i].weight);
      const Quads cw{_mm256_mul_pd(small_to_double(k[0]), w), _mm256_mul_pd(small_to_double(k[1]), w)};
      const double s = recs[i].is_signal;
      add_product(tp, s, cw);
      add_product(fp, 1. - s, cw);
      if (i + 1 == n || recs[i + 1].key != recs[i].key) {
         area.a = _mm256_add_pd(area.a, _mm256_mul_pd(_mm256_sub_pd(fp.a, fp_prev.a), _mm256_add_pd(tp.a, tp_prev.a)));
         area.b = _mm256_add_pd(area.b, _mm256_mul_pd(_mm256_sub_pd(fp.b, fp_prev.b), _mm256_add_pd(tp.b, tp_prev.b)));
         tp_prev = tp;
         fp_prev = fp;
      }
      if (checkpoints && (i + 1) % kStride == 0) {
         LaneCheckpoint &at = checkpoints[i / kStride];
         store(tp, at.tp), store(fp, at.fp), store(tp_prev, at.tp_prev), store(fp_prev, at.fp_prev);
      }
   }
   alignas(64) double total_tp[kLanes], total_fp[kLanes], target[kLanes], area_l[kLanes];
   std::memcpy(total_tp, &tp, sizeof total_tp);
   std::memcpy(total_fp, &fp, sizeof total_fp);
   std::memcpy(area_l, &area, sizeof area_l);
   for (std::size_t l = 0; l < kLanes; ++l)
      target[l] = eps_s * total_tp[l];
   const Quads target_q{_mm256_load_pd(target), _mm256_load_pd(target + 4)};
   // Pass 2 as the generic code's: from the last checkpoint below every lane's target.
   double fp_at[kLanes];
   unsigned found = 0;
   for (std::size_t l = 0; l < kLanes; ++l)
      fp_at[l] = std::numeric_limits<double>::quiet_NaN();
   const unsigned all = (1u << kLanes) - 1;
   tp = fp = tp_prev = fp_prev = zeros();
   std::size_t start = 0;
   for (std::size_t m = checkpoints ? n / kStride : 0; m-- > 0;) {
      const Quads at_tp = load(checkpoints[m].tp);
      const unsigned below = unsigned(_mm256_movemask_pd(_mm256_cmp_pd(at_tp.a, target_q.a, _CMP_LT_OQ))) |
                             unsigned(_mm256_movemask_pd(_mm256_cmp_pd(at_tp.b, target_q.b, _CMP_LT_OQ))) << 4;
      if (below == all) {
         const LaneCheckpoint &at = checkpoints[m];
         tp = at_tp, fp = load(at.fp), tp_prev = load(at.tp_prev), fp_prev = load(at.fp_prev);
         start = (m + 1) * kStride;
         break;
      }
   }
   for (std::size_t i = start; i < n && found != all; ++i) {
      const __m256d w = _mm256_set1_pd(recs[i].weight);
      std::uint32_t c[2];
      std::memcpy(c, counts + i * kLanes, sizeof c);
      const Quads cw{_mm256_mul_pd(small_to_double(_mm256_cvtepu8_epi64(_mm_cvtsi32_si128(int(c[0])))), w),
                     _mm256_mul_pd(small_to_double(_mm256_cvtepu8_epi64(_mm_cvtsi32_si128(int(c[1])))), w)};
      const double s = recs[i].is_signal;
      add_product(tp, s, cw);
      add_product(fp, 1. - s, cw);
      if (i + 1 == n || recs[i + 1].key != recs[i].key) {
         const __m256d hit_a = _mm256_and_pd(_mm256_cmp_pd(tp.a, target_q.a, _CMP_GE_OQ), _mm256_cmp_pd(tp.a, tp_prev.a, _CMP_GT_OQ));
         const __m256d hit_b = _mm256_and_pd(_mm256_cmp_pd(tp.b, target_q.b, _CMP_GE_OQ), _mm256_cmp_pd(tp.b, tp_prev.b, _CMP_GT_OQ));
         if (unsigned hit = (unsigned(_mm256_movemask_pd(hit_a)) | unsigned(_mm256_movemask_pd(hit_b)) << 4) & ~found) {
            alignas(64) double tp_l[kLanes], fp_l[kLanes], tpp[kLanes], fpp[kLanes];
            std::memcpy(tp_l, &tp, sizeof tp_l), std::memcpy(fp_l, &fp, sizeof fp_l);
            std::memcpy(tpp, &tp_prev, sizeof tpp), std::memcpy(fpp, &fp_prev, sizeof fpp);
            found |= crossings(hit, target, tp_l, tpp, fp_l, fpp, fp_at);
         }
         tp_prev = tp;
         fp_prev = fp;
      }
   }
   lane_results(total_tp, total_fp, area_l, fp_at, auc, eps_b);
}

} // namespace avx2
} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_BOOTSTRAP_AVX2_H
