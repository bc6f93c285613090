// The tracker of tracker.h: the public class, and update(), which runs these stages
// over the frame's components (taken in label order, so that the input order never
// matters). Each stage has its own file; the state they share is Tracker::Impl, in
// tracker_state.h.
//
//  1. predict (tracker_predict.cpp): every live track that is not merged into another
//     moves by its smoothed velocity times the frames since it was seen; its gate is
//     its predicted box grown by a margin that widens with speed, size, newness and
//     frames unseen;
//  2. pair (tracker_pairing.cpp): components go into a uniform grid by bounding box;
//     each gate collects the components whose boxes it meets, each pair with a cost;
//  3. match (tracker_matching.cpp) one to one, cheapest pair first (pairs that are
//     each other's best go at once; only the contested rest is sorted);
//  4. split (tracker_splits.cpp): an unmatched component inside the predicted box of
//     a matched track joins that track's group; the largest part keeps the id, or,
//     when tracks merged into it are waiting, each part goes to the track whose own
//     motion and size predict it best; the other parts start new tracks with the
//     parent's id;
//  5. merge (tracker_splits.cpp): a track seen in the previous frame that found no
//     component, whose predicted box meets a matched component grown by about its
//     area, merged into it; the component keeps the id of the group's largest track,
//     the others wait merged in it (lost), remembering their own motion;
//  6. here: the rest of the components start new tracks; each component's track is
//     updated (observe) and reported; tracks unseen for more than max_lost frames end.
//
// Ties are broken by track id and component label everywhere, so the result depends
// only on the sequence of component tables.
#include "ccl/tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ccl/track_search.h"
#include "tracker_state.h"

