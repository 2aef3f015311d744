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

} // namespace pnetviz

#endif
