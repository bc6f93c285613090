// The background model's step (background_model.h) for kLanes pixels at once, on the
// CPU, with the same integer results as bg::step pixel for pixel: the GPU runs bg::step,
// and the CPU's state and mask must stay bit for bit those of the GPU. Every per-pixel
// branch of bg::step becomes a select over lanes, and the loops over modes run over all
// kModes with the mode count as a mask, so that the lanes never diverge.
//
// Why the narrower arithmetic is still exact (x: a channel, Q8, at most 255 << 8; a
// field: any uint16; the mode invariant: modes at and past the mode count are all zero,
// true of the zeroed state and kept by every learning step, and a step that does not
// learn changes no weight):
// - A weight's decay w * alpha + 2^15 < 2^32 for w <= 2^16 and alpha < 2^16: uint32.
// - A squared distance per channel is below 2^32 (|x - m| < 2^16); the sum of the
//   channels saturates at 2^32 - 1. The thresholds match * var, with match <= 2^16
//   (fast_path_ok) and var < 2^16, are below 2^32 - 1: a sum that saturated fails both
//   tests, as the exact one does, and a sum below them is exact.
// - floor(double(a) / double(b)) for integers 0 <= a, 0 < b with a + b < 2^53 is
//   floor(a / b): the quotient q = a / b is rounded by at most q * 2^-53, and when q is
//   not an integer the next integer is at least 1 / b above it, more than that error
//   since b * (floor(q) + 1) <= a + b < 2^53; an integer quotient is exact. The rate's
//   division has a < 2^32, alpha <= b < 2^17; the weights' scale a < 2^32, b < 2^19.
// - The moves of means and variances toward the pixel stay in 32 bits (mul_rate); the
//   normalized weights, w * scale < 2^49, in doubles, where the sum with 2^15 and the
//   scaling by 2^-16 are exact too.
// - The invariant keeps zero modes at the end through the sort (a zero weight never
//   moves up), so every weight normalized is one that `total` summed: the result is at
//   most 2^16, and the new mode's decay of it fits uint32 as above.
// The shadow test runs per pixel, through bg::is_shadow itself, on the few pixels that
// match no background mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "background_model.h"
#include "cpu_features.h"

// The lanes' helpers return vectors wider than the baseline's registers; they are
// always inlined, so no call passes one and GCC's note on that ABI does not apply (it
// comes where templates are instantiated, hence no pop).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ccl::bg {

constexpr int kLanes = 8;

#define CCL_LANE_INLINE __attribute__((always_inline)) inline

// GCC's vector extensions: each operation is one instruction on every lane (two where
// the target's registers are narrower), and a comparison gives a lane mask of 0 or -1.
typedef int32_t VI __attribute__((vector_size(4 * kLanes)));
typedef uint32_t VU __attribute__((vector_size(4 * kLanes)));
typedef double VD __attribute__((vector_size(8 * kLanes)));
typedef uint16_t VH __attribute__((vector_size(2 * kLanes)));

template <int C>
struct LaneModes {
  VI w[kModes];
  VI m[kModes][C];
  VI v[kModes];
};

CCL_LANE_INLINE VI splat(int32_t a) { return VI{} + a; }
CCL_LANE_INLINE VD splat_d(double a) { return VD{} + a; }
CCL_LANE_INLINE VI sel(VI mask, VI a, VI b) { return mask ? a : b; }

/// Whether the frame's parameters stay within the ranges the lanes' arithmetic is exact
/// for (see above); the scalar step takes any others. validate() and step_params keep
/// every option within them.
inline bool fast_path_ok(const StepParams& p) {
  return p.match_bg >= 0 && p.match_bg <= 65536 && p.match_mode >= 0 &&
         p.match_mode <= 4096 && p.alpha < kOne && (p.alpha <= 0 || p.prune < p.alpha) &&
         p.prune >= 0;
}

