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
//      2[(s+b) ln((s+b)(b+sig2) / (b^2 + (s+b) sig2)) - (b^2/sig2) ln(1 + sig2 s / (b (b + sig2)))],
//      the first logarithm computed as ln(1 + s b / (b^2 + (s+b) sig2)) (the same number; the
//      ratio's rounding made the difference of the two terms meaningless where s/b < 1e-8)
// Constraints on each bin: nb >= n_min, b > 0, s + b > 0, sqrt(w2) <= e_max b (e_max <= 0:
// no error constraint), every class count >= cls_min.
//
// Dynamic programming (the recursion of Bayesian blocks, Scargle et al. 2013):
//   best[k][j] = max_{i < j, (i..j] allowed} best[k-1][i] + f(i..j),
// O(K M^2) in the worst case. Per end j: the best sums are stored k-contiguous (chunks of eight
// k: row i of a chunk holds the best with k - 1 bins ending at i), so the candidates i are
// searched eight k at a time, in blocks of 64 (`block_maxima`), by exact branch and bound
// (`chunk_maxima`): first the blocks of the argmax at j - 1, then only the blocks whose bound
// (the block's largest best sum + an upper bound of f over the block) reaches a maximum already
// found. f(i..j) comes from prefix sums, two candidates at a time; for the binned FIP it is
// computed for every candidate (one division), for the Asimov objectives only in the blocks
// searched (`segment_values`, logarithms by `vlog`), the bound being s^2/b from the block's
// extreme prefix sums (`asimov_block_bound`). On a 2000-fine-bin toy at K = 20, about a quarter
// of the blocks are searched and half of the Asimov f computed. The event-count constraints only
// get easier when a segment grows downwards, so for each j the candidates i stop at the last i
// where they hold. Ties keep the smallest i (the first block reaching the maximum, then its first
// candidate). Vector primitives: simd2.h.
//
// Outputs: value[K-1] = the optimum with exactly K bins (-inf where no allowed partition into K
// bins exists); edges[(K-1) * (K_max + 1) + m], m = 0..K, the fine-bin boundaries of that
// partition (0 = below the first fine bin, M = above the last), unused entries -1. Returns 0,
// or -1 on invalid sizes. Stateless; JIT-compiled by cling at -O3 (python/pnetviz/metrics/binning.py).
#ifndef PNETVIZ_OPTIMAL_BINNING_H
#define PNETVIZ_OPTIMAL_BINNING_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "simd2.h"

