// pnetviz: the exact optimal binning of a classifier score for a binned likelihood fit.
//
// Given M fine bins of the score (in increasing score order) with, per fine bin, the signal
// yield s, the background yield b, the background MC event count nb, the background sum of
// w^2 (w2, same scale as b) and optionally the MC event count of each of n_cls background
// classes (cls, row-major: cls[j * n_cls + c]), find for every K = 1..K_max the partition of the
// fine bins into exactly K contiguous bins that maximises an additive objective sum_k f(bin k)
// under per-bin constraints. Objectives (`objective`):
//   0  binned FIP numerator (Valassi eq. 4): s^2 / (s + b)
//   1  Asimov Z^2, background known: 2((s + b) ln(1 + s/b) - s)
//   2  Asimov Z^2 with the background MC variance sigma^2 = sum w^2 (Cowan's formula):
//      2[(s+b) ln((s+b)(b+sig2) / (b^2 + (s+b) sig2)) - (b^2/sig2) ln(1 + sig2 s / (b (b + sig2)))]
// Constraints on each bin: nb >= n_min, b > 0, s + b > 0, sqrt(w2) <= e_max b (e_max <= 0:
// no error constraint), every class count >= cls_min.
//
// Dynamic programming (the recursion of Bayesian blocks, Scargle et al. 2013):
//   best[k][j] = max_{i < j, (i..j] allowed} best[k-1][i] + f(i..j),
// O(K M^2). f and the constraints of a segment are evaluated once per (i, j) and reused for
// every k (each k is then a contiguous max-reduction over i, `first_max`). The event-count
// constraints only get easier when a segment grows downwards, so for each j the candidates i stop
// at the last i where they hold. Ties keep the smallest i. The two hot loops (the binned FIP's f,
// and the max-reduction) are written with 128-bit vector types: cling's "-O3" code vectorises and
// unrolls nothing (measured: the plain loops ran as fast as g++ -O1's, 3.5x slower than -O3's).
//
// Outputs: value[K-1] = the optimum with exactly K bins (-inf where no allowed partition into K
// bins exists); edges[(K-1) * (K_max + 1) + m], m = 0..K, the fine-bin boundaries of that
// partition (0 = below the first fine bin, M = above the last), unused entries -1. Returns 0,
// or -1 on invalid sizes. Stateless; JIT-compiled by cling at -O3 (python/pnetviz/metrics/binning.py).
#ifndef PNETVIZ_OPTIMAL_BINNING_H
#define PNETVIZ_OPTIMAL_BINNING_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace pnetviz {

namespace detail {

inline double binning_objective(int objective, double s, double b, double w2)
{
   if (objective == 0) return s * s / (s + b);
   if (objective == 1) return 2.0 * ((s + b) * std::log1p(s / b) - s);
   if (w2 <= 0.0) return 2.0 * ((s + b) * std::log1p(s / b) - s);
   const double n = s + b;
   const double z2 = 2.0 * (n * std::log(n * (b + w2) / (b * b + n * w2)) - b * b / w2 * std::log1p(w2 * s / (b * (b + w2))));
   return z2 > 0.0 ? z2 : 0.0;
}


// Two doubles as one value (GCC/clang vector extension, 128 bits: SSE2 on x86-64, NEON on ARM):
// SIMD instructions whatever the optimiser does. cling's -O3 code neither vectorises nor
// unrolls the plain loop (measured: as slow as g++ -O1, 3.5x slower than g++ -O3).
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2m __attribute__((vector_size(16)));

inline v2d load2(const double *p)
{
   v2d v;
   std::memcpy(&v, p, sizeof v);
   return v;
}

inline v2d blend(v2m take, v2d a, v2d b) // take ? a : b, lane by lane
{
   return (v2d)(((v2m)a & take) | ((v2m)b & ~take));
}

inline v2d vmax(v2d a, v2d b) // lane by lane (no NaN here); one instruction where the compiler has the builtin
{
#if defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_max)
   return __builtin_elementwise_max(a, b);
#endif
#endif
   return blend(a > b, a, b);
}

constexpr int BLOCK = 64; // first_max's block of candidates

// The maximum of prev[i] + f[i] over i = lo..hi-1 into `m`, and the first i reaching it (-1 if
// every term is -inf). One pass keeps only maxima (each block of BLOCK candidates' into `blocks`,
// eight lanes as four pairs written out: cling keeps loops and arrays as written); then the first
// block reaching m is scanned for the first i (the same sums, so equal exactly): ties keep the
// smallest i.
inline int first_max(const double *prev, const double *f, int lo, int hi, double &m, double *blocks)
{
   const double NEG = -std::numeric_limits<double>::infinity();
   m = NEG;
   int n_blocks = 0;
   for (int start = lo; start < hi; start += BLOCK, ++n_blocks) {
      const int end = start + BLOCK < hi ? start + BLOCK : hi;
      v2d m0 = {NEG, NEG}, m1 = m0, m2 = m0, m3 = m0;
      int i = start;
      for (; i + 8 <= end; i += 8) {
         m0 = vmax(load2(prev + i) + load2(f + i), m0);
         m1 = vmax(load2(prev + i + 2) + load2(f + i + 2), m1);
         m2 = vmax(load2(prev + i + 4) + load2(f + i + 4), m2);
         m3 = vmax(load2(prev + i + 6) + load2(f + i + 6), m3);
      }
      const v2d mm = vmax(vmax(m0, m1), vmax(m2, m3));
      double bm = mm[0] > mm[1] ? mm[0] : mm[1];
      for (; i < end; ++i) {
         const double c = prev[i] + f[i];
         bm = c > bm ? c : bm;
      }
      blocks[n_blocks] = bm;
      m = bm > m ? bm : m;
   }
   if (m == NEG) return -1;
   int block = 0;
   while (blocks[block] != m) ++block;
   int at = lo + block * BLOCK;
   while (prev[at] + f[at] != m) ++at;
   return at;
}

} // namespace detail

