// Bytes per row and rows of each plane of a frame (what the CUDA backend stages).
#pragma once

#include <cstddef>

#include "ccl/types.h"

namespace ccl::plugin {

struct PlaneSize {
  size_t row_bytes = 0;
  size_t rows = 0;
  size_t bytes() const { return row_bytes * rows; }
};

inline PlaneSize plane_size(PixelFormat f, int width, int height, int plane) {
  const size_t w = size_t(width), h = size_t(height);
  const size_t cw = (w + 1) / 2, ch = (h + 1) / 2;
  if (plane == 0) return {w * size_t(luma_bytes_per_pixel(f)), h};
  if (f == PixelFormat::NV12 && plane == 1) return {2 * cw, ch};
  if (f == PixelFormat::I420 && plane <= 2) return {cw, ch};
  return {};
}

}  // namespace ccl::plugin
