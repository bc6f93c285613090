// The tracker's private state (Tracker::Impl), shared by the files of its stages:
//
//   tracker.cpp           the public class; update() runs the stages in order, takes
//                         the input and reports each component's track
//   tracker_predict.cpp   where each track is expected and the gate it searches
//   tracker_pairing.cpp   the grid, and the pairs of gates and components
//   tracker_found.cpp     the pairs from candidates found on a device (track_search.h)
//   tracker_matching.cpp  one-to-one matching of the pairs, crossed matches swapped
//   tracker_splits.cpp    splits and merges, and the tracks waiting merged
//
// Besides the state, this header holds the tuning constants, the geometry helpers and
// the small operations that several stages perform on the state (link, new_track, ...).
//
// Why some members below are declared `inline` though defined in a stage's file: the
// library is built position-independent, and there GCC never inlines a function that
// is not inline (a shared library's function may be interposed), even into a caller
// in the same file. The hot helpers of a stage are therefore declared inline and
// defined in the one file that calls them, where they are inlined into their callers
// as when the tracker was one file. Such a member must only be called from its file.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ccl/tracker.h"
#include "tracker_search.h"

namespace ccl::tracking {

// Weight of a new velocity measurement in the smoothed velocity.
constexpr double kVelocityGain = 0.5;
// Gate margins in pixels: a track whose velocity is not known yet (seen once) looks
// this far around its box, since its object may move faster than its own size.
constexpr double kMinMargin = 12.0;
constexpr double kNewMargin = 48.0;
constexpr double kNewSizeMargin = 4.0;  // times the track's size, when that is more
// Gates widen by half for every frame a track went unseen, at most this much.
constexpr double kMaxLostWidening = 4.0;
// Costs: distance to the prediction in gate margins (before a lost track's widening),
// plus the relative change of area and the frames unseen, with these weights.
constexpr double kAreaWeight = 0.5;
constexpr double kUnseenWeight = 0.25;
// A merge needs the component to have grown by this share of the lost track's area,
// and by more than the host's own area wobbles (kMergeNoise times the square root of
// its area, about its outline's length): a speck vanishing next to a large object
// is lost, not merged. The lost track's predicted box must lie this much inside it.
constexpr double kMergeGrowth = 0.3;
constexpr double kMergeNoise = 2.0;
constexpr double kMergeInside = 0.3;
// A component that would take in more tracks than this in one frame, or hold more
// waiting in it than kMaxWaiting, is not objects running together but noise around a
// large blob: the tracks are just lost (and a split never weighs more than
// kMaxWaiting waiting tracks against its parts).
constexpr size_t kMaxMergers = 4;
constexpr int32_t kMaxWaiting = 8;
// The pairs a track keeps, cheapest first (see collect_pairs).
constexpr size_t kMaxPairsPerTrack = 8;
// Gates grow with this many times the smoothed speed: a speed, not the velocity's
// length, so that an object turning fast (whose velocities average out) keeps a gate
// as wide as its steps.
constexpr double kSpeedMargin = 1.5;
// Grid cells are at least this wide; a box over more cells than kWideBox is tried
// against every gate instead of being spread over the grid.
constexpr int kMinCell = 16;
constexpr int64_t kWideBox = 256;

struct Box {
  double x0, y0, x1, y1;  // [x0, x1) x [y0, y1)
};

inline double overlap_area(const Box& a, const Box& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0.0;
}

inline Box grown(const Box& b, double m) { return {b.x0 - m, b.y0 - m, b.x1 + m, b.y1 + m}; }

// Rounding and flooring written out: without SSE4.1 the compiler calls libm for
// std::lround and std::floor, which costs more than the rest of a pair's test.
// The sign is applied after rounding the magnitude, which spares a branch on it.
inline int32_t round_to_int(double v) {
  const int32_t r = int32_t(std::fabs(v) + 0.5);
  return v >= 0 ? r : -r;
}

inline int floor_to_int(double v) {
  const int i = int(v);
  return i > v ? i - 1 : i;
}

// std::hypot guards against overflow that pixel coordinates cannot reach, at several
// times the cost.
inline double distance(double dx, double dy) { return std::sqrt(dx * dx + dy * dy); }

// How much two areas differ: the larger over the smaller, less one (0 when equal,
// 1 when doubled, 9 when ten times): a speck and a planet must not look alike, however
// close they are.
inline double area_change(double a, double b) {
  const double lo = std::max(std::min(a, b), 1.0), hi = std::max(a, b);
  return hi / lo - 1.0;
}

}  // namespace ccl::tracking

