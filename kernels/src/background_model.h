// The background model's per-pixel step, one definition for the CPU and the GPU:
// integer arithmetic only, so that both backends keep the same state and write the
// same mask bit for bit (docs/FOREGROUND.md explains the model and its numbers).
//
// Each pixel holds up to kModes modes, sorted by weight (heaviest first). A mode is a
// weight, a mean per channel and one variance shared by the channels, all 16-bit
// fixed point: weights Q16 (65535 ~ 1), means Q8 (intensity * 256), variances Q8
// (intensity^2 * 256). The step follows Zivkovic's improved mixture: every weight
// decays by the learning rate and by a small prior that removes unsupported modes;
// the first mode within `match` variances takes the frame's weight and moves its mean
// and variance toward the pixel; the modes that together hold `background_share` of
// the weight are the background; a pixel that matches none of them is foreground,
// unless it is a shadow (a darker pixel along the direction of a background mean).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ccl/luma.h"  // CCL_HD
#include "ccl/types.h"

// Loops over modes and channels are unrolled on the device so the modes stay in
// registers; the host compiler decides for itself.
#if defined(__CUDA_ARCH__)
#define CCL_UNROLL _Pragma("unroll")
#else
#define CCL_UNROLL
#endif

namespace ccl::bg {

constexpr int kModes = 4;
constexpr int32_t kOne = 65536;  // weight 1.0 in Q16 (stored as at most 65535)
constexpr int32_t kWhite = 255 << 8;  // the brightest mean, Q8

/// Parameters of one frame's step, all fixed point, computed once per frame on the host
/// (step_params) and passed by value to every pixel.
struct StepParams {
  int32_t alpha;         // learning rate, Q16 (0: frozen)
  int32_t prune;         // alpha * complexity prior, Q16: weights below it are dropped
  int64_t match_bg;      // variance_threshold, Q8: squared distance of a background match
  int64_t match_mode;    // 9 variances, Q8: squared distance that updates a mode
  int32_t var_init;      // variance of a new mode, Q8
  int32_t var_min, var_max;
  int32_t background_share;  // Q16 weight the background modes hold (0.9)
  int32_t shadow_floor;  // Q8: a shadow keeps at least this share of the brightness
  int32_t shadows;       // non-zero: shadows are not foreground
  int32_t first;         // first frame since reset: it is the background, nothing is foreground
  int32_t compensate;    // non-zero: the model follows a global change of light (gain_of)
  int32_t gain_dead_zone;  // Q8: gains within 1 +- this leave the model as it is
  int32_t gain_min_samples;  // fewer samples than this tell no gain
};
// Graph keys compare frames' parameters byte for byte: no padding may hide in them.
static_assert(std::has_unique_object_representations_v<StepParams>,
              "StepParams must have no padding");

/// One pixel's modes, in registers while it is updated.
template <int C>
struct Modes {
  int32_t w[kModes];
  int32_t m[kModes][C];
  int32_t v[kModes];
};

/// Where mode k's fields of pixel i live: planes of `plane` uint16 each, weights first,
/// then the means (mode-major, channel-minor), then the variances.
template <int C>
struct StateLayout {
  static constexpr int kPlanes = kModes * (C + 2);
  CCL_HD static size_t weight(int k) { return size_t(k); }
  CCL_HD static size_t mean(int k, int c) { return size_t(kModes + k * C + c); }
  CCL_HD static size_t var(int k) { return size_t(kModes + kModes * C + k); }
};

template <int C>
CCL_HD void load(Modes<C>& s, const uint16_t* state, size_t plane, size_t i) {
  using L = StateLayout<C>;
CCL_UNROLL
  for (int k = 0; k < kModes; ++k) {
    s.w[k] = state[L::weight(k) * plane + i];
CCL_UNROLL
    for (int c = 0; c < C; ++c) s.m[k][c] = state[L::mean(k, c) * plane + i];
    s.v[k] = state[L::var(k) * plane + i];
  }
}

/// A field as stored: a weight of 1 (kOne) saturates at 65535; the rest fit as they are.
CCL_HD uint16_t to_field(int32_t v) { return uint16_t(v > 65535 ? 65535 : v); }

template <int C>
CCL_HD void store(const Modes<C>& s, uint16_t* state, size_t plane, size_t i) {
  using L = StateLayout<C>;
CCL_UNROLL
  for (int k = 0; k < kModes; ++k) {
    state[L::weight(k) * plane + i] = to_field(s.w[k]);
CCL_UNROLL
    for (int c = 0; c < C; ++c) state[L::mean(k, c) * plane + i] = uint16_t(s.m[k][c]);
    state[L::var(k) * plane + i] = uint16_t(s.v[k]);
  }
}

template <int C>
CCL_HD void swap_modes(Modes<C>& s, int a, int b) {
  int32_t t = s.w[a]; s.w[a] = s.w[b]; s.w[b] = t;
  t = s.v[a]; s.v[a] = s.v[b]; s.v[b] = t;
CCL_UNROLL
  for (int c = 0; c < C; ++c) {
    t = s.m[a][c]; s.m[a][c] = s.m[b][c]; s.m[b][c] = t;
  }
}

// Every loop below runs over all kModes with the mode count as a condition, never as
// a bound, so that on the device the modes are indexed by constants and stay in
// registers (a runtime index would put them in local memory).

/// Stable sort by weight, heaviest first: bubble passes from the end, which also move a
/// single new mode up to its place in one pass.
template <int C>
CCL_HD void sort_modes(Modes<C>& s, int passes) {
CCL_UNROLL
  for (int pass = 0; pass < kModes - 1; ++pass) {
    if (pass >= passes) break;
CCL_UNROLL
    for (int j = kModes - 1; j > 0; --j)
      if (s.w[j] > s.w[j - 1]) swap_modes(s, j, j - 1);
  }
}

/// Modes with a weight, counted from the first (they come first).
template <int C>
CCL_HD int mode_count(const Modes<C>& s) {
  int n = 0;
CCL_UNROLL
  for (int k = 0; k < kModes; ++k)
    if (s.w[k] > 0 && n == k) n = k + 1;
  return n;
}

/// True when pixel x (Q8 channels) is a shadow of one of the background modes: along
/// its mean's direction (from black), between shadow_floor and 1 times as bright,
/// and within match_bg variances of that scaled mean.
template <int C>
CCL_HD bool is_shadow(const Modes<C>& s, int n, const int32_t x[C], const StepParams& p) {
  int32_t share = 0;
CCL_UNROLL
  for (int k = 0; k < kModes; ++k) {
    if (k >= n) break;
    // A channel whose mean is white may be clipped: the scene is at least that bright
    // there, by an unknown amount (a bright wall after the lights went up). The ratio
    // is measured on the other channels, and a clipped one only tells that a shadow is
    // not darker there than the ratio makes the white.
    bool clipped[C];
    int64_t num = 0, den = 0, num_all = 0, den_all = 0;
CCL_UNROLL
    for (int c = 0; c < C; ++c) {
      clipped[c] = s.m[k][c] >= kWhite;
      const int64_t xm = int64_t(x[c]) * s.m[k][c], mm = int64_t(s.m[k][c]) * s.m[k][c];
      num_all += xm;
      den_all += mm;
      if (!clipped[c]) num += xm, den += mm;
    }
    // Every channel white (or black): the plain test over all of them.
    const bool partial = den != 0;
    if (!partial) num = num_all, den = den_all;
    if (den == 0) return false;
    if (num <= den && num * 256 >= int64_t(p.shadow_floor) * den) {
      const int64_t a = (num << 16) / den;  // brightness ratio, Q16, within [floor, 1]
      int64_t dist = 0;
CCL_UNROLL
      for (int c = 0; c < C; ++c) {
        const int64_t d = ((a * s.m[k][c]) >> 16) - x[c];
        if (!(partial && clipped[c]) || d > 0) dist += d * d;
      }
      if (dist < ((p.match_bg * s.v[k]) * ((a * a) >> 16)) >> 16) return true;
    }
    share += s.w[k];
    if (share > p.background_share) return false;
  }
  return false;
}

/// Every mode's means scaled by the frame's gain (Q8, 256: none), within the 8-bit
/// range: the scene under the new light. Black (0) stays black, so a mean scales as the
/// light reflected from it does; a mean that the light saturates stays at white, as the
/// camera's pixel does, and stays there when the light falls again.
template <int C>
CCL_HD void apply_gain(Modes<C>& s, int n, int32_t gain) {
CCL_UNROLL
  for (int k = 0; k < kModes; ++k) {
    if (k >= n) break;
CCL_UNROLL
    for (int c = 0; c < C; ++c) {
      // A white mean may stand for any brightness the camera clipped: it stays white
      // when the light falls too (a clipped sky dimmed by 1 % is still clipped).
      if (s.m[k][c] >= kWhite) continue;
      const int32_t m = (s.m[k][c] * gain + 128) >> 8;
      s.m[k][c] = m > kWhite ? kWhite : m;
    }
  }
}

/// One frame's step for one pixel: updates the modes in place and returns whether the
/// pixel is foreground. x: the pixel's channels, Q8 (value << 8); gain: the frame's
/// light against the model's (gain_of, Q8; 256 when the light did not change).
template <int C>
CCL_HD bool step(Modes<C>& s, const int32_t x[C], const StepParams& p, int32_t gain = 256) {
  int n = mode_count(s);
  if (gain != 256) apply_gain(s, n, gain);
  const bool learn = p.alpha > 0;
  bool fits = false, background = false;
  int32_t total = 0;
CCL_UNROLL
  for (int k = 0; k < kModes; ++k) {
    if (k >= n) break;
    int32_t w = s.w[k];
    if (learn) w -= int32_t((int64_t(w) * p.alpha + kOne / 2) >> 16) + p.prune;
    if (!fits) {
      int64_t dist = 0;
CCL_UNROLL
      for (int c = 0; c < C; ++c) {
        const int64_t d = x[c] - s.m[k][c];
        dist += d * d;
      }
      const int64_t var = s.v[k];
      if (total < p.background_share && dist < p.match_bg * var) background = true;
      if (dist < p.match_mode * var) {
        fits = true;
        if (learn) {
          w += p.alpha;
          // rate = alpha / w (Q16, at most 1) moves the mean and the variance toward the
          // pixel; alpha < 2^16 keeps its division in 32 bits.
          uint32_t r = (uint32_t(p.alpha) << 16) / uint32_t(w);
          const int64_t rate = r > uint32_t(kOne) ? kOne : r;  // a decayed w may dip below alpha
CCL_UNROLL
          for (int c = 0; c < C; ++c)
            s.m[k][c] += int32_t((int64_t(x[c] - s.m[k][c]) * rate + 0x8000) >> 16);
          int64_t nv = var + ((((dist >> 8) - var) * rate + 0x8000) >> 16);
          nv = nv < p.var_min ? p.var_min : nv > p.var_max ? p.var_max : nv;
          s.v[k] = int32_t(nv);
        }
      }
    }
    if (learn && w < p.prune) w = 0;
    s.w[k] = w > 0 ? w : 0;
    total += s.w[k];
  }
  if (learn) {
    // Survivors first, heaviest first.
    sort_modes(s, n - 1);
    n = mode_count(s);
    if (total > 0) {
      // One 32-bit division per pixel: 2^32 / total, then a product per mode.
      const uint32_t scale = 0xffffffffu / uint32_t(total);
CCL_UNROLL
      for (int k = 0; k < kModes; ++k)
        if (k < n) s.w[k] = int32_t((uint64_t(uint32_t(s.w[k])) * scale + 0x8000u) >> 16);
    }
    if (!fits) {
      // A new mode at the pixel, in place of the lightest when all are taken.
      const int slot = n < kModes ? n : kModes - 1;
      if (n < kModes) ++n;
CCL_UNROLL
      for (int k = 0; k < kModes; ++k) {
        if (k < slot && n > 1) s.w[k] -= int32_t((int64_t(s.w[k]) * p.alpha + kOne / 2) >> 16);
        if (k == slot) {
          s.w[k] = n == 1 ? kOne : p.alpha;
CCL_UNROLL
          for (int c = 0; c < C; ++c) s.m[k][c] = x[c];
          s.v[k] = p.var_init;
        }
      }
      sort_modes(s, 1);
    }
CCL_UNROLL
    for (int k = 0; k < kModes; ++k)
      if (k >= n) {
        s.w[k] = 0;
        s.v[k] = 0;
CCL_UNROLL
        for (int c = 0; c < C; ++c) s.m[k][c] = 0;
      }
  }
  if (p.first || background) return false;
  if (p.shadows && is_shadow(s, n, x, p)) return false;
  return true;
}

/// A frame's planes as the model reads them (host or device addresses).
struct Planes {
  const uint8_t* base[3];
  size_t stride[3];
};

/// Channel readers, one per plane layout, Q8 values (value << 8): kernels are compiled
/// once per reader (with_channels), so their per-pixel code has no switch over formats.
struct ReadGray8 {
  static constexpr int C = 1;
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* o) {
    o[0] = int32_t(f.base[0][size_t(y) * f.stride[0] + x]) << 8;
  }
};
struct ReadGray16 {  // 16-bit values scaled to the 8-bit range: 65535 -> 255 << 8
  static constexpr int C = 1;
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* o) {
    const uint8_t* p = f.base[0] + size_t(y) * f.stride[0] + 2 * size_t(x);
    const int32_t v = int32_t(p[0]) | (int32_t(p[1]) << 8);
    o[0] = v - (v >> 8);
  }
};
/// R, G, B (Q8, kept fractional) of a limited-range BT.601 Y, U, V: the model compares
/// every color format in the same units, so that variance_threshold, the variance
/// limits and the shadow test mean the same on NV12 and I420 as on RGB. In Y, U, V
/// units a change of color measures 2-4 times smaller than in R, G, B (Y spans 219
/// levels, U and V carry a share of each color), and the same settings found fewer
/// objects.
CCL_HD void yuv_to_rgb(int32_t y, int32_t u, int32_t v, int32_t* o) {
  // Q16 coefficients (1.164, 1.596, 0.391, 0.813, 2.018), products rounded to Q8.
  const int32_t c = (y - 16) * 76309, d = u - 128, e = v - 128;
  const int32_t rgb[3] = {(c + 104597 * e + 128) >> 8, (c - 25675 * d - 53279 * e + 128) >> 8,
                          (c + 132201 * d + 128) >> 8};
CCL_UNROLL
  for (int k = 0; k < 3; ++k) o[k] = rgb[k] < 0 ? 0 : rgb[k] > kWhite ? kWhite : rgb[k];
}
struct ReadNV12 {  // Y, then U and V of the 2x2 block, as R, G, B
  static constexpr int C = 3;
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* o) {
    const uint8_t* uv = f.base[1] + size_t(y >> 1) * f.stride[1] + 2 * size_t(x >> 1);
    yuv_to_rgb(f.base[0][size_t(y) * f.stride[0] + x], uv[0], uv[1], o);
  }
};
struct ReadI420 {
  static constexpr int C = 3;
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* o) {
    yuv_to_rgb(f.base[0][size_t(y) * f.stride[0] + x],
               f.base[1][size_t(y >> 1) * f.stride[1] + (x >> 1)],
               f.base[2][size_t(y >> 1) * f.stride[2] + (x >> 1)], o);
  }
};
struct ReadRgb4 {  // the three colors of 4-byte pixels, in stored order (any of RGBA ...)
  static constexpr int C = 3;
  CCL_HD static void at(const Planes& f, int x, int y, int32_t* o) {
    const uint8_t* p = f.base[0] + size_t(y) * f.stride[0] + 4 * size_t(x);
    o[0] = int32_t(p[0]) << 8;
    o[1] = int32_t(p[1]) << 8;
    o[2] = int32_t(p[2]) << 8;
  }
};
/// Calls f(Reader{}) with the reader of `format` (the one place that maps formats to
/// the model's channels).
template <class F>
CCL_HD auto with_channels(PixelFormat format, F&& f) {
  switch (format) {
    case PixelFormat::Gray16LE: return f(ReadGray16{});
    case PixelFormat::NV12: return f(ReadNV12{});
    case PixelFormat::I420: return f(ReadI420{});
    case PixelFormat::RGBA:
    case PixelFormat::BGRA:
    case PixelFormat::RGBx:
    case PixelFormat::BGRx: return f(ReadRgb4{});
    default: return f(ReadGray8{});
  }
}

