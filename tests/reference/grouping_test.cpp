// Grouping of pieces into objects (Options::group_gap, ccl::group_components): checked
// against a definition written out differently (every pair compared, groups grown by a
// breadth-first search), and on labeled images against the sums of the pixels of each
// group's pieces, read back from the label image.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>

#include "ccl/reference.h"
#include "test_images.h"

namespace ccl {
namespace {

bool near(const Component& a, const Component& b, int gap) {
  auto apart = [](int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
    return b0 >= a1 ? b0 - a1 : a0 >= b1 ? a0 - b1 : 0;  // empty lines between
  };
  return apart(a.x, a.x + a.width, b.x, b.x + b.width) <= gap &&
         apart(a.y, a.y + a.height, b.y, b.y + b.height) <= gap;
}

/// The groups as the documentation states them: connected through pairs within `gap`,
/// ordered by their first piece, sums added, boxes joined.
/// group_of (when given) receives, per label, the index of its piece's group.
std::vector<Component> expected(const std::vector<Component>& pieces, int gap,
                                std::vector<size_t>* group_of = nullptr) {
  std::vector<Component> sorted = pieces;
  std::sort(sorted.begin(), sorted.end(),
            [](const Component& a, const Component& b) { return a.label < b.label; });
  std::vector<int> group(sorted.size(), -1);
  std::vector<Component> out;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (group[i] >= 0) continue;
    Component g = sorted[i];
    int x1 = g.x + g.width, y1 = g.y + g.height;
    group[i] = int(out.size());
    std::deque<size_t> todo{i};
    while (!todo.empty()) {
      const size_t a = todo.front();
      todo.pop_front();
      for (size_t b = 0; b < sorted.size(); ++b) {
        if (group[b] >= 0 || !near(sorted[a], sorted[b], gap)) continue;
        group[b] = int(out.size());
        todo.push_back(b);
        const Component& c = sorted[b];
        g.x = std::min(g.x, c.x);
        g.y = std::min(g.y, c.y);
        x1 = std::max(x1, c.x + c.width);
        y1 = std::max(y1, c.y + c.height);
        g.area += c.area;
        g.sum_x += c.sum_x;
        g.sum_y += c.sum_y;
        g.sum_xx += c.sum_xx;
        g.sum_xy += c.sum_xy;
        g.sum_yy += c.sum_yy;
      }
    }
    g.width = x1 - g.x;
    g.height = y1 - g.y;
    out.push_back(g);
  }
  if (group_of) {
    group_of->assign(sorted.empty() ? 1 : sorted.back().label + 1, out.size());
    for (size_t i = 0; i < sorted.size(); ++i) (*group_of)[sorted[i].label] = size_t(group[i]);
  }
  return out;
}

Result labeled(int width, int height, double density, int granularity, uint64_t seed) {
  const test::GrayImage gray =
      test::to_gray(test::yacclab_random(width, height, density, granularity, seed), "pieces");
  Result r;
  reference_label(test::make_frame(gray, PixelFormat::Gray8).view, Options{}, r);
  return r;
}

TEST(GroupComponents, MatchesTheDefinition) {
  std::mt19937 gen(5);
  for (int round = 0; round < 40; ++round) {
    const Result r = labeled(40 + int(gen() % 200), 30 + int(gen() % 150),
                             0.05 + 0.1 * (gen() % 5), 1 + int(gen() % 6), gen());
    for (int gap : {0, 1, 2, 5, 17}) {
      std::vector<Component> got = r.components;
      const uint32_t n = group_components(got, gap);
      ASSERT_EQ(n, got.size());
      ASSERT_EQ(got, expected(r.components, gap)) << "round " << round << " gap " << gap;
      ASSERT_LE(got.size(), r.components.size());
    }
  }
}

TEST(GroupComponents, OffLeavesTheTable) {
  const Result r = labeled(120, 80, 0.3, 2, 9);
  std::vector<Component> got = r.components;
  EXPECT_EQ(group_components(got, -1), r.components.size());
  EXPECT_EQ(got, r.components);
}

TEST(GroupComponents, AnyOrderGivesTheSameGroups) {
  // The GPU hands over tables sorted by area when it cuts them; grouping restores label order.
  const Result r = labeled(200, 150, 0.2, 3, 21);
  ASSERT_GT(r.components.size(), 30u);
  std::vector<Component> shuffled = r.components;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(4));
  std::vector<Component> a = r.components;
  group_components(a, 3);
  group_components(shuffled, 3);
  EXPECT_EQ(a, shuffled);
}

