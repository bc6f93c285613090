// The scenes themselves: every tracking test leans on these properties of its ground
// truth, so they are checked before anyone blames the tracker.
#include <gtest/gtest.h>

#include "scenes.h"
#include "tracking_support.h"

namespace ccl::tracking_test {
namespace {

using namespace ccl::test;

// Frames in which both objects are drawn and neither touches the other.
int frames_apart(const std::vector<LabeledFrame>& frames) {
  int n = 0;
  for (const auto& f : frames) n += f.alone(0) && f.alone(1);
  return n;
}

TEST(Scenes, RenderIsForegroundOnBackground) {
  const Scene s = fast_disc_scene();
  const GrayImage g = render(s, 3);
  ASSERT_EQ(g.pixels.size(), size_t(s.width) * s.height);
  size_t lit = 0;
  for (uint8_t p : g.pixels) {
    ASSERT_TRUE(p == 0 || p == 255);
    lit += p == 255;
  }
  // A disc of radius 6: the lattice points within distance 6 of its center.
  EXPECT_EQ(lit, 113u);
  EXPECT_EQ(g.pixels[32 * size_t(s.width) + 10 + 3 * kFastDiscSpeed], 255);
}

TEST(Scenes, ParallelNeverTouch) {
  const auto frames = label_scene(parallel_scene());
  EXPECT_EQ(frames_apart(frames), int(frames.size()));
  for (const auto& f : frames) EXPECT_EQ(f.components.size(), 2u);
}

TEST(Scenes, CrossingMergesInTheMiddle) {
  const auto frames = label_scene(crossing_scene());
  const auto merged = merged_frames(frames, 0, 1);
  ASSERT_FALSE(merged.empty());
  EXPECT_GT(merged.front(), 5u);
  EXPECT_LT(merged.back() + 5, frames.size());
  EXPECT_EQ(merged.back() - merged.front() + 1, merged.size()) << "one stretch";
  EXPECT_EQ(frames_apart(frames), int(frames.size() - merged.size()));
}

TEST(Scenes, FastDiscNeverOverlapsItsLastPosition) {
  const auto frames = label_scene(fast_disc_scene());
  for (size_t t = 1; t < frames.size(); ++t) {
    ASSERT_EQ(frames[t].components.size(), 1u);
    const Component& a = frames[t - 1].components[0];
    const Component& b = frames[t].components[0];
    EXPECT_GE(b.x, a.x + a.width) << "frame " << t;
    EXPECT_DOUBLE_EQ(b.centroid_x() - a.centroid_x(), kFastDiscSpeed);
  }
}

TEST(Scenes, SplitStartsAsOneBlob) {
  const auto frames = label_scene(split_scene());
  const auto merged = merged_frames(frames, 0, 1);
  ASSERT_GE(merged.size(), 3u);
  EXPECT_EQ(merged.front(), 0u);
  EXPECT_EQ(merged.back() + 1, merged.size()) << "one stretch from the start";
  EXPECT_EQ(frames_apart(frames), int(frames.size() - merged.size()));
  EXPECT_EQ(frames[0].components.size(), 1u);
  // The part that keeps the id is clearly the larger one.
  const auto& apart = frames.back();
  EXPECT_GT(apart.components[size_t(apart.component_of[0])].area,
            2 * apart.components[size_t(apart.component_of[1])].area);
}

TEST(Scenes, MergeAndResplit) {
  const auto frames = label_scene(merge_resplit_scene());
  const auto merged = merged_frames(frames, 0, 1);
  ASSERT_GE(merged.size(), 3u);
  EXPECT_GT(merged.front(), 5u);
  EXPECT_LT(merged.back() + 5, frames.size());
  EXPECT_EQ(merged.back() - merged.front() + 1, merged.size()) << "one stretch";
  EXPECT_EQ(frames_apart(frames), int(frames.size() - merged.size()));
  EXPECT_LE(merged.size(), size_t(TrackerOptions{}.max_lost)) << "re-splits within the lost limit";
}

TEST(Scenes, VanishHidesTheDisc) {
  for (int k : {0, 1, 3, 15}) {
    const auto frames = label_scene(vanish_scene(k));
    for (size_t t = 0; t < frames.size(); ++t) {
      const bool hidden = int(t) >= kVanishFrame && int(t) < kVanishFrame + k;
      EXPECT_EQ(frames[t].visible(0), !hidden) << "k " << k << " frame " << t;
      EXPECT_EQ(frames[t].components.size(), hidden ? 0u : 1u);
    }
  }
  EXPECT_THROW(vanish_scene(-1), std::invalid_argument);
}

TEST(Scenes, RandomWalkersNeverTouch) {
  const Scene s = random_walkers_scene(1920, 1080, 1000, 30, 7);
  const auto frames = label_scene(s);
  ASSERT_EQ(frames.size(), 30u);
  int moved = 0;
  for (size_t t = 0; t < frames.size(); ++t) {
    ASSERT_EQ(frames[t].components.size(), 1000u) << "frame " << t;
    for (int o = 0; o < 1000; ++o) ASSERT_TRUE(frames[t].alone(o)) << "frame " << t << " object " << o;
    if (t > 0)
      for (int o = 0; o < 1000; ++o) {
        const Shape& a = s.frames[t - 1][size_t(o)].shape;
        const Shape& b = s.frames[t][size_t(o)].shape;
        EXPECT_LE(std::abs(a.x - b.x), 3);
        EXPECT_LE(std::abs(a.y - b.y), 3);
        moved += a.x != b.x || a.y != b.y;
      }
  }
  EXPECT_GT(moved, 29 * 1000 / 2) << "most walkers move in most frames";
  // Same seed, same scene.
  const Scene again = random_walkers_scene(1920, 1080, 1000, 30, 7);
  EXPECT_EQ(render(again, 29).pixels, render(s, 29).pixels);
}

TEST(Scenes, ManyComponents) {
  for (int count : {10, 1000, 100000}) {
    const Scene s = many_components_scene(1920, 1080, count, 2, 3);
    for (size_t t = 0; t < 2; ++t) {
      const LabeledFrame f = label_frame(s, t);
      ASSERT_EQ(f.components.size(), size_t(count)) << count << " frame " << t;
      for (int o = 0; o < count; ++o) ASSERT_TRUE(f.alone(o)) << count << " object " << o;
    }
  }
  const Scene s = many_components_scene(3840, 2160, 100000, 1, 3);
  EXPECT_EQ(label_frame(s, 0).components.size(), 100000u);
}

}  // namespace
}  // namespace ccl::tracking_test