namespace ccl {

using namespace tracking;

// The components of update(const Component* const*, ...), read as update(TableView)
// reads its table: the stages are written once for both, and a table needs no array
// of pointers built first.
struct PointedComponents {
  const Component* const* pointers;
  const Component& operator[](size_t i) const { return *pointers[i]; }
};

template <typename Input>
void Tracker::Impl::update(int w, int h, const Input& components, size_t n,
                           std::vector<TrackInfo>& out, cuda::TrackSearch* search) {
  if (w <= 0 || h <= 0) throw Error("tracker: frame size must be positive");
  if (w != width || h != height) {
    clear_tracks();
    frame = 0;
    width = w;
    height = h;
  }
  ++frame;
  take_input(components, n);
  resolve_merges();        // tracker_splits.cpp
  frame_margins();         // tracker_predict.cpp (make_probe is called by the pairing)
  GridPlan plan;
  found_frame = search && plan_grid(plan);  // tracker_found.cpp
  if (found_frame) {
    collect_found_pairs(*search, components, n, plan);  // tracker_found.cpp
  } else {
    // A device table given for this frame is spent all the same.
    if (search) search->use_device_table(nullptr, 0);
    build_grid();    // tracker_pairing.cpp
    collect_pairs();  // tracker_pairing.cpp
  }
  match_one_to_one();      // tracker_matching.cpp
  swap_crossed_matches();  // tracker_matching.cpp
  split_stage();           // tracker_splits.cpp
  merge_stage();           // tracker_splits.cpp
  for (size_t d = 0; d < dets.size(); ++d)
    if (det_track[d] < 0) new_track(int32_t(d), 0, 0.0, 0.0);
  finish(n, out);
}

inline void Tracker::Impl::take_component(Det& d, const Component& c) {
  d.label = c.label;
  d.area = double(c.area);
  d.cx = c.centroid_x();
  d.cy = c.centroid_y();
  // Through double, as the box's far edges are measured everywhere else.
  d.x0 = c.x;
  d.y0 = c.y;
  d.x1 = int32_t(double(c.x) + c.width);
  d.y1 = int32_t(double(c.y) + c.height);
}

// The components in label order. Tables come in that order nearly always: they are
// read once, in the order given, and only sorted and read again when they are not.
template <typename Input>
inline void Tracker::Impl::take_input(const Input& components, size_t n) {
  order.resize(n);
  dets.resize(n);
  bool sorted = true;
  for (size_t i = 0; i < n; ++i) {
    const Component& c = components[i];
    order[i] = uint32_t(i);
    if (i && c.label <= dets[i - 1].label) sorted = false;
    take_component(dets[i], c);
  }
  if (!sorted) {
    // (label, index) packed in one integer: the sort never follows a pointer.
    keyed.resize(n);
    for (size_t i = 0; i < n; ++i) keyed[i] = (uint64_t(components[i].label) << 32) | i;
    std::sort(keyed.begin(), keyed.end());
    for (size_t k = 0; k < n; ++k) {
      order[k] = uint32_t(keyed[k]);
      take_component(dets[k], components[order[k]]);
    }
  }
  in_label_order = sorted;
  det_track.assign(n, -1);
  det_cost.assign(n, std::numeric_limits<double>::quiet_NaN());
}

inline void Tracker::Impl::clear_tracks() {
  tracks.clear();
  history.clear();
  free_slots.clear();
  merged_count = 0;
  for (auto* v : {&match, &pair_first, &pair_end, &waiting_in, &merge_det}) v->clear();
  flags.clear();
  match_cost.clear();
  predicted.clear();
  hosts.clear();
}

// Track s seen as component d this frame; returns the frames it missed before.
inline uint32_t Tracker::Impl::observe(size_t s, const Det& d) {
  Track& t = tracks[s];
  // A host's own motion stays as it was: from before this frame.
  if (!hosting(s)) {
    t.own_current = true;
  } else if (t.own_current) {
    history[s].own = own_motion(s);
    t.own_current = false;
  }
  const bool born_now = has(s, kBornNow);
  const uint32_t frames_unseen = born_now ? 0 : uint32_t(frame - t.last_seen - 1);
  const double gap = double(frame - t.last_seen);
  if (!born_now && !has(s, kJumped) && gap > 0) {
    // x / 1.0 is x: the division only matters after missed frames.
    const double mx = gap == 1.0 ? d.cx - t.cx : (d.cx - t.cx) / gap;
    const double my = gap == 1.0 ? d.cy - t.cy : (d.cy - t.cy) / gap;
    const double ms = distance(mx, my);
    if (t.seen == 1 && t.parent == 0) {
      t.vx = mx;  // a new track's first measurement is its velocity
      t.vy = my;
      t.speed = ms;
    } else {
      t.vx += kVelocityGain * (mx - t.vx);
      t.vy += kVelocityGain * (my - t.vy);
      t.speed += kVelocityGain * (ms - t.speed);
    }
  }
  t.cx = d.cx;
  t.cy = d.cy;
  t.area = d.area;
  const int32_t w = d.x1 - d.x0, h = d.y1 - d.y0;
  if (w != t.w || h != t.h || t.seen == 0) t.size = std::sqrt(double(w) * double(h));
  t.x = d.x0;
  t.y = d.y0;
  t.w = w;
  t.h = h;
  t.last_seen = frame;
  ++t.seen;
  if (options.trail_length > 0) add_trail_point(history[s], d);
  return frames_unseen;
}

inline void Tracker::Impl::add_trail_point(History& hist, const Det& d) const {
  const size_t len = size_t(options.trail_length);
  if (hist.trail.size() != len) {
    hist.trail.assign(len, TrailPoint{});
    hist.trail_head = 0;
    hist.trail_count = 0;
  }
  hist.trail[hist.trail_head] = {round_to_int(d.cx), round_to_int(d.cy)};
  hist.trail_head = uint32_t((hist.trail_head + 1) % len);
  hist.trail_count = std::min<uint32_t>(hist.trail_count + 1, uint32_t(len));
}

inline void Tracker::Impl::finish(size_t n, std::vector<TrackInfo>& out) {
  out.resize(n);
  input_slot.resize(n);
  // Ending tracks below touches only unmatched ones, so each component's track can
  // be reported as soon as it is updated.
  // The tracks are in no particular order: each is asked for a few components ahead,
  // both cache lines of it, so that its update does not wait on memory.
  constexpr size_t kAhead = 8;
  for (size_t d = 0; d < dets.size(); ++d) {
    if (d + kAhead < dets.size()) {
      const char* ahead = reinterpret_cast<const char*>(&tracks[size_t(det_track[d + kAhead])]);
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + sizeof(Track) - 1);
    }
    const int32_t s = det_track[d];
    const uint32_t frames_unseen = observe(size_t(s), dets[d]);
    const Track& t = tracks[size_t(s)];
    TrackInfo& info = out[order[d]];
    input_slot[order[d]] = s;
    info.id = t.id;
    info.parent_id = t.parent;
    info.age = uint32_t(frame - t.born + 1);
    info.frames_unseen = frames_unseen;
    info.velocity_x = t.vx;
    info.velocity_y = t.vy;
    info.predicted_x = t.x + round_to_int(t.vx);
    info.predicted_y = t.y + round_to_int(t.vy);
    info.predicted_width = t.w;
    info.predicted_height = t.h;
  }
  // Tracks not seen for more than max_lost frames end.
  for (size_t s = 0; s < tracks.size(); ++s) {
    // match first: it is all that most slots need read.
    if (match[s] >= 0 || !tracks[s].alive) continue;
    const Track& t = tracks[s];
    // A track seen in one frame only ends at its first miss: it was most likely a
    // speck of noise, and kept it would only offer its id to the next one.
    const uint64_t limit = t.seen > 1 ? uint64_t(options.max_lost) : 0;
    if (frame - t.last_seen > limit) {
      tracks[s].alive = false;
      set_merged_into(s, -1);
      free_slots.push_back(int32_t(s));
    }
  }
}

