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
#include <vector>

#include "simd2.h"

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
// (n * replicas when all are) and sets *used to the uniforms taken. First, for every position j
// of `u` at once (no dependence between positions: a vectorised pass), the uniforms an event
// starting there takes when X <= 3 (98% of events): three draws multiplied ahead (products only
// fall: 0 <= U < 1), X counts those above enlam, 0 where the fourth product is still above it
// (X >= 4) or u ends first. The events then only follow these lengths, one load an event instead
// of the products' latency; an event of length 0 runs the plain loop. The products are the
// loop's, in its order, so every X is the loop's.
inline std::size_t poisson_binned_sums_drawn(const std::int64_t *key, const double *w, std::size_t n, std::size_t nkeys,
                                             std::size_t replicas, const double *u, std::size_t nu, std::size_t step,
                                             std::size_t *used, double enlam, double *out)
{
#pragma clang fp contract(off)
   std::vector<std::uint8_t> length(nu + 1, 0);
   const std::size_t fast = nu >= 4 ? nu - 3 : 0; // positions j with j + 4 <= nu
   {
      // lane l of the four comparisons as the bits l, 2 + l, 4 + l, 6 + l of a byte -> X + 1 or 0
      static const std::uint16_t *const table = [] {
         static std::uint16_t t[256];
         for (int bits = 0; bits < 256; ++bits) {
            std::uint16_t v = 0;
            for (int l = 0; l < 2; ++l) {
               const int x = ((bits >> l) & 1) + ((bits >> (2 + l)) & 1) + ((bits >> (4 + l)) & 1), beyond = (bits >> (6 + l)) & 1;
               v |= std::uint16_t(beyond ? 0 : x + 1) << (8 * l);
            }
            t[bits] = v;
         }
         return t;
      }();
      using detail::v2d;
      const v2d e = detail::splat(enlam);
      const auto lengths = [&](std::size_t j) { // positions j and j + 1, one lane each
         const v2d p1 = detail::load2(u + j), p2 = p1 * detail::load2(u + j + 1), p3 = p2 * detail::load2(u + j + 2),
                   p4 = p3 * detail::load2(u + j + 3);
         const int bits = detail::mask_bits(p1 > e) | detail::mask_bits(p2 > e) << 2 | detail::mask_bits(p3 > e) << 4 |
                          detail::mask_bits(p4 > e) << 6;
         length[j] = std::uint8_t(table[bits]);
         length[j + 1] = std::uint8_t(table[bits] >> 8);
      };
      std::size_t j = 0;
      for (; j + 4 <= fast; j += 4) {
         lengths(j);
         lengths(j + 2);
      }
      for (; j < fast; ++j) {
         const double p1 = u[j], p2 = p1 * u[j + 1], p3 = p2 * u[j + 2], p4 = p3 * u[j + 3];
         const int x = int(p1 > enlam) + int(p2 > enlam) + int(p3 > enlam);
         length[j] = p4 > enlam ? 0 : std::uint8_t(x + 1);
      }
   }
   std::size_t j = 0;
   for (std::size_t r = step / n, i = step % n; r < replicas; ++r, i = 0) {
      double *row = out + r * nkeys;
      if (i == 0)
         for (std::size_t k = 0; k < nkeys; ++k)
            row[k] = 0.0;
      for (; i < n; ++i) {
         std::int64_t x = length[j];
         if (x != 0) {
            j += std::size_t(x);
            --x;
         } else { // the plain loop: X >= 4 (from the fourth product on), or near the end of u
            std::size_t next = j;
            double prod = 1.0;
            if (j + 4 <= nu) {
               prod = u[j] * u[j + 1] * u[j + 2] * u[j + 3];
               x = 4;
               next = j + 4;
            }
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
            j = next;
         }
         row[key[i]] += double(x) * w[i];
      }
   }
   *used = j;
   return n * replicas;
}

} // namespace pnetviz

#endif
