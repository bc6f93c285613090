// Minimum and median of repeated timings.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace bench {

struct Spread {
  double min = NAN;
  double median = NAN;
};

inline Spread spread(std::vector<double> samples) {
  Spread s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.min = samples.front();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return s;
}

}  // namespace bench