inline int optimal_binning(const double *s, const double *b, const double *nb, const double *w2, const double *cls,
                           int n_cls, int M, int K_max, int objective, double n_min, double e_max, double cls_min,
                           double *value, std::int32_t *edges)
{
   if (M < 1 || K_max < 1 || n_cls < 0 || objective < 0 || objective > 2) return -1;
   const int K = K_max;
   const std::int64_t W = K + 1;
   const double NEG = -std::numeric_limits<double>::infinity();
   // prefix sums, index 0..M
   std::vector<double> S(M + 1, 0.0), B(M + 1, 0.0), N(M + 1, 0.0), V(M + 1, 0.0);
   std::vector<double> C(std::int64_t(M + 1) * (n_cls > 0 ? n_cls : 1), 0.0);
   for (int j = 0; j < M; ++j) {
      S[j + 1] = S[j] + s[j];
      B[j + 1] = B[j] + b[j];
      N[j + 1] = N[j] + nb[j];
      V[j + 1] = V[j] + w2[j];
      for (int c = 0; c < n_cls; ++c) C[std::int64_t(j + 1) * n_cls + c] = C[std::int64_t(j) * n_cls + c] + cls[std::int64_t(j) * n_cls + c];
   }
   // best[k * (M + 1) + j], arg likewise: for each end j the objective f(i..j) of every allowed i
   // is computed once into f (-inf where not allowed), then each k is one contiguous pass over i
   // keeping the maximum and its first index.
   const std::int64_t R = M + 1;
   std::vector<double> best(std::int64_t(K + 1) * R, NEG), f(M + 1, NEG);
   std::vector<std::int32_t> arg(std::int64_t(K + 1) * R, -1);
   std::vector<double> blocks(M / detail::BLOCK + 2);
   best[0] = 0.0;
   const double e2 = e_max * e_max;
   int i_max = -1; // the last i for which (i..j] meets the count constraints; non-decreasing in j
   for (int j = 1; j <= M; ++j) {
      while (i_max + 1 < j) { // can the next i still meet the count constraints?
         const int i = i_max + 1;
         bool ok = N[j] - N[i] >= n_min;
         for (int c = 0; ok && c < n_cls; ++c) ok = C[std::int64_t(j) * n_cls + c] - C[std::int64_t(i) * n_cls + c] >= cls_min;
         if (!ok) break;
         ++i_max;
      }
      const int n_i = i_max + 1; // candidates i = 0..i_max
      const double Sj = S[j], Bj = B[j], Vj = V[j];
      if (objective == 0) { // the binned FIP, two candidates at a time, no branch (the hot case)
         using detail::v2d;
         using detail::v2m;
         const v2d sj = {Sj, Sj}, bj = {Bj, Bj}, vj = {Vj, Vj}, zero = {0.0, 0.0}, neg = {NEG, NEG};
         const double e2c = e_max > 0.0 ? e2 : HUGE_VAL; // no error constraint: never binds
         const v2d e2v = {e2c, e2c}, one = {1.0, 1.0};
         int i = 0;
         for (; i + 2 <= n_i; i += 2) {
            const v2d sb = sj - detail::load2(&S[i]), bb = bj - detail::load2(&B[i]), vb = vj - detail::load2(&V[i]);
            const v2d n = sb + bb;
            const v2m ok = (bb > zero) & (n > zero) & (vb <= e2v * bb * bb);
            const v2d v = detail::blend(ok, sb * sb / detail::blend(ok, n, one), neg);
            std::memcpy(&f[i], &v, sizeof v);
         }
         for (; i < n_i; ++i) {
            const double sb = Sj - S[i], bb = Bj - B[i], vb = Vj - V[i];
            const bool ok = bb > 0.0 && sb + bb > 0.0 && (e_max <= 0.0 || vb <= e2 * bb * bb);
            f[i] = ok ? sb * sb / (sb + bb) : NEG;
         }
      } else {
         for (int i = 0; i < n_i; ++i) {
            const double sb = Sj - S[i], bb = Bj - B[i], vb = Vj - V[i];
            const bool ok = bb > 0.0 && sb + bb > 0.0 && (e_max <= 0.0 || vb <= e2 * bb * bb);
            f[i] = ok ? detail::binning_objective(objective, sb, bb, vb) : NEG;
         }
      }
      const int kmax = j < K ? j : K;
      for (int k = 1; k <= kmax; ++k) {
         double m;
         const int at = detail::first_max(&best[std::int64_t(k - 1) * R], f.data(), k - 1, n_i, m, blocks.data());
         if (at < 0) continue;
         best[std::int64_t(k) * R + j] = m;
         arg[std::int64_t(k) * R + j] = at;
      }
   }
   for (int k = 1; k <= K; ++k) {
      std::int32_t *e = &edges[std::int64_t(k - 1) * W];
      for (int m = 0; m <= K; ++m) e[m] = -1;
      value[k - 1] = best[std::int64_t(k) * R + M];
      if (value[k - 1] == NEG) continue;
      int j = M;
      for (int m = k; m >= 1; --m) {
         e[m] = j;
         j = arg[std::int64_t(m) * R + j];
      }
      e[0] = j; // 0 by construction
   }
   return 0;
}

} // namespace pnetviz

#endif
