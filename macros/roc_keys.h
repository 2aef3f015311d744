// pnetviz: the weighted ROC's keys and buffers (included by weighted_roc.h and roc_split.h).
// An order-preserving unsigned key per score (ascending key == descending score, -0 folded onto
// +0), its value back, record buffers (2 MiB aligned, transparent huge pages) and radix digits.
#ifndef PNETVIZ_ROC_KEYS_H
#define PNETVIZ_ROC_KEYS_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace pnetviz {

// One event in a sorted run: an order-preserving unsigned key (ascending key == descending
// score), the event weight and the class (1 = signal, 0 = background).
template <typename Key>
struct RocRecord {
   Key key;
   std::uint32_t is_signal;
   double weight;
};

namespace detail {

inline std::uint32_t desc_key(float f)
{
   if (f == 0.f) f = 0.f; // fold -0 onto +0: they are the same threshold
   std::uint32_t u;
   std::memcpy(&u, &f, sizeof u);
   u = (u & 0x80000000u) ? ~u : (u | 0x80000000u); // ascending in f
   return ~u;                                         // ascending in -f
}

inline std::uint64_t desc_key(double f)
{
   if (f == 0.) f = 0.;
   std::uint64_t u;
   std::memcpy(&u, &f, sizeof u);
   u = (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
   return ~u;
}

inline double key_value(std::uint32_t k)
{
   std::uint32_t u = ~k;
   u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
   float f;
   std::memcpy(&f, &u, sizeof f);
   return f;
}

inline double key_value(std::uint64_t k)
{
   std::uint64_t u = ~k;
   u = (u & 0x8000000000000000ull) ? (u & 0x7fffffffffffffffull) : ~u;
   double f;
   std::memcpy(&f, &u, sizeof f);
   return f;
}

// Scratch storage for n records, not value-initialised (records are written before read).
// Large buffers are 2 MiB aligned and marked for transparent huge pages: first-touch page
// faults on fresh buffers otherwise cost as much as a radix pass (measured at 1e7 events).
struct FreeDeleter {
   void operator()(void *p) const { std::free(p); }
};
template <typename T>
using Buffer = std::unique_ptr<T[], FreeDeleter>;
template <typename Key>
using RecordBuffer = Buffer<RocRecord<Key>>;

template <typename T>
Buffer<T> make_array(std::size_t n)
{
   constexpr std::size_t kHuge = std::size_t(1) << 21;
   std::size_t bytes = (n > 0 ? n : 1) * sizeof(T);
   void *p = nullptr;
   if (bytes >= kHuge) {
      bytes = (bytes + kHuge - 1) / kHuge * kHuge;
      p = std::aligned_alloc(kHuge, bytes);
#ifdef MADV_HUGEPAGE
      if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
   }
   if (!p) p = std::malloc(bytes);
   if (!p) throw std::bad_alloc();
   return Buffer<T>(static_cast<T *>(p));
}

template <typename Key>
RecordBuffer<Key> make_buffer(std::size_t n)
{
   return make_array<RocRecord<Key>>(n);
}

constexpr int kRadixBits = 16;
constexpr std::size_t kBuckets = std::size_t(1) << kRadixBits;
template <typename Key>
constexpr int kPasses = (8 * sizeof(Key) + kRadixBits - 1) / kRadixBits;

template <typename Key>
inline std::size_t digit(Key key, int pass)
{
   return (key >> (pass * kRadixBits)) & (kBuckets - 1);
}

} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_KEYS_H
