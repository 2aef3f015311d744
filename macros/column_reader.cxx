// Compiled build of the ntuple reader: one C entry point around pnetviz::read_columns, built by
// pnetviz.io.native with the system compiler into a per-user cache and called through ctypes, so
// that a fresh process does not JIT-compile the reader with cling at its first call (measured at
// 1e7 entries: see benchmarks/README.md, issue 36). Same source, same values as the cling path.
#include "column_reader.h"

#include <cstdio>
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

} // extern "C"
