// The color range's test sets (ForegroundModel::Color, issue 28), shared by
// tests/reference/color_range_test.cpp (the CPU against OpenCV) and
// tests/gpu/color_range_test.cpp (the GPU against the CPU), so that both check the same
// frames: real color images (tests/common/color_images.h) in every color format with
// named ranges, and random cases whose seed gives everything (size, format, padding,
// content, range, cleanup, limits, algorithm).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ccl/types.h"
#include "color_images.h"
#include "foreground_scenes.h"
#include "test_images.h"

namespace ccl::test {

/// The formats the color range takes: NV12, I420 and the four RGB layouts.
const std::vector<PixelFormat>& color_formats();

ColorOptions hsv_range(int h_low, int s_low, int v_low, int h_high, int s_high, int v_high);

struct NamedRange {
  std::string name;
  ColorOptions color;
};

/// Ranges for the real images: reds across the wrap, skin and orange, greens, blues,
/// darks, grays, a single hue, everything, and bounds at the ends of each channel.
const std::vector<NamedRange>& color_ranges();

/// The k-th real-image run's options beside its range: algorithm, connectivity,
/// cleanup radii and area limits rotate with k.
Options real_image_options(size_t k, const ColorOptions& range);

/// Row padding that changes with k: none, whole pixels, odd bytes.
size_t color_padding(size_t k, PixelFormat format);

ColorImage to_color_image(const RgbImage& image);

/// What a random case's frame holds.
enum class ColorContent {
  Shapes,    // tests/common/fuzz_frames.h's content, colored inside / outside the range
  Noise,     // uniformly random colors
  RawBytes,  // every plane's bytes random (YUV values RGB cannot give)
  Scene,     // a frame of foreground_scenes.h's moving scene
};

struct ColorFuzzCase {
  uint64_t seed = 0;
  int width = 1, height = 1;
  PixelFormat format = PixelFormat::RGBA;
  int padding = 0;
  ColorContent content = ColorContent::Shapes;
  int max_side = 640;  // what the case was drawn with (Shapes regenerates its content)
  Options options;  // ForegroundModel::Color with its range, cleanup, limits, labeling
};

/// The case of `seed`; sides at most max_side.
ColorFuzzCase random_color_case(uint64_t seed, int max_side = 640);
/// One line naming every field (the seed alone gives the case back).
std::string describe(const ColorFuzzCase& c);
/// The case's frame (host memory, padded rows).
Frame color_case_frame(const ColorFuzzCase& c);

}  // namespace ccl::test
