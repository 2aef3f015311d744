// pnetviz: two doubles as one value, for the JIT-compiled kernels (macros/optimal_binning.h).
//
// cling's "-O3" code targets plain x86-64 (SSE2) and vectorises and unrolls nothing (measured),
// so hot loops are written with 128-bit vector types (GCC/clang `vector_size(16)`: SSE2 on
// x86-64, NEON on ARM); the blend, the test of a mask and the maximum go through SSE2
// intrinsics where available (written with the vector types' operators, both clang and g++
// moved the lanes through integer registers; clang's __builtin_elementwise_max is IEEE maxNum,
// four instructions on SSE2). `vlog`: the natural logarithm of two lanes (fdlibm's algorithm).
#ifndef PNETVIZ_SIMD2_H
#define PNETVIZ_SIMD2_H

#include <cfloat>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pnetviz {
namespace detail {

// Two doubles as one value (GCC/clang vector extension, 128 bits).
typedef double v2d __attribute__((vector_size(16)));
typedef long long v2m __attribute__((vector_size(16)));
typedef unsigned long long v2u __attribute__((vector_size(16)));

inline v2d splat(double x) { return v2d{x, x}; }
inline v2u splat_u(unsigned long long x) { return v2u{x, x}; }

inline v2d load2(const double *p)
{
   v2d v;
   std::memcpy(&v, p, sizeof v);
   return v;
}

inline void store2(double *p, v2d v) { std::memcpy(p, &v, sizeof v); }

inline v2d blend(v2m take, v2d a, v2d b) // take ? a : b, lane by lane
{
#if defined(__SSE2__) // as written below, both compilers moved the lanes through integer registers
   const __m128d m = (__m128d)take;
   return (v2d)_mm_or_pd(_mm_and_pd(m, (__m128d)a), _mm_andnot_pd(m, (__m128d)b));
#else
   return (v2d)(((v2m)a & take) | ((v2m)b & ~take));
#endif
}

inline bool any(v2m m)
{
#if defined(__SSE2__)
   return _mm_movemask_pd((__m128d)m) != 0;
#else
   return (m[0] | m[1]) != 0;
#endif
}

inline int mask_bits(v2m m) // lane l's sign as bit l
{
#if defined(__SSE2__)
   return _mm_movemask_pd((__m128d)m);
#else
   return int(m[0] < 0) | int(m[1] < 0) << 1;
#endif
}
inline v2d vmax(v2d a, v2d b) // lane by lane; never NaN here
{
#if defined(__SSE2__)
   return (v2d)_mm_max_pd((__m128d)a, (__m128d)b);
#else
   return blend(a > b, a, b);
#endif
}

// ln x lane by lane for positive, normal, finite x (fdlibm's e_log.c: x = 2^e (1 + f) with
// 1 + f in (sqrt(2)/2, sqrt(2)], ln(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f);
// error < 1 ulp). Other lanes get some value, no trap: callers check their arguments (`normal`).
inline v2d vlog(v2d x)
{
   const v2u bits = (v2u)x;
   v2d m = (v2d)((bits & splat_u(0x000fffffffffffffULL)) | splat_u(0x3ff0000000000000ULL));
   // the biased exponent as a double, exactly: 2^52 + e read as a double, minus 2^52 (+ the bias)
   v2d e = (v2d)((bits >> 52) | splat_u(0x4330000000000000ULL)) - splat(4503599627370496.0 + 1023.0);
   const v2m big = m > splat(1.4142135623730951);
   m = blend(big, m * splat(0.5), m);
   e = blend(big, e + splat(1.0), e);
   const v2d f = m - splat(1.0);
   const v2d hfsq = splat(0.5) * f * f, s = f / (splat(2.0) + f), z = s * s, w = z * z;
   const v2d t1 = w * (splat(3.999999999940941908e-01) + w * (splat(2.222219843214978396e-01) + w * splat(1.531383769920937332e-01)));
   const v2d t2 = z * (splat(6.666666666666735130e-01) +
                       w * (splat(2.857142874366239149e-01) + w * (splat(1.818357216161805012e-01) + w * splat(1.479819860511658591e-01))));
   const v2d r = t2 + t1;
   return e * splat(6.93147180369123816490e-01) - ((hfsq - (s * (hfsq + r) + e * splat(1.90821492927058770002e-10))) - f);
}

// ln(1 + x) from u = 1 + x: ln u corrected by the rounding of u (a few ulp; exactly x where u = 1).
inline v2d vlog1p_of(v2d x, v2d u) { return vlog(u) - ((u - splat(1.0)) - x) / u; }

// the lanes where x is not a positive normal finite double (NaN included)
inline v2m not_normal(v2d x) { return ~((x >= splat(DBL_MIN)) & (x <= splat(DBL_MAX))); }

} // namespace detail
} // namespace pnetviz

#endif
