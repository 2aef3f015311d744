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
#include <cstring>
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

namespace detail {

typedef unsigned __int128 u128;
constexpr u128 PCG64_MULT = (u128(2549297995355413924ULL) << 64) | 4865540595714422341ULL;

inline u128 pcg64_step(u128 state, u128 inc) // state * M + inc mod 2^128, from 64-bit products
{
   const std::uint64_t lo = std::uint64_t(state), hi = std::uint64_t(state >> 64);
   const u128 p = u128(lo) * 4865540595714422341ULL;
   const std::uint64_t top = std::uint64_t(p >> 64) + lo * 2549297995355413924ULL + hi * 4865540595714422341ULL;
   return ((u128(top) << 64) | std::uint64_t(p)) + inc;
}

inline double pcg64_double(u128 state) // numpy's next_double of the state after a step (XSL-RR, 53 bits)
{
   const std::uint64_t x = std::uint64_t(state >> 64) ^ std::uint64_t(state);
   const unsigned rot = unsigned(state >> 122);
   return double(((x >> rot) | (x << ((64 - rot) & 63))) >> 11) * (1.0 / 9007199254740992.0);
}

// The next m doubles of numpy's PCG64 from `state` (advanced past them) into u: four stretches of
// m / 4 draws stepped side by side (the stretches' starts by the LCG's jump ahead, numpy's
// pcg_advance_lcg_128: the same states), the rest one by one.
inline void pcg64_fill(u128 &state, u128 inc, double *u, std::size_t m)
{
   const std::size_t h = m / 4;
   u128 a = 1, c = 0, cur_a = PCG64_MULT, cur_c = inc; // state -> a state + c: h steps
   for (std::size_t d = h; d > 0; d >>= 1) {
      if (d & 1) {
         a *= cur_a;
         c = c * cur_a + cur_c;
      }
      cur_c = (cur_a + 1) * cur_c;
      cur_a *= cur_a;
   }
   u128 s0 = state, s1 = a * s0 + c, s2 = a * s1 + c, s3 = a * s2 + c;
   for (std::size_t k = 0; k < h; ++k) {
      s0 = pcg64_step(s0, inc);
      s1 = pcg64_step(s1, inc);
      s2 = pcg64_step(s2, inc);
      s3 = pcg64_step(s3, inc);
      u[k] = pcg64_double(s0);
      u[h + k] = pcg64_double(s1);
      u[2 * h + k] = pcg64_double(s2);
      u[3 * h + k] = pcg64_double(s3);
   }
   state = h ? s3 : state;
   for (std::size_t k = 4 * h; k < m; ++k) {
      state = pcg64_step(state, inc);
      u[k] = pcg64_double(state);
   }
}

} // namespace detail

// The same sums with the uniforms drawn here, as numpy's PCG64 draws them (numpy's pcg64.h:
// state = state * M + inc mod 2^128, the XSL-RR output of the new state, next_double = (output
// >> 11) * 2^-53), from the 128-bit state and increment given as their 64-bit halves: blocks of
// `block` draws into a buffer that stays in cache (detail::pcg64_fill), each run through
// poisson_binned_sums_drawn (an event cut by a block's end taken again from its first draw).
// Returns the uniforms taken (the caller advances its generator by them; its state is not touched).
inline std::uint64_t poisson_binned_sums_pcg64(const std::int64_t *key, const double *w, std::size_t n, std::size_t nkeys,
                                               std::size_t replicas, std::uint64_t state_hi, std::uint64_t state_lo,
                                               std::uint64_t inc_hi, std::uint64_t inc_lo, std::size_t block, double enlam,
                                               double *out)
{
   const detail::u128 inc = (detail::u128(inc_hi) << 64) | inc_lo;
   detail::u128 state = (detail::u128(state_hi) << 64) | state_lo;
   std::vector<double> u(block > 0 ? block : 1);
   std::size_t left = 0, step = 0, used = 0;
   std::uint64_t taken = 0;
   while (step < n * replicas) {
      if (left == u.size()) u.resize(2 * u.size()); // an event longer than the buffer (never seen)
      detail::pcg64_fill(state, inc, u.data() + left, u.size() - left);
      step = poisson_binned_sums_drawn(key, w, n, nkeys, replicas, u.data(), u.size(), step, &used, enlam, out);
      taken += used;
      left = u.size() - used;
      std::memmove(u.data(), u.data() + used, left * sizeof(double));
   }
   return taken;
}

} // namespace pnetviz

#endif
