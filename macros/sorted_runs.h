// pnetviz: one split's events in increasing score order, one run per class, and the sums the
// binning for the fit takes from them (python/pnetviz/metrics/prefixsums.py).
//
// Why: the binning's prefix sums (signal yield, background yield, background MC events and
// w^2, per bin of any edge set) and the fine bins' weighted quantiles are sums over each
// class's events in increasing score order. numpy made that order with a stable argsort of
// every event (8 bytes per event, ~1 s at 6e6) and gathered the columns from it; here the
// ROC kernel's sort (roc_split.h: a stable LSD radix sort per class, 16-bit digits, passes in
// which a class's keys share the digit skipped) runs with the key ascending in the score and
// writes each class's scores, weights and input indices straight into its run.
// Values: a run is the class's events in the stable order (equal scores in input order, -0
// folded onto +0 as the ROC's keys do), so a sequential sum over a run's first p events adds
// the same numbers in the same order as numpy.cumsum over that class's part of the stable
// argsort: the same float64 bits (the other class's events added +0.0 there, which changes no
// running sum: one that starts at +0.0 is never -0.0).
#ifndef PNETVIZ_SORTED_RUNS_H
#define PNETVIZ_SORTED_RUNS_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "roc_keys.h"
#include "roc_split.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace pnetviz {
namespace detail {

// Order-preserving keys ascending in the score (the complement of the ROC's descending keys).
inline std::uint32_t asc_key(float f)
{
   return ~desc_key(f);
}
inline std::uint64_t asc_key(double f)
{
   return ~desc_key(f);
}
template <typename Score, typename Key>
inline Score asc_value(Key k)
{
   return static_cast<Score>(key_value(Key(~k)));
}

// Scratch records mapped from the system and unmapped when done: memory a sort of 1e7 events
// takes for a moment goes back to the system, not to malloc's heap (where glibc keeps blocks
// under its 32 MB mmap threshold, and the process's peak RSS later grows by them).
template <typename T>
class Scratch {
public:
   Scratch() = default;
   explicit Scratch(std::size_t n) : bytes_((n > 0 ? n : 1) * sizeof(T))
   {
#ifdef __linux__
      void *p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
         madvise(p, bytes_, MADV_HUGEPAGE);
#endif
         p_ = static_cast<T *>(p);
         return;
      }
#endif
      heap_ = make_array<T>(n);
      p_ = heap_.get();
   }
   Scratch(const Scratch &) = delete;
   Scratch &operator=(const Scratch &) = delete;
   Scratch &operator=(Scratch &&o) noexcept
   {
      release();
      p_ = o.p_, bytes_ = o.bytes_, heap_ = std::move(o.heap_);
      o.p_ = nullptr;
      return *this;
   }
   ~Scratch() { release(); }
   T *get() const { return p_; }
   T &operator[](std::size_t i) const { return p_[i]; }

private:
   void release()
   {
#ifdef __linux__
      if (p_ && !heap_) munmap(p_, bytes_);
#endif
      p_ = nullptr;
      heap_.reset();
   }
   T *p_ = nullptr;
   std::size_t bytes_ = 0;
   Buffer<T> heap_;
};

// A record of the sort: the key, the weight and (when asked for) the input index.
template <typename Key, typename W, bool Indexed>
struct __attribute__((packed)) RunRecord {
   Key key;
   W weight;
   std::uint32_t index;
};
template <typename Key, typename W>
struct __attribute__((packed)) RunRecord<Key, W, false> {
   Key key;
   W weight;
};

// Both classes' runs (c = 1 signal, 0 background): x[c], w[c] (and index[c] when Indexed) hold
// the class's scores, weights and input indices by increasing score, stable; each sized by the
// class's number of events (every event, zero weights too). The records carry the weight, so
// that no pass reads the inputs out of order. n < 2^32.
template <bool Indexed, typename Score, typename W>
void class_runs(const Score *score, const W *weight, const std::uint8_t *is_signal, std::size_t n, Score *const *x,
                W *const *w, std::uint32_t *const *index)
{
   using Key = decltype(asc_key(Score()));
   using R = RunRecord<Key, W, Indexed>;
   constexpr int P = kSplitPasses<Key>;
   std::vector<std::uint32_t> counts(2 * P * kSplitBuckets, 0);
   std::size_t size[2] = {0, 0};
   Key k0[2] = {0, 0};
   for (std::size_t i = 0; i < n; ++i) {
      const int c = is_signal[i] ? 1 : 0;
      const Key k = asc_key(score[i]);
      if (size[c]++ == 0) k0[c] = k;
      std::uint32_t *cc = counts.data() + c * P * kSplitBuckets;
      for (int p = 0; p < P; ++p)
         ++cc[p * kSplitBuckets + split_digit(k, p)];
   }
   int passes[2][P], q[2] = {0, 0};
   std::uint32_t fill[2] = {0, 0}; // a class of one key: its events in input order
   Scratch<R> buf[2][2];
   for (int c = 0; c < 2; ++c) {
      if (size[c] > 0)
         q[c] = digit_passes(counts.data() + c * P * kSplitBuckets, std::uint32_t(size[c]), k0[c], passes[c]);
      if (q[c] >= 2) buf[c][0] = Scratch<R>(size[c]);
      if (q[c] >= 3) buf[c][1] = Scratch<R>(size[c]);
   }
   auto out = [&](int c, std::size_t at, Key k, W wt, std::uint32_t i) {
      x[c][at] = asc_value<Score>(k);
      w[c][at] = wt;
      if constexpr (Indexed) index[c][at] = i;
   };
   auto record = [](Key k, W wt, std::uint32_t i) {
      if constexpr (Indexed)
         return R{k, wt, i};
      else
         return R{k, wt};
   };
   // the first pass reads the inputs: into the run itself when it is the only one, else records
   for (std::size_t i = 0; i < n; ++i) {
      const int c = is_signal[i] ? 1 : 0;
      const Key k = asc_key(score[i]);
      if (q[c] == 0) {
         out(c, fill[c]++, k, weight[i], std::uint32_t(i));
         continue;
      }
      const std::uint32_t at = counts[(c * P + passes[c][0]) * kSplitBuckets + split_digit(k, passes[c][0])]++;
      if (q[c] == 1)
         out(c, at, k, weight[i], std::uint32_t(i));
      else
         buf[c][0][at] = record(k, weight[i], std::uint32_t(i));
   }
   for (int c = 0; c < 2; ++c) {
      for (int j = 1; j < q[c]; ++j) {
         const R *src = buf[c][(j - 1) % 2].get();
         R *dst = buf[c][j % 2].get();
         std::uint32_t *cc = counts.data() + (c * P + passes[c][j]) * kSplitBuckets;
         const bool last = j == q[c] - 1;
         for (std::size_t i = 0; i < size[c]; ++i) {
            const R r = src[i];
            const std::uint32_t at = cc[split_digit(r.key, passes[c][j])]++;
            if (!last)
               dst[at] = r;
            else if constexpr (Indexed)
               out(c, at, r.key, r.weight, r.index);
            else
               out(c, at, r.key, r.weight, 0);
         }
      }
   }
}

