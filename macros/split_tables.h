// pnetviz: the binned tables of one split of a signal-vs-background evaluation in one pass over its
// events (metrics/evaluate.py split_tables), instead of a numpy pass (and a class copy) per table.
//
// For n events with scores s, signal flags y (nonzero = signal) and weights w (after the weight mode):
//   * hist (4 x nbins): the score histograms' sums, rows signal sum w, signal sum w^2, background
//     sum w, background sum w^2, in nbins equal bins of [0, 1] (detail::equal_bin: numpy.histogram's
//     rule, scores <= 0 in the first bin and >= 1 in the last), as evaluate.binned_sums;
//   * confusion and counts (2 x 2, row = true class, column = predicted; index 0 = signal, predicted
//     when s >= threshold, the threshold rounded to the score type as numpy compares a float32 array
//     with a Python float): summed w and the count of w != 0, as evaluate.binary_confusion;
//   * reliability (6 x cbins, cbins equal bins of [0, 1] of s as a double): sum w, sum w of the
//     signal, sum w^2 of the signal, sum w^2 of the background, sum w s, count of w != 0, as
//     calibration.reliability sums them.
// Every sum runs in event order, one addition an event (adding 0.0 where numpy adds a 0.0), so
// each bin is numpy.bincount's double to the last bit. No floating-point contraction. Outputs are
// zeroed here.
//
// compress_{u1,i4,i8}: dst = src[sel != 0] (numpy's boolean index) for elements of 1, 4 or 8 bytes, in
// one branch-free pass (each element written at the next free place, which advances when selected);
// `count` = the number of selected elements, the size of dst (nothing is written beyond it).
//
// gather_splits: the same for k selections (splits) and c columns at once: dst[j c + col] =
// src[col][sel[j] != 0] (addresses as integers, `size` the columns' element sizes: 1, 4 or 8).
// The events go by blocks of kGatherBlock: each block of every column is read from memory once
// and compressed for every selection from cache (a pass per split and column read them all).
#ifndef PNETVIZ_SPLIT_TABLES_H
#define PNETVIZ_SPLIT_TABLES_H

#include <algorithm>
#include <cstdint>

#include "class_tables.h"

