// pnetviz: the library of draw_kernels.h (python/pnetviz/draw/native.py builds it once per user
// with the system compiler under ROOT's flags): each function calls the header's inline kernel.
#include "draw_kernels.h"

#include "THashList.h"  // root_store.h counts an axis's labels (cling knows the class, the compiler needs it)
#include "canvas_colors.h"
#include "frame_canvas.h"
#include "stored_style.h"
#include "occupancy_items.h"
#include "pdf_write.h"
#include "png_paint.h"
#include "root_keys.h"
#include "root_store.h"
#include "rootfile_kernels.h"

#include "TDirectory.h"
#include "TObjArray.h"
#include "TPad.h"

#include <cstring>

namespace pnetviz_draw {
std::size_t used_colors(TPad* pad, std::int64_t* out, std::size_t cap) { return pnetviz_canvascolors::used_colors(pad, out, cap); }
void palette_numbers(std::int64_t* out, std::size_t n) { pnetviz_canvascolors::palette_numbers(out, n); }
int palette_exec_number(TPad* pad) { return pnetviz_canvascolors::palette_exec_number(pad); }

bool draws_palette(TPad* pad) { return pnetviz_rootfile::draws_palette(pad); }
TObject* frame_of(TPad* pad, TObject* obj) { return pnetviz_rootfile::frame_of(pad, obj); }
void no_stats(TPad* pad) { pnetviz_rootfile::no_stats(pad); }
std::size_t color_table(std::int64_t* slot, std::int64_t* number, float* rgba, std::size_t cap) {
   return pnetviz_rootfile::color_table(slot, number, rgba, cap);
}
void add_colors(TObjArray* array, const std::int64_t* slots, std::size_t n, bool copies) {
   pnetviz_rootfile::add_colors(array, slots, n, copies);
}

const void* store_writer(float axis_size, float label_offset, float x_title_offset, float auto_offset, float z_label_size,
                         short font, double margin, double palette_x1, double palette_x2) {
   return new pnetviz_store::Writer(axis_size, label_offset, x_title_offset, auto_offset, z_label_size, font, margin,
                                    palette_x1, palette_x2);
}
int store(const void* writer, TDirectory* file, const char* directory, TObject* obj, const char* name, const char* title,
          const std::vector<TPad*>& pads, bool describe, double y_label_size, double y_title_offset) {
   return static_cast<const pnetviz_store::Writer*>(writer)->store(file, directory, obj, name, title, pads, describe,
                                                                   y_label_size, y_title_offset);
}

void occupancy_items(const double* lx, const double* ly, const std::int64_t* lend, std::int64_t nlines, const double* mx,
                     const double* my, std::int64_t nmarks, const double* ex, const double* einner, std::int64_t nerrors,
                     std::int64_t nt, const double* bx, const double* blow, const double* bhigh, std::int64_t nbars,
                     const double* view, std::int64_t cells, std::int64_t words, std::uint64_t* grid) {
   pnetviz::occupancy_items(lx, ly, lend, nlines, mx, my, nmarks, ex, einner, nerrors, nt, bx, blow, bhigh, nbars, view,
                            cells, words, grid);
}
void occupancy_error_inners(const double* elow, const double* ehigh, std::int64_t nerrors, const double* et,
                            std::int64_t nt, double lo, bool log, double* out) {
   pnetviz::occupancy_error_inners(elow, ehigh, nerrors, et, nt, lo, log, out);
}

std::vector<std::string> unreadable(TDirectory* dir, long long size) { return pnetviz_rootkeys::unreadable(dir, size); }
}  // namespace pnetviz_draw

// The same kernels with a C interface, called through ctypes (python/pnetviz/draw/native.py): a
// call through cling costs a wrapper JIT-compiled at its first use (~3-5 ms each, ~0.1 s for
// these, std::vector<TPad*> and std::vector<std::string> instantiated for the arguments besides);
// through ctypes none. Objects come as the addresses of their TObject (ROOT.addressof: every
// class here has TObject as its first base, at offset 0).
namespace {
template <class T>
T* as(void* address) { return static_cast<T*>(reinterpret_cast<TObject*>(address)); }
}  // namespace

