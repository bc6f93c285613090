// The local threshold (ForegroundModel::Local), one definition for the CPU and the GPU:
// integer window sums and the same rounding on both, so both backends write the same
// mask bit for bit.
//
// Semantics (tests/reference/local_threshold_test.cpp checks each point against the
// installed OpenCV):
//  - The pixel's 8-bit luma L is the engine's (ccl/luma.h): the Y plane of NV12 / I420,
//    bt601_luma of RGBA / BGRA / RGBx / BGRx, the value of GRAY8, and for GRAY16_LE the
//    high byte (value >> 8, the reduction Otsu's histogram uses too).
//  - The mask is cv::adaptiveThreshold(L, 255, ADAPTIVE_THRESH_MEAN_C, THRESH_BINARY,
//    block_size, offset) != 0; with ThresholdMode::Below, THRESH_BINARY_INV's.
//    That is, with B = block_size, r = (B - 1) / 2 and the window of (x, y) the B x B
//    pixels around it, rows and columns outside the frame replicated from its edge
//    (BORDER_REPLICATE): S = the window's sum of L, M = S / B^2 rounded to an integer
//    (below), and
//        Above: foreground when L - M > -ceil(offset)
//        Below: foreground when L - M <= -floor(offset).
//  - M is rounded as OpenCV's box filter rounds it, which depends on the window size
//    and on the column x:
//      * B <= 15 (at most 256 pixels): to the nearest (OpenCV's fixed point gives it for
//        every sum; B^2 is odd, so there are no ties);
//      * B >= 17: in columns x < W - W % 8, OpenCV's vector loop's single precision,
//        M = rint(float(S) * float(1.0 / B^2)) (round half to even); in the last W % 8
//        columns, its scalar loop's double precision, which is to the nearest. The two
//        agree for every sum up to B = 163; from B = 165 on they differ for a few sums
//        per window size (up to 64 of the 255 B^2 + 1), and then so does OpenCV's mask
//        from one column to the next. The engine follows it there too. (Checked with
//        OpenCV 4.6 on x86-64, AVX2; by its source the rule of any OpenCV 4 built with
//        128-bit or wider fixed-size SIMD: its wide loops hand their rest to a 128-bit
//        loop of 8 columns, whatever the vector width.)
//  - The window sums are exact integers (at most 255 * 255^2 < 2^24, so float(S) is
//    exact too); their cost per pixel is bounded whatever the block size, on both
//    backends (running sums along rows and columns).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ccl/luma.h"
#include "ccl/types.h"

namespace ccl::local {

/// Largest window radius (block size 255).
constexpr int kMaxRadius = 127;

/// A frame's parameters, computed once on the host (params) and passed by value.
struct Params {
  int32_t radius;      // (block_size - 1) / 2
  uint32_t area;       // block_size^2
  float inverse;       // float(1.0 / area): the vector loop's scale
  int32_t vector_end;  // columns x < vector_end round in single precision (0: none)
  int32_t delta;       // ceil(offset) (Above) or floor(offset) (Below)
  int32_t below;       // non-zero: ThresholdMode::Below
};

inline Params params(const LocalOptions& o, ThresholdMode mode, int width) {
  Params p{};
  p.radius = (o.block_size - 1) / 2;
  p.area = uint32_t(o.block_size) * uint32_t(o.block_size);
  p.inverse = float(1.0 / double(p.area));
  // OpenCV's fixed-point path (at most 256 pixels) rounds to the nearest everywhere.
  p.vector_end = p.area > 256 ? width - width % 8 : 0;
  p.below = mode == ThresholdMode::Below;
  p.delta = int32_t(p.below ? std::floor(o.offset) : std::ceil(o.offset));
  return p;
}

/// The 8-bit luma the test reads: the engine's luma, GRAY16_LE's high byte.
template <class Luma>
CCL_HD uint32_t luma_byte(const uint8_t* row, int x) {
  const uint32_t v = Luma::at(row, x);
  return std::is_same<Luma, Luma16>::value ? v >> 8 : v;
}

/// The window mean of column x from its sum, rounded as OpenCV rounds it (above).
CCL_HD uint32_t window_mean(uint32_t sum, int x, const Params& p) {
  if (x < p.vector_end) {
#if defined(__CUDA_ARCH__)
    return uint32_t(__float2int_rn(__fmul_rn(__uint2float_rn(sum), p.inverse)));
#else
    return uint32_t(std::nearbyint(float(sum) * p.inverse));
#endif
  }
  return (2 * sum + p.area) / (2 * p.area);  // 2 * sum < 2^25: no overflow
}

/// The decision, from the pixel's luma and its window's mean.
CCL_HD bool is_foreground(uint32_t luma, uint32_t mean, const Params& p) {
  const int32_t d = int32_t(luma) - int32_t(mean);
  return p.below ? d <= -p.delta : d > -p.delta;
}

/// The CPU's mask (0/1, width*height bytes, no padding) of a host frame that validate()
/// took: the luma plane, then per row the vertical window sums of every column, kept up
/// to date from row to row (one row in, one row out), and a running sum along them.
inline void mask_host(const ImageView& frame, const Options& options, uint8_t* mask) {
  const int w = frame.width, h = frame.height;
  const Params p = params(options.local, options.mode, w);
  const int r = p.radius;
  std::vector<uint8_t> luma(size_t(w) * size_t(h));
  with_luma(frame.format, [&](auto reader) {
    using Luma = decltype(reader);
    for (int y = 0; y < h; ++y) {
      const uint8_t* row = static_cast<const uint8_t*>(frame.planes[0]) + size_t(y) * frame.strides[0];
      for (int x = 0; x < w; ++x) luma[size_t(y) * w + x] = uint8_t(luma_byte<Luma>(row, x));
    }
  });
  // Rows and columns outside the frame repeat its edge (BORDER_REPLICATE).
  auto row = [&](int y) { return &luma[size_t(std::clamp(y, 0, h - 1)) * size_t(w)]; };
  // column[r + x]: the sum of column x over rows y - r .. y + r; r copies of each edge
  // column on either side, and one more slot that the last step reads.
  std::vector<uint32_t> column(size_t(w) + 2 * size_t(r) + 1, 0);
  uint32_t* sums = column.data() + r;
  for (int j = -r; j <= r; ++j) {
    const uint8_t* in = row(j);
    for (int x = 0; x < w; ++x) sums[x] += in[x];
  }
  for (int y = 0; y < h; ++y) {
    std::fill(column.begin(), column.begin() + r, sums[0]);
    std::fill(column.begin() + r + w, column.end(), sums[w - 1]);
    uint32_t sum = 0;
    for (int i = 0; i <= 2 * r; ++i) sum += column[size_t(i)];
    const uint8_t* l = row(y);
    uint8_t* m = mask + size_t(y) * size_t(w);
    for (int x = 0; x < w; ++x) {
      m[x] = is_foreground(l[x], window_mean(sum, x, p), p) ? 1 : 0;
      sum += column[size_t(x) + 2 * size_t(r) + 1] - column[size_t(x)];
    }
    const uint8_t *in = row(y + r + 1), *out = row(y - r);
    for (int x = 0; x < w; ++x) sums[x] += uint32_t(in[x]) - out[x];
  }
}

}  // namespace ccl::local
