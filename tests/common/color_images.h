// Real color images for the color-range tests (ForegroundModel::Color): the color
// photographs and drawings of python3-skimage, fetched on first use by fetch-rgb.sh
// into the test-image cache (testdata_dir()/rgb) as 8-bit binary PPM, so that reading
// them needs no image codecs (GPU test binaries run where only the CUDA driver is).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ccl::test {

/// Row-major 8-bit RGB (R, G, B a pixel), no padding, with a name for test output.
struct RgbImage {
  std::string name;
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgb;
};

/// The cache's color images (fetched when the cache has none). Returns an empty vector
/// and sets *why when they cannot be had.
std::vector<RgbImage> real_color_images(std::string* why);

}  // namespace ccl::test