extern "C" {
std::size_t pnetviz_c_used_colors(void* pad, std::int64_t* out, std::size_t cap) {
   return pnetviz_draw::used_colors(as<TPad>(pad), out, cap);
}
void pnetviz_c_palette_numbers(std::int64_t* out, std::size_t n) { pnetviz_draw::palette_numbers(out, n); }
int pnetviz_c_palette_exec_number(void* pad) { return pnetviz_draw::palette_exec_number(as<TPad>(pad)); }
bool pnetviz_c_draws_palette(void* pad) { return pnetviz_draw::draws_palette(as<TPad>(pad)); }
void pnetviz_c_no_stats(void* pad) { pnetviz_draw::no_stats(as<TPad>(pad)); }
std::size_t pnetviz_c_color_table(std::int64_t* slot, std::int64_t* number, float* rgba, std::size_t cap) {
   return pnetviz_draw::color_table(slot, number, rgba, cap);
}
void pnetviz_c_add_colors(void* array, const std::int64_t* slots, std::size_t n, bool copies) {
   pnetviz_draw::add_colors(as<TObjArray>(array), slots, n, copies);
}
const void* pnetviz_c_store_writer(float axis_size, float label_offset, float x_title_offset, float auto_offset,
                                   float z_label_size, short font, double margin, double palette_x1, double palette_x2) {
   return pnetviz_draw::store_writer(axis_size, label_offset, x_title_offset, auto_offset, z_label_size, font, margin,
                                     palette_x1, palette_x2);
}
int pnetviz_c_store(const void* writer, void* file, const char* directory, void* obj, const char* name, const char* title,
                    const std::uint64_t* pads, std::size_t npads, bool describe, double y_label_size, double y_title_offset) {
   std::vector<TPad*> list;
   list.reserve(npads);
   for (std::size_t i = 0; i < npads; ++i)
      list.push_back(as<TPad>(reinterpret_cast<void*>(pads[i])));
   return pnetviz_draw::store(writer, as<TDirectory>(file), directory, as<TObject>(obj), name, title, list, describe,
                              y_label_size, y_title_offset);
}
void pnetviz_c_occupancy_items(const double* lx, const double* ly, const std::int64_t* lend, std::int64_t nlines,
                               const double* mx, const double* my, std::int64_t nmarks, const double* ex,
                               const double* einner, std::int64_t nerrors, std::int64_t nt, const double* bx,
                               const double* blow, const double* bhigh, std::int64_t nbars, const double* view,
                               std::int64_t cells, std::int64_t words, std::uint64_t* grid) {
   pnetviz_draw::occupancy_items(lx, ly, lend, nlines, mx, my, nmarks, ex, einner, nerrors, nt, bx, blow, bhigh, nbars, view,
                                 cells, words, grid);
}
void pnetviz_c_occupancy_error_inners(const double* elow, const double* ehigh, std::int64_t nerrors, const double* et,
                                      std::int64_t nt, double lo, bool log, double* out) {
   pnetviz_draw::occupancy_error_inners(elow, ehigh, nerrors, et, nt, lo, log, out);
}
// unreadable's names, each ended by a NUL, into `out` (up to `cap` bytes); returns the bytes they need
std::size_t pnetviz_c_unreadable(void* dir, long long size, char* out, std::size_t cap) {
   std::size_t need = 0;
   for (const std::string& name : pnetviz_draw::unreadable(as<TDirectory>(dir), size)) {
      if (need + name.size() + 1 <= cap)
         std::memcpy(out + need, name.c_str(), name.size() + 1);
      need += name.size() + 1;
   }
   return need;
}
void* pnetviz_c_cms_canvas_start(const char* name, int width, double left, double right, double top, double bottom,
                                 double xmin, double ymin, double xmax, double ymax, const char* xtitle,
                                 const char* ytitle, double y_offset) {
   return static_cast<TObject*>(pnetviz_frame::cms_canvas_start(name, width, left, right, top, bottom, xmin, ymin, xmax,
                                                                ymax, xtitle, ytitle, y_offset));
}
void pnetviz_c_cms_canvas_finish(void* canvas) { pnetviz_frame::cms_canvas_finish(as<TCanvas>(canvas)); }
void pnetviz_c_painted_frame(void* pad, double x1, double y1, double x2, double y2) {
   pnetviz_frame::painted_frame(as<TPad>(pad), x1, y1, x2, y2);
}
void pnetviz_c_canvas_shape(void* canvas, int width, bool logy, bool logx) {
   pnetviz_frame::canvas_shape(as<TCanvas>(canvas), width, logy, logx);
}
void* pnetviz_c_frame_histogram(double xmin, double ymin, double xmax, double ymax, const char* title,
                                const double* edges) {
   return static_cast<TObject*>(pnetviz_frame::frame_histogram(xmin, ymin, xmax, ymax, title, edges));
}
void* pnetviz_c_load_style(const char* path, bool defined_colors) {
   return static_cast<TObject*>(pnetviz_style::load_style(path, defined_colors));
}
void pnetviz_c_place_palette(void* hist, void* pad, double x1, double x2, double y1, double y2, double u1, double u2,
                             double v1, double v2) {
   pnetviz_frame::place_palette(as<TH1>(hist), as<TPad>(pad), x1, x2, y1, y2, u1, u2, v1, v2);
}
void pnetviz_c_reframe_top(void* pad, double ymin, double ymax) { pnetviz_frame::reframe_top(as<TPad>(pad), ymin, ymax); }
// png_paint.h: the pad painted (the dump, and the image's size into width, height), then its PNG rows
void* pnetviz_c_png_paint(void* pad, unsigned* width, unsigned* height) {
   return pnetviz_png::paint(as<TPad>(pad), width, height);
}
void pnetviz_c_png_rows(void* dump, std::uint8_t* out) { pnetviz_png::rows(static_cast<pnetviz_png::Dump*>(dump), out); }
// pdf_write.h: the canvas written as a PDF file
void pnetviz_c_pdf_save(void* canvas, const char* path) { pnetviz_pdf::save(as<TCanvas>(canvas), path); }
}
