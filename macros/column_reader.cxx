// Compiled build of the ntuple reader: C entry points around pnetviz::read_columns and for the
// tree's description (branch types, basket tables: pnetviz_describe, no PyROOT per branch), built by
// pnetviz.io.native with the system compiler into a per-user cache and called through ctypes, so
// that a fresh process does not JIT-compile the reader with cling at its first call (measured at
// 1e7 entries: see benchmarks/README.md, issue 36). Same source, same values as the cling path.
#include "column_reader.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include <exception>

extern "C" {

// Reads `ncol` columns (names[c], element size size[c], into the array at out[c]); writes the
// reader's error (empty on success) into `error` (at most error_size bytes with its NUL).
// Returns 0 on success, 1 on a reader error, 2 on a C++ exception (its what() in `error`).
int pnetviz_read_columns(const char *path, const char *tree, int ncol, const char *const *names,
                         const std::uint64_t *out, const std::int32_t *size, long long entries, int nthreads,
                         const char *progress_label, int terminal, char *error, int error_size)
{
   try {
      const std::vector<std::string> columns(names, names + ncol);
      const std::string message =
         pnetviz::read_columns(path, tree, columns, out, size, entries, nthreads, progress_label, terminal != 0);
      std::snprintf(error, error_size, "%s", message.c_str());
      return message.empty() ? 0 : 1;
   } catch (const std::exception &err) {
      std::snprintf(error, error_size, "%s", err.what());
      return 2;
   } catch (...) {
      std::snprintf(error, error_size, "unknown C++ exception");
      return 2;
   }
}

// Describes `tree` of `path` for pnetviz.io.native.describe, in two caller-provided buffers.
// `text`: per top-level branch its name and its leaf's type name ("" if no leaf has the branch's
// name), each NUL-terminated. `numbers`: the tree's entries and branch count, then per branch its
// entries, whether it is a flat scalar (one leaf of its name, static length 1, no count leaf),
// that leaf's size in bytes, GetWriteBasket() (n), and for a flat scalar with 0 <= n <= entries
// its basket table: first entries (n + 1), sizes in bytes (n), seeks (n).
// Returns 0 when filled; 1 when a buffer is too small (needed[0] text bytes, needed[1] numbers
// then say how much); 2 when the file or the tree cannot be read as expected (not opened,
// zombie, recovered, no TTree of that name, a basket table beyond its arrays, a C++ exception):
// the caller then asks ROOT through PyROOT, which words those errors.
int pnetviz_describe(const char *path, const char *tree, char *text, long long text_size, long long *numbers,
                     long long numbers_size, long long *needed)
{
   try {
      std::unique_ptr<TFile> file(TFile::Open(path, "READ"));
      if (!file || file->IsZombie() || file->TestBit(TFile::kRecovered)) return 2;
      auto *obj = file->Get(tree);
      auto *ttree = dynamic_cast<TTree *>(obj);
      if (!ttree) return 2;
      std::string names;
      std::vector<long long> values{ttree->GetEntries(), 0};
      for (TObject *item : *ttree->GetListOfBranches()) {
         auto *branch = static_cast<TBranch *>(item);
         TLeaf *leaf = branch->GetLeaf(branch->GetName());
         names += branch->GetName();
         names += '\0';
         names += leaf ? leaf->GetTypeName() : "";
         names += '\0';
         const bool flat = leaf && branch->GetListOfLeaves()->GetEntries() == 1 && leaf->GetLenStatic() == 1 &&
                           !leaf->GetLeafCount();
         const long long n = branch->GetWriteBasket();
         values.insert(values.end(), {branch->GetEntries(), flat, leaf ? leaf->GetLenType() : 0, n});
         ++values[1];
         if (!flat || n < 0 || n > values[0]) continue;
         if (n >= branch->GetMaxBaskets()) return 2;
         const Long64_t *first = branch->GetBasketEntry();
         const Int_t *bytes = branch->GetBasketBytes();
         values.insert(values.end(), first, first + n + 1);
         values.insert(values.end(), bytes, bytes + n);
         for (Int_t i = 0; i < n; ++i) values.push_back(branch->GetBasketSeek(i));
      }
      needed[0] = (long long)names.size();
      needed[1] = (long long)values.size();
      if (needed[0] > text_size || needed[1] > numbers_size) return 1;
      std::memcpy(text, names.data(), names.size());
      std::memcpy(numbers, values.data(), values.size() * sizeof(long long));
      return 0;
   } catch (...) {
      return 2;
   }
}

} // extern "C"

namespace {
template <typename T>
long long class_sums(const T *labels, const double *w, long long n, int nclasses, long long *counts, double *sums)
{
   long long outside = 0;
   for (long long i = 0; i < n; ++i) {
      const T label = labels[i];
      if (label < T(0) || static_cast<unsigned long long>(label) >= static_cast<unsigned long long>(nclasses)) {
         ++outside;
         continue;
      }
      ++counts[label];
      sums[label] += std::fabs(w[i]);
   }
   return outside;
}
} // namespace

extern "C" {

// Per class c in [0, nclasses): events with labels[i] == c (counts) and the sum of |w[i]| over
// them in entry order (sums: what numpy's bincount gives, bit for bit); `labels`: n integers of
// `size` bytes (1, 2, 4, 8), signed or not. Returns the labels outside [0, nclasses) (not
// counted), -1 for a size it does not take. One pass, no copies (pnetviz.io.ntuple.validate).
long long pnetviz_class_sums(const void *labels, int size, int is_signed, const double *w, long long n, int nclasses,
                             long long *counts, double *sums)
{
   for (int c = 0; c < nclasses; ++c) counts[c] = 0, sums[c] = 0.0;
   switch (size * (is_signed ? 1 : -1)) {
   case 1: return class_sums(static_cast<const std::int8_t *>(labels), w, n, nclasses, counts, sums);
   case -1: return class_sums(static_cast<const std::uint8_t *>(labels), w, n, nclasses, counts, sums);
   case 2: return class_sums(static_cast<const std::int16_t *>(labels), w, n, nclasses, counts, sums);
   case -2: return class_sums(static_cast<const std::uint16_t *>(labels), w, n, nclasses, counts, sums);
   case 4: return class_sums(static_cast<const std::int32_t *>(labels), w, n, nclasses, counts, sums);
   case -4: return class_sums(static_cast<const std::uint32_t *>(labels), w, n, nclasses, counts, sums);
   case 8: return class_sums(static_cast<const std::int64_t *>(labels), w, n, nclasses, counts, sums);
   case -8: return class_sums(static_cast<const std::uint64_t *>(labels), w, n, nclasses, counts, sums);
   default: return -1;
   }
}

} // extern "C"