namespace ccl {

struct Tracker::Impl {
  using Box = tracking::Box;

  // What every frame reads of a track. What only a birth, a merge or a trail needs
  // lives apart (History), and so does the per-frame scratch, so that the passes over
  // all tracks stream through as little memory as they can.
  struct Track {
    double cx = 0, cy = 0, vx = 0, vy = 0, speed = 0, area = 0;
    double size = 0;  // sqrt(w * h), the box's geometric mean side
    uint64_t id = 0, last_seen = 0;
    uint64_t parent = 0, born = 0;
    int32_t x = 0, y = 0, w = 0, h = 0;
    uint32_t seen = 0;  // frames seen; the velocity is measured from the second on
    // Merged into another track (slot, and the id in History guarding against reuse).
    int32_t merged_into = -1;
    bool alive = false;
    // Its own motion (History::own) is what the fields above say: it was last seen
    // hosting no merged track. Spares copying them every frame.
    bool own_current = false;
  };

  struct Motion {  // where a track was when last seen as itself, and how it moved
    double cx, cy, vx, vy, area;
    uint64_t frame;
  };

  struct History {
    uint64_t merged_into_id = 0;
    // Its own motion, frozen while other tracks are merged into it or it is merged
    // (see Track::own_current).
    Motion own{};
    std::vector<TrailPoint> trail;  // ring of trail_length points
    uint32_t trail_head = 0, trail_count = 0;
  };

  // A component, what a pair's cost reads first.
  struct Det {
    double cx, cy, area;
    int32_t x0, y0, x1, y1;  // box [x0, x1) x [y0, y1)
    uint32_t label;
    Box box() const { return {double(x0), double(y0), double(x1), double(y1)}; }
  };

  // A component too wide for the grid, beside its index (bitwise negated, as the
  // grid lists the components that must be deduplicated when found).
  struct Entry {
    int32_t x0, y0, x1, y1;
    int32_t det;
  };

  // A pair of the track search() is looking at, and what the pairing reads of a
  // track that searches: shared with a search on the device (tracker_search.h).
  using Candidate = tracking::Candidate;
  using Probe = tracking::Probe;

  struct Pair {
    double cost;
    int32_t track, det;
  };

  // The cheapest pair of a component so far: cost, then track id (the label is its own).
  struct DetBest {
    double cost;
    uint64_t id;
    int32_t pair;
  };

  // Tracks searched together (collect_pairs): few enough that their candidates stay
  // in the cache from one pass to the next.
  static constexpr size_t kChunk = 64;

  // Per-frame flags of a track slot.
  enum : uint8_t { kJumped = 1, kBornNow = 2, kTruncated = 4 };

  TrackerOptions options;
  int width = -1, height = -1;
  uint64_t frame = 0;
  uint64_t next_id = 1;
  std::vector<Track> tracks;
  std::vector<History> history;
  std::vector<int32_t> free_slots;
  size_t merged_count = 0;  // live tracks with merged_into >= 0

