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
// every k (each k is then a contiguous max-reduction over i). The event-count constraints only get easier
// when a segment grows downwards, so for each j the candidates i stop at the last i where they
// hold. Ties keep the smallest i.
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
      for (int i = 0; i < n_i; ++i) {
         const double sb = S[j] - S[i], bb = B[j] - B[i], vb = V[j] - V[i];
         const bool ok = bb > 0.0 && sb + bb > 0.0 && (e_max <= 0.0 || vb <= e2 * bb * bb);
         f[i] = ok ? detail::binning_objective(objective, sb, bb, vb) : NEG;
      }
      const int kmax = j < K ? j : K;
      for (int k = 1; k <= kmax; ++k) {
         const double *prev = &best[std::int64_t(k - 1) * R];
         // four independent (max, first index) accumulators; strict > keeps the first index
         double m[4] = {NEG, NEG, NEG, NEG};
         int a[4] = {-1, -1, -1, -1};
         int i = k - 1; // best[k-1][i] = -inf below
         for (; i + 4 <= n_i; i += 4) {
            for (int l = 0; l < 4; ++l) {
               const double c = prev[i + l] + f[i + l];
               const bool up = c > m[l];
               m[l] = up ? c : m[l];
               a[l] = up ? i + l : a[l];
            }
         }
         for (; i < n_i; ++i) {
            const double c = prev[i] + f[i];
            const bool up = c > m[0];
            m[0] = up ? c : m[0];
            a[0] = up ? i : a[0];
         }
         int at = 0;
         for (int l = 1; l < 4; ++l)
            if (m[l] > m[at] || (m[l] == m[at] && a[l] >= 0 && (a[at] < 0 || a[l] < a[at]))) at = l;
         if (m[at] == NEG) continue;
         best[std::int64_t(k) * R + j] = m[at];
         arg[std::int64_t(k) * R + j] = a[at];
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
