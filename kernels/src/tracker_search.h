// What the tracker's pairing hands to a search run elsewhere (ccl::cuda::TrackSearch,
// kernels/cuda/track_search.cu) and what it gets back: plain records that the host
// code and the device code both compile, so that a probe the host made is read
// bit for bit on the device and a candidate the device wrote is the host's own.
//
// The contract of an answer: probe k's gate meets all[k] components (its candidates:
// every component whose box meets the gate); candidates [first[k], first[k + 1]) are
// its kMaxPairsPerTrack cheapest (cost, then label), each with the cost pair_cost()
// gives, rounded as the host rounds it. When there are no more than that, they are in
// the order the host's grid finds them (tracker_pairing.cpp: cells row by row over
// the gate's span, within a cell by component in label order, a component listed in
// several cells at its first find only, then the components too wide for the grid in
// label order); otherwise in any order, as the host's own cut leaves them in an order
// nothing reads before restore_order() regathers them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ccl {
struct Component;
}

namespace ccl::tracking {

// What the pairing reads of a track that searches this frame.
struct Probe {
  double px, py;       // predicted centroid
  double inv_scale;    // 1 / the unwidened margin: distances are costed in it
  double area;         // last seen area
  double unseen_cost;  // kUnseenWeight per missed frame
  // The gate (predicted box grown by the widened margin) rounded outwards: boxes
  // have integer edges, so this changes no answer and keeps the test in integers.
  int32_t gx0, gy0, gx1, gy1;
  int32_t span[4];  // the grid cells to look in
  bool in_grid;     // false: no cell to look in
};

// A pair of one track being looked at, with what ordering its pairs needs.
struct Candidate {
  double cost;
  int32_t det;  // the component's place in label order
  uint32_t label;
};

// The frame's grid as the host planned it (Tracker::Impl::plan_grid).
struct GridPlan {
  int32_t width, height;
  int32_t cell, grid_w, grid_h;
  double inv_cell;
  // Grid entries: one per small component, one per cell of a big one, one per wide
  // one (the device lists wide components after the last cell).
  uint64_t listings;
};

struct SearchRequest {
  // The frame's components in the caller's order (host memory; the device copy, when
  // the caller gave one, is the search's business).
  const Component* components;
  uint32_t count;
  // dets[k] is components[order[k]]; null when the table is in label order.
  const uint32_t* order;
  GridPlan grid;
  // The probes, written by the tracker into the search's probe_buffer().
  uint32_t probes;
};

struct SearchAnswer {
  const uint32_t* all = nullptr;    // probes counts
  const uint32_t* first = nullptr;  // probes + 1 offsets
  const Candidate* candidates = nullptr;
};

}  // namespace ccl::tracking
