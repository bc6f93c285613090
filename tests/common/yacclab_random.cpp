// The YACCLAB granularity recipe (the anchors table), so that test and benchmark images are
// the same images the anchor numbers were measured on.
#include <cmath>
#include <random>
#include <stdexcept>

#include "test_images.h"

namespace ccl::test {

BinaryImage yacclab_random(int width, int height, double density, int granularity,
                           uint32_t seed) {
  if (width < 1 || height < 1) throw std::invalid_argument("yacclab_random: empty image");
  if (granularity < 1) throw std::invalid_argument("yacclab_random: granularity < 1");
  if (!(density >= 0.0 && density <= 1.0))
    throw std::invalid_argument("yacclab_random: density outside [0, 1]");

  // 64-bit so that density 1.0 (2^32) is above every 32-bit output.
  const uint64_t threshold = uint64_t(std::llround(density * 4294967296.0));
  std::mt19937 gen(seed);

  BinaryImage img;
  img.width = width;
  img.height = height;
  img.pixels.assign(size_t(width) * height, 0);
  for (int by = 0; by < height; by += granularity) {
    for (int bx = 0; bx < width; bx += granularity) {
      if (uint64_t(gen()) >= threshold) continue;
      for (int y = by; y < by + granularity && y < height; ++y)
        for (int x = bx; x < bx + granularity && x < width; ++x)
          img.pixels[size_t(y) * width + x] = 1;
    }
  }
  return img;
}

GrayImage to_gray(const BinaryImage& binary, const std::string& name) {
  GrayImage g;
  g.name = name;
  g.width = binary.width;
  g.height = binary.height;
  g.pixels.resize(binary.pixels.size());
  for (size_t i = 0; i < binary.pixels.size(); ++i) g.pixels[i] = binary.pixels[i] ? 255 : 0;
  return g;
}

}  // namespace ccl::test
