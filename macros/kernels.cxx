// The numeric kernels as one shared library compiled for the host (python/pnetviz/kernels.py):
// C entry points with the signatures of the cling-declared functions, so Python calls them
// through ctypes with no JIT at all. Built by the system compiler at -O3 for the host's ISA
// (-march=native), with -ffp-contract=off: no multiply-add is fused, so every result is the
// same, bit for bit, as the cling build's (tests/test_kernels.py runs both).
#include "class_reliability.h"
#include "class_tables.h"
#include "event_sums.h"
#include "occupancy.h"
#include "optimal_binning.h"
#include "pair_sums.h"
#include "poisson_bins.h"
#include "simplify.h"
#include "sorted_runs.h"
#include "split_tables.h"
#include "weighted_roc.h"

using std::int32_t;
using std::int64_t;
using std::size_t;
using std::uint32_t;
using std::uint64_t;
using std::uint8_t;

extern "C" {

size_t pnetviz_roc_curve_f32(const float *s, const double *w, const uint8_t *y, size_t n, double *tps, double *fps,
                             double *thr, double *auc)
{
   return pnetviz::roc_curve_f32(s, w, y, n, tps, fps, thr, auc);
}
size_t pnetviz_roc_curve_f64(const double *s, const double *w, const uint8_t *y, size_t n, double *tps, double *fps,
                             double *thr, double *auc)
{
   return pnetviz::roc_curve_f64(s, w, y, n, tps, fps, thr, auc);
}
size_t pnetviz_roc_curve_chunks_f32(const float *s, const double *w, const uint8_t *y, size_t n, double *tps,
                                    double *fps, double *thr, double *auc, size_t min_chunk, double *chunks,
                                    size_t *n_chunks)
{
   return pnetviz::roc_curve_chunks_f32(s, w, y, n, tps, fps, thr, auc, min_chunk, chunks, n_chunks);
}
size_t pnetviz_roc_curve_chunks_f64(const double *s, const double *w, const uint8_t *y, size_t n, double *tps,
                                    double *fps, double *thr, double *auc, size_t min_chunk, double *chunks,
                                    size_t *n_chunks)
{
   return pnetviz::roc_curve_chunks_f64(s, w, y, n, tps, fps, thr, auc, min_chunk, chunks, n_chunks);
}
void pnetviz_bootstrap_chunks(const double *ws, const double *vs, const double *wb, const double *vb, size_t m,
                              size_t replicas, uint64_t seed, double eps_s, double *auc, double *eps_b)
{
   pnetviz::bootstrap_chunks(ws, vs, wb, vb, m, replicas, seed, eps_s, auc, eps_b);
}
void pnetviz_roc_bootstrap_f32(const float *s, const double *w, const uint8_t *y, size_t n, size_t replicas,
                               uint64_t seed, double eps_s, size_t min_chunk, double *auc, double *eps_b)
{
   pnetviz::roc_bootstrap_f32(s, w, y, n, replicas, seed, eps_s, min_chunk, auc, eps_b);
}
void pnetviz_roc_bootstrap_f64(const double *s, const double *w, const uint8_t *y, size_t n, size_t replicas,
                               uint64_t seed, double eps_s, size_t min_chunk, double *auc, double *eps_b)
{
   pnetviz::roc_bootstrap_f64(s, w, y, n, replicas, seed, eps_s, min_chunk, auc, eps_b);
}
size_t pnetviz_upper_hull(const double *x, const double *y, size_t n, int64_t *index)
{
   return pnetviz::upper_hull(x, y, n, index);
}
void pnetviz_auc_weight_modes_f32(const float *s, const double *w, const uint8_t *y, size_t n, double *auc)
{
   pnetviz::auc_weight_modes_f32(s, w, y, n, auc);
}
void pnetviz_auc_weight_modes_f64(const double *s, const double *w, const uint8_t *y, size_t n, double *auc)
{
   pnetviz::auc_weight_modes_f64(s, w, y, n, auc);
}
void pnetviz_class_reliability_f32(const float *s, int64_t n, int k, const int32_t *label, const double *w,
                                   const uint8_t *sel, int nbins, double *out)
{
   pnetviz::class_reliability_f32(s, n, k, label, w, sel, nbins, out);
}
void pnetviz_class_reliability_f64(const double *s, int64_t n, int k, const int32_t *label, const double *w,
                                   const uint8_t *sel, int nbins, double *out)
{
   pnetviz::class_reliability_f64(s, n, k, label, w, sel, nbins, out);
}
void pnetviz_class_tables_f32(const float *s, int64_t n, int k, const int32_t *label, const double *w,
                              const uint8_t *sel, int nbins, double *confusion, double *counts, double *hist,
                              double *hist_w2)
{
   pnetviz::class_tables_f32(s, n, k, label, w, sel, nbins, confusion, counts, hist, hist_w2);
}
void pnetviz_class_tables_f64(const double *s, int64_t n, int k, const int32_t *label, const double *w,
                              const uint8_t *sel, int nbins, double *confusion, double *counts, double *hist,
                              double *hist_w2)
{
   pnetviz::class_tables_f64(s, n, k, label, w, sel, nbins, confusion, counts, hist, hist_w2);
}
int pnetviz_optimal_binning(const double *s, const double *b, const double *nb, const double *w2, const double *cls,
                            int n_cls, int M, int K_max, int objective, double n_min, double e_max, double cls_min,
                            double *value, int32_t *edges)
{
   return pnetviz::optimal_binning(s, b, nb, w2, cls, n_cls, M, K_max, objective, n_min, e_max, cls_min, value, edges);
}
void pnetviz_transfo_d_cuts(const double *z, int rows, int m, int32_t *idx, int32_t *count)
{
   pnetviz::transfo_d_cuts(z, rows, m, idx, count);
}
void pnetviz_poisson_binned_sums(const int64_t *key, const double *w, size_t n, size_t nkeys, size_t replicas,
                                 std::uintptr_t state, std::uintptr_t next_double, double enlam, double *out)
{
   pnetviz::poisson_binned_sums(key, w, n, nkeys, replicas, state, next_double, enlam, out);
}
size_t pnetviz_poisson_binned_sums_drawn(const int64_t *key, const double *w, size_t n, size_t nkeys, size_t replicas,
                                         const double *u, size_t nu, size_t step, size_t *used, double enlam,
                                         double *out)
{
   return pnetviz::poisson_binned_sums_drawn(key, w, n, nkeys, replicas, u, nu, step, used, enlam, out);
}
void pnetviz_split_tables_f32(const float *s, const double *w, const uint8_t *y, int64_t n, int nbins, double threshold,
                              int cbins, double *hist, double *confusion, double *counts, double *reliability)
{
   pnetviz::split_tables_f32(s, w, y, n, nbins, threshold, cbins, hist, confusion, counts, reliability);
}
void pnetviz_split_tables_f64(const double *s, const double *w, const uint8_t *y, int64_t n, int nbins, double threshold,
                              int cbins, double *hist, double *confusion, double *counts, double *reliability)
{
   pnetviz::split_tables_f64(s, w, y, n, nbins, threshold, cbins, hist, confusion, counts, reliability);
}
void pnetviz_compress_u1(const uint8_t *sel, int64_t n, const uint8_t *src, uint8_t *dst, int64_t count)
{
   pnetviz::compress_u1(sel, n, src, dst, count);
}
void pnetviz_compress_i4(const uint8_t *sel, int64_t n, const int32_t *src, int32_t *dst, int64_t count)
{
   pnetviz::compress_i4(sel, n, src, dst, count);
}
void pnetviz_compress_i8(const uint8_t *sel, int64_t n, const int64_t *src, int64_t *dst, int64_t count)
{
   pnetviz::compress_i8(sel, n, src, dst, count);
}
void pnetviz_gather_splits(const uint64_t *sel, int k, int64_t n, const int64_t *count, const uint64_t *src,
                           const int32_t *size, int c, const uint64_t *dst)
{
   pnetviz::gather_splits(sel, k, n, count, src, size, c, dst);
}
void pnetviz_decimate_mask(const double *x, const double *y, int64_t n, double step, uint8_t *mark)
{
   pnetviz::decimate_mask(x, y, n, step, mark);
}
void pnetviz_simplify_drawn(const double *x, const double *y, int64_t n, double tolerance, uint8_t *keep)
{
   pnetviz::simplify_drawn(x, y, n, tolerance, keep);
}
void pnetviz_occupancy_fill(const double *x0, const double *y0, const double *x1, const double *y1, int64_t nseg,
                            double step, const double *px, const double *py, int64_t npts, double xlow, double xhigh,
                            double ylow, double yhigh, int64_t cells, int64_t words, uint64_t *grid)
{
   pnetviz::occupancy_fill(x0, y0, x1, y1, nseg, step, px, py, npts, xlow, xhigh, ylow, yhigh, cells, words, grid);
}
int64_t pnetviz_first_empty(const uint64_t *grid, int64_t cells, int64_t words, const double *boxes, int64_t nbox,
                            double gap)
{
   return pnetviz::first_empty(grid, cells, words, boxes, nbox, gap);
}
#define PNETVIZ_EXPORT_RUNS(NAME, S, W)                                                                       \
   void pnetviz_##NAME(const S *score, const W *weight, const uint8_t *is_signal, size_t n, S *x_sig, W *w_sig,    \
                       uint32_t *i_sig, S *x_bkg, W *w_bkg, uint32_t *i_bkg, int with_index)                        \
   {                                                                                                           \
      pnetviz::NAME(score, weight, is_signal, n, x_sig, w_sig, i_sig, x_bkg, w_bkg, i_bkg, with_index);       \
   }
