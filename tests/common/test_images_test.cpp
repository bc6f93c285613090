// Checks of the test-image library itself: the YACCLAB recipe, awkward images, frames.
#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <set>
#include <tuple>

#include "ccl/luma.h"
#include "compare.h"
#include "test_images.h"

namespace ccl::test {
namespace {

size_t count_fg(const BinaryImage& b) {
  size_t n = 0;
  for (uint8_t p : b.pixels) n += p;
  return n;
}

// ---- YACCLAB generator ----------------------------------------------------------

class YacclabExtremes : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(YacclabExtremes, DensityZeroIsBackgroundAndOneIsForeground) {
  const auto [w, h, g] = GetParam();
  const BinaryImage zero = yacclab_random(w, h, 0.0, g, 1);
  const BinaryImage one = yacclab_random(w, h, 1.0, g, 1);
  ASSERT_EQ(zero.pixels.size(), size_t(w) * h);
  EXPECT_EQ(count_fg(zero), 0u);
  EXPECT_EQ(count_fg(one), size_t(w) * h);
}

INSTANTIATE_TEST_SUITE_P(Sizes, YacclabExtremes,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(33, 7, 4),
                                           std::make_tuple(1920, 1080, 1),
                                           std::make_tuple(1001, 65, 16)));

class YacclabDensity : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(YacclabDensity, ForegroundBlockFractionIsNearDensity) {
  const auto [percent, g] = GetParam();
  const double d = percent / 100.0;
  // 512x512 blocks of g px: the fraction's standard deviation is below 0.001.
  const int size = 512 * g;
  const BinaryImage b = yacclab_random(size, size, d, g, 1);
  const double fraction = double(count_fg(b)) / double(b.pixels.size());
  EXPECT_NEAR(fraction, d, 0.005);
}

INSTANTIATE_TEST_SUITE_P(Densities, YacclabDensity,
                         ::testing::Combine(::testing::Values(10, 30, 50, 70, 90),
                                            ::testing::Values(1, 4)));

TEST(Yacclab, SameSeedSameImageOtherSeedOtherImage) {
  const BinaryImage a = yacclab_random(300, 200, 0.5, 1, 1);
  const BinaryImage b = yacclab_random(300, 200, 0.5, 1, 1);
  const BinaryImage c = yacclab_random(300, 200, 0.5, 1, 2);
  EXPECT_EQ(a.pixels, b.pixels);
  EXPECT_NE(a.pixels, c.pixels);
}

TEST(Yacclab, BlocksAreUniformAndCroppedAtTheEdges) {
  const int w = 30, h = 19, g = 4;  // 8 x 5 blocks, the last column and row cropped
  const BinaryImage b = yacclab_random(w, h, 0.5, g, 3);
  std::mt19937 gen(3);
  const uint64_t threshold = uint64_t(1) << 31;
  for (int by = 0; by < (h + g - 1) / g; ++by) {
    for (int bx = 0; bx < (w + g - 1) / g; ++bx) {
      const uint8_t expected = uint64_t(gen()) < threshold ? 1 : 0;
      for (int y = by * g; y < std::min(h, by * g + g); ++y)
        for (int x = bx * g; x < std::min(w, bx * g + g); ++x)
          ASSERT_EQ(b.pixels[size_t(y) * w + x], expected) << "pixel " << x << "," << y;
    }
  }
}

TEST(Yacclab, ForegroundIffRawOutputIsStrictlyBelowTheThreshold) {
  // The first output of std::mt19937(1) is 1791095845 (fixed by the C++ standard's
  // definition of the engine): a threshold equal to it leaves the block background.
  const uint32_t first = 1791095845u;
  std::mt19937 gen(1);
  ASSERT_EQ(gen(), first);
  EXPECT_EQ(yacclab_random(1, 1, first / 4294967296.0, 1, 1).pixels[0], 0);
  EXPECT_EQ(yacclab_random(1, 1, (first + 1.0) / 4294967296.0, 1, 1).pixels[0], 1);
}

TEST(Yacclab, RejectsBadArguments) {
  EXPECT_THROW(yacclab_random(0, 5, 0.5, 1, 1), std::invalid_argument);
  EXPECT_THROW(yacclab_random(5, 5, 1.5, 1, 1), std::invalid_argument);
  EXPECT_THROW(yacclab_random(5, 5, -0.1, 1, 1), std::invalid_argument);
  EXPECT_THROW(yacclab_random(5, 5, 0.5, 0, 1), std::invalid_argument);
}

TEST(Yacclab, ToGrayMapsForegroundTo255) {
  const BinaryImage b = yacclab_random(17, 9, 0.5, 1, 4);
  const GrayImage g = to_gray(b, "x");
  ASSERT_EQ(g.pixels.size(), b.pixels.size());
  for (size_t i = 0; i < b.pixels.size(); ++i) EXPECT_EQ(g.pixels[i], b.pixels[i] ? 255 : 0);
}

// ---- awkward images -------------------------------------------------------------

TEST(Awkward, NamesAreUniqueIdentifiersAndSizesAreConsistent) {
  std::set<std::string> names;
  std::set<int> widths;
  bool has_1x1 = false, has_row = false, has_col = false;
  for (const GrayImage& g : awkward_images()) {
    EXPECT_TRUE(names.insert(g.name).second) << "duplicate " << g.name;
    for (char c : g.name) EXPECT_TRUE(std::isalnum(uint8_t(c)) || c == '_') << g.name;
    ASSERT_EQ(g.pixels.size(), size_t(g.width) * g.height) << g.name;
    for (uint8_t p : g.pixels) ASSERT_TRUE(p == 0 || p == 255) << g.name;
    widths.insert(g.width);
    has_1x1 |= g.width == 1 && g.height == 1;
    has_row |= g.height == 1 && g.width > 1;
    has_col |= g.width == 1 && g.height > 1;
  }
  EXPECT_TRUE(has_1x1 && has_row && has_col);
  for (int w : {31, 32, 33, 63, 64, 65, 1001}) EXPECT_TRUE(widths.count(w)) << w;
}

// ---- frames ---------------------------------------------------------------------

GrayImage ramp(int w, int h) {
  GrayImage g;
  g.name = "ramp";
  g.width = w;
  g.height = h;
  g.pixels.resize(size_t(w) * h);
  for (size_t i = 0; i < g.pixels.size(); ++i) g.pixels[i] = uint8_t(i * 7 + i / 3);
  return g;
}

class FrameLayout : public ::testing::TestWithParam<std::tuple<PixelFormat, size_t>> {};

TEST_P(FrameLayout, LumaIsTheGrayValueAndPaddingIsPoison) {
  const auto [format, extra] = GetParam();
  const GrayImage g = ramp(37, 11);  // odd sizes: chroma planes round up
  const Frame f = make_frame(g, format, extra);
  const ImageView& v = f.view;
  ASSERT_EQ(v.width, 37);
  ASSERT_EQ(v.height, 11);
  ASSERT_EQ(v.format, format);
  ASSERT_EQ(int(f.storage.size()), plane_count(format));
  const int bpp = luma_bytes_per_pixel(format);
  ASSERT_EQ(v.strides[0], size_t(37) * bpp + extra);
  for (int y = 0; y < v.height; ++y) {
    const uint8_t* row = static_cast<const uint8_t*>(v.planes[0]) + y * v.strides[0];
    for (int x = 0; x < v.width; ++x)
      ASSERT_EQ(luma_at(row, x, format), scaled_level(g.pixels[size_t(y) * 37 + x], format))
          << "pixel " << x << "," << y;
    for (size_t i = 0; i < extra; ++i) ASSERT_EQ(row[size_t(37) * bpp + i], poison_byte(i, bpp));
  }
  for (int p = 1; p < plane_count(format); ++p) {
    const size_t row_bytes = format == PixelFormat::NV12 ? 2 * 19 : 19;
    EXPECT_EQ(v.strides[p], row_bytes + extra);
    EXPECT_EQ(f.storage[p].size(), v.strides[p] * 6);
    // chroma varies, so a kernel reading it as luma would see structure
    std::set<uint8_t> values(f.storage[p].begin(), f.storage[p].begin() + row_bytes);
    EXPECT_GT(values.size(), 5u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, FrameLayout,
    ::testing::Combine(::testing::ValuesIn(all_formats()), ::testing::Values(size_t(0), size_t(13))),
    [](const auto& info) {
      return std::string(to_string(std::get<0>(info.param))) + "_pad" +
             std::to_string(std::get<1>(info.param));
    });

TEST(Frame, CopiesPointAtTheirOwnStorage) {
  const Frame a = make_frame(ramp(8, 6), PixelFormat::I420, 3);
  const Frame b = a;
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(b.view.planes[p], b.storage[p].data());
    EXPECT_NE(b.view.planes[p], a.view.planes[p]);
  }
}

TEST(Frame, RgbTripletsGiveTheLumaAndShowChannelSwaps) {
  int swapped_differs = 0;
  for (int v = 0; v < 256; ++v) {
    const Rgb c = rgb_for_luma(uint8_t(v));
    EXPECT_EQ(bt601_luma(c.r, c.g, c.b), uint32_t(v)) << v;
    swapped_differs += bt601_luma(c.b, c.g, c.r) != uint32_t(v);
  }
  EXPECT_GT(swapped_differs, 240);
}

TEST(Frame, AllFormatsListsTheEightOfTheSpec) { EXPECT_EQ(all_formats().size(), 8u); }

TEST(Compare, EqualResultsHaveNoDifference) {
  Result r;
  label_binary(yacclab_random(37, 21, 0.5, 1, 3), 8, r);
  EXPECT_EQ(difference(r, r), "");
}

TEST(Compare, NamesTheFirstDifference) {
  Result want;
  label_binary(yacclab_random(37, 21, 0.5, 1, 3), 8, want);
  ASSERT_GT(want.num_components, 1u);

  Result got = want;
  got.components[1].sum_xy += 1;
  EXPECT_NE(difference(got, want).find("component 2"), std::string::npos);

  got = want;
  got.labels[40] ^= 1;
  EXPECT_NE(difference(got, want).find("label at (3, 1)"), std::string::npos);
  EXPECT_EQ(difference(got, want, /*compare_labels=*/false), "");

  got = want;
  got.threshold_used = 7;
  EXPECT_NE(difference(got, want).find("threshold_used"), std::string::npos);
}

}  // namespace
}  // namespace ccl::test
