// Compiled (CMake) build of the ROC core: C entry points with the same signatures as the
// cling-declared functions, so Python can load the library with ctypes as an alternative to JIT.
#include "weighted_roc.h"

#include <RVersion.h>

extern "C" {

std::size_t pnetviz_roc_curve_f32(const float *score, const double *weight, const std::uint8_t *is_signal,
                                  std::size_t n, double *tps, double *fps, double *thresholds, double *auc)
{
   return pnetviz::roc_curve_f32(score, weight, is_signal, n, tps, fps, thresholds, auc);
}

std::size_t pnetviz_roc_curve_f64(const double *score, const double *weight, const std::uint8_t *is_signal,
                                  std::size_t n, double *tps, double *fps, double *thresholds, double *auc)
{
   return pnetviz::roc_curve_f64(score, weight, is_signal, n, tps, fps, thresholds, auc);
}

/// ROOT version the library was built against (ROOT_VERSION_CODE).
int pnetviz_root_version_code() { return ROOT_VERSION_CODE; }
}