template <int C>
CCL_LANE_INLINE VI mode_count_lanes(const LaneModes<C>& s) {
  VI n = splat(0);
  for (int k = 0; k < kModes; ++k) n = sel((s.w[k] > 0) & (n == k), splat(k + 1), n);
  return n;
}

CCL_LANE_INLINE void swap_lanes(VI& a, VI& b, VI sw) {
  const VI x = a, y = b;
  a = sel(sw, y, x);
  b = sel(sw, x, y);
}

/// True when any lane of the mask is set: a branch around work that would change no
/// lane (the result is the same either way; only the time differs).
CCL_LANE_INLINE bool any_lane(VI mask) {
  typedef uint8_t VB __attribute__((vector_size(kLanes)));
  const VB bytes = __builtin_convertvector(mask, VB);
  uint64_t word;
  __builtin_memcpy(&word, &bytes, sizeof word);
  return word != 0;
}

/// One bubble pass of sort_modes over the lanes whose `on` is set.
template <int C>
CCL_LANE_INLINE void sort_pass_lanes(LaneModes<C>& s, VI on) {
  for (int j = kModes - 1; j > 0; --j) {
    const VI sw = on & (s.w[j] > s.w[j - 1]);
    swap_lanes(s.w[j], s.w[j - 1], sw);
    swap_lanes(s.v[j], s.v[j - 1], sw);
    for (int c = 0; c < C; ++c) swap_lanes(s.m[j][c], s.m[j - 1][c], sw);
  }
}

/// (d * rate + 2^15) >> 16 as bg::step's 64-bit shift computes it, in 32 bits: with
/// rate = 256 h + l (h <= 256, l < 256), d * rate + 2^15 = 256 a + b for a = d h and
/// b = d l + 2^15, and floor((256 a + b) / 2^16) = (a + (b >> 8)) >> 8 (a is an integer,
/// so dropping b's low byte cannot cross a multiple of 256). |a| and |b| stay below
/// 2^28 for |d| < 2^20.
CCL_LANE_INLINE VI mul_rate(VI d, VI rate) {
  const VI a = d * (rate >> 8), b = d * (rate & 255) + 32768;
  return (a + (b >> 8)) >> 8;
}

/// floor of doubles in [0, 2^32), through 32-bit conversions only (AVX2 converts no
/// wider integers): the part above 2^16 and the rest, each truncated, and both exact.
CCL_LANE_INLINE VD floor_d(VD q) {
  const VD hi = __builtin_convertvector(__builtin_convertvector(q * (1.0 / 65536.0), VI), VD);
  const VD rest = q - hi * 65536.0;
  return hi * 65536.0 + __builtin_convertvector(__builtin_convertvector(rest, VI), VD);
}