// At each of the positions `at` (increasing, each <= n): the sums over the run's first `at`
// weights of v = w scale and of v^2, added one after the other from +0.0 (numpy.cumsum's bits).
template <typename W>
void run_sums(const W *w, std::size_t n, double scale, const std::int64_t *at, std::size_t m, double *sum,
              double *sum2)
{
#pragma clang fp contract(off)
   double a = 0., a2 = 0.;
   std::size_t i = 0;
   for (std::size_t r = 0; r < m; ++r) {
      const std::size_t end = std::size_t(at[r]) < n ? std::size_t(at[r]) : n;
      for (; i < end; ++i) {
         const double v = double(w[i]) * scale;
         a += v;
         a2 += v * v;
      }
      sum[r] = a;
      sum2[r] = a2;
   }
}

// The k - 1 inner weighted (|w|) quantiles of a run as positions in it (metrics.binning's
// weighted_quantiles: c = cumsum |w|, targets c[-1] i / k, numpy.searchsorted(c, t, 'left')
// capped at n - 1). Returns how many were written: k - 1, or 0 without events or weight.
template <typename W>
std::size_t run_quantiles(const W *w, std::size_t n, std::size_t k, std::int64_t *out)
{
#pragma clang fp contract(off)
   if (n == 0 || k < 2) return 0;
   double total = 0.;
   for (std::size_t i = 0; i < n; ++i)
      total += std::fabs(double(w[i]));
   if (total <= 0.) return 0;
   double cum = std::fabs(double(w[0]));
   std::size_t j = 0;
   for (std::size_t i = 1; i < k; ++i) {
      const double t = total * double(i) / double(k);
      while (j + 1 < n && cum < t)
         cum += std::fabs(double(w[++j]));
      out[i - 1] = std::int64_t(j);
   }
   return k - 1;
}

} // namespace detail

// with_index = 0: i_sig and i_bkg are not written (may be any pointer)
#define PNETVIZ_CLASS_RUNS(NAME, S, W)                                                                         \
   inline void NAME(const S *score, const W *weight, const std::uint8_t *is_signal, std::size_t n, S *x_sig,   \
                    W *w_sig, std::uint32_t *i_sig, S *x_bkg, W *w_bkg, std::uint32_t *i_bkg, int with_index)   \
   {                                                                                                           \
      S *const x[2] = {x_bkg, x_sig};                                                                          \
      W *const w[2] = {w_bkg, w_sig};                                                                          \
      std::uint32_t *const i[2] = {i_bkg, i_sig};                                                              \
      if (with_index)                                                                                          \
         detail::class_runs<true, S, W>(score, weight, is_signal, n, x, w, i);                                 \
      else                                                                                                     \
         detail::class_runs<false, S, W>(score, weight, is_signal, n, x, w, i);                                \
   }
PNETVIZ_CLASS_RUNS(class_runs_f32_w32, float, float)
PNETVIZ_CLASS_RUNS(class_runs_f32_w64, float, double)
PNETVIZ_CLASS_RUNS(class_runs_f64_w32, double, float)
PNETVIZ_CLASS_RUNS(class_runs_f64_w64, double, double)
#undef PNETVIZ_CLASS_RUNS

inline void run_sums_w32(const float *w, std::size_t n, double scale, const std::int64_t *at, std::size_t m,
                         double *sum, double *sum2)
{
   detail::run_sums(w, n, scale, at, m, sum, sum2);
}
inline void run_sums_w64(const double *w, std::size_t n, double scale, const std::int64_t *at, std::size_t m,
                         double *sum, double *sum2)
{
   detail::run_sums(w, n, scale, at, m, sum, sum2);
}
inline std::size_t run_quantiles_w32(const float *w, std::size_t n, std::size_t k, std::int64_t *out)
{
   return detail::run_quantiles(w, n, k, out);
}
inline std::size_t run_quantiles_w64(const double *w, std::size_t n, std::size_t k, std::int64_t *out)
{
   return detail::run_quantiles(w, n, k, out);
}

} // namespace pnetviz

#endif // PNETVIZ_SORTED_RUNS_H