// The light of the frame against the model's (BackgroundOptions::compensate_light).
// A sample pixel, one in kGainStepX x kGainStepY, votes for the ratio of its luma to
// its heaviest mode's (Q8, bins of 1/256 up to 4); the median of the votes is the
// frame's gain. The median holds as long as most samples see the scene itself, not
// objects or shadows; pixels that the camera clips (a channel near white, or luma near
// black) and modes not yet established do not vote. Integer votes and an integer median: the CPU and the GPU
// find the same gain.
constexpr int kGainBins = 1024;
constexpr int kGainStepX = 4, kGainStepY = 8;
constexpr int32_t kGainDeadZone = 2;     // 1 +- 2/256: sensor noise, not light
constexpr int32_t kGainMinSamples = 64;
constexpr int32_t kGainDark = 16 << 8;    // luma, Q8: too dark to measure below
constexpr int32_t kGainBright = 250 << 8;  // any channel, Q8: clipped above

/// Luma of Q8 channels, in Q8 (the luma every model reads, at the model's precision).
template <int C>
CCL_HD int32_t luma_of(const int32_t* v) {
  if constexpr (C == 1) return v[0];
  else return int32_t(bt601_luma(uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2])));
}

/// The bin pixel i votes for, or -1 when it does not vote. px: its channels, Q8.
template <int C>
CCL_HD int gain_vote(const int32_t px[C], const uint16_t* state, size_t plane, size_t i) {
  using L = StateLayout<C>;
  if (state[L::weight(0) * plane + i] < kOne / 2) return -1;
  int32_t mean[C];
CCL_UNROLL
  for (int c = 0; c < C; ++c) mean[c] = state[L::mean(0, c) * plane + i];
  const int32_t m = luma_of<C>(mean), x = luma_of<C>(px);
  if (m < kGainDark || x < kGainDark) return -1;
  // A channel the camera clipped makes the luma's ratio too low: such pixels do not vote.
CCL_UNROLL
  for (int c = 0; c < C; ++c)
    if (px[c] > kGainBright || mean[c] > kGainBright) return -1;
  const int32_t r = int32_t((int64_t(x) << 8) / m);
  return r < kGainBins ? r : kGainBins - 1;
}

