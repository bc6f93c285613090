// Blob values derived from a component's sums (ccl/blob.h), as scikit-image's
// regionprops defines them. The filters' values come from blob_math.h, which the
// device shares.
#include <cmath>

#include "blob_math.h"
#include "ccl/blob.h"

namespace ccl {

bool Blob::operator==(const Blob& o) const {
  return intensity_sum == o.intensity_sum && intensity_sum_sq == o.intensity_sum_sq &&
         channel_sum[0] == o.channel_sum[0] && channel_sum[1] == o.channel_sum[1] &&
         channel_sum[2] == o.channel_sum[2] && intensity_min == o.intensity_min &&
         intensity_max == o.intensity_max && perimeter_counts[0] == o.perimeter_counts[0] &&
         perimeter_counts[1] == o.perimeter_counts[1] &&
         perimeter_counts[2] == o.perimeter_counts[2] && euler == o.euler;
}

Shape shape_of(const Component& c) {
  Shape s;
  if (c.area == 0) return s;
  const blob::Spread spread = blob::Spread::of(c);
  const double n2 = double(c.area) * double(c.area);
  // scikit-image's inertia tensor [[a, b], [b, d]]: a the columns' variance, d the
  // rows', b minus the covariance.
  const double a = blob::to_double(spread.xx) / n2;
  const double d = blob::to_double(spread.yy) / n2;
  const double b = -blob::to_double(spread.xy) / n2;
  // Equal spreads give atan2's angle of (-2 b, 0), +pi/4 for b < 0. (scikit-image 0.19
  // says -pi/4 there, from a special case that contradicts its own formula, fixed in
  // later releases; it is met only where its float spreads tie exactly.) An isotropic
  // tensor has no axis: pi/4, as scikit-image gives.
  if (spread.xx == spread.yy && spread.xy == 0)
    s.orientation = M_PI / 4;
  else
    s.orientation = 0.5 * std::atan2(-2 * b, spread.xx == spread.yy ? 0.0 : d - a);
  const double sum = blob::to_double(spread.xx + spread.yy) / n2;
  const double diff = blob::to_double(spread.xx - spread.yy) / n2;
  const double r = std::sqrt(diff * diff + 4 * b * b);
  const double major = (sum + r) / 2, minor = std::max(0.0, (sum - r) / 2);
  s.axis_major_length = 4 * std::sqrt(major);
  s.axis_minor_length = 4 * std::sqrt(minor);
  s.eccentricity = blob::eccentricity(c);
  s.inertia_ratio = major > 0 ? minor / major : 0;
  return s;
}

double eccentricity(const Component& c) { return blob::eccentricity(c); }

double intensity_mean(const Component& c, const Blob& b) { return blob::intensity_mean(c, b); }

double intensity_std(const Component& c, const Blob& b) {
  if (c.area == 0) return 0;
  // n^2 variance = n sum_sq - sum^2, exact: below 2^94.
  const __int128 n = __int128(c.area), s = __int128(b.intensity_sum);
  const __int128 v = n * __int128(b.intensity_sum_sq) - s * s;
  return std::sqrt(blob::to_double(v)) / double(c.area);
}

double channel_mean(const Component& c, const Blob& b, int channel) {
  return c.area && channel >= 0 && channel < 3 ? double(b.channel_sum[channel]) / double(c.area)
                                               : 0.0;
}

double perimeter(const Blob& b) { return blob::perimeter(b); }

double circularity(const Component& c, const Blob& b) { return blob::circularity(c, b); }

uint32_t needed_properties(const Options& options) {
  return (options.properties & kAllProperties) | blob::Filter::of(options).reads;
}

}  // namespace ccl
