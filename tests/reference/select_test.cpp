// The rule every backend reports components by (ccl::select_reported): at least
// min_area pixels, in label order; when more pass than max_components, the largest,
// largest first and equal areas by label. Checked here against a definition written
// out differently (a stable sort by area of the passing entries), on tables full of
// ties, and through the reference labeler's options.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ccl/reference.h"
#include "test_images.h"

namespace ccl {
namespace {

std::vector<Component> random_table(std::mt19937& gen, uint32_t n, uint64_t max_area) {
  std::vector<Component> table(n);
  std::uniform_int_distribution<uint64_t> area(1, max_area);
  for (uint32_t i = 0; i < n; ++i) {
    table[i].label = i + 1;
    table[i].area = area(gen);
    table[i].x = int32_t(gen() % 1000);  // something for == to compare beyond the area
  }
  return table;
}

/// The rule as the documentation states it, without partial sorts.
std::vector<Component> expected(const std::vector<Component>& table, uint64_t min_area,
                                uint32_t max_components) {
  std::vector<Component> passing;
  for (const Component& c : table)
    if (c.area >= min_area) passing.push_back(c);
  if (passing.size() <= max_components) return passing;
  std::stable_sort(passing.begin(), passing.end(),
                   [](const Component& a, const Component& b) { return a.area > b.area; });
  passing.resize(max_components);
  return passing;
}

TEST(SelectReported, DefaultsReportEverything) {
  std::mt19937 gen(3);
  const std::vector<Component> table = random_table(gen, 500, 20);
  std::vector<Component> got = table;
  select_reported(got, Options{});
  EXPECT_EQ(got, table);
  EXPECT_TRUE(Options{}.reports_all());
}

TEST(SelectReported, MatchesTheRuleOnTablesFullOfTies) {
  std::mt19937 gen(11);
  for (int round = 0; round < 300; ++round) {
    const uint32_t n = gen() % 400;
    const uint64_t max_area = 1 + gen() % (round % 3 == 0 ? 3 : 60);
    const std::vector<Component> table = random_table(gen, n, max_area);
    for (uint64_t min_area : {uint64_t(0), uint64_t(1), uint64_t(2), max_area, max_area + 1,
                              uint64_t(1 + gen() % (max_area + 1))})
      for (uint32_t k : {0u, 1u, 2u, n / 2, n > 0 ? n - 1 : 0u, n, n + 1, UINT32_MAX,
                         uint32_t(gen() % (n + 1))}) {
        Options options;
        options.min_area = min_area;
        options.max_components = k;
        std::vector<Component> got = table;
        select_reported(got, options);
        ASSERT_EQ(got, expected(table, min_area, k))
            << "n " << n << " min_area " << min_area << " max_components " << k;
      }
  }
}

TEST(SelectReported, ReferenceLabelerAppliesTheOptions) {
  const test::GrayImage gray =
      test::to_gray(test::yacclab_random(301, 199, 0.45, 2, 8), "blobs");
  const test::Frame frame = test::make_frame(gray, PixelFormat::Gray8);
  for (int connectivity : {4, 8}) {
    Options all;
    all.connectivity = connectivity;
    Result whole;
    reference_label(frame.view, all, whole);
    ASSERT_GT(whole.num_components, 50u);
    for (auto [min_area, k] : {std::pair<uint64_t, uint32_t>{3, UINT32_MAX},
                               {0, 40}, {4, 10}, {1000000, 5}}) {
      Options options = all;
      options.min_area = min_area;
      options.max_components = k;
      Result got;
      reference_label(frame.view, options, got);
      EXPECT_EQ(got.num_components, whole.num_components) << "the total stays exact";
      EXPECT_EQ(got.labels, whole.labels);
      EXPECT_EQ(got.components, expected(whole.components, min_area, k))
          << connectivity << "-conn min_area " << min_area << " max_components " << k;
    }
  }
}

}  // namespace
}  // namespace ccl
