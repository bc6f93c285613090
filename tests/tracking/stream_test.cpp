// The tracker as a stream: determinism, order of the input, resets, options, and a
// guard against cost that grows faster than N log N.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include "ccl/reference.h"
#include "tracking_support.h"

namespace ccl::tracking_test {
namespace {

using namespace ccl::test;

// Scenes with every kind of event, so that ties in splits and merges are exercised too.
std::vector<Scene> event_scenes() {
  return {random_walkers_scene(640, 480, 200, 20, 11), crossing_scene(), split_scene(),
          merge_resplit_scene(), vanish_scene(3)};
}

TEST(TrackingStream, SameSequenceSameTracks) {
  for (const Scene& scene : event_scenes()) {
    const auto frames = label_scene(scene);
    Tracker a, b;
    const Tracks first = track_scene(a, scene, frames);
    const Tracks second = track_scene(b, scene, frames);
    for (size_t t = 0; t < frames.size(); ++t) {
      ASSERT_EQ(first[t].size(), second[t].size());
      for (size_t i = 0; i < first[t].size(); ++i)
        ASSERT_TRUE(same(first[t][i], second[t][i]))
            << scene.name << " frame " << t << " component " << i << ": "
            << describe(first[t][i]) << " vs " << describe(second[t][i]);
    }
  }
}

TEST(TrackingStream, InputOrderDoesNotChangeTheIds) {
  std::mt19937 gen(5);
  for (const Scene& scene : event_scenes()) {
    const auto frames = label_scene(scene);
    Tracker plain;
    const Tracks expected = track_scene(plain, scene, frames);
    Tracker shuffled_tracker;
    std::vector<TrackInfo> out;
    for (size_t t = 0; t < frames.size(); ++t) {
      const auto& components = frames[t].components;
      std::vector<const Component*> order(components.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = &components[i];
      std::shuffle(order.begin(), order.end(), gen);
      shuffled_tracker.update(scene.width, scene.height, order.data(), order.size(), out);
      ASSERT_EQ(out.size(), order.size());
      for (size_t i = 0; i < order.size(); ++i) {
        const size_t index = order[i]->label - 1;  // components[k].label == k + 1
        const TrackInfo& want = expected[t][index];
        ASSERT_EQ(out[i].id, want.id) << scene.name << " frame " << t << " label " << order[i]->label;
        ASSERT_EQ(out[i].parent_id, want.parent_id) << scene.name << " frame " << t;
        ASSERT_EQ(out[i].age, want.age) << scene.name << " frame " << t;
        ASSERT_EQ(out[i].frames_unseen, want.frames_unseen) << scene.name << " frame " << t;
      }
    }
  }
}

uint64_t max_id(const std::vector<TrackInfo>& out) {
  uint64_t m = 0;
  for (const TrackInfo& i : out) m = std::max(m, i.id);
  return m;
}

// Feeds frames [0, count) and returns the highest id handed out.
uint64_t feed(Tracker& tracker, const Scene& scene, const std::vector<LabeledFrame>& frames,
              size_t count, std::vector<TrackInfo>& out) {
  uint64_t highest = 0;
  for (size_t t = 0; t < count; ++t) {
    tracker.update(scene.width, scene.height, frames[t].components, out);
    highest = std::max(highest, max_id(out));
  }
  return highest;
}

TEST(TrackingStream, ResetNeverReusesIds) {
  const Scene scene = parallel_scene();
  const auto frames = label_scene(scene);
  Tracker tracker;
  std::vector<TrackInfo> out;
  uint64_t highest = feed(tracker, scene, frames, 5, out);
  EXPECT_EQ(tracker.frames(), 5u);
  for (int round = 0; round < 3; ++round) {
    tracker.reset();
    EXPECT_EQ(tracker.frames(), 0u);
    EXPECT_EQ(tracker.live_tracks(), 0u);
    tracker.update(scene.width, scene.height, frames[5].components, out);
    ASSERT_EQ(out.size(), 2u);
    for (const TrackInfo& i : out) {
      EXPECT_GT(i.id, highest) << "round " << round;
      EXPECT_EQ(i.age, 1u);
      EXPECT_EQ(i.parent_id, 0u);
    }
    EXPECT_NE(out[0].id, out[1].id);
    highest = std::max(highest, max_id(out));
  }
}

TEST(TrackingStream, ResetIdsStartsAtOne) {
  const Scene scene = parallel_scene();
  const auto frames = label_scene(scene);
  Tracker tracker;
  std::vector<TrackInfo> out;
  tracker.update(scene.width, scene.height, frames[0].components, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::min(out[0].id, out[1].id), 1u) << "a fresh tracker starts at 1";
  for (size_t t = 1; t < 4; ++t) tracker.update(scene.width, scene.height, frames[t].components, out);
  tracker.reset_ids();
  EXPECT_EQ(tracker.frames(), 0u);
  tracker.update(scene.width, scene.height, frames[4].components, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::set<uint64_t>({out[0].id, out[1].id}), std::set<uint64_t>({1, 2}));
}

// A size change is a reset(): new tracks (ids still counting up) and frames() from 1.
TEST(TrackingStream, FrameSizeChangeStartsAfresh) {
  const Scene scene = parallel_scene();
  const auto frames = label_scene(scene);
  Tracker tracker;
  std::vector<TrackInfo> out;
  const uint64_t highest = feed(tracker, scene, frames, 5, out);
  // The same components, reported for a frame one pixel wider.
  tracker.update(scene.width + 1, scene.height, frames[5].components, out);
  EXPECT_EQ(tracker.frames(), 1u);
  EXPECT_EQ(tracker.live_tracks(), 2u) << "the old tracks are gone";
  EXPECT_EQ(tracker.lost_tracks(), 0u);
  ASSERT_EQ(out.size(), 2u);
  for (const TrackInfo& i : out) {
    EXPECT_GT(i.id, highest);
    EXPECT_EQ(i.age, 1u);
  }
  // And the new size is followed from there on.
  const uint64_t a = out[0].id, b = out[1].id;
  tracker.update(scene.width + 1, scene.height, frames[6].components, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, a);
  EXPECT_EQ(out[1].id, b);
  EXPECT_EQ(tracker.frames(), 2u);
}

TEST(TrackingStream, Options) {
  Tracker tracker;
  EXPECT_EQ(tracker.options().max_lost, TrackerOptions{}.max_lost);
  TrackerOptions o;
  o.max_lost = 3;
  o.trail_length = 7;
  tracker.set_options(o);
  EXPECT_EQ(tracker.options().max_lost, 3);
  EXPECT_EQ(tracker.options().trail_length, 7);
  TrackerOptions bad = o;
  bad.max_lost = -1;
  EXPECT_THROW(tracker.set_options(bad), Error);
  bad = o;
  bad.trail_length = -1;
  EXPECT_THROW(tracker.set_options(bad), Error);
  EXPECT_EQ(tracker.options().max_lost, 3) << "a refused change leaves the options alone";
  std::vector<TrackInfo> out = {TrackInfo{}};
  tracker.update(64, 64, std::vector<Component>{}, out);
  EXPECT_TRUE(out.empty());
}

// Noise frames (every pixel random: one giant component and a thousand specks, new
// ones each frame): the busiest input for splits and merges (at 1920x1080 such frames
// once found a track reference left dangling by the table's growth). Every component
// gets a track, ids stay unique within a frame, and tracks seen once end at their
// first miss instead of piling up.
TEST(TrackingStream, NoiseFrames) {
  constexpr int kW = 640, kH = 480;
  std::mt19937 gen(5);
  Tracker tracker;
  std::vector<TrackInfo> out;
  for (int t = 0; t < 12; ++t) {
    GrayImage noise{"noise", kW, kH, std::vector<uint8_t>(size_t(kW) * kH)};
    for (uint8_t& p : noise.pixels) p = uint8_t(gen() & 0xFF);
    const Frame frame = make_frame(noise, PixelFormat::Gray8);
    Result r;
    reference_label(frame.view, Options{}, r);
    ASSERT_GT(r.components.size(), 1000u);
    tracker.update(kW, kH, r.components, out);
    ASSERT_EQ(out.size(), r.components.size()) << "frame " << t;
    std::vector<uint64_t> ids(out.size());
    for (size_t i = 0; i < out.size(); ++i) ids[i] = out[i].id;
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "frame " << t;
    EXPECT_EQ(ids.front() == 0, false) << "frame " << t;
    // Live tracks: this frame's, plus lost ones that had been seen twice or more.
    EXPECT_LT(tracker.live_tracks(), 3 * r.components.size()) << "frame " << t;
  }
}

// Not a speed measurement (bench/track_bench is): a loose bound that quadratic
// matching of 100,000 components could not meet.
// Frame 1 is the one to watch: 100,000 new tracks, whose gates would hold hundreds of
// components each if they did not shrink with the spacing of the components.
TEST(TrackingStream, HundredThousandComponents) {
  constexpr int kCount = 100000;
  const Scene scene = many_components_scene(1920, 1080, kCount, 3, 9);
  const auto frames = label_scene(scene);
  Tracker tracker;
  std::vector<TrackInfo> out;
  for (size_t t = 0; t < frames.size(); ++t) {
    ASSERT_EQ(frames[t].components.size(), size_t(kCount));
    const auto start = std::chrono::steady_clock::now();
    tracker.update(scene.width, scene.height, frames[t].components, out);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 2.0) << "frame " << t;
    ASSERT_EQ(out.size(), size_t(kCount));
    std::vector<uint64_t> ids(out.size());
    for (size_t i = 0; i < out.size(); ++i) ids[i] = out[i].id;
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "frame " << t;
  }
}

}  // namespace
}  // namespace ccl::tracking_test