/// bg::step for every lane. Returns the lanes whose pixel matched no background mode
/// (before the shadow test); n: the mode count that bg::step hands is_shadow.
template <int C>
CCL_LANE_INLINE VI step_lanes(LaneModes<C>& s, const VI (&x)[C], const StepParams& p,
                              int32_t gain, VI& n) {
  n = mode_count_lanes(s);
  if (gain != 256)
    for (int k = 0; k < kModes; ++k)
      for (int c = 0; c < C; ++c) {
        const VI m = s.m[k][c];
        VI g = (m * gain + 128) >> 8;
        g = sel(g > kWhite, splat(kWhite), g);
        s.m[k][c] = sel((n > k) & (m < kWhite), g, m);
      }
  const bool learn = p.alpha > 0;
  const uint32_t alpha = uint32_t(p.alpha);
  const VU match_bg = VU{} + uint32_t(p.match_bg), match_mode = VU{} + uint32_t(p.match_mode);
  const VD rate_num = splat_d(double(alpha << 16));
  VI fits = splat(0), background = splat(0), total = splat(0);
  VI hits[kModes], hit_wh = splat(1), hit_dist = splat(0);
  for (int k = 0; k < kModes; ++k) {
    VU dist = VU{};
    for (int c = 0; c < C; ++c) {
      const VU d = VU(x[c] - s.m[k][c]);
      const VU dd = d * d;  // mod 2^32, which is the square itself
      const VU sum = dist + dd;
      dist = VU(sel(sum < dd, splat(-1), VI(sum)));
    }
    const VI act = n > k;
    const VI w0 = s.w[k];
    VI w = w0;
    if (learn) w -= VI((VU(w0) * alpha + 32768u) >> 16) + p.prune;
    const VU var = VU(s.v[k]);
    const VI open = act & (fits == 0);
    background |= open & (total < p.background_share) & (dist < match_bg * var);
    const VI hit = open & (dist < match_mode * var);
    if (learn) {
      const VI wh = w + p.alpha;
      w = sel(hit, wh, w);
      w = sel(w < p.prune, splat(0), w);
      // At most one mode matches: its divisor and distance wait for the loop's end, so
      // that one division and one update per channel serve all modes.
      hit_wh = sel(hit, wh, hit_wh);
      hit_dist = sel(hit, VI(dist), hit_dist);
    }
    hits[k] = hit;
    w = sel(w > 0, w, splat(0));
    s.w[k] = sel(act, w, w0);
    total += act & w;
    fits |= hit;
  }
  if (learn) {
    // The quotient exceeds kOne exactly when wh < alpha: dividing by alpha instead
    // gives kOne, bg::step's clamp. A lane that did not match divides by alpha too
    // (its rate is not used).
    const VI den = sel(fits & (hit_wh > p.alpha), hit_wh, splat(p.alpha));
    const VI rate = __builtin_convertvector(rate_num / __builtin_convertvector(den, VD), VI);
    // In a still scene every pixel of most blocks matches its first mode: then the
    // matched mode is that one in every lane, with no gathering and scattering.
    const bool first = !any_lane(~hits[0]);
    VI m[C], var;
    if (first) {
      var = s.v[0];
      for (int c = 0; c < C; ++c) m[c] = s.m[0][c];
    } else {
      var = splat(0);
      for (int c = 0; c < C; ++c) m[c] = splat(0);
      for (int k = 0; k < kModes; ++k) {
        var |= hits[k] & s.v[k];
        for (int c = 0; c < C; ++c) m[c] |= hits[k] & s.m[k][c];
      }
    }
    for (int c = 0; c < C; ++c) m[c] += mul_rate(x[c] - m[c], rate);
    // A lane that matched has dist < match_mode * var <= 2^12 * 2^16: (dist >> 8) - var
    // within 2^20, as mul_rate needs.
    const VI e = sel(fits, VI(VU(hit_dist) >> 8) - var, splat(0));
    VI nv = var + mul_rate(e, rate);
    nv = sel(nv < p.var_min, splat(p.var_min), sel(nv > p.var_max, splat(p.var_max), nv));
    if (first) {
      s.v[0] = nv;
      for (int c = 0; c < C; ++c) s.m[0][c] = m[c];
    } else {
      for (int k = 0; k < kModes; ++k) {
        s.v[k] = sel(hits[k], nv, s.v[k]);
        for (int c = 0; c < C; ++c) s.m[k][c] = sel(hits[k], m[c], s.m[k][c]);
      }
    }
  }
  if (learn) {
    // Most pixels' modes are still in order after the update: when no lane's weights
    // rise anywhere along the modes, no pass of the sort would swap a thing.
    VI rises = s.w[1] > s.w[0];
    for (int k = 2; k < kModes; ++k) rises |= s.w[k] > s.w[k - 1];
    if (any_lane(rises))
      for (int pass = 0; pass < kModes - 1; ++pass) sort_pass_lanes(s, n - 1 > pass);
    n = mode_count_lanes(s);
    const VI some = total > 0;
    const VD scale = floor_d(splat_d(4294967295.0) /
                             __builtin_convertvector(sel(some, total, splat(1)), VD));
    for (int k = 0; k < kModes; ++k) {
      const VI w = s.w[k];
      const VD nw = (__builtin_convertvector(w, VD) * scale + 32768.0) * (1.0 / 65536.0);
      s.w[k] = sel(some & (n > k), __builtin_convertvector(nw, VI), w);
    }
    // A new mode where no mode matched, in place of the lightest when all are taken
    // (nothing to do in a block where every pixel matched, as most do).
    const VI none = fits == 0;
    if (any_lane(none)) {
      const VI slot = sel(n < kModes, n, splat(kModes - 1));
      const VI n2 = sel(n < kModes, n + 1, n);
      for (int k = 0; k < kModes; ++k) {
        VI w = s.w[k];
        const VI decayed = w - VI((VU(w) * alpha + 32768u) >> 16);
        w = sel(none & (slot > k) & (n2 > 1), decayed, w);
        const VI put = none & (slot == k);
        w = sel(put, sel(n2 == 1, splat(kOne), splat(p.alpha)), w);
        s.w[k] = w;
        s.v[k] = sel(put, splat(p.var_init), s.v[k]);
        for (int c = 0; c < C; ++c) s.m[k][c] = sel(put, x[c], s.m[k][c]);
      }
      n = sel(none, n2, n);
      sort_pass_lanes(s, none);
    }
    for (int k = 0; k < kModes; ++k) {
      const VI on = n > k;
      s.w[k] &= on;
      s.v[k] &= on;
      for (int c = 0; c < C; ++c) s.m[k][c] &= on;
    }
  }
  return p.first ? splat(0) : background == 0;
}

