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
#if !defined(__CUDACC__)
#include "cpu_features.h"
#endif

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

#if !defined(__CUDACC__)
// ---- The CPU's rows. Each loop below is written for GCC to vectorize; the functions
// are compiled twice, for the baseline instruction set and for AVX2 (twice the lanes),
// and the CPU picks (has_avx2). Integer and exactly rounded float steps only, so both
// give the same bytes.
namespace cpu {

#define CCL_LOCAL_INLINE __attribute__((always_inline)) inline

template <class Luma>
CCL_LOCAL_INLINE void luma_of(const ImageView& frame, uint8_t* luma, int y0, int y1) {
  const int w = frame.width;
  for (int y = y0; y < y1; ++y) {
    const uint8_t* row = static_cast<const uint8_t*>(frame.planes[0]) + size_t(y) * frame.strides[0];
    uint8_t* out = luma + size_t(y) * size_t(w);
    for (int x = 0; x < w; ++x) out[x] = uint8_t(luma_byte<Luma>(row, x));
  }
}

// The formats as with_luma maps them, spelled out: a lambda would be compiled for the
// baseline instruction set whatever its caller's.
CCL_LOCAL_INLINE void luma_impl(const ImageView& frame, uint8_t* luma, int y0, int y1) {
  switch (frame.format) {
    case PixelFormat::Gray16LE: return luma_of<Luma16>(frame, luma, y0, y1);
    case PixelFormat::RGBA:
    case PixelFormat::RGBx: return luma_of<LumaRgb>(frame, luma, y0, y1);
    case PixelFormat::BGRA:
    case PixelFormat::BGRx: return luma_of<LumaBgr>(frame, luma, y0, y1);
    default: return luma_of<Luma8>(frame, luma, y0, y1);
  }
}

inline void luma_generic(const ImageView& frame, uint8_t* luma, int y0, int y1) {
  luma_impl(frame, luma, y0, y1);
}

CCL_TARGET_AVX2 inline void luma_avx2(const ImageView& frame, uint8_t* luma,
                                                      int y0, int y1) {
  luma_impl(frame, luma, y0, y1);
}

}  // namespace cpu

/// Rows [y0, y1) of the frame's 8-bit luma (luma_byte) into `luma` (width bytes a row).
inline void luma_rows(const ImageView& frame, uint8_t* luma, int y0, int y1) {
  if (::ccl::cpu::has_avx2()) cpu::luma_avx2(frame, luma, y0, y1);
  else cpu::luma_generic(frame, luma, y0, y1);
}

/// Host scratch of mask_rows: w + 2r + 1 column sums and w window sums.
inline size_t scratch_words(int width, const Params& p) {
  return 2 * size_t(width) + 2 * size_t(p.radius) + 1;
}