Tracker::Tracker(const TrackerOptions& options) : impl_(std::make_unique<Impl>()) {
  set_options(options);
}
Tracker::~Tracker() = default;
Tracker::Tracker(Tracker&&) noexcept = default;
Tracker& Tracker::operator=(Tracker&&) noexcept = default;

void Tracker::reset() {
  impl_->clear_tracks();
  impl_->width = impl_->height = -1;
  impl_->frame = 0;
}

void Tracker::reset_ids() {
  reset();
  impl_->next_id = 1;
}

void Tracker::set_options(const TrackerOptions& options) {
  if (options.max_lost < 0 || options.trail_length < 0)
    throw Error("tracker: max_lost and trail_length must not be negative (got " +
                std::to_string(options.max_lost) + ", " + std::to_string(options.trail_length) +
                ")");
  impl_->options = options;
}

const TrackerOptions& Tracker::options() const { return impl_->options; }

void Tracker::update(int width, int height, const Component* const* components, size_t n,
                     std::vector<TrackInfo>& out) {
  impl_->update(width, height, PointedComponents{components}, n, out);
}

void Tracker::update(int width, int height, TableView components,
                     std::vector<TrackInfo>& out) {
  impl_->update(width, height, components.data, components.size, out);
}

void Tracker::update(int width, int height, TableView components, cuda::TrackSearch& search,
                     std::vector<TrackInfo>& out) {
  impl_->update(width, height, components.data, components.size, out, &search);
}

void Tracker::trail(size_t i, std::vector<TrailPoint>& out) const {
  out.clear();
  if (i >= impl_->input_slot.size()) return;
  const Impl::History& t = impl_->history[size_t(impl_->input_slot[i])];
  const size_t len = t.trail.size();
  for (uint32_t k = 0; k < t.trail_count; ++k)
    out.push_back(t.trail[(t.trail_head + len - t.trail_count + k) % len]);
}

size_t Tracker::live_tracks() const {
  size_t n = 0;
  for (const auto& t : impl_->tracks) n += t.alive;
  return n;
}

size_t Tracker::lost_tracks() const {
  size_t n = 0;
  for (const auto& t : impl_->tracks) n += t.alive && t.last_seen != impl_->frame;
  return n;
}

uint64_t Tracker::frames() const { return impl_->frame; }

}  // namespace ccl
