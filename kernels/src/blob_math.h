// The blob values the report's filters compare (circularity, mean intensity,
// eccentricity), in one definition for the host and the device, so that a component
// passes a filter on the GPU exactly when it passes on the CPU: integer sums, exact
// 128-bit central moments, and every floating-point step written as one rounded
// operation (no contraction into fused multiply-adds, which the two compilers would
// place differently).
#pragma once

#include <cmath>
#include <cstdint>

#include "ccl/blob.h"
#include "ccl/luma.h"  // CCL_HD
#include "ccl/types.h"

namespace ccl::blob {

#if defined(__CUDA_ARCH__)
CCL_HD double mul(double a, double b) { return __dmul_rn(a, b); }
CCL_HD double add(double a, double b) { return __dadd_rn(a, b); }
CCL_HD double sub(double a, double b) { return __dsub_rn(a, b); }
#else
CCL_HD double mul(double a, double b) { return a * b; }
CCL_HD double add(double a, double b) { return a + b; }
CCL_HD double sub(double a, double b) { return a - b; }
#endif

constexpr double kSqrt2 = 1.4142135623730951;  // sqrt(2), rounded as scikit-image's
constexpr double kHalfCorner = (1.0 + kSqrt2) / 2.0;
constexpr double kFourPi = 4.0 * 3.141592653589793;

/// A 128-bit integer as a double: magnitude in two halves, each converted exactly
/// rounded, then one rounded addition (the same steps on both sides).
CCL_HD double to_double(__int128 v) {
  const bool negative = v < 0;
  const unsigned __int128 u = negative ? (unsigned __int128)(-v) : (unsigned __int128)v;
  const double hi = double(uint64_t(u >> 64)), lo = double(uint64_t(u));
  const double r = add(mul(hi, 18446744073709551616.0), lo);
  return negative ? -r : r;
}

/// n^2 times the second central moments: n sum_xx - sum_x^2 (the columns' spread),
/// n sum_yy - sum_y^2 (the rows') and n sum_xy - sum_x sum_y, exact (below 2^94 for
/// frames of fewer than 2^31 pixels). The table's sums are exact modulo 2^64 and a
/// component's true sums stay below 2^64, so they are the true sums.
struct Spread {
  __int128 xx, yy, xy;
  CCL_HD static Spread of(const Component& c) {
    const __int128 n = __int128(c.area);
    const __int128 sx = __int128(c.sum_x), sy = __int128(c.sum_y);
    return {n * __int128(c.sum_xx) - sx * sx, n * __int128(c.sum_yy) - sy * sy,
            n * __int128(c.sum_xy) - sx * sy};
  }
};

/// sqrt(1 - minor / major eigenvalue) of the inertia tensor, as 2R / (S + R) under the
/// root with S = xx + yy and R = sqrt((xx - yy)^2 + 4 xy^2): no cancellation, 0 for a
/// tensor of zeros, at most 1.
CCL_HD double eccentricity(const Component& c) {
  const Spread s = Spread::of(c);
  const double sum = to_double(s.xx + s.yy), diff = to_double(s.xx - s.yy), xy = to_double(s.xy);
  const double r = sqrt(add(mul(diff, diff), mul(4.0, mul(xy, xy))));
  const double den = add(sum, r);
  if (!(den > 0)) return 0;
  const double q = mul(2.0, r) / den;
  return q >= 1 ? 1.0 : sqrt(q);
}

CCL_HD double intensity_mean(const Component& c, const Blob& b) {
  return c.area ? double(b.intensity_sum) / double(c.area) : 0.0;
}

CCL_HD double perimeter(const Blob& b) {
  return add(add(double(b.perimeter_counts[0]), mul(double(b.perimeter_counts[1]), kSqrt2)),
             mul(double(b.perimeter_counts[2]), kHalfCorner));
}

CCL_HD double circularity(const Component& c, const Blob& b) {
  const double p = blob::perimeter(b);
  return p > 0 ? mul(kFourPi, double(c.area)) / mul(p, p) : 0.0;
}

/// What a component must meet to be reported (Options: the area range and the blob
/// filters), as plain values a kernel takes by argument. A bound of 0 on a max is no
/// limit, as Options has it; limits are inclusive.
struct Filter {
  uint64_t min_area, max_area;  // max_area: UINT64_MAX when unlimited
  double min_circularity, max_circularity;
  double min_intensity, max_intensity;
  double min_eccentricity, max_eccentricity;
  uint32_t reads;  // Property bits the tests need: the blob table is read when not 0
  uint32_t shape;  // 1 when eccentricity is bounded