/// bg::yuv_to_rgb on every lane: the same 32-bit products, shifts and clamps.
CCL_LANE_INLINE void yuv_to_rgb_lanes(VI y, VI u, VI v, VI (&o)[3]) {
  const VI c = (y - 16) * 76309, d = u - 128, e = v - 128;
  o[0] = (c + 104597 * e + 128) >> 8;
  o[1] = (c - 25675 * d - 53279 * e + 128) >> 8;
  o[2] = (c + 132201 * d + 128) >> 8;
  for (int k = 0; k < 3; ++k)
    o[k] = sel(o[k] < 0, splat(0), sel(o[k] > kWhite, splat(kWhite), o[k]));
}

/// Pixels [i, i + kLanes) of the state planes, at row y from column x0.
template <class Reader>
CCL_LANE_INLINE void block_lanes(const Planes& f, int x0, int y, uint16_t* st, size_t plane,
                                 size_t i, const StepParams& p, int32_t gain, uint8_t* out) {
  constexpr int C = Reader::C;
  using L = StateLayout<C>;
  LaneModes<C> s;
  VI x[C];
  // The common layouts in whole vectors; the others through their reader, lane by lane.
  if constexpr (std::is_same_v<Reader, ReadGray8>) {
    typedef uint8_t VB __attribute__((vector_size(kLanes)));
    VB b;
    __builtin_memcpy(&b, f.base[0] + size_t(y) * f.stride[0] + x0, sizeof b);
    x[0] = __builtin_convertvector(b, VI) << 8;
  } else if constexpr (std::is_same_v<Reader, ReadRgb4>) {
    VI v;
    __builtin_memcpy(&v, f.base[0] + size_t(y) * f.stride[0] + 4 * size_t(x0), sizeof v);
    for (int c = 0; c < C; ++c) x[c] = ((v >> (8 * c)) & 255) << 8;
  } else if constexpr (std::is_same_v<Reader, ReadI420> || std::is_same_v<Reader, ReadNV12>) {
    // Lane l takes chroma sample x0 / 2 + l / 2: x0 is even, and the chroma bytes read
    // (4 of each plane, or 8 interleaved) end within the row, as the luma's 8 do. A
    // sample c doubled into two bytes is the 16-bit word c * 0x0101 (little-endian, as
    // x86 and the Jetsons' ARM cores are), which spares a shuffle that GCC and Clang
    // spell differently.
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                  "the chroma's doubling assumes little-endian words");
    typedef uint8_t VB __attribute__((vector_size(kLanes)));
    typedef uint16_t VW __attribute__((vector_size(kLanes)));  // 4 words
    typedef uint8_t VQ __attribute__((vector_size(kLanes / 2)));
    VB luma, u, v;
    __builtin_memcpy(&luma, f.base[0] + size_t(y) * f.stride[0] + x0, sizeof luma);
    VW cu, cv;
    if constexpr (std::is_same_v<Reader, ReadI420>) {
      VQ qu, qv;
      __builtin_memcpy(&qu, f.base[1] + size_t(y >> 1) * f.stride[1] + (x0 >> 1), sizeof qu);
      __builtin_memcpy(&qv, f.base[2] + size_t(y >> 1) * f.stride[2] + (x0 >> 1), sizeof qv);
      cu = __builtin_convertvector(qu, VW);
      cv = __builtin_convertvector(qv, VW);
    } else {
      VW uv;  // word k: U of sample k in its low byte, V in its high byte
      __builtin_memcpy(&uv, f.base[1] + size_t(y >> 1) * f.stride[1] + 2 * size_t(x0 >> 1),
                       sizeof uv);
      cu = uv & 255;
      cv = uv >> 8;
    }
    cu *= 0x0101;
    cv *= 0x0101;
    __builtin_memcpy(&u, &cu, sizeof u);
    __builtin_memcpy(&v, &cv, sizeof v);
    yuv_to_rgb_lanes(__builtin_convertvector(luma, VI), __builtin_convertvector(u, VI),
                     __builtin_convertvector(v, VI), x);
  } else {
    for (int l = 0; l < kLanes; ++l) {
      int32_t px[C];
      Reader::at(f, x0 + l, y, px);
      for (int c = 0; c < C; ++c) x[c][l] = px[c];
    }
  }
  const auto load_plane = [&](size_t q) {
    VH h;
    __builtin_memcpy(&h, st + q * plane + i, sizeof h);
    return __builtin_convertvector(h, VI);
  };
  const auto store_plane = [&](size_t q, VI v) {
    const VH h = __builtin_convertvector(v, VH);
    __builtin_memcpy(st + q * plane + i, &h, sizeof h);
  };
  for (int k = 0; k < kModes; ++k) {
    s.w[k] = load_plane(L::weight(k));
    s.v[k] = load_plane(L::var(k));
    for (int c = 0; c < C; ++c) s.m[k][c] = load_plane(L::mean(k, c));
  }
  VI n;
  const VI fg = step_lanes<C>(s, x, p, gain, n);
  for (int k = 0; k < kModes; ++k) {
    store_plane(L::weight(k), sel(s.w[k] > 65535, splat(65535), s.w[k]));  // to_field
    store_plane(L::var(k), s.v[k]);
    for (int c = 0; c < C; ++c) store_plane(L::mean(k, c), s.m[k][c]);
  }
  // The lanes' 0 / -1 as the mask's 0 / 1 bytes, in one store; a block without
  // foreground (most of them) has no shadow to look for.
  typedef uint8_t VB __attribute__((vector_size(kLanes)));
  const VB bytes = __builtin_convertvector(-fg, VB);
  __builtin_memcpy(out + i, &bytes, sizeof bytes);
  uint64_t any;
  __builtin_memcpy(&any, &bytes, sizeof any);
  if (!p.shadows || !any) return;
  for (int l = 0; l < kLanes; ++l) {
    if (!fg[l]) continue;
    // The modes as bg::step holds them when it tests (a weight of kOne unclamped).
    Modes<C> one;
    for (int k = 0; k < kModes; ++k) {
      one.w[k] = s.w[k][l];
      one.v[k] = s.v[k][l];
      for (int c = 0; c < C; ++c) one.m[k][c] = s.m[k][c][l];
    }
    int32_t px[C];
    for (int c = 0; c < C; ++c) px[c] = x[c][l];
    if (is_shadow(one, n[l], px, p)) out[i + l] = 0;
  }
}