namespace pnetviz {

namespace detail {

template <typename Score>
void split_tables(const Score *s, const double *w, const std::uint8_t *y, std::int64_t n, int nbins, double threshold,
                  int cbins, double *hist, double *confusion, double *counts, double *reliability)
{
#pragma clang fp contract(off)
   std::fill(hist, hist + 4 * std::int64_t(nbins), 0.0);
   std::fill(confusion, confusion + 4, 0.0);
   std::fill(counts, counts + 4, 0.0);
   std::fill(reliability, reliability + 6 * std::int64_t(cbins), 0.0);
   const Score cut = static_cast<Score>(threshold);
   double *W = reliability, *P = reliability + cbins, *w2_pos = reliability + 2 * cbins;
   double *w2_neg = reliability + 3 * cbins, *wp = reliability + 4 * cbins, *events = reliability + 5 * cbins;
   for (std::int64_t i = 0; i < n; ++i) {
      const double x = static_cast<double>(s[i]), wi = w[i];
      const double w2 = wi * wi;
      const bool signal = y[i] != 0;
      const double nonzero = wi != 0.0 ? 1.0 : 0.0;
      const int bin = equal_bin(x, nbins);
      double *row = hist + (signal ? 0 : 2) * std::int64_t(nbins);
      row[bin] += wi;
      row[nbins + bin] += w2;
      const int cell = (signal ? 0 : 2) + (s[i] >= cut ? 0 : 1);
      confusion[cell] += wi;
      counts[cell] += nonzero;
      const int c = equal_bin(x, cbins);
      const double product = wi * x;
      W[c] += wi;
      P[c] += signal ? wi : 0.0;
      w2_pos[c] += signal ? w2 : 0.0;
      w2_neg[c] += signal ? 0.0 : w2;
      wp[c] += product;
      events[c] += nonzero;
   }
}

template <typename T>
void compress(const std::uint8_t *sel, std::int64_t n, const T *src, T *dst, std::int64_t count)
{
   std::int64_t j = 0;
   for (std::int64_t i = 0; i < n && j < count; ++i) {
      dst[j] = src[i];
      j += sel[i] != 0;
   }
}

// compress of elements [0, n) of one block: dst[at..] (at most `room` written); returns how many
// were selected.
template <typename T>
std::int64_t compress_block(const std::uint8_t *sel, std::int64_t n, const T *src, T *dst, std::int64_t room)
{
   std::int64_t j = 0;
   for (std::int64_t i = 0; i < n && j < room; ++i) {
      dst[j] = src[i];
      j += sel[i] != 0;
   }
   return j;
}

constexpr std::int64_t kGatherBlock = 4096;
constexpr int kGatherMax = 8; // selections at most

template <typename T>
std::int64_t compress_column(std::uint64_t sel, std::uint64_t src, std::uint64_t dst, std::int64_t at,
                             std::int64_t len, std::int64_t room)
{
   return compress_block(reinterpret_cast<const std::uint8_t *>(sel) + at, len,
                         reinterpret_cast<const T *>(src) + at, reinterpret_cast<T *>(dst), room);
}

} // namespace detail

inline void gather_splits(const std::uint64_t *sel, int k, std::int64_t n, const std::int64_t *count,
                          const std::uint64_t *src, const std::int32_t *size, int c, const std::uint64_t *dst)
{
   std::int64_t pos[detail::kGatherMax] = {};
   k = k < detail::kGatherMax ? k : detail::kGatherMax;
   for (std::int64_t at = 0; at < n; at += detail::kGatherBlock) {
      const std::int64_t len = n - at < detail::kGatherBlock ? n - at : detail::kGatherBlock;
      for (int j = 0; j < k; ++j) {
         std::int64_t got = 0;
         for (int col = 0; col < c; ++col) {
            const std::int64_t room = count[j] - pos[j];
            const std::uint64_t out = dst[j * c + col] + std::uint64_t(pos[j]) * std::uint64_t(size[col]);
            if (size[col] == 1)
               got = detail::compress_column<std::uint8_t>(sel[j], src[col], out, at, len, room);
            else if (size[col] == 4)
               got = detail::compress_column<std::uint32_t>(sel[j], src[col], out, at, len, room);
            else
               got = detail::compress_column<std::uint64_t>(sel[j], src[col], out, at, len, room);
         }
         pos[j] += got;
      }
   }
}

inline void compress_u1(const std::uint8_t *sel, std::int64_t n, const std::uint8_t *src, std::uint8_t *dst,
                        std::int64_t count)
{
   detail::compress(sel, n, src, dst, count);
}

inline void compress_i4(const std::uint8_t *sel, std::int64_t n, const std::int32_t *src, std::int32_t *dst,
                        std::int64_t count)
{
   detail::compress(sel, n, src, dst, count);
}

inline void compress_i8(const std::uint8_t *sel, std::int64_t n, const std::int64_t *src, std::int64_t *dst,
                        std::int64_t count)
{
   detail::compress(sel, n, src, dst, count);
}

inline void split_tables_f32(const float *s, const double *w, const std::uint8_t *y, std::int64_t n, int nbins,
                             double threshold, int cbins, double *hist, double *confusion, double *counts,
                             double *reliability)
{
   detail::split_tables(s, w, y, n, nbins, threshold, cbins, hist, confusion, counts, reliability);
}

inline void split_tables_f64(const double *s, const double *w, const std::uint8_t *y, std::int64_t n, int nbins,
                             double threshold, int cbins, double *hist, double *confusion, double *counts,
                             double *reliability)
{
   detail::split_tables(s, w, y, n, nbins, threshold, cbins, hist, confusion, counts, reliability);
}

} // namespace pnetviz

#endif // PNETVIZ_SPLIT_TABLES_H
