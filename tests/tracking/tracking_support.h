// Running the tracker over a labeled scene and judging its ids against the ground truth.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ccl/tracker.h"
#include "scenes.h"

namespace ccl::tracking_test {

using test::LabeledFrame;
using test::Scene;

/// tracks[t][i]: the track the tracker gave component i of frame t.
using Tracks = std::vector<std::vector<TrackInfo>>;

/// Feeds every frame to `tracker` in order.
Tracks track_scene(Tracker& tracker, const Scene& scene, const std::vector<LabeledFrame>& frames);

/// The track of the component holding `object` in frame t; nullptr when not drawn.
const TrackInfo* track_of(const std::vector<LabeledFrame>& frames, const Tracks& tracks,
                          size_t t, int object);
/// Its id, 0 when not drawn.
uint64_t id_of(const std::vector<LabeledFrame>& frames, const Tracks& tracks, size_t t,
               int object);

/// Identity errors against the ground truth.
struct Identities {
  /// An object alone in two consecutive frames under two different ids.
  int switches = 0;
  /// Two components of one frame under one id, or an object alone under an id that
  /// another object carried alone before.
  int shared = 0;
  /// Every id handed to any component in any frame.
  std::set<uint64_t> ids;
  /// The first few errors, for the failure message.
  std::string details;
};
Identities judge(const std::vector<LabeledFrame>& frames, const Tracks& tracks);

/// Frames in which the two objects share one component.
std::vector<size_t> merged_frames(const std::vector<LabeledFrame>& frames, int a, int b);

/// Field by field, doubles compared exactly.
bool same(const TrackInfo& a, const TrackInfo& b);
std::string describe(const TrackInfo& t);

}  // namespace ccl::tracking_test
