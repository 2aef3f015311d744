// pnetviz: ROOT's error messages turned into data.
//
// ROOT reports failures of TFile writes, TASImage and TPDF only by printing (Error(...)), so a
// full disk or a file-size limit would go unnoticed. `install_error_guard()` puts an error
// handler in front of ROOT's: while capturing, messages of level kError and above are counted
// and kept (the first few, for the pnetviz message) instead of printed; everything else, and
// everything outside a capture, goes to ROOT's previous handler unchanged. Thread-safe (the
// reader's threads may report too).
#ifndef PNETVIZ_ERROR_GUARD_H
#define PNETVIZ_ERROR_GUARD_H

#include <TError.h>

#include <atomic>
#include <mutex>
#include <string>

namespace pnetviz {

namespace detail {
inline std::atomic<int> g_captured{0};
inline std::atomic<bool> g_capturing{false};
inline std::mutex g_mutex;
inline std::string g_messages;
inline ErrorHandlerFunc_t g_previous = nullptr;
constexpr int kKeep = 3; // messages kept for the summary

inline void error_handler(int level, Bool_t abort, const char *location, const char *msg)
{
   if (level >= kError && g_capturing.load()) {
      int n = g_captured.fetch_add(1);
      if (n < kKeep) {
         std::lock_guard<std::mutex> lock(g_mutex);
         if (!g_messages.empty())
            g_messages += "; ";
         g_messages += std::string(location ? location : "ROOT") + ": " + (msg ? msg : "");
      }
      if (!abort)
         return;
   }
   if (g_previous)
      g_previous(level, abort, location, msg);
   else
      DefaultErrorHandler(level, abort, location, msg);
}
} // namespace detail

inline void install_error_guard()
{
   if (GetErrorHandler() != &detail::error_handler)
      detail::g_previous = SetErrorHandler(&detail::error_handler);
}

// Start capturing (and forget earlier captures).
inline void begin_capture()
{
   std::lock_guard<std::mutex> lock(detail::g_mutex);
   detail::g_messages.clear();
   detail::g_captured = 0;
   detail::g_capturing = true;
}

// Stop capturing; returns the number of errors captured since begin_capture().
inline int end_capture()
{
   detail::g_capturing = false;
   return detail::g_captured.load();
}

// The first messages captured, "location: message; ...".
inline std::string captured_messages()
{
   std::lock_guard<std::mutex> lock(detail::g_mutex);
   return detail::g_messages;
}

} // namespace pnetviz

#endif
