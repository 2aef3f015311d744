// pnetviz: per-replica binned sums of Poisson(1)-reweighted events, drawn from numpy's own generator.
//
// For each of `replicas` replicas and each event i in order: X ~ Poisson(1) by numpy's rule for
// lam < 10 (random_poisson_mult: multiply uniforms U = next_double() until the product is no
// longer above exp(-lam)), then out[r * nkeys + key[i]] += double(X) * w[i]. The uniforms come
// from the numpy BitGenerator whose C interface (Generator.bit_generator.ctypes: state address
// and next_double) is passed in, so the draws, their order and every sum are exactly those of
//   c = rng.poisson(1.0, n) * w; np.bincount(key, c, nkeys)      (once per replica)
// and the generator's state advances as numpy's would. `enlam` is exp(-1) as libm gives it.
// Pure function over arrays; python/pnetviz/metrics/pairmetrics.py (binned_fip_error) calls it.
#ifndef PNETVIZ_POISSON_BINS_H
#define PNETVIZ_POISSON_BINS_H

#include <cstddef>
#include <cstdint>

namespace pnetviz {

inline void poisson_binned_sums(const std::int64_t *key, const double *w, std::size_t n, std::size_t nkeys,
                                std::size_t replicas, std::uintptr_t state, std::uintptr_t next_double,
                                double enlam, double *out)
{
#pragma clang fp contract(off)
   auto draw = reinterpret_cast<double (*)(void *)>(next_double);
   void *bitgen = reinterpret_cast<void *>(state);
   for (std::size_t r = 0; r < replicas; ++r) {
      double *row = out + r * nkeys;
      for (std::size_t k = 0; k < nkeys; ++k)
         row[k] = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
         std::int64_t x = 0;
         double prod = 1.0;
         while (true) {
            prod *= draw(bitgen);
            if (!(prod > enlam))
               break;
            ++x;
         }
         const double c = double(x) * w[i];
         row[key[i]] += c;
      }
   }
}

// The same sums from uniforms already drawn: `u` (nu of them) holds the generator's next doubles
// in order (numpy's Generator.random fills them with next_double), so event after event takes
// X + 1 of them exactly as above. Resumable: steps t = r * n + i run from `step` while an event
// can finish inside `u` (a row is zeroed at its first event); returns the first step not done
// (n * replicas when all are) and sets *used to the uniforms taken. Three draws are multiplied
// ahead (products only fall: 0 <= U < 1), so that X <= 3 (98% of events) needs no branch on each
// draw; the products are the loop's, in its order, and X counts those above enlam.
inline std::size_t poisson_binned_sums_drawn(const std::int64_t *key, const double *w, std::size_t n, std::size_t nkeys,
                                             std::size_t replicas, const double *u, std::size_t nu, std::size_t step,
                                             std::size_t *used, double enlam, double *out)
{
#pragma clang fp contract(off)
   std::size_t j = 0;
   for (std::size_t r = step / n, i = step % n; r < replicas; ++r, i = 0) {
      double *row = out + r * nkeys;
      if (i == 0)
         for (std::size_t k = 0; k < nkeys; ++k)
            row[k] = 0.0;
      for (; i < n; ++i) {
         std::int64_t x = 0;
         std::size_t next = j;
         double prod = 1.0;
         if (j + 4 <= nu) {
            const double p1 = u[j], p2 = p1 * u[j + 1], p3 = p2 * u[j + 2], p4 = p3 * u[j + 3];
            if (!(p4 > enlam)) {
               x = std::int64_t(p1 > enlam) + std::int64_t(p2 > enlam) + std::int64_t(p3 > enlam);
               next = j + std::size_t(x) + 1;
            } else {
               x = 4;
               prod = p4;
               next = j + 4;
            }
         }
         if (next == j || x == 4) { // the plain loop: near the end of u, or X >= 4
            bool done = false;
            while (next < nu) {
               prod *= u[next++];
               if (!(prod > enlam)) {
                  done = true;
                  break;
               }
               ++x;
            }
            if (!done) { // u ran out inside this event: not counted, resumed from its first draw
               *used = j;
               return r * n + i;
            }
         }
         j = next;
         row[key[i]] += double(x) * w[i];
      }
   }
   *used = j;
   return n * replicas;
}

} // namespace pnetviz

#endif
