// pnetviz: read flat scalar branches of one TTree into caller-owned arrays, in one pass.
//
// Why not RDataFrame AsNumpy: measured on the 2-core VM at 1e7 entries and 9 columns (float,
// double, int, bool), AsNumpy took 13.8 s (4.7 s of it JIT-compiling one Take per column);
// RDataFrame with typed, pre-compiled Book actions 10.4 s; this plain TTree::GetEntry loop,
// compiled once at -O3 with the other kernels, 3.4 s; TTree's bulk API 2.9 s (but it needs
// byte-swapping per type and handles fewer branch layouts). See benchmarks/README.md.
// Since then (issue 36): a column whose branch supports TTree's bulk API is read basket by basket
// with TBranch::GetBulkRead (big-endian values byte-swapped here), the others with the
// GetEntry loop: at 1e6 entries and 9 columns 0.46 s instead of 1.2 s (the per-entry,
// per-branch calls of GetEntry were most of the time).
//
// Contract: every column is a scalar leaf (no arrays, no classes) whose in-memory size equals
// the caller's element size; the caller chooses the numpy dtype from the leaf type, so values
// are copied byte for byte (no conversion here). With nthreads > 1 the entry range is cut into
// nthreads contiguous pieces, each read by its own TFile in its own thread (ROOT's thread
// safety is switched on first), and every value lands at its global entry index: the result
// does not depend on the number of threads.
#ifndef PNETVIZ_COLUMN_READER_H
#define PNETVIZ_COLUMN_READER_H

#include <TBranch.h>
#include <TBufferFile.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pnetviz {

namespace detail {

struct ReadJob {
   std::string path, tree, label;  // label: shown on the progress bar
   bool terminal = true;           // redraw one line; else (a log file) a new line per quarter
   int quarters_shown = 0;
   std::vector<std::string> names;
   const std::uint64_t *out;  // data pointer per column
   const std::int32_t *size;  // element size per column, bytes
   std::atomic<long long> done{0};  // values read: entries x columns
   std::mutex error_mutex;
   std::string error;  // first error, empty if none

   void fail(const std::string &message)
   {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (error.empty()) error = message;
   }
   bool failed()
   {
      std::lock_guard<std::mutex> lock(error_mutex);
      return !error.empty();
   }
};

inline void print_progress(ReadJob &job, long long done, long long total, double seconds, bool last)
{
   const int width = 40;
   const double frac = total > 0 ? double(done) / double(total) : 1.0;
   if (!job.terminal) { // a log file: one line per quarter, none of the carriage-return redraws
      const int quarter = int(4 * frac);
      if (!last && quarter <= job.quarters_shown) return;
      job.quarters_shown = quarter;
   }
   const int filled = int(frac * width);
   std::string bar(filled, '=');
   bar.resize(width, ' ');
   std::fprintf(stderr, "%s%s: [%s] %3d%% %.1f/%.1f M entries, %.1f s%s", job.terminal ? "\r" : "", job.label.c_str(),
                bar.c_str(), int(100 * frac), done / 1e6, total / 1e6, seconds, last || !job.terminal ? "\n" : "");
   std::fflush(stderr);
}

// Copies `n` values of `size` bytes from ROOT's big-endian serialization to host order.
inline void from_big_endian(char *dst, const char *src, long long n, int size)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
   std::memcpy(dst, src, n * size);
#else
   if (size == 1) return void(std::memcpy(dst, src, n));
   for (long long i = 0; i < n; ++i) {
      if (size == 2) {
         std::uint16_t v;
         std::memcpy(&v, src + 2 * i, 2);
         v = __builtin_bswap16(v);
         std::memcpy(dst + 2 * i, &v, 2);
      } else if (size == 4) {
         std::uint32_t v;
         std::memcpy(&v, src + 4 * i, 4);
         v = __builtin_bswap32(v);
         std::memcpy(dst + 4 * i, &v, 4);
      } else {
         std::uint64_t v;
         std::memcpy(&v, src + 8 * i, 8);
         v = __builtin_bswap64(v);
         std::memcpy(dst + 8 * i, &v, 8);
      }
   }
#endif
}

// Reads entries [first, last) of one bulk-capable branch basket by basket into out (element
// size `size`); false after job.fail on a read error. GetEntriesSerialized reads a whole
// basket and is asked for its first entry (a thread's range may start inside a basket).
inline bool read_bulk(ReadJob &job, TBranch *branch, char *out, int size, long long first, long long last,
                      TBufferFile &buffer)
{
   const Long64_t *starts = branch->GetBasketEntry();
   const int nbaskets = branch->GetWriteBasket() + 1;
   for (long long e = first; e < last;) {
      const long long begin = *(std::upper_bound(starts, starts + nbaskets, Long64_t(e)) - 1);
      const Int_t n = begin <= e ? branch->GetBulkRead().GetEntriesSerialized(begin, buffer) : -1;
      if (n <= 0 || begin + n <= e) {
         job.fail("read error at entry " + std::to_string(e));
         return false;
      }
      const long long end = std::min<long long>(begin + n, last);
      from_big_endian(out + e * size, buffer.GetCurrent() + (e - begin) * size, end - e, size);
      job.done += end - e;
      e = end;
   }
   return true;
}

