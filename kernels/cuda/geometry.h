// The layout every kernel of the engine shares: the label image, the bit-packed
// foreground mask, and the launch shapes that depend on them. Launch geometry lives
// here and in each stage's launcher, nowhere else.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ccl::cuda {

constexpr int kWarpSize = 32;
constexpr unsigned kFullWarp = 0xffffffffu;

/// Rows per HA strip: one warp per row, a block per strip (Hennequin et al. use 4).
/// 8 rows halve the borders to merge but cost more in the strips than they save
/// (measured, PERF_NOTES.md).
constexpr int kStripRows = 4;
/// Columns of the chunks that HA's strips are cut into, so that more warps work at
/// once and each walks fewer windows; a multiple of 64. The chunks' borders are merged
/// with the strips' borders.
constexpr int kChunkColumns = 128;
/// Threads of the per-word kernels (reduction, root numbering, finalization).
constexpr int kWordBlock = 256;
/// Warps per block of the per-window kernels (border merge, features).
constexpr int kWindowWarps = 8;

/// A W x H frame as the kernels see it. Labels: uint32 per pixel, row pitch = width,
/// raster index i = y * width + x < 2^31. Foreground mask: one bit per pixel, rows of
/// `words` 64-bit words (bit c of word w = column 64 w + c), bits past the width 0.
/// The mask is written once, by the first labeling kernel (the only one that reads
/// the frame), so later passes read 1 bit per pixel instead of re-thresholding.
struct FrameGeometry {
  int width = 0;
  int height = 0;
  int words = 0;  // 64-bit mask words per row

  FrameGeometry() = default;
  FrameGeometry(int w, int h) : width(w), height(h), words((w + 63) / 64) {}

  size_t pixels() const { return size_t(width) * size_t(height); }
  size_t mask_words() const { return size_t(words) * size_t(height); }
};

inline unsigned ceil_div(size_t a, size_t b) { return unsigned((a + b - 1) / b); }

}  // namespace ccl::cuda