/// bg::step for one pixel, as the stage ran it before the lanes.
template <class Reader>
inline void pixel_scalar(const Planes& f, int x, int y, uint16_t* st, size_t plane, size_t i,
                         const StepParams& p, int32_t gain, uint8_t* out) {
  int32_t px[Reader::C];
  Reader::at(f, x, y, px);
  Modes<Reader::C> modes;
  load(modes, st, plane, i);
  out[i] = step(modes, px, p, gain) ? 1 : 0;
  store(modes, st, plane, i);
}

template <class Reader>
CCL_LANE_INLINE void rows_lanes(const Planes& f, int w, int y0, int y1, uint16_t* st,
                                size_t plane, const StepParams& p, int32_t gain, uint8_t* out) {
  for (int y = y0; y < y1; ++y) {
    const size_t row = size_t(y) * w;
    int x = 0;
    for (; x + kLanes <= w; x += kLanes) block_lanes<Reader>(f, x, y, st, plane, row + x, p, gain, out);
    for (; x < w; ++x) pixel_scalar<Reader>(f, x, y, st, plane, row + x, p, gain, out);
  }
}

template <class Reader>
inline void rows_scalar(const Planes& f, int w, int y0, int y1, uint16_t* st, size_t plane,
                        const StepParams& p, int32_t gain, uint8_t* out) {
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < w; ++x) pixel_scalar<Reader>(f, x, y, st, plane, size_t(y) * w + x, p, gain, out);
}