// Reads entries [first, last) of every column; worker 0 also draws the progress bar.
inline void read_range(ReadJob &job, long long first, long long last, long long total, bool progress)
{
   if (first >= last) return;
   std::unique_ptr<TFile> file(TFile::Open(job.path.c_str(), "READ"));
   if (!file || file->IsZombie()) return job.fail("cannot open the file");
   auto *tree = file->Get<TTree>(job.tree.c_str());
   if (!tree) return job.fail("no TTree named '" + job.tree + "'");
   // With ROOT's implicit MT on, TTree::GetEntry would spawn one task per branch for every
   // entry (measured: 30 s instead of 3 s at 1e7 entries); the threads here split entries.
   tree->SetImplicitMT(false);
   const std::size_t ncol = job.names.size();
   std::vector<std::uint64_t> slots(ncol, 0);  // one 8-byte, aligned value per column
   std::vector<char *> out(ncol);
   const auto begun = std::chrono::steady_clock::now();
   std::vector<std::size_t> looped;  // columns without bulk reading: the GetEntry loop below
   TBufferFile buffer(TBuffer::kWrite, 32 * 1024);
   for (std::size_t c = 0; c < ncol; ++c) {
      const std::string &name = job.names[c];
      TBranch *branch = tree->GetBranch(name.c_str());
      TLeaf *leaf = branch ? branch->GetLeaf(name.c_str()) : nullptr;
      if (!leaf || branch->GetListOfLeaves()->GetEntries() != 1 || leaf->GetLenStatic() != 1 ||
          leaf->GetLeafCount() || leaf->GetLenType() != job.size[c] || job.size[c] > 8)
         return job.fail("branch '" + name + "' is not a flat scalar of the expected type");
      out[c] = reinterpret_cast<char *>(job.out[c]);
      if (branch->SupportsBulkRead()) {
         if (!read_bulk(job, branch, out[c], job.size[c], first, last, buffer)) return;
         if (progress)
            print_progress(job, job.done / (long long)ncol, total,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count(), false);
         continue;
      }
      looped.push_back(c);
   }
   if (looped.empty()) return;
   tree->SetBranchStatus("*", false);  // GetEntry reads the looped columns only
   for (std::size_t c : looped) {
      tree->SetBranchStatus(job.names[c].c_str(), true);
      tree->SetBranchAddress(job.names[c].c_str(), static_cast<void *>(&slots[c])); // untyped: sizes checked above
   }
   const auto start = std::chrono::steady_clock::now();
   auto last_draw = start;
   long long pending = 0;
   for (long long i = first; i < last; ++i) {
      if (tree->GetEntry(i) <= 0) return job.fail("read error at entry " + std::to_string(i));
      for (std::size_t c : looped) std::memcpy(out[c] + i * job.size[c], &slots[c], job.size[c]);
      if (++pending == 65536) {
         job.done += pending * (long long)looped.size();
         pending = 0;
         if (job.failed()) return;
         const auto now = std::chrono::steady_clock::now();
         if (progress && now - last_draw > std::chrono::milliseconds(250)) {
            print_progress(job, job.done / (long long)ncol, total, std::chrono::duration<double>(now - start).count(), false);
            last_draw = now;
         }
      }
   }
   job.done += pending * (long long)looped.size();
   tree->ResetBranchAddresses();
}

} // namespace detail

// Reads `names` (flat scalar branches) of `tree` in `path` into out[c] (element size size[c]
// bytes, `entries` elements each) with `nthreads` threads. A progress bar titled
// `progress_label` goes to stderr unless the label is empty (`terminal`: redrawn in place,
// else one line per quarter for log files). Returns an empty string on success, else the first
// error (the arrays are then incomplete).
inline std::string read_columns(const std::string &path, const std::string &tree, const std::vector<std::string> &names,
                                const std::uint64_t *out, const std::int32_t *size, long long entries, int nthreads,
                                const std::string &progress_label, bool terminal = true)
{
   const bool progress = !progress_label.empty();
   detail::ReadJob job;
   job.path = path;
   job.tree = tree;
   job.label = progress_label;
   job.terminal = terminal;
   job.names = names;
   job.out = out;
   job.size = size;
   nthreads = int(std::max<long long>(1, std::min<long long>(nthreads, entries / 65536 + 1)));
   if (nthreads > 1) ROOT::EnableThreadSafety();
   const auto start = std::chrono::steady_clock::now();
   std::vector<std::thread> workers;
   for (int t = 1; t < nthreads; ++t)
      workers.emplace_back(detail::read_range, std::ref(job), entries * t / nthreads, entries * (t + 1) / nthreads,
                           entries, false);
   detail::read_range(job, 0, entries / nthreads, entries, progress);
   for (auto &w : workers) w.join();
   if (progress && job.error.empty())
      detail::print_progress(job, job.done / (long long)std::max<std::size_t>(names.size(), 1), entries,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), true);
   return job.error;
}

} // namespace pnetviz

#endif // PNETVIZ_COLUMN_READER_H