/// True when bin b holds the median of `total` votes, `before` of them in lower bins.
CCL_HD bool median_bin(uint64_t before, uint32_t in_bin, uint64_t total) {
  return 2 * (before + in_bin) >= total && 2 * before < total;
}

/// The gain (Q8, 256: none) whose median bin is b: 256 when too few voted, or the
/// median lies within the dead zone.
CCL_HD int32_t gain_of(int median, uint64_t total, const StepParams& p) {
  if (!p.compensate || total < uint64_t(p.gain_min_samples)) return 256;
  const int32_t off = median - 256;
  return off > p.gain_dead_zone || -off > p.gain_dead_zone ? median : 256;
}

/// The frame's fixed-point parameters. frame: frames seen since the reset, this one
/// included (1 for the first). The rate follows Zivkovic's: 1/min(2n, history) until
/// the history is reached, or the caller's fixed rate after the first frame.
inline StepParams step_params(const BackgroundOptions& o, uint64_t frame) {
  const int history = o.history;
  const double learning_rate = o.learning_rate, variance_threshold = o.variance_threshold;
  double alpha = learning_rate;
  if (alpha < 0 || frame <= 1) {
    const double span = double(frame) * 2.0;
    alpha = 1.0 / (span < double(history) ? span : double(history));
  }
  StepParams p{};
  p.alpha = int32_t(alpha * kOne + 0.5);
  if (alpha > 0 && p.alpha == 0) p.alpha = 1;  // the smallest rate that still learns
  if (p.alpha >= kOne) p.alpha = kOne - 1;     // below 1, so that alpha << 16 fits 32 bits
  p.prune = int32_t(alpha * 0.05 * kOne + 0.5);
  p.match_bg = int64_t(variance_threshold * 256.0 + 0.5);
  p.match_mode = 9 * 256;
  p.var_init = 15 * 256;
  p.var_min = 4 * 256;
  p.var_max = 75 * 256;
  p.background_share = int32_t(0.9 * kOne + 0.5);
  p.shadow_floor = 128;  // 0.5
  p.shadows = o.detect_shadows;
  p.first = frame <= 1;
  p.compensate = o.compensate_light && !p.first;
  p.gain_dead_zone = kGainDeadZone;
  p.gain_min_samples = kGainMinSamples;
  return p;
}

}  // namespace ccl::bg
