#include "overlay/overlay_host.h"

#include <algorithm>

namespace ccl::overlay {

namespace {

// Marks or segments: each pixel keeps the highest owner value drawn over it.
template <typename Shape>
void rasterize(const Shape* shapes, size_t n_shapes, uint32_t flags, int width, int height,
               std::vector<uint32_t>& owner) {
  for (size_t k = 0; k < n_shapes; ++k) {
    const Shape& m = shapes[k];
    const uint32_t n = mark_pixel_count(m, flags);
    for (uint32_t i = 0; i < n; ++i) {
      int x, y;
      if (!mark_pixel(m, flags, i, width, height, &x, &y)) continue;
      uint32_t& o = owner[size_t(y) * size_t(width) + size_t(x)];
      o = std::max(o, m.label);
    }
  }
}

}  // namespace

void rasterize_marks_host(const Mark* marks, size_t n_marks, const Segment* segments,
                          size_t n_segments, uint32_t flags, int width, int height,
                          std::vector<uint32_t>& owner) {
  owner.assign(size_t(width) * size_t(height), 0);
  rasterize(segments, n_segments, flags, width, height, owner);
  rasterize(marks, n_marks, flags, width, height, owner);
}

void draw_host(const Target& target, const Scene& scene) {
  for (int y = 0; y < target.height; ++y)
    for (int x = 0; x < target.width; ++x) draw_pixel(target, scene, x, y);
  if (!has_chroma(target.format)) return;
  const int cw = chroma_width(target.width), ch = chroma_height(target.height);
  for (int cy = 0; cy < ch; ++cy)
    for (int cx = 0; cx < cw; ++cx) draw_chroma(target, scene, cx, cy);
}

}  // namespace ccl::overlay