// On a real labeling: each group's box and sums are those of the pixels of its pieces.
TEST(GroupComponents, SumsAreThoseOfTheUnionOfThePieces) {
  for (int gap : {0, 2, 6}) {
    const Result r = labeled(160, 120, 0.15, 2, 77 + uint64_t(gap));
    std::vector<Component> groups = r.components;
    group_components(groups, gap);
    // Which group each piece went to, by the definition (checked equal to the groups'
    // table above); the pixels then say what the groups' sums must be.
    std::vector<size_t> of_label;
    ASSERT_EQ(expected(r.components, gap, &of_label), groups);
    std::vector<Component> sums(groups.size());
    for (auto& s : sums) s.x = s.y = INT32_MAX, s.width = s.height = -1;
    for (int y = 0; y < r.height; ++y)
      for (int x = 0; x < r.width; ++x) {
        const uint32_t l = r.labels[size_t(y) * r.width + x];
        if (!l) continue;
        ASSERT_LT(of_label[l], groups.size()) << "piece " << l << " is in no group's box";
        Component& s = sums[of_label[l]];
        s.x = std::min(s.x, x);
        s.y = std::min(s.y, y);
        s.width = std::max(s.width, x);  // the far corner, for now
        s.height = std::max(s.height, y);
        ++s.area;
        s.sum_x += uint64_t(x);
        s.sum_y += uint64_t(y);
        s.sum_xx += uint64_t(x) * x;
        s.sum_xy += uint64_t(x) * y;
        s.sum_yy += uint64_t(y) * y;
      }
    for (size_t g = 0; g < groups.size(); ++g) {
      const Component& want = sums[g];
      const Component& got = groups[g];
      EXPECT_EQ(got.area, want.area) << "gap " << gap << " group " << g;
      EXPECT_EQ(got.x, want.x);
      EXPECT_EQ(got.y, want.y);
      EXPECT_EQ(got.x + got.width - 1, want.width);
      EXPECT_EQ(got.y + got.height - 1, want.height);
      EXPECT_EQ(got.sum_x, want.sum_x);
      EXPECT_EQ(got.sum_yy, want.sum_yy);
      EXPECT_EQ(got.sum_xy, want.sum_xy);
    }
  }
}

TEST(GroupComponents, AreaLimitsApplyToGroups) {
  // Two 3x3 squares 4 columns apart: alone each is below min_area 12, together above.
  test::GrayImage gray;
  gray.width = 20;
  gray.height = 8;
  gray.pixels.assign(size_t(gray.width) * gray.height, 0);
  for (int y = 2; y < 5; ++y)
    for (int x : {2, 3, 4, 9, 10, 11}) gray.pixels[size_t(y) * gray.width + x] = 255;
  const test::Frame frame = test::make_frame(gray, PixelFormat::Gray8);
  Options o;
  o.min_area = 12;
  Result r;
  reference_label(frame.view, o, r);
  EXPECT_EQ(r.components.size(), 0u) << "each piece alone is below min_area";
  EXPECT_EQ(r.num_components, 2u);
  o.group_gap = 3;
  reference_label(frame.view, o, r);
  EXPECT_EQ(r.components.size(), 0u) << "4 empty columns are more than a gap of 3";
  o.group_gap = 4;
  reference_label(frame.view, o, r);
  ASSERT_EQ(r.components.size(), 1u);
  EXPECT_EQ(r.num_components, 1u) << "num_components counts groups";
  EXPECT_EQ(r.components[0].area, 18u);
  EXPECT_EQ(r.components[0].x, 2);
  EXPECT_EQ(r.components[0].width, 10);
  EXPECT_EQ(r.components[0].label, 1u);
  o.max_area = 17;
  reference_label(frame.view, o, r);
  EXPECT_EQ(r.components.size(), 0u) << "max_area applies to the group";
}

TEST(GroupComponents, GapIsValidated) {
  const test::GrayImage gray = test::to_gray(test::yacclab_random(8, 8, 0.5, 1, 1), "x");
  const test::Frame frame = test::make_frame(gray, PixelFormat::Gray8);
  Result r;
  for (int bad : {-2, kMaxGroupGap + 1}) {
    Options o;
    o.group_gap = bad;
    EXPECT_THROW(reference_label(frame.view, o, r), Error) << bad;
  }
}

}  // namespace
}  // namespace ccl
