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

/// Rows [y0, y1) of the CPU's mask (ccl::ForegroundStage): 0 or 1 per pixel, rows of
/// frame.width bytes.
inline void mask_rows(const ImageView& frame, const ColorOptions& options, uint8_t* mask,
                      int y0, int y1) {
  static const Factors factors = make_factors();
  const Planes planes = planes_of(frame);
  const Range range = make_range(options);
  const int w = frame.width;
  with_reader(frame.format, [&](auto reader) {
    using Reader = decltype(reader);
    for (int y = y0; y < y1; ++y) {
      uint8_t* m = mask + size_t(y) * size_t(w);
      for (int x = 0; x < w; ++x)
        m[x] = classify<Reader>(planes, x, y, range, factors.saturation, factors.hue) ? 1 : 0;
    }
  });
}

/// The whole mask on the calling thread.
inline void mask_host(const ImageView& frame, const ColorOptions& options, uint8_t* mask) {
  mask_rows(frame, options, mask, 0, frame.height);
}

}  // namespace ccl::color
