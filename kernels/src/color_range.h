// The color range (ForegroundModel::Color), one definition for the CPU and the GPU:
// integer arithmetic only, so that both backends write the same mask bit for bit.
//
// Semantics (docs/FOREGROUND.md; tests/reference/color_range_test.cpp checks each point
// against the installed OpenCV):
//  - A pixel is foreground when its 8-bit HSV color (H 0..179, S 0..255, V 0..255)
//    lies within Options::color: low[c] <= value[c] <= high[c] for S and V; for H the
//    same when low[0] <= high[0], and otherwise H >= low[0] or H <= high[0] (a range
//    that wraps around red, e.g. 170..10).
//  - RGBA / RGBx: the color is cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV)'s, so the mask
//    is cv::inRange(hsv, low, high) != 0 (with a wrapping hue, the union of the two
//    ranges either side of red). BGRA / BGRx: COLOR_BGR2HSV likewise. The 4th byte is
//    never read.
//  - NV12 / I420: each pixel is first converted to RGB as cv::cvtColor's
//    COLOR_YUV2RGB_NV12 / COLOR_YUV2RGB_I420 does (BT.601 limited range, 20-bit fixed
//    point, the chroma of the pixel's 2x2 block, no interpolation), then as above.
//    OpenCV takes even sizes only; the engine also takes odd ones, whose last column or
//    row uses the chroma of its (half-filled) block, as every other pixel does.
//  - GRAY8 and GRAY16_LE carry no color and are refused (ccl::validate).
// Everything that decides a pixel depends on that pixel (and its block's chroma) only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ccl/luma.h"  // CCL_HD
#include "ccl/types.h"
#if !defined(__CUDACC__)
#include "cpu_features.h"
#endif

