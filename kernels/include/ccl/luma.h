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

/// Luma of pixel x of a row of the first plane, in the format's own range
/// (0..65535 for GRAY16_LE, 0..255 otherwise).
CCL_HD uint32_t luma_at(const uint8_t* row, int x, PixelFormat f) {
  switch (f) {
    case PixelFormat::Gray16LE:
      return uint32_t(row[2 * x]) | (uint32_t(row[2 * x + 1]) << 8);
    case PixelFormat::RGBA:
    case PixelFormat::RGBx:
      return bt601_luma(row[4 * x], row[4 * x + 1], row[4 * x + 2]);
    case PixelFormat::BGRA:
    case PixelFormat::BGRx:
      return bt601_luma(row[4 * x + 2], row[4 * x + 1], row[4 * x]);
    default:  // GRAY8, and the Y plane of NV12 / I420
      return row[x];
  }
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

/// Otsu's level from a 256-bin histogram of luma8: the t maximizing the between-class
/// variance of {v <= t} and {v > t}; ties go to the smallest t. Foreground is v > t.
/// Integer arithmetic only, so the CPU and the GPU agree bit for bit: with n0, n1 the
/// class counts and s0 the lower class's sum, d = |S*n0 - s0*N| = n0*n1*|mu1 - mu0|
/// and the score floor(d^2 / (n0*n1)) = n0*n1*(mu1-mu0)^2 < 2^76 fits 128 bits.
/// A histogram with fewer than two populated bins yields its only value (or 0).
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
    const __int128 diff = __int128(sum_total) * n0 - __int128(sum0) * total;
    const unsigned __int128 d = diff < 0 ? (unsigned __int128)(-diff) : (unsigned __int128)diff;
    const unsigned __int128 den = (unsigned __int128)n0 * (total - n0);  // < 2^62
    // floor(d*d/den) without forming d*d (up to 2^140): split d = q*den + r.
    const unsigned __int128 q = d / den, r = d % den;
    const unsigned __int128 score = q * d + r * q + (r * r) / den;
    if (best < 0 || score > best_score) {
      best_score = score;
      best = t;
    }
  }
  if (best < 0) {
    for (int v = 0; v < 256; ++v)
      if (hist[v]) return v;
    return 0;
  }
  return best;
}

}  // namespace ccl
