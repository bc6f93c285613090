// Luma extraction, threshold and Otsu's level: one definition for the CPU and the
// GPU so that both backends decide foreground identically.
#pragma once

#include <cstdint>

#include "ccl/types.h"

#if defined(__CUDACC__)
#define CCL_HD __host__ __device__ __forceinline__
#else
#define CCL_HD inline
#endif

namespace ccl {

/// Full-range BT.601 integer luma: (77 R + 150 G + 29 B + 128) >> 8.
CCL_HD uint32_t bt601_luma(uint32_t r, uint32_t g, uint32_t b) {
  return (77u * r + 150u * g + 29u * b + 128u) >> 8;
}

/// Luma readers, one per layout of the first plane: GPU kernels are compiled once per
/// layout (with_luma), so that their per-pixel code carries no switch over formats.
/// Values are in the format's own range (0..65535 for GRAY16_LE, 0..255 otherwise).
struct Luma8 {  // GRAY8, and the Y plane of NV12 / I420
  CCL_HD static uint32_t at(const uint8_t* row, int x) { return row[x]; }
};
struct Luma16 {  // GRAY16_LE
  CCL_HD static uint32_t at(const uint8_t* row, int x) {
    return uint32_t(row[2 * x]) | (uint32_t(row[2 * x + 1]) << 8);
  }
};
struct LumaRgb {  // RGBA, RGBx
  CCL_HD static uint32_t at(const uint8_t* row, int x) {
    return bt601_luma(row[4 * x], row[4 * x + 1], row[4 * x + 2]);
  }
};
struct LumaBgr {  // BGRA, BGRx
  CCL_HD static uint32_t at(const uint8_t* row, int x) {
    return bt601_luma(row[4 * x + 2], row[4 * x + 1], row[4 * x]);
  }
};

/// Calls f(Luma{}) with the luma reader of `format` and returns what it returns: the one
/// place that maps formats to readers (luma_at per pixel; kernels templated on the
/// reader, once per launch).
template <class F>
CCL_HD auto with_luma(PixelFormat format, F&& f) {
  switch (format) {
    case PixelFormat::Gray16LE:
      return f(Luma16{});
    case PixelFormat::RGBA:
    case PixelFormat::RGBx:
      return f(LumaRgb{});
    case PixelFormat::BGRA:
    case PixelFormat::BGRx:
      return f(LumaBgr{});
    default:
      return f(Luma8{});
  }
}

/// Luma of pixel x of a row of the first plane.
CCL_HD uint32_t luma_at(const uint8_t* row, int x, PixelFormat f) {
  return with_luma(f, [&](auto luma) { return decltype(luma)::at(row, x); });
}

/// 8-bit value used for Otsu's histogram.
CCL_HD uint32_t luma8(uint32_t luma, PixelFormat f) {
  return f == PixelFormat::Gray16LE ? (luma >> 8) : luma;
}

/// Level (0..255) scaled to the format's range: x257 for 16-bit.
CCL_HD uint32_t scaled_level(int level, PixelFormat f) {
  return f == PixelFormat::Gray16LE ? uint32_t(level) * 257u : uint32_t(level);
}

/// Foreground decision. Otsu resolves to Above with its computed level.
CCL_HD bool is_foreground(uint32_t luma, uint32_t scaled, ThresholdMode m) {
  return m == ThresholdMode::Below ? luma <= scaled : luma > scaled;
}

/// The only populated bin of a histogram that has no two-class split (0 if empty).
CCL_HD int otsu_single_value(const uint32_t* hist) {
  for (int v = 0; v < 256; ++v)
    if (hist[v]) return v;
  return 0;
}

/// Otsu's between-class score of the split {v <= t} / {v > t}, given the lower class's
/// count n0 and sum sum0 and the histogram's total count and sum. Integer arithmetic
/// only, so the CPU and the GPU agree bit for bit: with n1 = total - n0,
/// d = |S*n0 - s0*N| = n0*n1*|mu1 - mu0| and the score floor(d^2 / (n0*n1)) =
/// floor(n0*n1*(mu1-mu0)^2) < 2^76 fits 128 bits. 0 when a class is empty.
CCL_HD unsigned __int128 otsu_score(uint64_t n0, uint64_t sum0, uint64_t total,
                                    uint64_t sum_total) {
  if (n0 == 0 || n0 >= total) return 0;
  const __int128 diff = __int128(sum_total) * n0 - __int128(sum0) * total;
  const unsigned __int128 d = diff < 0 ? (unsigned __int128)(-diff) : (unsigned __int128)diff;
  const unsigned __int128 den = (unsigned __int128)n0 * (total - n0);  // < 2^62
  // floor(d*d/den) without forming d*d (up to 2^140): split d = q*den + r.
  const unsigned __int128 q = d / den, r = d % den;
  return q * d + r * q + (r * r) / den;
}

/// Otsu's level from a 256-bin histogram of luma8: the t maximizing otsu_score;
/// ties go to the smallest t. Foreground is v > t. A histogram with fewer than two
/// populated bins has no split: its only value (or 0) is returned.
CCL_HD int otsu_level(const uint32_t* hist) {
  uint64_t total = 0, sum_total = 0;
  for (int v = 0; v < 256; ++v) {
    total += hist[v];
    sum_total += uint64_t(v) * hist[v];
  }
  unsigned __int128 best_score = 0;
  int best = -1;
  uint64_t n0 = 0, sum0 = 0;
  for (int t = 0; t < 255; ++t) {
    n0 += hist[t];
    sum0 += uint64_t(t) * hist[t];
    if (n0 == 0 || n0 == total) continue;
    const unsigned __int128 score = otsu_score(n0, sum0, total, sum_total);
    if (best < 0 || score > best_score) {
      best_score = score;
      best = t;
    }
  }
  if (best < 0) return otsu_single_value(hist);
  return best;
}

}  // namespace ccl