  // Per track slot, per frame.
  std::vector<int32_t> match;  // component matched this frame
  std::vector<uint8_t> flags;
  std::vector<double> match_cost;  // the cost of its match
  std::vector<Box> predicted;      // of the tracks that search this frame
  std::vector<int32_t> pair_first, pair_end;  // its pairs, when it searched
  std::vector<int32_t> waiting_in;  // tracks merged into it, through chains
  std::vector<int32_t> hosts;       // the slots whose waiting_in is not 0
  std::vector<int32_t> merge_det;   // merge stage: the component it merges into

  // Per frame.
  std::vector<Det> dets;
  std::vector<uint32_t> order;  // dets[k] is input component order[k]
  bool in_label_order = true;   // order[k] == k
  std::vector<uint64_t> keyed;
  std::vector<int32_t> det_track;
  // The cost of each component's match, NaN while it has none: one look-up in
  // swap_crossed_matches' first test of a pair instead of two that depend on each other.
  std::vector<double> det_cost;
  std::vector<int32_t> input_slot;  // track slot of input component i, for trail()
  std::vector<int32_t> searching;   // slots with pairs, ascending (the pairs' order)
  // The cheapest pair of each of those, with its component and cost: the matching
  // reads these and not the pair list, which would cost a cache miss per track.
  struct Best {
    int32_t pair, det;
    double cost;
  };
  std::vector<Best> searching_best;
  // Searching tracks the matching left unmatched, and parents a split left without a
  // part: the only tracks that can merge into a component.
  std::vector<int32_t> unmatched;
  // The pairs of the searching tracks, track after track: pairs[0, npairs). Its size
  // only grows, so that it is not cleared every frame.
  std::vector<Pair> pairs, scratch_pairs;
  size_t npairs = 0;
  std::vector<Candidate> cand;  // search(): the candidates of a few tracks
  std::vector<int32_t> cand_det;  // their components, as the grid lists them
  std::vector<uint8_t> cand_probe;  // and which of the few tracks found each
  size_t nsearching = 0;
  std::vector<DetBest> det_best;
  size_t linked = 0;  // components matched by the one-to-one matching
  std::vector<int32_t> cell_start;
  std::vector<std::array<int32_t, 4>> det_cells;  // grid cells of a box: x0, y0, x1, y1
  std::vector<int32_t> det_cell;
  // The grid's entries, cell after cell, a column per field so that a gate tests
  // several at once; item_det is the component (negated when listed in several cells).
  std::vector<int32_t> item_x0, item_y0, item_x1, item_y1, item_det;
  std::vector<Entry> wide;
  int32_t small_w = 0, small_h = 0;  // the largest small component's box
  // A frame whose candidates came from a search elsewhere (tracker_found.cpp): the
  // answer, the slot of each probe, and whether the host's grid was built after all.
  bool found_frame = false, host_grid = false;
  tracking::SearchAnswer found;
  std::vector<int32_t> probe_slot;
  std::vector<uint32_t> stamp;
  uint32_t query_count = 0;
  std::vector<int32_t> parent_of_det;
  std::vector<double> best_overlap;  // split and merge stages: the best overlap so far
  std::vector<std::pair<uint64_t, int32_t>> groups, waiting;
  std::vector<int32_t> members, candidates;
  std::vector<Pair> group_pairs;
  int grid_w = 0, grid_h = 0, cell = tracking::kMinCell;
  double inv_cell = 1.0 / tracking::kMinCell;
  bool any_big = false;
  double spacing = 0, min_margin = 0, new_margin = 0, inv_min_margin = 0;

  // ---- The stages, each defined in its file (see the top of this header).

  // tracker.cpp
  // Input: anything that gives the i-th component as components[i].
  // search: where the pairs come from (null: the host's grid).
  template <typename Input>
  void update(int w, int h, const Input& components, size_t n, std::vector<TrackInfo>& out,
              cuda::TrackSearch* search = nullptr);
  inline void clear_tracks();
  template <typename Input>
  inline void take_input(const Input& components, size_t n);
  static inline void take_component(Det& d, const Component& c);
  inline void finish(size_t n, std::vector<TrackInfo>& out);
  inline uint32_t observe(size_t s, const Det& d);
  inline void add_trail_point(History& hist, const Det& d) const;

