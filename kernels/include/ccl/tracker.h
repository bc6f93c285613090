// cudaccl engine: identities of components across the frames of one stream.
//
// The tracker is fed, frame after frame, the components a frame reports and gives each
// one a track: a 64-bit id that is unique within the stream, never reused and
// deterministic (it depends only on the sequence of component tables fed, so the same
// frames and settings give the same ids on every run, backend and algorithm).
//
// How a component finds its track (docs/TRACKING.md has the full account):
//  - every track predicts where it will be (constant velocity, smoothed), so objects
//    faster than their own size per frame are followed, not only overlapping ones;
//  - components and predicted boxes are paired through a uniform grid, and pairs are
//    matched one to one, cheapest first (distance to the prediction over the track's
//    gate, change of area, frames unseen), so the cost grows as N log N at worst;
//  - a track missed for up to `max_lost` frames keeps its id and comes back under it
//    (a track seen in one frame only ends at its first miss: most likely noise);
//  - split: a track whose predicted box holds several components keeps its id on the
//    largest part; the others start new tracks recording it as their parent;
//  - merge: a component that takes in several tracks keeps the id of the one that was
//    largest; the others are lost (merged into it) and take their ids back when the
//    merged component splits again within the lost limit;
//  - a change of frame size starts afresh (reset()).
//
// The tracker runs on the host and costs no GPU time; with many components its pairing
// can run on a CUDA device instead (ccl/track_search.h), with the same result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ccl/types.h"

namespace ccl {

namespace cuda {
class TrackSearch;  // ccl/track_search.h
}

struct TrackerOptions {
  /// Frames a track may go unseen and still take its id back (0: a track ends on its
  /// first miss).
  int max_lost = 15;
  /// Centroids remembered per track for drawing its trail (0: none).
  int trail_length = 0;
};

/// The track of one reported component, as of the frame it was reported in.
struct TrackInfo {
  uint64_t id = 0;         ///< 1, 2, ... in order of birth; never reused in a stream
  uint64_t parent_id = 0;  ///< the track this one split off from, 0 when none
  uint32_t age = 0;        ///< frames since the track began, this one included (1 when new)
  uint32_t frames_unseen = 0;  ///< frames missed right before this one (0: seen in the previous)
  double velocity_x = 0, velocity_y = 0;  ///< smoothed, pixels per frame
  /// Bounding box expected in the next frame (this frame's box moved by the velocity).
  int32_t predicted_x = 0, predicted_y = 0, predicted_width = 0, predicted_height = 0;
};

/// A centroid of a track's trail, rounded to a pixel.
struct TrailPoint {
  int32_t x = 0, y = 0;
};

class Tracker {
 public:
  explicit Tracker(const TrackerOptions& options = {});
  ~Tracker();
  Tracker(Tracker&&) noexcept;
  Tracker& operator=(Tracker&&) noexcept;
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;

  /// Ends every track; the next id handed out stays above every id given before, so
  /// ids are never reused within the stream (reset_ids() starts a new stream at 1).
  void reset();
  /// reset(), and ids start again at 1: a new stream.
  void reset_ids();

  /// Takes effect from the next update(). Throws ccl::Error on negative values.
  void set_options(const TrackerOptions& options);
  const TrackerOptions& options() const;

  /// Gives a track to each of this frame's reported components: out[i] is the track
  /// of *components[i]. width x height is the frame's size; a size other than the
  /// previous frame's starts the stream afresh (reset()). The order of `components`
  /// does not change the ids (ties are broken by label).
  void update(int width, int height, const Component* const* components, size_t n,
              std::vector<TrackInfo>& out);
  void update(int width, int height, TableView components, std::vector<TrackInfo>& out);
  /// The same, with the gates' search for components run by `search` on its device:
  /// the same tracks, field for field, as update() without it.
  void update(int width, int height, TableView components, cuda::TrackSearch& search,
              std::vector<TrackInfo>& out);
  void update(int width, int height, const std::vector<Component>& components,
              std::vector<TrackInfo>& out) {
    update(width, height, TableView{components.data(), uint32_t(components.size())}, out);
  }

  /// The trail of the i-th component of the last update(), oldest point first (its
  /// last point is this frame's centroid); empty when trail_length is 0.
  void trail(size_t i, std::vector<TrailPoint>& out) const;

  /// Tracks alive: seen in the last frame, or lost for at most max_lost frames.
  size_t live_tracks() const;
  /// Of those, the ones not seen in the last frame (merged ones included).
  size_t lost_tracks() const;
  /// Frames fed since the last reset.
  uint64_t frames() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ccl