namespace pnetviz {

namespace detail {

inline double binning_objective(int objective, double s, double b, double w2)
{
   if (objective == 0) return s * s / (s + b);
   if (objective == 1 || w2 <= 0.0) return 2.0 * ((s + b) * std::log1p(s / b) - s);
   const double n = s + b;
   const double z2 = 2.0 * (n * std::log1p(s * b / (b * b + n * w2)) - b * b / w2 * std::log1p(w2 * s / (b * (b + w2))));
   return z2 > 0.0 ? z2 : 0.0;
}

// f(i..j) for i = 0..n_i-1 into f (-inf where the segment is not allowed), two i at a time; the
// last pair may reach i + 1 = n_i <= j, inside the prefix sums, its value unused. Lanes whose
// logarithm arguments are not normal (extreme yields) are done by the scalar formula.
inline void segment_values(int objective, const double *S, const double *B, const double *V, int lo, int hi, int j, double e_max, double *f)
{
   const double NEG = -std::numeric_limits<double>::infinity();
   const v2d sj = splat(S[j]), bj = splat(B[j]), vj = splat(V[j]), zero = splat(0.0), one = splat(1.0), neg = splat(NEG);
   const v2d e2 = splat(e_max * e_max);
   const v2m no_error_cut = e_max > 0.0 ? v2m{0, 0} : v2m{-1, -1};
   for (int i = lo; i < hi; i += 2) {
      const v2d s = sj - load2(S + i), b = bj - load2(B + i), v = vj - load2(V + i), n = s + b;
      const v2m ok = (b > zero) & (n > zero) & ((v <= e2 * b * b) | no_error_cut);
      if (!any(ok)) {
         store2(f + i, neg);
         continue;
      }
      v2d value;
      if (objective == 0) {
         value = s * s / blend(ok, n, one);
      } else {
         const v2m mc = objective == 2 ? (v2m)(ok & (v > zero)) : v2m{0, 0}, plain = ok & ~mc;
         v2m bad = v2m{0, 0};
         value = neg;
         if (any(plain)) { // 2((s + b) ln(1 + s/b) - s)
            const v2d x = s / b, u = one + x;
            bad = plain & not_normal(u);
            value = splat(2.0) * (n * vlog1p_of(x, u) - s);
         }
         if (any(mc)) { // with the background MC variance
            const v2d r = s * b / (b * b + n * v), ur = one + r, y = v * s / (b * (b + v)), uy = one + y;
            bad = bad | (mc & (not_normal(ur) | not_normal(uy)));
            const v2d z2 = splat(2.0) * (n * vlog1p_of(r, ur) - b * b / v * vlog1p_of(y, uy));
            value = blend(mc, vmax(z2, zero), value);
         }
         if (any(ok & bad)) {
            for (int l = 0; l < 2; ++l) value[l] = binning_objective(objective, s[l], b[l], v[l]);
         }
      }
      store2(f + i, blend(ok, value, neg));
   }
}

constexpr int LANES = 8;  // k per chunk: a row of the best sums is eight doubles, four pairs
constexpr int BLOCK = 64; // candidates i per block (its maxima, its bounds)

// An upper bound of the Asimov Z^2 (objectives 1 and 2) of every segment (i..j] with i in a
// block, from the extrema of the prefix sums over the block's rows (s <= s_hi = S_j - min S_i,
// b >= b_lo = B_j - max B_i): s_hi^2 / b_lo where every s >= 0 and b_lo > 0 (Z^2 <= s^2/b for
// s >= 0: (1 + x) ln(1 + x) - x <= x^2 / 2 for x = s/b >= 0, and the background MC variance only
// lowers it), widened by 1e-12 relative and 1e-13 s_hi for the rounding of the computed Z^2
// (checked on 1.6e7 random yields, s/b from 1e-16 to 1e8, sigma_b/b from 1e-7 to 1e3; tests/
// metrics/test_binning.py); +inf otherwise. IEEE operations are monotone, so the bound computed
// holds for every segment's value as computed.
inline double asimov_block_bound(double Sj, double Bj, double s_min, double s_max, double b_max)
{
   const double s_lo = Sj - s_max, s_hi = Sj - s_min, b_lo = Bj - b_max;
   if (!(b_lo > 0.0) || !(s_lo >= 0.0)) return HUGE_VAL;
   return s_hi * s_hi / b_lo * (1.0 + 1e-12) + s_hi * 1e-13;
}

// The binned FIP's f(i..j) for i = lo..hi-1, as segment_values, in one branch-free loop.
inline void fip_values(const double *S, const double *B, const double *V, int lo, int hi, int j, double e_max, double *f)
{
   const v2d sj = splat(S[j]), bj = splat(B[j]), vj = splat(V[j]), zero = splat(0.0), one = splat(1.0);
   const v2d e2 = splat(e_max > 0.0 ? e_max * e_max : HUGE_VAL), neg = splat(-HUGE_VAL);
   for (int i = lo; i < hi; i += 2) {
      const v2d s = sj - load2(S + i), b = bj - load2(B + i), v = vj - load2(V + i), n = s + b;
      const v2m ok = (b > zero) & (n > zero) & (v <= e2 * b * b);
      store2(f + i, blend(ok, s * s / blend(ok, n, one), neg));
   }
}

inline double range_max(const double *x, int lo, int hi) // max of x[lo..hi-1], lo even
{
   v2d m = splat(-HUGE_VAL);
   int i = lo;
   for (; i + 2 <= hi; i += 2) m = vmax(load2(x + i), m);
   double r = m[0] > m[1] ? m[0] : m[1];
   if (i < hi && x[i] > r) r = x[i];
   return r;
}

// For one chunk (g[i * LANES + l]: the best sum with q = chunk * LANES + l bins ending at fine
// boundary i), the maxima of g[i][l] + f[i] over the candidates i = lo..hi-1 into out[l]. Two
// candidates at a time, each into its own four accumulators.
inline void block_maxima(const double *g, const double *f, int lo, int hi, double *out)
{
   const v2d neg = splat(-HUGE_VAL);
   v2d a0 = neg, a1 = neg, a2 = neg, a3 = neg, c0 = neg, c1 = neg, c2 = neg, c3 = neg;
   int i = lo;
   for (; i + 2 <= hi; i += 2) {
      const double *r = g + std::int64_t(i) * LANES;
      const v2d f0 = splat(f[i]), f1 = splat(f[i + 1]);
      a0 = vmax(load2(r) + f0, a0);
      a1 = vmax(load2(r + 2) + f0, a1);
      a2 = vmax(load2(r + 4) + f0, a2);
      a3 = vmax(load2(r + 6) + f0, a3);
      c0 = vmax(load2(r + 8) + f1, c0);
      c1 = vmax(load2(r + 10) + f1, c1);
      c2 = vmax(load2(r + 12) + f1, c2);
      c3 = vmax(load2(r + 14) + f1, c3);
   }
   if (i < hi) {
      const double *r = g + std::int64_t(i) * LANES;
      const v2d f0 = splat(f[i]);
      a0 = vmax(load2(r) + f0, a0);
      a1 = vmax(load2(r + 2) + f0, a1);
      a2 = vmax(load2(r + 4) + f0, a2);
      a3 = vmax(load2(r + 6) + f0, a3);
   }
   store2(out, vmax(a0, c0));
   store2(out + 2, vmax(a1, c1));
   store2(out + 4, vmax(a2, c2));
   store2(out + 6, vmax(a3, c3));
}

// The state of one end j: f of the candidates (for the Asimov objectives computed block by block, only
// where needed) and, per block, an upper bound of f.
struct EndState {
   int objective, j, n_i;
   double e_max;
   const double *S, *B, *V;
   double *f;
   double *f_bound; // per block
   char *done;      // per block: f computed
   void ensure(int blk)
   {
      if (done[blk]) return;
      const int lo = blk * BLOCK, hi = lo + BLOCK < n_i ? lo + BLOCK : n_i;
      segment_values(objective, S, B, V, lo, hi, j, e_max, f);
      done[blk] = 1;
   }
};

inline void eval_block(const double *g, EndState &st, int blk, double *out)
{
   st.ensure(blk);
   const int lo = blk * BLOCK, hi = lo + BLOCK < st.n_i ? lo + BLOCK : st.n_i;
   block_maxima(g, st.f, lo, hi, out);
}

// The block maxima of one chunk (bm[blk * LANES + l]; -inf for the blocks skipped), branch and
// bound. First the blocks holding the previous end's argmax of each live lane l < live (`hint`:
// the candidate i chosen for j - 1, -1 if none; the optimum moves little from j - 1 to j), or
// without any, the block with the highest bound max_l gmax[blk][l] + f_bound[blk]; then every
// other block whose bound reaches the running maximum of some live lane (gmax: per block, the
// maximum of g over its rows, all final). The result is exact: a block is skipped only where
// every candidate's sum is below a maximum already found (IEEE addition is monotone).
inline void chunk_maxima(const double *g, const double *gmax, EndState &st, int used_blocks, int live, const std::int32_t *hint,
                         double *bm)
{
   const double NEG = -HUGE_VAL;
   for (int x = 0; x < used_blocks * LANES; ++x) bm[x] = NEG;
   double m[LANES];
   for (int l = 0; l < LANES; ++l) m[l] = NEG;
   int n_seen = 0, seen[LANES + 1];
   const auto take = [&](int blk) {
      for (int x = 0; x < n_seen; ++x)
         if (seen[x] == blk) return;
      seen[n_seen++] = blk;
      eval_block(g, st, blk, bm + blk * LANES);
      for (int l = 0; l < LANES; ++l) m[l] = bm[blk * LANES + l] > m[l] ? bm[blk * LANES + l] : m[l];
   };
   for (int l = 0; l < live; ++l)
      if (hint[l] >= 0 && hint[l] < st.n_i) take(hint[l] / BLOCK);
   if (n_seen == 0) {
      int first = -1;
      double top = NEG;
      for (int blk = 0; blk < used_blocks; ++blk)
         for (int l = 0; l < live; ++l)
            if (gmax[blk * LANES + l] + st.f_bound[blk] > top) top = gmax[blk * LANES + l] + st.f_bound[blk], first = blk;
      if (first < 0) return;
      take(first);
   }
   const int hinted = n_seen;
   for (int blk = 0; blk < used_blocks; ++blk) {
      bool done = false, need = false;
      for (int x = 0; x < hinted; ++x) done = done || seen[x] == blk;
      for (int l = 0; l < live && !done && !need; ++l) {
         const double bound = gmax[blk * LANES + l] + st.f_bound[blk];
         need = !(bound == NEG || bound < m[l]);
      }
      if (!need) continue;
      eval_block(g, st, blk, bm + blk * LANES);
      for (int l = 0; l < LANES; ++l) m[l] = bm[blk * LANES + l] > m[l] ? bm[blk * LANES + l] : m[l];
   }
}

} // namespace detail

inline int optimal_binning(const double *s, const double *b, const double *nb, const double *w2, const double *cls,
                           int n_cls, int M, int K_max, int objective, double n_min, double e_max, double cls_min,
                           double *value, std::int32_t *edges)
{
   using detail::BLOCK;
   using detail::LANES;
   if (M < 1 || K_max < 1 || n_cls < 0 || objective < 0 || objective > 2) return -1;
   const int K = K_max;
   const std::int64_t W = K + 1, R = M + 1;
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
   // G[(chunk * R + i) * LANES + l]: the best sum with q = chunk * LANES + l bins ending at i
   // (q = k - 1 for the k being computed; lanes past K are padding), Gmax likewise per block of
   // rows; arg[j * W + k]: where the last of the k bins ending at j starts.
   const int chunks = (K + LANES - 1) / LANES;
   const std::int64_t n_blocks = M / BLOCK + 1, G_chunk = R * LANES, bm_chunk = n_blocks * LANES;
   std::vector<double> G(chunks * G_chunk, NEG), Gmax(chunks * bm_chunk, NEG), bm(chunks * bm_chunk, NEG);
   std::vector<double> f(M + 1, NEG), f_bound(n_blocks, NEG);
   std::vector<double> ext(3 * n_blocks); // per block of rows i: min S_i, max S_i, max B_i
   for (int blk = 0; blk < n_blocks; ++blk) {
      const int lo = blk * BLOCK, hi = lo + BLOCK < M + 1 ? lo + BLOCK : M + 1;
      double s_min = S[lo], s_max = S[lo], b_max = B[lo];
      for (int i = lo + 1; i < hi; ++i) {
         s_min = S[i] < s_min ? S[i] : s_min;
         s_max = S[i] > s_max ? S[i] : s_max;
         b_max = B[i] > b_max ? B[i] : b_max;
      }
      ext[3 * blk] = s_min, ext[3 * blk + 1] = s_max, ext[3 * blk + 2] = b_max;
   }
   std::vector<char> done(n_blocks, 0);
   std::vector<std::int32_t> arg(R * W, -1);
   G[0] = Gmax[0] = 0.0;
   for (int k = 0; k < K; ++k) value[k] = NEG;
   detail::EndState st{objective, 0, 0, e_max, S.data(), B.data(), V.data(), f.data(), f_bound.data(), done.data()};
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
      if (n_i == 0) continue;
      const int used_blocks = (n_i + BLOCK - 1) / BLOCK;
      st.j = j;
      st.n_i = n_i;
      // f of every candidate, or (the Asimov objectives) a bound per block, f only in the blocks searched
      if (objective == 0) detail::fip_values(S.data(), B.data(), V.data(), 0, n_i, j, e_max, f.data());
      for (int blk = 0; blk < used_blocks; ++blk) {
         const int lo = blk * BLOCK, hi = lo + BLOCK < n_i ? lo + BLOCK : n_i;
         f_bound[blk] = objective == 0 ? detail::range_max(f.data(), lo, hi)
                                       : detail::asimov_block_bound(S[j], B[j], ext[3 * blk], ext[3 * blk + 1], ext[3 * blk + 2]);
         done[blk] = objective == 0;
      }
      for (int c = 0; c < chunks; ++c) {
         const int live = K - c * LANES < LANES ? K - c * LANES : LANES;
         detail::chunk_maxima(&G[c * G_chunk], &Gmax[c * bm_chunk], st, used_blocks, live, &arg[(j - 1) * W + 1 + c * LANES],
                              &bm[c * bm_chunk]);
      }
      for (int k = 1; k <= K; ++k) {
         const int c = (k - 1) / LANES, l = (k - 1) % LANES;
         const double *bmc = &bm[c * bm_chunk + l], *g = &G[c * G_chunk + l];
         double m = NEG;
         for (int blk = 0; blk < used_blocks; ++blk) m = bmc[blk * LANES] > m ? bmc[blk * LANES] : m;
         if (m == NEG) continue;
         int at = 0;
         while (bmc[at * LANES] != m) ++at; // the first block reaching m, then its first candidate
         at *= BLOCK;
         while (g[std::int64_t(at) * LANES] + f[at] != m) ++at;
         arg[j * W + k] = at;
         if (k < chunks * LANES) {
            const std::int64_t c2 = k / LANES, l2 = k % LANES;
            G[c2 * G_chunk + std::int64_t(j) * LANES + l2] = m;
            double &gm = Gmax[c2 * bm_chunk + (j / BLOCK) * LANES + l2];
            gm = m > gm ? m : gm;
         }
         if (j == M) value[k - 1] = m;
      }
   }
   for (int k = 1; k <= K; ++k) {
      std::int32_t *e = &edges[std::int64_t(k - 1) * W];
      for (int m = 0; m <= K; ++m) e[m] = -1;
      if (value[k - 1] == NEG) continue;
      int j = M;
      for (int m = k; m >= 1; --m) {
         e[m] = j;
         j = arg[j * W + m];
      }
      e[0] = j; // 0 by construction
   }
   return 0;
}