namespace cpu {

/// window[x] = column[x] + ... + column[x + 2r] for x < w. A running sum is one chain of
/// additions, each waiting for the last; the row is cut into kChains pieces whose sums
/// run side by side, so that the processor overlaps them.
CCL_LOCAL_INLINE void window_sums(const uint32_t* column, int w, int r, uint32_t* window) {
  constexpr int kChains = 4;
  const int piece = (w + kChains - 1) / kChains;
  const size_t span = 2 * size_t(r) + 1;
  uint32_t sum[kChains];
  for (int k = 0; k < kChains; ++k) {
    sum[k] = 0;
    const size_t x0 = size_t(std::min(k * piece, w));
    for (size_t i = 0; i < span; ++i) sum[k] += column[x0 + i];
  }
  // Every piece but the last is `piece` long; the last, w - (kChains - 1) * piece, may
  // be shorter (or empty): all run together over its length, the others then finish.
  const int last = std::max(0, w - (kChains - 1) * piece);
  for (int x = 0; x < last; ++x)
    for (int k = 0; k < kChains; ++k) {
      const size_t i = size_t(k) * size_t(piece) + size_t(x);
      window[i] = sum[k];
      sum[k] += column[i + span] - column[i];
    }
  for (int k = 0; k < kChains - 1; ++k) {
    const int end = std::min(piece, w - k * piece);
    for (int x = last; x < end; ++x) {
      const size_t i = size_t(k) * size_t(piece) + size_t(x);
      window[i] = sum[k];
      sum[k] += column[i + span] - column[i];
    }
  }
}

CCL_LOCAL_INLINE void mask_impl(const uint8_t* luma, int w, int h, const Params& p, int y0, int y1,
                                uint8_t* mask, uint32_t* scratch) {
  const int r = p.radius;
  // Rows and columns outside the frame repeat its edge (BORDER_REPLICATE).
  auto row = [&](int y) { return luma + size_t(std::clamp(y, 0, h - 1)) * size_t(w); };
  // column[r + x]: the sum of column x over rows y - r .. y + r; r copies of each edge
  // column on either side, and one more slot that the last step reads.
  uint32_t* column = scratch;
  uint32_t* window = scratch + size_t(w) + 2 * size_t(r) + 1;
  uint32_t* sums = column + r;
  std::fill(column, column + size_t(w) + 2 * size_t(r) + 1, 0u);
  for (int j = y0 - r; j <= y0 + r; ++j) {
    const uint8_t* in = row(j);
    for (int x = 0; x < w; ++x) sums[x] += in[x];
  }
  // Columns x < vector_end divide as OpenCV's float loop, by a product with the float
  // inverse rounded to the nearest even; adding and taking away 2^23 rounds a float in
  // [0, 2^23) that way with plain arithmetic, which vectorizes where nearbyint does not.
  const int vend = std::min(p.vector_end, w);
  const float magic = 8388608.0f;
  for (int y = y0; y < y1; ++y) {
    std::fill(column, column + r, sums[0]);
    std::fill(column + r + w, column + size_t(w) + 2 * size_t(r) + 1, sums[w - 1]);
    window_sums(column, w, r, window);
    const uint8_t* l = row(y);
    uint8_t* m = mask + size_t(y) * size_t(w);
    const int32_t delta = p.delta;
    if (p.below) {
      for (int x = 0; x < vend; ++x) {
        const int32_t mean = int32_t((float(int32_t(window[x])) * p.inverse + magic) - magic);
        m[x] = int32_t(l[x]) - mean <= -delta ? 1 : 0;
      }
    } else {
      for (int x = 0; x < vend; ++x) {
        const int32_t mean = int32_t((float(int32_t(window[x])) * p.inverse + magic) - magic);
        m[x] = int32_t(l[x]) - mean > -delta ? 1 : 0;
      }
    }
    for (int x = vend; x < w; ++x) m[x] = is_foreground(l[x], window_mean(window[x], x, p), p) ? 1 : 0;
    if (y + 1 < y1) {
      const uint8_t *in = row(y + r + 1), *out = row(y - r);
      for (int x = 0; x < w; ++x) sums[x] += uint32_t(in[x]) - out[x];
    }
  }
}

inline void mask_generic(const uint8_t* luma, int w, int h, const Params& p, int y0, int y1,
                         uint8_t* mask, uint32_t* scratch) {
  mask_impl(luma, w, h, p, y0, y1, mask, scratch);
}

CCL_TARGET_AVX2 inline void mask_avx2(const uint8_t* luma, int w, int h,
                                                      const Params& p, int y0, int y1,
                                                      uint8_t* mask, uint32_t* scratch) {
  mask_impl(luma, w, h, p, y0, y1, mask, scratch);
}

#undef CCL_LOCAL_INLINE

}  // namespace cpu

/// Rows [y0, y1) of the CPU's mask (0/1, w bytes a row) from the whole luma plane (w x h).
/// Per row: the vertical window sums of every column, kept up to date from row to row
/// (one row in, one row out, started afresh at y0 so that stripes of rows are
/// independent), the horizontal window sums as a running sum along them, then the
/// test of every pixel in a loop of its own, which the compiler vectorizes.
inline void mask_rows(const uint8_t* luma, int w, int h, const Params& p, int y0, int y1,
                      uint8_t* mask, uint32_t* scratch) {
  if (::ccl::cpu::has_avx2()) cpu::mask_avx2(luma, w, h, p, y0, y1, mask, scratch);
  else cpu::mask_generic(luma, w, h, p, y0, y1, mask, scratch);
}

/// The CPU's mask (0/1, width*height bytes, no padding) of a host frame that validate()
/// took, on the calling thread.
inline void mask_host(const ImageView& frame, const Options& options, uint8_t* mask) {
  const int w = frame.width, h = frame.height;
  const Params p = params(options.local, options.mode, w);
  std::vector<uint8_t> luma(size_t(w) * size_t(h));
  luma_rows(frame, luma.data(), 0, h);
  std::vector<uint32_t> scratch(scratch_words(w, p));
  mask_rows(luma.data(), w, h, p, 0, h, mask, scratch.data());
}
#endif  // !__CUDACC__

}  // namespace ccl::local
