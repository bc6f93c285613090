// Images for the local threshold's tests (ForegroundModel::Local; the CPU's against
// OpenCV in tests/reference, the GPU's against the CPU in tests/gpu): pages under
// uneven light, and windows built to hold chosen sums, which show how the window mean
// is rounded (kernels/src/local_threshold.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../../kernels/src/local_threshold.h"
#include "splitmix.h"
#include "test_images.h"

namespace ccl::test {

/// Options of the local threshold (ForegroundModel::Local), everything else default.
inline Options local_options(int block_size, double offset,
                             ThresholdMode mode = ThresholdMode::Above) {
  Options o;
  o.foreground = ForegroundModel::Local;
  o.local.block_size = block_size;
  o.local.offset = offset;
  o.mode = mode;
  return o;
}

class LocalRng {
 public:
  explicit LocalRng(uint64_t seed) : state_(seed ^ 0x5A17E5A17E5A17EDull) {}
  uint64_t next() {
    const uint64_t z = splitmix64(state_);
    state_ += kSplitMixIncrement;
    return z;
  }
  int range(int lo, int hi) { return lo + int(next() % uint64_t(int64_t(hi) - lo + 1)); }

 private:
  uint64_t state_;
};

/// A page under uneven light: brightness falling across the frame and toward one
/// corner, darker strokes (text, lines, blobs) on it, a little noise.
inline GrayImage uneven_page(int width, int height, uint64_t seed) {
  LocalRng rng(seed);
  GrayImage g;
  g.name = "page" + std::to_string(seed);
  g.width = width;
  g.height = height;
  g.pixels.resize(size_t(width) * size_t(height));
  std::vector<int> ink(g.pixels.size(), 0);
  const int strokes = 4 + (width * height) / 600;
  for (int s = 0; s < strokes; ++s) {
    const int x0 = rng.range(0, width - 1), y0 = rng.range(0, height - 1);
    const int w = rng.range(1, std::clamp(width / 6, 1, 60)), h = rng.range(1, std::clamp(height / 10, 1, 12));
    const int depth = rng.range(25, 90);
    for (int y = y0; y < std::min(height, y0 + h); ++y)
      for (int x = x0; x < std::min(width, x0 + w); ++x)
        if (rng.range(0, 3)) ink[size_t(y) * width + x] = depth;
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double fx = width > 1 ? double(x) / (width - 1) : 0, fy = height > 1 ? double(y) / (height - 1) : 0;
      const double light = 60 + 170 * (1 - 0.6 * fx) * (1 - 0.4 * fy * fx);
      const int v = int(light) - ink[size_t(y) * width + x] + rng.range(-3, 3);
      g.pixels[size_t(y) * width + x] = uint8_t(std::clamp(v, 0, 255));
    }
  return g;
}

/// The window sums of block size b whose single-precision mean rounds otherwise than
/// the exact mean (the only sums where OpenCV's columns disagree). The single-precision
/// mean is within 2^-22 of the exact one relatively, less than 1/16 of a sum unit for
/// any window, so only sums next to a tie (k + 1/2) b^2 can differ: those are scanned
/// (the test of every sum below checks that no other differs).
inline std::vector<uint32_t> single_precision_sums(int b) {
  const uint32_t n = uint32_t(b) * uint32_t(b);
  const float inverse = float(1.0 / double(n));
  std::vector<uint32_t> out;
  for (uint32_t k = 0; k < 255; ++k) {
    const uint32_t tie2 = (2 * k + 1) * n;  // twice the sum at the tie
    for (uint32_t s = tie2 / 2 - 8; s <= tie2 / 2 + 8; ++s)
      if (uint32_t(std::nearbyint(float(s) * inverse)) != (2 * s + n) / (2 * n)) out.push_back(s);
  }
  return out;
}

/// Images whose windows hold chosen sums: in probe k, the pixel at the window's
/// centre has value `centre` and the window sums to `sum` exactly.
struct Probe {
  uint32_t sum;
  int centre;
};

/// Fills the cells (with their weights in the window) but the centre so that the
/// window sums to p.sum: every cell the same value, then one more on some; false when
/// no values 0..255 do it.
inline bool fill(std::vector<uint8_t*>& cells, std::vector<int>& weights, uint8_t* centre, int centre_weight,
          const Probe& p) {
  int64_t rest = int64_t(p.sum) - int64_t(centre_weight) * p.centre;
  int64_t total_weight = 0;
  for (int w : weights) total_weight += w;
  if (rest < 0 || rest > 255 * total_weight) return false;
  *centre = uint8_t(p.centre);
  const int64_t base = rest / total_weight;
  rest -= base * total_weight;
  for (size_t i = 0; i < cells.size(); ++i) {
    int v = int(base);
    if (rest >= weights[i] && v < 255) {
      ++v;
      rest -= weights[i];
    }
    *cells[i] = uint8_t(v);
  }
  return rest == 0;
}

/// Window sum of (x, y) with replicated edges, the slow way.
inline uint32_t window_sum(const GrayImage& g, int x, int y, int r) {
  uint32_t s = 0;
  for (int j = y - r; j <= y + r; ++j)
    for (int i = x - r; i <= x + r; ++i)
      s += g.pixels[size_t(std::clamp(j, 0, g.height - 1)) * g.width + size_t(std::clamp(i, 0, g.width - 1))];
  return s;
}

/// Probes side by side in one image of b rows, each window whole inside it and in
/// OpenCV's vector columns (x < W - W % 8): the window's centre is probe k's pixel.
inline GrayImage vector_probes(int b, const std::vector<Probe>& probes, std::vector<Probe>* placed) {
  const int r = b / 2;
  GrayImage g;
  g.name = "vector-probes";
  g.width = int(probes.size()) * b + 11;  // the tail of W % 8 columns lies past the probes
  g.height = b;
  g.pixels.assign(size_t(g.width) * g.height, 0);
  int k = 0;
  for (const Probe& p : probes) {
    std::vector<uint8_t*> cells;
    std::vector<int> weights;
    uint8_t* centre = &g.pixels[size_t(r) * g.width + size_t(k * b + r)];
    for (int y = 0; y < b; ++y)
      for (int x = k * b; x < (k + 1) * b; ++x) {
        uint8_t* c = &g.pixels[size_t(y) * g.width + x];
        if (c != centre) cells.push_back(c), weights.push_back(1);
      }
    if (fill(cells, weights, centre, 1, p)) {
      placed->push_back(p);
      ++k;
    }
  }
  return g;  // room left by probes that did not fit stays as filled: more content
}

/// Probes stacked in the last column of an image whose width is not a multiple of 8
/// (OpenCV's scalar tail): the window of probe k's centre (W-1, k b + r) holds r
/// columns of weight 1 and the last column, of weight r + 1 (replicated).
inline GrayImage tail_probes(int b, const std::vector<Probe>& probes, std::vector<Probe>* placed) {
  const int r = b / 2;
  GrayImage g;
  g.name = "tail-probes";
  g.width = (b / 2 + 1) % 8 ? b / 2 + 1 : b / 2 + 2;  // the windows' columns, and a tail
  g.height = int(probes.size()) * b;
  g.pixels.assign(size_t(g.width) * g.height, 0);
  int k = 0;
  for (const Probe& p : probes) {
    std::vector<uint8_t*> cells;
    std::vector<int> weights;
    const int last = g.width - 1;
    uint8_t* centre = &g.pixels[size_t(k * b + r) * g.width + last];
    for (int y = k * b; y < (k + 1) * b; ++y)
      for (int x = last - r; x <= last; ++x) {
        uint8_t* c = &g.pixels[size_t(y) * g.width + x];
        if (c != centre) cells.push_back(c), weights.push_back(x == last ? r + 1 : 1);
      }
    if (fill(cells, weights, centre, r + 1, p)) {
      placed->push_back(p);
      ++k;
    }
  }
  return g;
}

/// The probes of block size b: the sums whose roundings differ (from 165 on), the sums
/// next to each tie (k + 1/2) b^2 of a few k, 0 and the largest, `random` more; each
/// with the centre at the lower of the two means and one above it. With offset 0 and
/// ThresholdMode::Above the centre's mask byte then tells which mean was taken.
inline std::vector<Probe> rounding_probes(int b, int random, LocalRng& rng) {
  const uint32_t n = uint32_t(b) * uint32_t(b);
  std::vector<uint32_t> sums = b >= 165 ? single_precision_sums(b) : std::vector<uint32_t>{};
  for (int k : {0, 1, 63, 127, 128, 200, 254}) {
    sums.push_back(uint32_t(k) * n + (n - 1) / 2);
    sums.push_back(uint32_t(k) * n + (n + 1) / 2);
  }
  sums.push_back(0);
  sums.push_back(255 * n);
  for (int i = 0; i < random; ++i) sums.push_back(uint32_t(rng.range(0, int(255 * n))));
  std::vector<Probe> probes;
  const local::Params p = local::params(LocalOptions{b, 0}, ThresholdMode::Above, 1 << 20);
  for (uint32_t s : sums) {
    const int low = int(std::min(local::window_mean(s, 0, p), (2 * s + n) / (2 * n)));
    probes.push_back({s, low});
    if (low < 255) probes.push_back({s, low + 1});
  }
  return probes;
}

}  // namespace ccl::test