namespace ccl::color {

// ---- RGB to OpenCV's 8-bit HSV.

/// Fixed point of OpenCV's 8-bit HSV: divisions become a product by a table entry
/// rounded to 12 fractional bits.
constexpr int kHsvShift = 12;
constexpr int32_t kHsvHalf = 1 << (kHsvShift - 1);

/// The saturation's factor of a pixel of value v: 255 / v in Q12, rounded to the
/// nearest (no v in 1..255 gives a tie). 0 for v = 0 (then the saturation is 0).
CCL_HD int32_t saturation_factor(int32_t v) {
  return v ? (2 * (255 << kHsvShift) + v) / (2 * v) : 0;
}

/// The hue's factor of a pixel of spread d = max - min: the 60 degrees of a sextant,
/// 30 in OpenCV's half-degree unit, over d, in Q12, rounded (no d gives a tie). 0 for
/// d = 0 (a gray pixel: hue 0).
CCL_HD int32_t hue_factor(int32_t d) {
  return d ? (2 * (30 << kHsvShift) + d) / (2 * d) : 0;
}

/// Both factors for every 8-bit value: what the GPU keeps in shared memory and the
/// CPU computes once, so that no pixel divides.
struct Factors {
  int32_t saturation[256];
  int32_t hue[256];
};

inline Factors make_factors() {
  Factors f{};
  for (int i = 0; i < 256; ++i) {
    f.saturation[i] = saturation_factor(i);
    f.hue[i] = hue_factor(i);
  }
  return f;
}

struct Hsv {
  int32_t h, s, v;
};

/// OpenCV's 8-bit RGB to HSV. The hue's sextant is chosen with red first, then green
/// (a pixel whose maximum is both red and green takes red's), and rounds half up in
/// Q12 before a negative hue (red leaning to blue) wraps to 180 - |h|.
CCL_HD Hsv rgb_to_hsv(int32_t r, int32_t g, int32_t b, const int32_t* saturation,
                      const int32_t* hue) {
  const int32_t v = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const int32_t d = v - (r < g ? (r < b ? r : b) : (g < b ? g : b));
  const int32_t s = (d * saturation[v] + kHsvHalf) >> kHsvShift;
  const int32_t x = v == r ? g - b : v == g ? b - r + 2 * d : r - g + 4 * d;
  int32_t h = (x * hue[d] + kHsvHalf) >> kHsvShift;  // arithmetic shift: floor
  if (h < 0) h += 180;
  return {h, s, v};
}

// ---- YUV 4:2:0 to RGB (OpenCV's COLOR_YUV2RGB_NV12 / _I420).

/// BT.601 limited range, Q20: R = 1.164 (Y-16) + 1.596 (V-128), G = 1.164 (Y-16) -
/// 0.813 (V-128) - 0.391 (U-128), B = 1.164 (Y-16) + 2.018 (U-128). These are the
/// integers OpenCV's 8-bit conversion uses (its ITUR_BT_601_* constants).
constexpr int kYuvShift = 20;
constexpr int32_t kYuvY = 1220542, kYuvUB = 2116026, kYuvUG = -409993, kYuvVG = -852492,
                  kYuvVR = 1673527;

/// The chroma's share of each channel, with the rounding half (the same for the four
/// pixels of a 2x2 block).
struct Chroma {
  int32_t r, g, b;
};

CCL_HD Chroma chroma_terms(int32_t u, int32_t v) {
  const int32_t du = u - 128, dv = v - 128, half = 1 << (kYuvShift - 1);
  return {half + kYuvVR * dv, half + kYuvVG * dv + kYuvUG * du, half + kYuvUB * du};
}

CCL_HD int32_t clamp8(int32_t x) { return x < 0 ? 0 : x > 255 ? 255 : x; }

/// One pixel's RGB from its luma and its block's chroma terms. Luma below 16 counts as
/// 16 (black), as in OpenCV; the largest sum, 239 * kYuvY + half + 127 * kYuvUB, fits
/// 31 bits.
CCL_HD void yuv_to_rgb(int32_t y, const Chroma& c, int32_t* rgb) {
  const int32_t l = (y > 16 ? y - 16 : 0) * kYuvY;
  rgb[0] = clamp8((l + c.r) >> kYuvShift);
  rgb[1] = clamp8((l + c.g) >> kYuvShift);
  rgb[2] = clamp8((l + c.b) >> kYuvShift);
}

// ---- The range.

/// Options::color as every pixel's test reads it (passed by value to the kernels).
struct Range {
  int32_t low[3], high[3];
  int32_t wraps;  // low[0] > high[0]: hue >= low or hue <= high
};

inline Range make_range(const ColorOptions& o) {
  Range r{};
  for (int c = 0; c < 3; ++c) {
    r.low[c] = o.low[c];
    r.high[c] = o.high[c];
  }
  r.wraps = o.low[0] > o.high[0];
  return r;
}

CCL_HD bool in_range(const Hsv& p, const Range& r) {
  const bool above = p.h >= r.low[0], below = p.h <= r.high[0];
  const bool hue = r.wraps ? above || below : above && below;
  return hue && p.s >= r.low[1] && p.s <= r.high[1] && p.v >= r.low[2] && p.v <= r.high[2];
}

// ---- Readers: a pixel's R, G, B, one reader per layout, so that kernels are compiled
// once per layout (with_reader) and carry no switch over formats per pixel.

/// A frame's planes (host or device addresses).
struct Planes {
  const uint8_t* base[3];
  size_t stride[3];
};

inline Planes planes_of(const ImageView& image) {
  Planes p{};
  for (int i = 0; i < 3; ++i) {
    p.base[i] = static_cast<const uint8_t*>(image.planes[i]);
    p.stride[i] = image.strides[i];
  }
  return p;
}

/// 4-byte pixels with red at byte kRed and blue at byte 2 - kRed (RGBA/RGBx: 0,
/// BGRA/BGRx: 2); green is byte 1.
template <int kRed>
struct ReadPacked {
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* rgb) {
    const uint8_t* p = f.base[0] + size_t(y) * f.stride[0] + 4 * size_t(x);
    rgb[0] = p[kRed];
    rgb[1] = p[1];
    rgb[2] = p[2 - kRed];
  }
};
struct ReadNV12 {  // U and V interleaved, one pair per 2x2 block
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* rgb) {
    const uint8_t* uv = f.base[1] + size_t(y >> 1) * f.stride[1] + 2 * size_t(x >> 1);
    yuv_to_rgb(f.base[0][size_t(y) * f.stride[0] + x], chroma_terms(uv[0], uv[1]), rgb);
  }
};
struct ReadI420 {  // U and V planes, one byte per 2x2 block each
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* rgb) {
    const size_t c = size_t(y >> 1);
    const int32_t u = f.base[1][c * f.stride[1] + (x >> 1)];
    const int32_t v = f.base[2][c * f.stride[2] + (x >> 1)];
    yuv_to_rgb(f.base[0][size_t(y) * f.stride[0] + x], chroma_terms(u, v), rgb);
  }
};

