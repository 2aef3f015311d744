// pnetviz: the library of draw_kernels.h (python/pnetviz/draw/native.py builds it once per user
// with the system compiler under ROOT's flags): each function calls the header's inline kernel.
#include "draw_kernels.h"

#include "THashList.h"  // root_store.h counts an axis's labels (cling knows the class, the compiler needs it)
#include "canvas_colors.h"
#include "occupancy_items.h"
#include "root_keys.h"
#include "root_store.h"
#include "rootfile_kernels.h"

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