// TRExFitter's AutoBin TransfoD (python/pnetviz/metrics/fitbinning.py): for each of `rows` rows
// of z (row-major, m fine bins each: z_b b/B + z_s s/S per fine bin), from the high-score end,
// acc += z[j] for j = m-1 .. 1 and a cut at j where acc >= 1 (acc back to 0); a remainder at the
// low end joins the last bin made (its cut dropped). idx[r * (m + 1) ..]: the fine-bin boundaries
// of the bins, increasing (0, the cuts, m), count[r] of them. The same additions as the Python loop.
inline void transfo_d_cuts(const double *z, int rows, int m, std::int32_t *idx, std::int32_t *count)
{
   for (int r = 0; r < rows; ++r) {
      const double *zr = z + std::int64_t(r) * m;
      std::int32_t *c = idx + std::int64_t(r) * (m + 1);
      int n = 0; // the cuts below m, decreasing, in c[1..n] for now
      double acc = 0.0;
      for (int j = m - 1; j > 0; --j) {
         acc += zr[j];
         if (acc >= 1.0) {
            c[++n] = j;
            acc = 0.0;
         }
      }
      if (acc > 0 && n > 0) --n;
      for (int a = 1, b = n; a < b; ++a, --b) {
         const std::int32_t t = c[a];
         c[a] = c[b];
         c[b] = t;
      }
      c[0] = 0;
      c[n + 1] = m;
      count[r] = n + 2;
   }
}

} // namespace pnetviz

#endif
