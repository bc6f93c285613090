// cudaccl engine: the tracker's pairing on a CUDA device.
//
// ccl::Tracker pairs each searching track with the components its gate meets through
// a grid of the frame's components; with many components that search is most of the
// tracker's time. A TrackSearch runs it on the device: it builds the same grid there
// (cells of the size the host picks, components in label order within a cell), and
// visits every gate's candidates in the order the host's grid finds them, with the
// pair costs computed as the host computes them (IEEE double, no fused operations),
// keeping each gate's cheapest, which are the pairs the host would keep.
// The tracker then goes on on the host exactly as without it, so the ids, and every
// other field of every track, are those Tracker::update gives without a device.
//
//   ccl::Tracker tracker;
//   ccl::cuda::TrackSearch search(stream);
//   search.use_device_table(device_components, n);  // or let update() upload the table
//   tracker.update(width, height, table, search, tracks);
//
// Limits:
//  - one search per tracker and stream, not thread safe (like ccl::cuda::Engine);
//  - a frame holding a component larger than a grid cell whose box lies wholly outside
//    the frame (which a labeled frame never does) is searched on the host;
//  - update() waits for the device once per frame; the device work is a handful of
//    kernels, a radix sort and copies of about 80 bytes per searching track up and at
//    most 8 candidates of 16 bytes per track down;
//  - a frame where a cut track's pairs must be put back in the host's order before a
//    swap (rare) also builds the host's grid;
//  - in builds without CUDA the constructor throws ccl::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ccl/types.h"

typedef struct CUstream_st* cudaStream_t;

namespace ccl::tracking {
struct Probe;
struct SearchRequest;
struct SearchAnswer;
}  // namespace ccl::tracking

namespace ccl::cuda {

class TrackSearch {
 public:
  /// Works on `stream` of the current device (null: the legacy default stream).
  explicit TrackSearch(cudaStream_t stream = nullptr);
  ~TrackSearch();
  TrackSearch(const TrackSearch&) = delete;
  TrackSearch& operator=(const TrackSearch&) = delete;

  /// The next update()'s components already on the device (`count` Components in the
  /// order of the host table given to update(), e.g. uploaded by the caller); read on
  /// the search's stream, so they must be ready there. Good for one update.
  void use_device_table(const Component* device_components, uint32_t count);
  /// Copies a host table to the device for the next update() (what update() does
  /// itself when the table is not there yet). Waits for the copy.
  void upload(TableView table);

  /// Device time of the last search: from its first copy up to its last, by events.
  float last_device_ms() const;
  /// Host time the last search spent waiting for the device.
  double last_wait_ms() const;
  /// Candidates the last search returned (before each track is cut to its cheapest).
  size_t last_candidates() const;

  /// The tracker's side (kernels/src/tracker_search.h): room for `count` probes in
  /// memory the device copies from, then the search of the first request.probes.
  tracking::Probe* probe_buffer(size_t count);
  void find(const tracking::SearchRequest& request, tracking::SearchAnswer& answer);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ccl::cuda
