// pnetviz: the weighted ROC from sums per distinct score, when the scores take few values (used
// by weighted_roc.h's roc_curve before roc_msd.h's or roc_split.h's radix sort).
//
// Why: scores stored as float32 with ties take few distinct values (a network's output rounded
// to 1e-4: 10001). One pass hashes each event's key into a table of the distinct keys and adds
// its weight to its key's sum for its class (and w^2 and the count, for the bootstrap's chunk
// sums); the distinct keys alone are then sorted and swept. No event is moved: O(n) in one
// read of the inputs, no buffer of n records. When the distinct keys pass the limit (2^16, and
// at most one per kMinPerKey events) the pass stops there and the radix sort does the work
// (continuous scores stop within the first ~1e5 events).
// Values: the points (thresholds) and the chunk boundaries are those of the radix sort; tps and
// fps add each key's sum instead of its events one by one, which rounds differently (the
// difference is ~1e-16 of the totals, both are equal to scikit-learn's to 1e-12). Below
// kDistinctMinEvents events the radix sort is used, so that small inputs keep its bits. The
// binned bootstrap (weighted_roc.h's roc_bootstrap) takes its chunk sums from here too (the
// same replicas as from roc_curve's chunks), auc_weight_modes its three weight modes' sums.
#ifndef PNETVIZ_ROC_DISTINCT_H
#define PNETVIZ_ROC_DISTINCT_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "roc_bootstrap.h"
#include "roc_keys.h"

namespace pnetviz {
namespace detail {

constexpr std::size_t kMaxDistinct = std::size_t(1) << 16; // distinct keys at most
constexpr std::size_t kMinPerKey = 8;                        // events per distinct key at least
constexpr std::size_t kDistinctMinEvents = std::size_t(1) << 17;

// Open addressing with linear probing, key -> dense id (first seen, first numbered). The table
// grows to keep at most one slot in four used (a hit is then almost always the first probe).
template <typename Key>
class KeyTable {
public:
   KeyTable() { resize(12); }
   std::size_t size() const { return ids_.size(); }
   Key key(std::uint32_t id) const { return ids_[id]; }

