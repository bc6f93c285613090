// The tracker on scenes whose ground truth is known: every count below is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tracking_support.h"

namespace ccl::tracking_test {
namespace {

using namespace ccl::test;

struct SceneRun {
  Scene scene;
  std::vector<LabeledFrame> frames;
  Tracks tracks;

  SceneRun(Scene s, const TrackerOptions& options = {}) : scene(std::move(s)) {
    frames = label_scene(scene);
    Tracker tracker(options);
    tracks = track_scene(tracker, scene, frames);
  }
  uint64_t id(size_t t, int object) const { return id_of(frames, tracks, t, object); }
  const TrackInfo& info(size_t t, int object) const {
    const TrackInfo* i = track_of(frames, tracks, t, object);
    if (!i) throw std::logic_error("object not drawn");
    return *i;
  }
  uint64_t max_id_before(size_t t) const {
    uint64_t m = 0;
    for (size_t u = 0; u < t; ++u)
      for (const TrackInfo& i : tracks[u]) m = std::max(m, i.id);
    return m;
  }
};

bool boxes_overlap(int ax, int ay, int aw, int ah, int bx, int by, int bw, int bh) {
  return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

TEST(Tracking, ParallelPathsKeepTheirIds) {
  const SceneRun run(parallel_scene());
  const Identities r = judge(run.frames, run.tracks);
  EXPECT_EQ(r.switches, 0) << r.details;
  EXPECT_EQ(r.shared, 0) << r.details;
  EXPECT_EQ(r.ids.size(), 2u);
}

TEST(Tracking, CrossingPathsGetTheirIdsBack) {
  const SceneRun run(crossing_scene());
  const auto merged = merged_frames(run.frames, 0, 1);
  ASSERT_FALSE(merged.empty());
  const size_t before = merged.front() - 1;
  const std::set<uint64_t> ids_before = {run.id(before, 0), run.id(before, 1)};
  ASSERT_EQ(ids_before.size(), 2u);
  for (size_t t = merged.back() + 1; t < run.frames.size(); ++t) {
    const std::set<uint64_t> ids = {run.id(t, 0), run.id(t, 1)};
    EXPECT_EQ(ids, ids_before) << "frame " << t << " (merged in frames " << merged.front()
                               << ".." << merged.back() << ")";
  }
  for (size_t t : merged) EXPECT_EQ(run.tracks[t].size(), 1u);
  const Identities r = judge(run.frames, run.tracks);
  EXPECT_EQ(r.switches, 0) << r.details;
  EXPECT_EQ(r.shared, 0) << r.details;
  EXPECT_EQ(r.ids.size(), 2u);
}

TEST(Tracking, FasterThanItsOwnSize) {
  const SceneRun run(fast_disc_scene());
  const Identities r = judge(run.frames, run.tracks);
  EXPECT_EQ(r.ids.size(), 1u) << r.details;
  EXPECT_EQ(r.switches, 0) << r.details;
  for (size_t t = 0; t < run.frames.size(); ++t) {
    const TrackInfo& i = run.info(t, 0);
    EXPECT_EQ(i.age, t + 1);
    EXPECT_EQ(i.frames_unseen, 0u);
    // "After 3 frames": three displacements seen.
    if (t >= 3) {
      EXPECT_NEAR(i.velocity_x, kFastDiscSpeed, 1.0) << "frame " << t << " " << describe(i);
      EXPECT_NEAR(i.velocity_y, 0.0, 1.0) << "frame " << t << " " << describe(i);
    }
    // The prediction must land on the next position once the motion has been seen
    // twice; the disc never overlaps its own previous box.
    if (t >= 2 && t + 1 < run.frames.size()) {
      const Component& next = run.frames[t + 1].components[0];
      EXPECT_TRUE(boxes_overlap(i.predicted_x, i.predicted_y, i.predicted_width,
                                i.predicted_height, next.x, next.y, next.width, next.height))
          << "frame " << t << " " << describe(i) << " next box " << next.x << "," << next.y
          << " " << next.width << "x" << next.height;
    }
  }
}

TEST(Tracking, SplitLargerPartKeepsTheId) {
  const SceneRun run(split_scene());
  const auto merged = merged_frames(run.frames, 0, 1);
  ASSERT_FALSE(merged.empty());
  const uint64_t original = run.id(0, 0);
  for (size_t t : merged) {
    EXPECT_EQ(run.id(t, 0), original) << "frame " << t;
    EXPECT_EQ(run.info(t, 0).parent_id, 0u) << "frame " << t;
  }
  const size_t split = merged.back() + 1;
  const uint64_t earlier_max = run.max_id_before(split);
  const uint64_t fresh = run.id(split, 1);
  EXPECT_GT(fresh, earlier_max) << "the smaller part starts a new track";
  for (size_t t = split; t < run.frames.size(); ++t) {
    EXPECT_EQ(run.id(t, 0), original) << "frame " << t;
    EXPECT_EQ(run.id(t, 1), fresh) << "frame " << t;
    EXPECT_EQ(run.info(t, 1).parent_id, original) << "frame " << t;
    EXPECT_EQ(run.info(t, 0).parent_id, 0u) << "frame " << t;
  }
  EXPECT_EQ(run.info(split, 1).age, 1u);
  const Identities r = judge(run.frames, run.tracks);
  EXPECT_EQ(r.switches, 0) << r.details;
  EXPECT_EQ(r.shared, 0) << r.details;
  EXPECT_EQ(r.ids.size(), 2u);
}

TEST(Tracking, MergeAndResplitRestoresBothIds) {
  const Scene scene = merge_resplit_scene();
  const auto frames = label_scene(scene);
  const auto merged = merged_frames(frames, 0, 1);
  ASSERT_FALSE(merged.empty());
  Tracker tracker;
  Tracks tracks(frames.size());
  for (size_t t = 0; t < frames.size(); ++t) {
    tracker.update(scene.width, scene.height, frames[t].components, tracks[t]);
    // The smaller track waits inside the merged one, lost but alive.
    if (t >= merged.front() && t <= merged.back()) {
      EXPECT_EQ(tracker.live_tracks(), 2u) << "frame " << t;
      EXPECT_EQ(tracker.lost_tracks(), 1u) << "frame " << t;
    }
  }
  const size_t before = merged.front() - 1;
  const uint64_t large = id_of(frames, tracks, before, 0);
  const uint64_t small = id_of(frames, tracks, before, 1);
  ASSERT_NE(large, small);
  for (size_t t : merged) {
    ASSERT_EQ(tracks[t].size(), 1u) << "frame " << t;
    EXPECT_EQ(tracks[t][0].id, large) << "frame " << t << ": the merge keeps the larger id";
  }
  for (size_t t = merged.back() + 1; t < frames.size(); ++t) {
    EXPECT_EQ(id_of(frames, tracks, t, 0), large) << "frame " << t;
    EXPECT_EQ(id_of(frames, tracks, t, 1), small) << "frame " << t;
  }
  const Identities r = judge(frames, tracks);
  EXPECT_EQ(r.switches, 0) << r.details;
  EXPECT_EQ(r.shared, 0) << r.details;
  EXPECT_EQ(r.ids.size(), 2u);
}

// The disc is hidden for k frames; max_lost decides whether it comes back as itself.
struct Vanish {
  int hidden, max_lost;
  bool keeps_id;
};

class VanishAndReappear : public testing::TestWithParam<Vanish> {};

TEST_P(VanishAndReappear, IdAsTheLostLimitSays) {
  const Vanish v = GetParam();
  const Scene scene = vanish_scene(v.hidden);
  const auto frames = label_scene(scene);
  TrackerOptions options;
  options.max_lost = v.max_lost;
  Tracker tracker(options);
  Tracks tracks(frames.size());
  for (size_t t = 0; t < frames.size(); ++t) {
    tracker.update(scene.width, scene.height, frames[t].components, tracks[t]);
    const bool hidden = int(t) >= kVanishFrame && int(t) < kVanishFrame + v.hidden;
    if (hidden) {
      const bool alive = int(t) - kVanishFrame + 1 <= v.max_lost;
      EXPECT_EQ(tracker.live_tracks(), alive ? 1u : 0u) << "frame " << t;
      EXPECT_EQ(tracker.lost_tracks(), alive ? 1u : 0u) << "frame " << t;
    }
  }
  const uint64_t first = tracks[0][0].id;
  const size_t back = size_t(kVanishFrame + v.hidden);
  const TrackInfo& again = tracks[back][0];
  if (v.keeps_id) {
    EXPECT_EQ(again.id, first) << describe(again);
    EXPECT_EQ(again.frames_unseen, uint32_t(v.hidden)) << describe(again);
    EXPECT_EQ(again.age, back + 1) << describe(again);
  } else {
    EXPECT_GT(again.id, first) << describe(again);
    EXPECT_EQ(again.age, 1u) << describe(again);
    EXPECT_EQ(again.frames_unseen, 0u) << describe(again);
    EXPECT_EQ(again.parent_id, 0u) << describe(again);
  }
  // Before and after the gap the disc is followed frame to frame.
  const Identities r = judge(frames, tracks);
  EXPECT_EQ(r.switches, 0) << r.details;
  EXPECT_EQ(r.ids.size(), v.keeps_id ? 1u : 2u);
}

std::string vanish_name(const testing::TestParamInfo<Vanish>& info) {
  return "hidden" + std::to_string(info.param.hidden) + "_maxlost" +
         std::to_string(info.param.max_lost);
}

INSTANTIATE_TEST_SUITE_P(Tracking, VanishAndReappear,
                         testing::Values(Vanish{1, 15, true}, Vanish{3, 15, true},
                                         Vanish{3, 3, true}, Vanish{4, 3, false},
                                         Vanish{15, 15, true}, Vanish{16, 15, false},
                                         Vanish{0, 0, true}, Vanish{1, 0, false},
                                         Vanish{1, 1, true}),
                         vanish_name);

TEST(Tracking, ThousandRandomWalkers) {
  const SceneRun run(random_walkers_scene(1920, 1080, 1000, 30, 20240611));
  const Identities r = judge(run.frames, run.tracks);
  EXPECT_EQ(r.switches, 0) << r.details;
  EXPECT_EQ(r.shared, 0) << r.details;
  EXPECT_EQ(r.ids.size(), 1000u);
}

TEST(Tracking, TrailFollowsTheCentroid) {
  TrackerOptions options;
  options.trail_length = 4;
  const Scene scene = fast_disc_scene();
  const auto frames = label_scene(scene);
  Tracker tracker(options);
  std::vector<TrackInfo> out;
  std::vector<TrailPoint> trail;
  for (size_t t = 0; t < frames.size(); ++t) {
    tracker.update(scene.width, scene.height, frames[t].components, out);
    tracker.trail(0, trail);
    ASSERT_EQ(trail.size(), std::min<size_t>(t + 1, 4)) << "frame " << t;
    const Component& c = frames[t].components[0];
    EXPECT_EQ(trail.back().x, std::lround(c.centroid_x()));
    EXPECT_EQ(trail.back().y, std::lround(c.centroid_y()));
    for (size_t i = 1; i < trail.size(); ++i) EXPECT_EQ(trail[i].x - trail[i - 1].x, kFastDiscSpeed);
  }
  tracker.set_options(TrackerOptions{});
  tracker.update(scene.width, scene.height, frames[0].components, out);
  tracker.trail(0, trail);
  EXPECT_TRUE(trail.empty()) << "trail_length 0 keeps no trail";
}

}  // namespace
}  // namespace ccl::tracking_test
