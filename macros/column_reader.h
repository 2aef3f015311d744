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
// Issue 55: a bulk-capable column whose baskets are all on disk and zlib-compressed ("ZL", ROOT's
// default algorithm) is inflated by libdeflate (the system's libdeflate.so.0, loaded at run time)
// straight into the caller's array, then byte-swapped in place: ROOT's TBasket path inflates
// with zlib, 2.6x slower (160 MB of baskets of a 1e7-event ntuple: 0.79 s -> 0.30 s). Any
// basket it cannot take (another algorithm, a basket in memory, an unexpected size, no
// libdeflate, PNETVIZ_INFLATE=root) is read through ROOT as before; both give the same bytes.
// PNETVIZ_INFLATE=libdeflate makes such a basket an error instead (the tests see which path read).
#ifndef PNETVIZ_COLUMN_READER_H
#define PNETVIZ_COLUMN_READER_H

#include <TBranch.h>
#include <TBufferFile.h>
#include <TFile.h>
#include <TLeaf.h>
#include <TROOT.h>
#include <TTree.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
   bool inflate = true;            // libdeflate for zlib baskets where it can (else ROOT reads them)
   bool inflate_only = false;      // PNETVIZ_INFLATE=libdeflate: a basket it cannot take is an error (tests)
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
   if (size == 1) return void(dst == src ? dst : std::memcpy(dst, src, n));
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

// libdeflate's entry points (loaded once; all null without the library).
struct Deflate {
   void *(*alloc)() = nullptr;
   int (*zlib)(void *, const void *, std::size_t, void *, std::size_t, std::size_t *) = nullptr;
   void (*release)(void *) = nullptr;
};

inline const Deflate &deflate_library()
{
   static const Deflate lib = [] {
      Deflate d;
      void *handle = dlopen("libdeflate.so.0", RTLD_NOW | RTLD_LOCAL);
      if (!handle) return d;
      d.alloc = reinterpret_cast<void *(*)()>(dlsym(handle, "libdeflate_alloc_decompressor"));
      d.zlib = reinterpret_cast<int (*)(void *, const void *, std::size_t, void *, std::size_t, std::size_t *)>(
         dlsym(handle, "libdeflate_zlib_decompress"));
      d.release = reinterpret_cast<void (*)(void *)>(dlsym(handle, "libdeflate_free_decompressor"));
      if (!d.alloc || !d.zlib || !d.release) d = Deflate();
      return d;
   }();
   return lib;
}

// One thread's direct reading state: the file descriptor, libdeflate's decompressor, buffers.
struct Direct {
   int fd = -1;
   void *decompressor = nullptr;
   std::vector<char> packed, scratch;
   explicit Direct(const std::string &path)
   {
      const Deflate &lib = deflate_library();
      if (path.empty() || !lib.alloc) return;
      decompressor = lib.alloc();
      if (decompressor) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
   }
   ~Direct()
   {
      if (fd >= 0) ::close(fd);
      if (decompressor) deflate_library().release(decompressor);
   }
   bool usable() const { return fd >= 0 && decompressor; }
};

inline unsigned be_u32(const char *p, int n)
{
   unsigned v = 0;
   for (int i = 0; i < n; ++i) v = v << 8 | static_cast<unsigned char>(p[i]);
   return v;
}

inline unsigned le_u24(const char *p)
{
   return static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[1]) << 8 |
          static_cast<unsigned>(static_cast<unsigned char>(p[2])) << 16;
}