   // The id of k, numbered if new; -1 when that would make more than `limit` keys.
   std::int64_t insert(Key k, std::size_t limit)
   {
      std::size_t at = hash(k);
      for (;;) {
         const Slot &slot = slots_[at];
         if (slot.key == k && slot.id != 0) return slot.id - 1;
         if (slot.id == 0) break;
         at = (at + 1) & mask_;
      }
      if (ids_.size() >= limit) return -1;
      const std::uint32_t id = std::uint32_t(ids_.size());
      ids_.push_back(k);
      slots_[at] = Slot{k, id + 1};
      if (4 * ids_.size() > slots_.size()) resize(bits_ + 1);
      return id;
   }

private:
   struct Slot {
      Key key;
      std::uint32_t id; // id + 1; 0: empty
   };
   std::size_t hash(Key k) const
   {
      if constexpr (sizeof(Key) == 4)
         return std::uint32_t(k * 0x9E3779B1u) >> (32 - bits_);
      else
         return std::uint64_t(k * 0x9E3779B97F4A7C15ull) >> (64 - bits_);
   }
   void resize(int bits)
   {
      bits_ = bits;
      mask_ = (std::size_t(1) << bits) - 1;
      slots_.assign(std::size_t(1) << bits, Slot{Key(0), 0});
      for (std::uint32_t id = 0; id < ids_.size(); ++id) {
         std::size_t at = hash(ids_[id]);
         while (slots_[at].id != 0)
            at = (at + 1) & mask_;
         slots_[at] = Slot{ids_[id], id + 1};
      }
   }
   std::vector<Slot> slots_;
   std::vector<Key> ids_; // key of each id
   std::size_t mask_ = 0;
   int bits_ = 0;
};

// Per distinct key: the sums of the weights per class (c = 1 signal), and for the bootstrap's
// chunk sums the sums of their squares and the numbers of events.
struct ClassSums {
   double w[2];
   void add(int c, double x) { w[c] += x; }
};
struct ClassChunkSums {
   double w[2], w2[2];
   std::uint32_t n[2];
   void add(int c, double x)
   {
      w[c] += x;
      w2[c] += x * x;
      ++n[c];
   }
};
// The sums per class under the three weight modes of auc_weight_modes: |w|, w, max(w, 0).
struct ModeSums {
   double w[3][2];
   void add(int c, double x)
   {
      w[0][c] += std::fabs(x);
      w[1][c] += x;
      w[2][c] += x > 0. ? x : 0.;
   }
};

// The sums per distinct key (by id) of the events with non-zero weight, in one pass; false when
// there are more than `limit` distinct keys (the pass stops there).
template <typename Sums, typename Key, typename Score>
bool sum_distinct(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                  std::size_t limit, KeyTable<Key> &table, std::vector<Sums> &sums)
{
   sums.assign(1024, Sums{});
   for (std::size_t i = 0; i < n; ++i) {
      const double w = weight[i];
      if (w == 0.) continue;
      const std::int64_t id = table.insert(desc_key(score[i]), limit);
      if (id < 0) return false;
      if (std::size_t(id) == sums.size()) sums.resize(2 * sums.size(), Sums{});
      sums[id].add(is_signal[i] ? 1 : 0, w);
   }
   return true;
}

// The ids by increasing key (decreasing score); keys are distinct.
template <typename Key>
std::vector<std::uint32_t> by_rank(const KeyTable<Key> &table)
{
   std::vector<std::pair<Key, std::uint32_t>> keys(table.size());
   for (std::uint32_t id = 0; id < table.size(); ++id)
      keys[id] = {table.key(id), id};
   std::sort(keys.begin(), keys.end());
   std::vector<std::uint32_t> rank_id(keys.size());
   for (std::size_t r = 0; r < keys.size(); ++r)
      rank_id[r] = keys[r].second;
   return rank_id;
}

// The curve from the sums by decreasing score (ids in `rank_id` order): as roc_split.h's
// sweep_classes, a key at a time, chunks closed at the same keys. Without tps (the binned
// bootstrap's chunk sums alone) no point is written.
template <typename Sums, typename Key>
std::size_t sweep_distinct(const std::vector<Sums> &sums, const KeyTable<Key> &table,
                           const std::vector<std::uint32_t> &rank_id, double *tps, double *fps, double *thresholds,
                           double *auc, std::size_t min_chunk, double *ws, double *vs, double *wb, double *vb,
                           std::size_t *n_chunks)
{
   if (tps) {
      tps[0] = 0.;
      fps[0] = 0.;
      thresholds[0] = std::numeric_limits<double>::infinity();
   }
   std::size_t m = 1, in_chunk = 0, chunks = 0;
   double tp = 0., fp = 0., tp0 = 0., fp0 = 0., area = 0., a = 0., a2 = 0., c = 0., c2 = 0.;
   for (const std::uint32_t id : rank_id) {
      const Sums &at = sums[id];
      tp += at.w[1];
      fp += at.w[0];
      area += (fp - fp0) * (tp + tp0);
      tp0 = tp;
      fp0 = fp;
      if (tps) {
         tps[m] = tp;
         fps[m] = fp;
         thresholds[m] = key_value(table.key(id));
      }
      ++m;
      if constexpr (std::is_same_v<Sums, ClassChunkSums>) {
         a += at.w[1], a2 += at.w2[1], c += at.w[0], c2 += at.w2[0];
         in_chunk += std::size_t(at.n[0]) + at.n[1];
         if (in_chunk >= min_chunk || m == rank_id.size() + 1) {
            ws[chunks] = a, vs[chunks] = a2, wb[chunks] = c, vb[chunks] = c2;
            ++chunks;
            a = a2 = c = c2 = 0.;
            in_chunk = 0;
         }
      }
   }
   if (n_chunks) *n_chunks = chunks;
   *auc = (tp != 0. && fp != 0.) ? 0.5 * area / (tp * fp) : std::numeric_limits<double>::quiet_NaN();
   return m;
}

template <typename Sums, typename Key, typename Score>
bool roc_distinct_sums(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                       double *tps, double *fps, double *thresholds, double *auc, std::size_t min_chunk,
                       double *chunks, std::size_t *n_chunks, std::size_t *points)
{
   KeyTable<Key> table;
   std::vector<Sums> sums;
   if (!sum_distinct(score, weight, is_signal, n, std::min(kMaxDistinct, n / kMinPerKey), table, sums)) return false;
   const std::vector<std::uint32_t> rank_id = by_rank(table);
   const std::size_t cap = min_chunk ? n / min_chunk + 1 : 0;
   *points = sweep_distinct(sums, table, rank_id, tps, fps, thresholds, auc, min_chunk, chunks, chunks + cap,
                            chunks + 2 * cap, chunks + 3 * cap, n_chunks);
   return true;
}

// The ROC (and the chunk sums when min_chunk > 0: 4 rows of n / min_chunk + 1) from the sums
// per distinct key; false, with nothing written, when n < kDistinctMinEvents or the keys are too
// many (n < 2^32). tps, fps and thresholds may be null (chunk sums only).
template <typename Key, typename Score>
bool roc_distinct(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                  double *tps, double *fps, double *thresholds, double *auc, std::size_t min_chunk, double *chunks,
                  std::size_t *n_chunks, std::size_t *points)
{
   if (n < kDistinctMinEvents) return false;
   if (min_chunk)
      return roc_distinct_sums<ClassChunkSums, Key>(score, weight, is_signal, n, tps, fps, thresholds, auc, min_chunk,
                                                    chunks, n_chunks, points);
   return roc_distinct_sums<ClassSums, Key>(score, weight, is_signal, n, tps, fps, thresholds, auc, 0, nullptr,
                                            n_chunks, points);
}

// The binned bootstrap (roc_bootstrap.h's bootstrap_chunks) from the chunk sums per distinct
// key, the same as from roc_curve's chunks; false when roc_distinct does not apply.
template <typename Key, typename Score>
bool bootstrap_distinct(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                        std::size_t replicas, std::uint64_t seed, double eps_s, std::size_t min_chunk, double *auc,
                        double *eps_b)
{
   const std::size_t cap = n / min_chunk + 1;
   std::vector<double> chunks(4 * cap);
   std::size_t m = 0, points = 0;
   double whole = 0.;
   if (!roc_distinct<Key>(score, weight, is_signal, n, nullptr, nullptr, nullptr, &whole, min_chunk, chunks.data(),
                          &m, &points))
      return false;
   bootstrap_chunks(chunks.data(), chunks.data() + cap, chunks.data() + 2 * cap, chunks.data() + 3 * cap, m, replicas,
                    seed, eps_s, auc, eps_b);
   return true;
}

// AUC under the weight modes |w|, w and max(w, 0) (weighted_roc.h's auc_weight_modes) from the
// sums per distinct key; false when roc_distinct would not apply.
template <typename Key, typename Score>
bool auc_modes_distinct(const Score *score, const double *weight, const std::uint8_t *is_signal, std::size_t n,
                        double *auc)
{
   if (n < kDistinctMinEvents) return false;
   KeyTable<Key> table;
   std::vector<ModeSums> sums;
   if (!sum_distinct(score, weight, is_signal, n, std::min(kMaxDistinct, n / kMinPerKey), table, sums)) return false;
   double tp[3] = {0., 0., 0.}, fp[3] = {0., 0., 0.}, area[3] = {0., 0., 0.};
   for (const std::uint32_t id : by_rank(table)) {
      for (int k = 0; k < 3; ++k) {
         const double tp0 = tp[k], fp0 = fp[k];
         tp[k] += sums[id].w[k][1];
         fp[k] += sums[id].w[k][0];
         area[k] += (fp[k] - fp0) * (tp[k] + tp0);
      }
   }
   for (int k = 0; k < 3; ++k)
      auc[k] = (tp[k] != 0. && fp[k] != 0.) ? 0.5 * area[k] / (tp[k] * fp[k]) : std::numeric_limits<double>::quiet_NaN();
   return true;
}

} // namespace detail
} // namespace pnetviz

#endif // PNETVIZ_ROC_DISTINCT_H