  // tracker_predict.cpp
  void frame_margins();
  void make_probe(size_t s, Probe& p);

  // tracker_pairing.cpp
  void build_grid();
  // The grid's shape for this frame: about one component per cell, cells at least
  // kMinCell wide. build_grid() and plan_grid() (the device's grid) must agree on it.
  void grid_shape() {
    const int64_t n = std::max<int64_t>(int64_t(dets.size()), 1);
    cell = std::max(tracking::kMinCell, int(std::sqrt(double(width) * height / double(n))) + 1);
    inv_cell = 1.0 / cell;
    grid_w = (width + cell - 1) / cell;
    grid_h = (height + cell - 1) / cell;
  }
  // A box no larger than a cell is listed once, in the cell of its top-left corner:
  // `cells` gets that cell (as a span), and the largest such box widens every query.
  // False for a bigger box, whose cells the caller works out.
  bool list_small(const Det& det, std::array<int32_t, 4>& cells) {
    const int32_t w = det.x1 - det.x0, h = det.y1 - det.y0;
    if (w > cell || h > cell) return false;
    small_w = std::max(small_w, w);
    small_h = std::max(small_h, h);
    const int32_t cx = std::min(grid_w - 1, int(double(det.x0) * inv_cell));
    const int32_t cy = std::min(grid_h - 1, int(double(det.y0) * inv_cell));
    cells = {cx, cy, cx, cy};
    return true;
  }
  void collect_pairs();
  void restore_order(int32_t s);
  inline void search(const int32_t* slots, size_t count);
  inline void gather(const Probe& t, size_t& n);
  inline void drop_repeats(size_t first, size_t& n);
  inline Best note_bests(size_t s, const Candidate* list, size_t count);
  inline unsigned meets_of_four(const Probe& t, int32_t i) const;
  static inline double pair_cost(const Probe& t, const Det& d);
  static inline void pair_costs(const Probe& t0, const Det& d0, const Probe& t1, const Det& d1,
                                double* c0, double* c1);
  static inline bool after_in_track(const Candidate& a, const Candidate& b);
  static inline size_t keep_cheapest(Candidate* p, size_t first, size_t end);

  // tracker_found.cpp
  bool plan_grid(tracking::GridPlan& plan);
  // components: the frame's table as update() got it, n of them.
  void collect_found_pairs(cuda::TrackSearch& search, const Component* components, size_t n,
                           const tracking::GridPlan& plan);
  template <typename Input>
  void collect_found_pairs(cuda::TrackSearch&, const Input&, size_t, const tracking::GridPlan&) {
    // Only update(TableView, TrackSearch&) searches elsewhere; never called.
  }
  void build_host_grid();

  // tracker_matching.cpp
  void match_one_to_one();
  void swap_crossed_matches();
  inline double cost_of(int32_t s, int32_t d) const;
  inline bool crosses(const Pair& p, double* c12) const;
  inline bool block_crosses(int32_t s) const;
  inline bool may_cross(int32_t s) const;

  // tracker_splits.cpp
  void resolve_merges();
  void split_stage();
  void merge_stage();
  inline void split_group(int32_t parent, std::vector<int32_t>& parts,
                          std::vector<int32_t>& merged);

  // ---- Small operations on the state that several stages share.

  // Strict total order of pairs: cost, then track id, then label.
  bool before(const Pair& a, const Pair& b) const {
    if (a.cost != b.cost) return a.cost < b.cost;
    const uint64_t ia = tracks[size_t(a.track)].id, ib = tracks[size_t(b.track)].id;
    if (ia != ib) return ia < ib;
    return dets[size_t(a.det)].label < dets[size_t(b.det)].label;
  }
  // The same order between two pairs of one track.
  bool before_in_track(const Pair& a, const Pair& b) const {
    if (a.cost != b.cost) return a.cost < b.cost;
    return dets[size_t(a.det)].label < dets[size_t(b.det)].label;
  }