/// Calls f(Reader{}) with the reader of `format`, a color format (validate() refused
/// the gray ones before any reader is asked for).
template <class F>
CCL_HD auto with_reader(PixelFormat format, F&& f) {
  switch (format) {
    case PixelFormat::NV12: return f(ReadNV12{});
    case PixelFormat::I420: return f(ReadI420{});
    case PixelFormat::BGRA:
    case PixelFormat::BGRx: return f(ReadPacked<2>{});
    default: return f(ReadPacked<0>{});
  }
}

/// Whether pixel (x, y) of the frame is foreground.
template <class Reader>
CCL_HD bool classify(const Planes& f, int x, int y, const Range& r, const int32_t* saturation,
                     const int32_t* hue) {
  int32_t rgb[3];
  Reader::at(f, x, y, rgb);
  return in_range(rgb_to_hsv(rgb[0], rgb[1], rgb[2], saturation, hue), r);
}

#if !defined(__CUDACC__)
// ---- The CPU's rows: the same integers as classify(), in loops GCC vectorizes.
//
// A row is taken in chunks: first its R, G, B into small arrays (the YUV formats
// compute each block's chroma terms once for its two pixels), then the test over the
// arrays. The test cannot look its two factors up in a table (a lookup per lane does
// not vectorize), so it divides in single precision instead, which gives the table's
// integers exactly: for integers 0 <= a < 2^24 and 0 < b, float(a) / float(b) is
// rounded by at most q * 2^-24 (q = a / b), less than 1 / b, the least distance from a
// q that is not an integer to the next integer; so truncating it gives floor(a / b).
// Both numerators, 2 * (255 << 12) + v and 2 * (30 << 12) + d, are below 2^22. Where
// v or d is 0 the table holds 0 and the quotient is of no account: d is 0 then, and so
// is the hue's x (every channel equal), and both products vanish.
namespace cpu {

// Pixels per chunk: even, so that chunks start at a block's first column; small, so
// that the three arrays stay in the first-level cache.
constexpr int kChunk = 256;

#define CCL_COLOR_INLINE __attribute__((always_inline)) inline

template <int kRed>
CCL_COLOR_INLINE void rgb_packed(const uint8_t* p, int n, int32_t* r, int32_t* g, int32_t* b) {
  for (int i = 0; i < n; ++i) {
    r[i] = p[4 * i + kRed];
    g[i] = p[4 * i + 1];
    b[i] = p[4 * i + 2 - kRed];
  }
}

/// n pixels from their luma `y` and their blocks' chroma, one U and one V every kStep
/// bytes (NV12: 2, I420: 1); the first pixel starts a block.
template <int kStep>
CCL_COLOR_INLINE void rgb_yuv(const uint8_t* y, const uint8_t* u, const uint8_t* v, int n,
                              int32_t* r, int32_t* g, int32_t* b) {
  const int pairs = n >> 1;
  for (int j = 0; j < pairs; ++j) {
    const Chroma c = chroma_terms(u[kStep * j], v[kStep * j]);
    for (int k = 0; k < 2; ++k) {
      const int32_t yy = y[2 * j + k];
      const int32_t l = (yy > 16 ? yy - 16 : 0) * kYuvY;
      r[2 * j + k] = clamp8((l + c.r) >> kYuvShift);
      g[2 * j + k] = clamp8((l + c.g) >> kYuvShift);
      b[2 * j + k] = clamp8((l + c.b) >> kYuvShift);
    }
  }
  if (n & 1) {
    int32_t rgb[3];
    yuv_to_rgb(y[n - 1], chroma_terms(u[kStep * pairs], v[kStep * pairs]), rgb);
    r[n - 1] = rgb[0];
    g[n - 1] = rgb[1];
    b[n - 1] = rgb[2];
  }
}

/// in_range(rgb_to_hsv(...)) of n pixels, 0 or 1 into m.
template <bool kWraps>
CCL_COLOR_INLINE void test_n(const int32_t* r, const int32_t* g, const int32_t* b, int n,
                             const Range& range, uint8_t* m) {
  const int32_t h0 = range.low[0], h1 = range.high[0], s0 = range.low[1], s1 = range.high[1],
                v0 = range.low[2], v1 = range.high[2];
  for (int i = 0; i < n; ++i) {
    const int32_t R = r[i], G = g[i], B = b[i];
    const int32_t v = R > G ? (R > B ? R : B) : (G > B ? G : B);
    const int32_t lo = R < G ? (R < B ? R : B) : (G < B ? G : B);
    const int32_t d = v - lo;
    const int32_t sv = 2 * v > 1 ? 2 * v : 1, sd = 2 * d > 1 ? 2 * d : 1;
    const int32_t sf = int32_t(float(2 * (255 << kHsvShift) + v) / float(sv));
    const int32_t hf = int32_t(float(2 * (30 << kHsvShift) + d) / float(sd));
    const int32_t s = (d * sf + kHsvHalf) >> kHsvShift;
    const int32_t x = v == R ? G - B : v == G ? B - R + 2 * d : R - G + 4 * d;
    int32_t h = (x * hf + kHsvHalf) >> kHsvShift;
    h = h < 0 ? h + 180 : h;
    const bool hue = kWraps ? (h >= h0) | (h <= h1) : (h >= h0) & (h <= h1);
    m[i] = uint8_t(hue & (s >= s0) & (s <= s1) & (v >= v0) & (v <= v1));
  }
}

template <bool kWraps>
CCL_COLOR_INLINE void rows_impl(const ImageView& frame, const Range& range, uint8_t* mask,
                                int y0, int y1) {
  const Planes f = planes_of(frame);
  const int w = frame.width;
  alignas(64) int32_t r[kChunk], g[kChunk], b[kChunk];
  for (int y = y0; y < y1; ++y) {
    const uint8_t* row = f.base[0] + size_t(y) * f.stride[0];
    const size_t crow = size_t(y >> 1);
    for (int x0 = 0; x0 < w; x0 += kChunk) {
      const int n = w - x0 < kChunk ? w - x0 : kChunk;
      switch (frame.format) {
        case PixelFormat::NV12: {
          const uint8_t* uv = f.base[1] + crow * f.stride[1] + size_t(x0);
          rgb_yuv<2>(row + x0, uv, uv + 1, n, r, g, b);
          break;
        }
        case PixelFormat::I420:
          rgb_yuv<1>(row + x0, f.base[1] + crow * f.stride[1] + size_t(x0 >> 1),
                     f.base[2] + crow * f.stride[2] + size_t(x0 >> 1), n, r, g, b);
          break;
        case PixelFormat::BGRA:
        case PixelFormat::BGRx:
          rgb_packed<2>(row + 4 * size_t(x0), n, r, g, b);
          break;
        default:
          rgb_packed<0>(row + 4 * size_t(x0), n, r, g, b);
      }
      test_n<kWraps>(r, g, b, n, range, mask + size_t(y) * size_t(w) + size_t(x0));
    }
  }
}

template <bool kWraps>
void rows_generic(const ImageView& frame, const Range& range, uint8_t* mask, int y0, int y1) {
  rows_impl<kWraps>(frame, range, mask, y0, y1);
}

template <bool kWraps>
CCL_TARGET_AVX2 void rows_avx2(const ImageView& frame, const Range& range,
                                               uint8_t* mask, int y0, int y1) {
  rows_impl<kWraps>(frame, range, mask, y0, y1);
}

#undef CCL_COLOR_INLINE

}  // namespace cpu

/// Rows [y0, y1) of the CPU's mask (ccl::ForegroundStage): 0 or 1 per pixel, rows of
/// frame.width bytes; the same bytes as classify() gives pixel by pixel.
inline void mask_rows(const ImageView& frame, const ColorOptions& options, uint8_t* mask,
                      int y0, int y1) {
  const Range range = make_range(options);
  const bool avx2 = ::ccl::cpu::has_avx2();
  if (range.wraps) {
    if (avx2) cpu::rows_avx2<true>(frame, range, mask, y0, y1);
    else cpu::rows_generic<true>(frame, range, mask, y0, y1);
  } else {
    if (avx2) cpu::rows_avx2<false>(frame, range, mask, y0, y1);
    else cpu::rows_generic<false>(frame, range, mask, y0, y1);
  }
}

/// The whole mask on the calling thread.
inline void mask_host(const ImageView& frame, const ColorOptions& options, uint8_t* mask) {
  mask_rows(frame, options, mask, 0, frame.height);
}
#endif  // !__CUDACC__

}  // namespace ccl::color