PNETVIZ_EXPORT_RUNS(class_runs_f32_w32, float, float)
PNETVIZ_EXPORT_RUNS(class_runs_f32_w64, float, double)
PNETVIZ_EXPORT_RUNS(class_runs_f64_w32, double, float)
PNETVIZ_EXPORT_RUNS(class_runs_f64_w64, double, double)
#undef PNETVIZ_EXPORT_RUNS
void pnetviz_run_sums_w32(const float *w, size_t n, double scale, const int64_t *at, size_t m, double *sum, double *sum2)
{
   pnetviz::run_sums_w32(w, n, scale, at, m, sum, sum2);
}
void pnetviz_run_sums_w64(const double *w, size_t n, double scale, const int64_t *at, size_t m, double *sum, double *sum2)
{
   pnetviz::run_sums_w64(w, n, scale, at, m, sum, sum2);
}
size_t pnetviz_run_quantiles_w32(const float *w, size_t n, size_t k, int64_t *out)
{
   return pnetviz::run_quantiles_w32(w, n, k, out);
}
size_t pnetviz_run_quantiles_w64(const double *w, size_t n, size_t k, int64_t *out)
{
   return pnetviz::run_quantiles_w64(w, n, k, out);
}
void pnetviz_class_bin_sums_f32(const float *x, const double *w, const uint8_t *c, size_t n, int nbins, double *out)
{
   pnetviz::class_bin_sums_f32(x, w, c, n, nbins, out);
}
void pnetviz_class_bin_sums_f64(const double *x, const double *w, const uint8_t *c, size_t n, int nbins, double *out)
{
   pnetviz::class_bin_sums_f64(x, w, c, n, nbins, out);
}
void pnetviz_cut_w2_sums_f32(const float *s, const double *w, const uint8_t *y, size_t n, const double *cuts,
                             size_t ncuts, double *out)
{
   pnetviz::cut_w2_sums_f32(s, w, y, n, cuts, ncuts, out);
}
void pnetviz_cut_w2_sums_f64(const double *s, const double *w, const uint8_t *y, size_t n, const double *cuts,
                             size_t ncuts, double *out)
{
   pnetviz::cut_w2_sums_f64(s, w, y, n, cuts, ncuts, out);
}
void pnetviz_class_totals(const double *w, const uint8_t *y, size_t n, double *out)
{
   pnetviz::class_totals(w, y, n, out);
}
void pnetviz_curve_bin_sums_f32(const float *s, const double *w, const uint8_t *y, size_t n, const double *asc,
                                size_t m, size_t chunk, double *bins, double *totals)
{
   pnetviz::curve_bin_sums_f32(s, w, y, n, asc, m, chunk, bins, totals);
}
void pnetviz_curve_bin_sums_f64(const double *s, const double *w, const uint8_t *y, size_t n, const double *asc,
                                size_t m, size_t chunk, double *bins, double *totals)
{
   pnetviz::curve_bin_sums_f64(s, w, y, n, asc, m, chunk, bins, totals);
}
void pnetviz_ks_distance(const double *ta, const double *ra, size_t na, const double *tb, const double *rb, size_t nb,
                         double *out)
{
   pnetviz::ks_distance(ta, ra, na, tb, rb, nb, out);
}
void pnetviz_last_at_least(const double *t, size_t n, const double *q, size_t nq, int64_t *out)
{
   pnetviz::last_at_least(t, n, q, nq, out);
}
void pnetviz_vertices_mask(const double *x, const double *y, size_t n, uint8_t *keep)
{
   pnetviz::vertices_mask(x, y, n, keep);
}
void pnetviz_precision(const double *tps, const double *fps, size_t m, double *out)
{
   pnetviz::precision(tps, fps, m, out);
}
void pnetviz_class_yields_w64(const double *w, const uint8_t *y, const uint8_t *keep, size_t n, int has_keep, int mode,
                              double *out)
{
   pnetviz::class_yields_w64(w, y, keep, n, has_keep, mode, out);
}
void pnetviz_class_yields_w32(const float *w, const uint8_t *y, const uint8_t *keep, size_t n, int has_keep, int mode,
                              double *out)
{
   pnetviz::class_yields_w32(w, y, keep, n, has_keep, mode, out);
}
void pnetviz_edge_bin_sums_f32(const float *s, const double *w, const uint8_t *sel, size_t n, const double *edges,
                               size_t nedges, double scale, double *out)
{
   pnetviz::edge_bin_sums_f32(s, w, sel, n, edges, nedges, scale, out);
}
void pnetviz_edge_bin_sums_f64(const double *s, const double *w, const uint8_t *sel, size_t n, const double *edges,
                               size_t nedges, double scale, double *out)
{
   pnetviz::edge_bin_sums_f64(s, w, sel, n, edges, nedges, scale, out);
}
void pnetviz_rates(const double *c, size_t n, double total, int clip, double *out)
{
   pnetviz::rates(c, n, total, clip, out);
}
void pnetviz_precision_recall(const double *tps, const double *fps, size_t m, double total, double *precision,
                              double *recall)
{
   pnetviz::precision_recall(tps, fps, m, total, precision, recall);
}
}