  bool has(size_t s, uint8_t flag) const { return (flags[s] & flag) != 0; }

  void link(int32_t s, int32_t d, double cost = 0.0) {
    match[size_t(s)] = d;
    det_track[size_t(d)] = s;
    match_cost[size_t(s)] = cost;
    det_cost[size_t(d)] = cost;
  }

  void set_merged_into(size_t s, int32_t host) {
    int32_t& m = tracks[s].merged_into;
    merged_count += size_t(host >= 0) - size_t(m >= 0);
    m = host;
  }

  void host_gains(int32_t s) {
    if (waiting_in[size_t(s)]++ == 0) hosts.push_back(s);
  }

  // Other tracks are merged into track s (it keeps its own motion frozen meanwhile).
  bool hosting(size_t s) const { return waiting_in[s] > 0; }

  // Where a track's own motion puts it this frame (for tracks merged into others, or
  // hosting them, that is the motion from before the merge).
  Motion own_motion(size_t s) const {
    const Track& t = tracks[s];
    return t.own_current ? Motion{t.cx, t.cy, t.vx, t.vy, t.area, t.last_seen} : history[s].own;
  }

  void own_prediction(size_t s, double* x, double* y) const {
    const Motion own = own_motion(s);
    const double gap = double(frame - own.frame);
    *x = own.cx + own.vx * gap;
    *y = own.cy + own.vy * gap;
  }

  // The cells [x0, x1] x [y0, y1] that pixels [px0, px1) x [py0, py1) fall in,
  // clipped to the grid; false when none does.
  bool cell_span(double px0, double py0, double px1, double py1, int32_t* span) const {
    using tracking::floor_to_int;
    if (px1 <= 0 || py1 <= 0 || px0 >= width || py0 >= height) return false;
    // Multiplying by the reciprocal instead of dividing: a query's four integer
    // divisions cost more than the rest of it. The last pixel is ceil(p1) - 1.
    span[0] = std::max(0, floor_to_int(double(floor_to_int(px0)) * inv_cell));
    span[1] = std::max(0, floor_to_int(double(floor_to_int(py0)) * inv_cell));
    span[2] = std::min(grid_w - 1, floor_to_int(double(-floor_to_int(-px1) - 1) * inv_cell));
    span[3] = std::min(grid_h - 1, floor_to_int(double(-floor_to_int(-py1) - 1) * inv_cell));
    return true;
  }

  int32_t new_slot() {
    if (!free_slots.empty()) {
      const int32_t slot = free_slots.back();
      free_slots.pop_back();
      return slot;
    }
    tracks.emplace_back();
    history.emplace_back();
    for (auto* v : {&match, &pair_first, &pair_end, &waiting_in, &merge_det}) v->push_back(0);
    match.back() = -1;
    flags.push_back(0);
    match_cost.push_back(0.0);
    predicted.push_back({});
    return int32_t(tracks.size() - 1);
  }

  // A new track for component d (births, and the parts of a split).
  int32_t new_track(int32_t d, uint64_t parent, double vx, double vy) {
    const int32_t slot = new_slot();
    const size_t s = size_t(slot);
    Track& t = tracks[s];
    t = Track{};
    t.id = next_id++;
    t.alive = true;
    t.vx = vx;
    t.vy = vy;
    t.speed = tracking::distance(vx, vy);
    t.last_seen = frame;  // so that observe() measures no gap
    t.parent = parent;
    t.born = frame;
    History& hist = history[s];
    std::vector<TrailPoint> trail = std::move(hist.trail);
    hist = History{};
    hist.trail = std::move(trail);
    flags[s] = kBornNow;
    match[s] = d;
    det_track[size_t(d)] = slot;
    return slot;
  }
};

}  // namespace ccl
