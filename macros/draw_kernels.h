// pnetviz: the drawing and plots.root kernels compiled ahead of time (python/pnetviz/draw/native.py):
// declarations only, what cling is given once the library `draw_kernels.cxx` is built into is
// loaded (no kernel body for cling to parse or JIT-compile: ~1 s of every evaluation's start-up).
// Each is the inline kernel of the header named beside it, unchanged; without a compiler cling
// compiles those headers instead.
#ifndef PNETVIZ_DRAW_KERNELS_H
#define PNETVIZ_DRAW_KERNELS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

class TObject;
class TPad;
class TObjArray;
class TDirectory;

namespace pnetviz_draw {
// canvas_colors.h
std::size_t used_colors(TPad* pad, std::int64_t* out, std::size_t cap);
void palette_numbers(std::int64_t* out, std::size_t n);
int palette_exec_number(TPad* pad);
// rootfile_kernels.h
bool draws_palette(TPad* pad);
TObject* frame_of(TPad* pad, TObject* obj);
void no_stats(TPad* pad);
std::size_t color_table(std::int64_t* slot, std::int64_t* number, float* rgba, std::size_t cap);
void add_colors(TObjArray* array, const std::int64_t* slots, std::size_t n, bool copies);
// root_store.h: a Writer made once (never deleted: one a process), then its store()
const void* store_writer(float axis_size, float label_offset, float x_title_offset, float auto_offset, float z_label_size,
                         short font, double margin, double palette_x1, double palette_x2);
int store(const void* writer, TDirectory* file, const char* directory, TObject* obj, const char* name, const char* title,
          const std::vector<TPad*>& pads, bool describe, double y_label_size, double y_title_offset);
// occupancy_items.h
void occupancy_items(const double* lx, const double* ly, const std::int64_t* lend, std::int64_t nlines, const double* mx,
                     const double* my, std::int64_t nmarks, const double* ex, const double* einner, std::int64_t nerrors,
                     std::int64_t nt, const double* bx, const double* blow, const double* bhigh, std::int64_t nbars,
                     const double* view, std::int64_t cells, std::int64_t words, std::uint64_t* grid);
void occupancy_error_inners(const double* elow, const double* ehigh, std::int64_t nerrors, const double* et,
                            std::int64_t nt, double lo, bool log, double* out);
// root_keys.h
std::vector<std::string> unreadable(TDirectory* dir, long long size);
}  // namespace pnetviz_draw

#endif
