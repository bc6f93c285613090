// The CPU reference labeler against OpenCV (CCL_WU, i.e. SAUF) on YACCLAB random images and on
// the awkward images, 4- and 8-connectivity.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "opencv_oracle.h"

namespace ccl::test {
namespace {

// ---- random images: sizes x density 0..100 % x granularity x seed x connectivity ----

struct Size {
  int width, height;
};

using RandomCase = std::tuple<Size, int /*percent*/, int /*granularity*/, uint32_t /*seed*/,
                              int /*connectivity*/>;

class RandomImages : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomImages, ReferenceEqualsOpenCV) {
  const auto [size, percent, g, seed, connectivity] = GetParam();
  const BinaryImage b = yacclab_random(size.width, size.height, percent / 100.0, g, seed);
  EXPECT_TRUE(matches_opencv(b, connectivity));
}

std::string random_name(const ::testing::TestParamInfo<RandomCase>& info) {
  const auto [size, percent, g, seed, connectivity] = info.param;
  return std::to_string(size.width) + "x" + std::to_string(size.height) + "_d" +
         std::to_string(percent) + "_g" + std::to_string(g) + "_seed" + std::to_string(seed) +
         "_c" + std::to_string(connectivity);
}

const auto kPercents = ::testing::Values(0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100);

INSTANTIATE_TEST_SUITE_P(Small, RandomImages,
                         ::testing::Combine(::testing::Values(Size{256, 256}), kPercents,
                                            ::testing::Values(1, 4, 16),
                                            ::testing::Values(1u, 2u), ::testing::Values(4, 8)),
                         random_name);

// The anchors' Full HD size.
INSTANTIATE_TEST_SUITE_P(FullHD, RandomImages,
                         ::testing::Combine(::testing::Values(Size{1920, 1080}), kPercents,
                                            ::testing::Values(1, 4, 16), ::testing::Values(1u, 2u),
                                            ::testing::Values(4, 8)),
                         random_name);

// Odd sizes whose blocks are cropped at the right and bottom edges.
INSTANTIATE_TEST_SUITE_P(Odd, RandomImages,
                         ::testing::Combine(::testing::Values(Size{1001, 333}, Size{37, 1021}),
                                            ::testing::Values(30, 50, 70),
                                            ::testing::Values(1, 3), ::testing::Values(2u),
                                            ::testing::Values(4, 8)),
                         random_name);

// ---- awkward images -------------------------------------------------------------

using AwkwardCase = std::tuple<size_t /*index*/, int /*connectivity*/>;

const std::vector<GrayImage>& awkward() {
  static const std::vector<GrayImage> images = awkward_images();
  return images;
}

class AwkwardImages : public ::testing::TestWithParam<AwkwardCase> {};

TEST_P(AwkwardImages, ReferenceEqualsOpenCV) {
  const auto [index, connectivity] = GetParam();
  const GrayImage& g = awkward().at(index);
  EXPECT_TRUE(matches_opencv(binarize_above(g, 128), connectivity)) << g.name;
}

INSTANTIATE_TEST_SUITE_P(
    All, AwkwardImages,
    ::testing::Combine(::testing::Range(size_t(0), awkward().size()), ::testing::Values(4, 8)),
    [](const ::testing::TestParamInfo<AwkwardCase>& info) {
      return sanitize_name(awkward().at(std::get<0>(info.param)).name) + "_c" +
             std::to_string(std::get<1>(info.param));
    });

// Known answers, so that a labeler and OpenCV sharing a mistake would still show.
TEST(KnownCounts, ShapesHaveTheExpectedComponentCounts) {
  struct Expect {
    const char* name;
    uint32_t c4, c8;
  };
  const Expect expected[] = {
      {"single_fg_1x1", 1, 1},        {"single_bg_1x1", 0, 0},
      {"diag_2x2", 2, 1},             {"antidiag_2x2", 2, 1},
      {"all_fg_67x45", 1, 1},         {"all_bg_67x45", 0, 0},
      {"checker1_65x33", 17 * 33 + 16 * 32, 1}, {"w_100x12", 100, 1},
      {"spiral_63x63", 1, 1},         {"spiral_97x40", 1, 1},
      {"diag_down_right_50x40", 40, 1}, {"diag_down_left_50x40", 40, 1},
      {"cross_41", 81, 1},            {"cross_40", 77, 1},  // its centre 2x2 block is 4-connected
      {"stairs_right_70x33", 33, 1},  {"stairs_left_70x33", 33, 1},
      {"stairs_left_overlap_70x33", 1, 1},
      {"comb_65x20", 1, 1},           {"comb_diag_joins_65x20", 33 + 32, 1},
      {"interlocking_combs_66x21", 2, 2}, {"u_40x30", 1, 1},
      {"serpentine_65x31", 1, 1},     {"dots_33x33", 17 * 17, 17 * 17},
      {"corners_37x23", 4, 4},        {"border_65x33", 2, 2},
      {"square_rings_61x45", 12, 12},
  };
  const std::vector<GrayImage>& images = awkward();
  for (const Expect& e : expected) {
    const auto it = std::find_if(images.begin(), images.end(),
                                 [&](const GrayImage& g) { return g.name == e.name; });
    ASSERT_NE(it, images.end()) << e.name;
    Result r4, r8;
    label_binary(binarize_above(*it, 128), 4, r4);
    label_binary(binarize_above(*it, 128), 8, r8);
    EXPECT_EQ(r4.num_components, e.c4) << e.name << " 4-connected";
    EXPECT_EQ(r8.num_components, e.c8) << e.name << " 8-connected";
  }
}

}  // namespace
}  // namespace ccl::test