template <class Reader>
inline void rows_generic(const Planes& f, int w, int y0, int y1, uint16_t* st, size_t plane,
                         const StepParams& p, int32_t gain, uint8_t* out) {
  rows_lanes<Reader>(f, w, y0, y1, st, plane, p, gain, out);
}

template <class Reader>
CCL_TARGET_AVX2 void rows_avx2(const Planes& f, int w, int y0, int y1,
                                               uint16_t* st, size_t plane, const StepParams& p,
                                               int32_t gain, uint8_t* out) {
  rows_lanes<Reader>(f, w, y0, y1, st, plane, p, gain, out);
}

/// The ways to run the step, slowest first; Best picks the fastest this CPU runs.
enum class StepPath { Scalar, Generic, Avx2, Best };

inline StepPath best_step_path() {
  static const StepPath best = [] {
    // Without AVX2 the doubles and the unsigned comparisons are emulated, and the lanes
    // run slower than the scalar step.
    return ::ccl::cpu::has_avx2() ? StepPath::Avx2 : StepPath::Scalar;
  }();
  return best;
}

/// Rows [y0, y1) of a w pixels wide frame through the model: the state's planes and the
/// mask move exactly as bg::step moves them, whichever path runs.
template <class Reader>
inline void model_rows(const Planes& f, int w, int y0, int y1, uint16_t* st, size_t plane,
                       const StepParams& p, int32_t gain, uint8_t* out,
                       StepPath path = StepPath::Best) {
  if (path == StepPath::Best) path = best_step_path();
  if (!fast_path_ok(p)) path = StepPath::Scalar;
  switch (path) {
    case StepPath::Avx2: return rows_avx2<Reader>(f, w, y0, y1, st, plane, p, gain, out);
    case StepPath::Generic: return rows_generic<Reader>(f, w, y0, y1, st, plane, p, gain, out);
    default: return rows_scalar<Reader>(f, w, y0, y1, st, plane, p, gain, out);
  }
}

#undef CCL_LANE_INLINE

}  // namespace ccl::bg