  static Filter of(const Options& o) {
    Filter f{};
    f.min_area = o.min_area;
    f.max_area = o.max_area ? o.max_area : UINT64_MAX;
    f.min_circularity = o.min_circularity;
    f.max_circularity = o.max_circularity;
    f.min_intensity = o.min_intensity;
    f.max_intensity = o.max_intensity;
    f.min_eccentricity = o.min_eccentricity;
    f.max_eccentricity = o.max_eccentricity;
    f.reads = (o.min_circularity > 0 || o.max_circularity > 0 ? kPropertyPerimeter : 0u) |
              (o.min_intensity > 0 || o.max_intensity > 0 ? kPropertyIntensity : 0u);
    f.shape = o.min_eccentricity > 0 || o.max_eccentricity > 0;
    return f;
  }

  CCL_HD static bool within(double v, double lo, double hi) {
    return v >= lo && (hi <= 0 || v <= hi);
  }
  CCL_HD bool area_passes(uint64_t area) const { return area >= min_area && area <= max_area; }
  /// The whole test; `b` is read only when `reads` is not 0.
  CCL_HD bool passes(const Component& c, const Blob* b) const {
    if (!area_passes(c.area)) return false;
    if (shape && !within(blob::eccentricity(c), min_eccentricity, max_eccentricity)) return false;
    if (reads & kPropertyPerimeter && !within(blob::circularity(c, *b), min_circularity, max_circularity))
      return false;
    if (reads & kPropertyIntensity && !within(blob::intensity_mean(c, *b), min_intensity, max_intensity))
      return false;
    return true;
  }
  /// True when area alone decides (no blob filter is set).
  bool area_only() const { return reads == 0 && shape == 0; }
};

}  // namespace ccl::blob

namespace ccl::blob {

/// A frame's planes as the blob pass reads them.
struct Planes {
  const uint8_t* plane[3];
  size_t stride[3];
  PixelFormat format;

  static Planes of(const ImageView& image) {
    Planes p{};
    for (int i = 0; i < 3; ++i) {
      p.plane[i] = static_cast<const uint8_t*>(image.planes[i]);
      p.stride[i] = image.strides[i];
    }
    p.format = image.format;
    return p;
  }

  /// The channels kPropertyColor sums at (x, y): R, G, B; Y, U, V; or the value thrice.
  CCL_HD void channels(int x, int y, uint32_t out[3]) const {
    const uint8_t* row = plane[0] + size_t(y) * stride[0];
    switch (format) {
      case PixelFormat::RGBA:
      case PixelFormat::RGBx:
        out[0] = row[4 * x], out[1] = row[4 * x + 1], out[2] = row[4 * x + 2];
        return;
      case PixelFormat::BGRA:
      case PixelFormat::BGRx:
        out[0] = row[4 * x + 2], out[1] = row[4 * x + 1], out[2] = row[4 * x];
        return;
      case PixelFormat::NV12: {
        const uint8_t* uv = plane[1] + size_t(y / 2) * stride[1] + 2 * (x / 2);
        out[0] = row[x], out[1] = uv[0], out[2] = uv[1];
        return;
      }
      case PixelFormat::I420:
        out[0] = row[x];
        out[1] = plane[1][size_t(y / 2) * stride[1] + x / 2];
        out[2] = plane[2][size_t(y / 2) * stride[2] + x / 2];
        return;
      default:
        out[0] = out[1] = out[2] = luma_at(row, x, format);
    }
  }
};

/// The Euler number's coefficient of a 2x2 window in which a component holds the pixels
/// `code` names (bit 0 the bottom-right, 1 the top-right, 2 the bottom-left, 3 the
/// top-left): summed over every window that meets the component, the coefficients
/// give its Euler number (bit-quad counting, each kind of window counted in one of its
/// orientations), for 4- or 8-connectivity.
CCL_HD int euler_coefficient(uint32_t code, int connectivity) {
  if (connectivity == 4) return code == 1 || code == 9 ? 1 : code == 7 ? -1 : 0;
  return code == 8 ? 1 : code == 6 || code == 14 ? -1 : 0;
}

/// Which of perimeter_counts a boundary pixel adds to (-1: none), given how many of its
/// 4-neighbours (n4) and diagonal neighbours (nd) are boundary pixels of its component:
/// scikit-image's weights of the code 1 + 2 n4 + 10 nd.
CCL_HD int perimeter_class(int n4, int nd) {
  switch (1 + 2 * n4 + 10 * nd) {
    case 5: case 7: case 15: case 17: case 25: case 27: return 0;  // 1
    case 21: case 33: return 1;                                    // sqrt 2
    case 13: case 23: return 2;                                    // (1 + sqrt 2) / 2
    default: return -1;
  }
}

}  // namespace ccl::blob