// Inflates basket `i` (entries [begin, end), element size `size`) into `dst` (objlen bytes, in
// ROOT's big-endian order). 1: done; 0: not a basket this path takes (ROOT reads it); -1: damaged.
inline int inflate_basket(Direct &direct, TBranch *branch, int i, long long n, int size, char *dst)
{
   const long long nbytes = branch->GetBasketBytes()[i];
   const long long seek = branch->GetBasketSeek(i);
   if (nbytes < 18 || seek <= 0) return 0;
   direct.packed.resize(nbytes);
   char *key = direct.packed.data();
   for (long long got = 0; got < nbytes;) {
      const ssize_t r = ::pread(direct.fd, key + got, nbytes - got, seek + got);
      if (r <= 0) return 0;  // ROOT reads it and says what is wrong
      got += r;
   }
   const long long objlen = be_u32(key + 6, 4), keylen = be_u32(key + 14, 2);
   if (keylen < 18 || keylen > nbytes || objlen != n * size) return 0;  // not a flat basket of n values
   if (nbytes - keylen == objlen) return std::memcpy(dst, key + keylen, objlen), 1;  // stored uncompressed
   long long at = keylen, made = 0;
   while (at < nbytes) {
      const char *block = key + at;
      if (nbytes - at < 9 || block[0] != 'Z' || block[1] != 'L' || block[2] != 8) return 0;  // another algorithm: ROOT's
      const long long packed = le_u24(block + 3), unpacked = le_u24(block + 6);
      if (at + 9 + packed > nbytes || made + unpacked > objlen) return -1;
      std::size_t actual = 0;
      if (deflate_library().zlib(direct.decompressor, block + 9, packed, dst + made, unpacked, &actual) != 0 ||
          (long long)actual != unpacked)
         return -1;
      made += unpacked;
      at += 9 + packed;
   }
   return made == objlen ? 1 : -1;
}

// Reads entries [first, last) of one bulk-capable branch through libdeflate (above); returns the
// first entry it did not read (ROOT's read_bulk goes on from there), or -1 after job.fail.
inline long long read_direct(ReadJob &job, Direct &direct, TBranch *branch, char *out, int size, long long first,
                             long long last)
{
   const Long64_t *starts = branch->GetBasketEntry();
   const int written = branch->GetWriteBasket();
   if (!direct.usable() || written <= 0 || starts[written] < last) return first;  // entries in a basket in memory
   int i = int(std::upper_bound(starts, starts + written + 1, Long64_t(first)) - starts) - 1;
   for (long long e = first; e < last; ++i) {
      const long long begin = starts[i], end = starts[i + 1];
      if (i >= written || begin > e || end <= e) return e;
      const bool whole = begin >= first && end <= last;
      char *dst = out + begin * size;
      if (!whole) {
         direct.scratch.resize((end - begin) * size);
         dst = direct.scratch.data();
      }
      const int done = inflate_basket(direct, branch, i, end - begin, size, dst);
      if (done == 0) return e;
      if (done < 0) {
         job.fail("read error at entry " + std::to_string(e));
         return -1;
      }
      const long long stop = std::min<long long>(end, last);
      from_big_endian(out + e * size, dst + (e - begin) * size, stop - e, size);
      job.done += stop - e;
      e = stop;
   }
   return last;
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
   Direct direct(job.inflate ? job.path : std::string());
   for (std::size_t c = 0; c < ncol; ++c) {
      const std::string &name = job.names[c];
      TBranch *branch = tree->GetBranch(name.c_str());
      TLeaf *leaf = branch ? branch->GetLeaf(name.c_str()) : nullptr;
      if (!leaf || branch->GetListOfLeaves()->GetEntries() != 1 || leaf->GetLenStatic() != 1 ||
          leaf->GetLeafCount() || leaf->GetLenType() != job.size[c] || job.size[c] > 8)
         return job.fail("branch '" + name + "' is not a flat scalar of the expected type");
      out[c] = reinterpret_cast<char *>(job.out[c]);
      if (branch->SupportsBulkRead()) {
         const long long from = job.inflate ? read_direct(job, direct, branch, out[c], job.size[c], first, last) : first;
         if (job.inflate_only && from >= 0 && from < last)
            return job.fail("branch '" + name + "': entry " + std::to_string(from) + " not read by libdeflate");
         if (from < 0 || (from < last && !read_bulk(job, branch, out[c], job.size[c], from, last, buffer))) return;
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
   const char *inflate = std::getenv("PNETVIZ_INFLATE");
   job.inflate = !(inflate && std::string(inflate) == "root");
   job.inflate_only = inflate && std::string(inflate) == "libdeflate";
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
