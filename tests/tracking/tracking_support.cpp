#include "tracking_support.h"

#include <map>
#include <sstream>

namespace ccl::tracking_test {

namespace {

constexpr int kDetailsKept = 10;

void note(Identities& r, int* count, const std::string& what) {
  if (r.switches + r.shared < kDetailsKept) r.details += what + "\n";
  ++*count;
}

}  // namespace

Tracks track_scene(Tracker& tracker, const Scene& scene, const std::vector<LabeledFrame>& frames) {
  Tracks tracks(frames.size());
  for (size_t t = 0; t < frames.size(); ++t)
    tracker.update(scene.width, scene.height, frames[t].components, tracks[t]);
  return tracks;
}

const TrackInfo* track_of(const std::vector<LabeledFrame>& frames, const Tracks& tracks,
                          size_t t, int object) {
  const int c = frames[t].component_of[size_t(object)];
  return c < 0 ? nullptr : &tracks[t][size_t(c)];
}

uint64_t id_of(const std::vector<LabeledFrame>& frames, const Tracks& tracks, size_t t,
               int object) {
  const TrackInfo* info = track_of(frames, tracks, t, object);
  return info ? info->id : 0;
}

Identities judge(const std::vector<LabeledFrame>& frames, const Tracks& tracks) {
  Identities r;
  std::map<uint64_t, int> owner;  // id -> the object first seen alone under it
  for (size_t t = 0; t < frames.size(); ++t) {
    const LabeledFrame& f = frames[t];
    std::map<uint64_t, size_t> in_frame;
    for (size_t c = 0; c < tracks[t].size(); ++c) {
      const uint64_t id = tracks[t][c].id;
      r.ids.insert(id);
      auto [it, fresh] = in_frame.emplace(id, c);
      if (!fresh)
        note(r, &r.shared,
             "frame " + std::to_string(t) + ": components " + std::to_string(it->second) +
                 " and " + std::to_string(c) + " both carry id " + std::to_string(id));
    }
    for (int o = 0; o < int(f.component_of.size()); ++o) {
      if (!f.alone(o)) continue;
      const uint64_t id = id_of(frames, tracks, t, o);
      if (t > 0 && frames[t - 1].alone(o)) {
        const uint64_t before = id_of(frames, tracks, t - 1, o);
        if (before != id)
          note(r, &r.switches,
               "frame " + std::to_string(t) + ": object " + std::to_string(o) + " id " +
                   std::to_string(before) + " -> " + std::to_string(id));
      }
      auto [it, fresh] = owner.emplace(id, o);
      if (!fresh && it->second != o)
        note(r, &r.shared,
             "frame " + std::to_string(t) + ": object " + std::to_string(o) + " carries id " +
                 std::to_string(id) + " of object " + std::to_string(it->second));
    }
  }
  return r;
}

std::vector<size_t> merged_frames(const std::vector<LabeledFrame>& frames, int a, int b) {
  std::vector<size_t> out;
  for (size_t t = 0; t < frames.size(); ++t) {
    const int ca = frames[t].component_of[size_t(a)];
    if (ca >= 0 && ca == frames[t].component_of[size_t(b)]) out.push_back(t);
  }
  return out;
}

bool same(const TrackInfo& a, const TrackInfo& b) {
  return a.id == b.id && a.parent_id == b.parent_id && a.age == b.age &&
         a.frames_unseen == b.frames_unseen && a.velocity_x == b.velocity_x &&
         a.velocity_y == b.velocity_y && a.predicted_x == b.predicted_x &&
         a.predicted_y == b.predicted_y && a.predicted_width == b.predicted_width &&
         a.predicted_height == b.predicted_height;
}

std::string describe(const TrackInfo& t) {
  std::ostringstream s;
  s << "{id " << t.id << ", parent " << t.parent_id << ", age " << t.age << ", unseen "
    << t.frames_unseen << ", v (" << t.velocity_x << ", " << t.velocity_y << "), predicted "
    << t.predicted_x << "," << t.predicted_y << " " << t.predicted_width << "x"
    << t.predicted_height << "}";
  return s.str();
}

}  // namespace ccl::tracking_test
