// The tracker of tracker.h. One update() runs these stages over the frame's components
// (taken in label order, so that the input order never matters):
//
//  1. predict: every live track that is not merged into another moves by its smoothed
//     velocity times the frames since it was seen; its gate is its predicted box grown
//     by a margin that widens with speed, size, newness and frames unseen;
//  2. pair: components go into a uniform grid by bounding box; each gate collects the
//     components whose boxes it meets, each pair with a cost;
//  3. match one to one, cheapest pair first (pairs that are each other's best go at
//     once; only the contested rest is sorted);
//  4. split: an unmatched component inside the predicted box of a matched track
//     joins that track's group; the largest part keeps the id, or, when tracks merged
//     into it are waiting, each part goes to the track whose own motion and size
//     predict it best; the other parts start new tracks with the parent's id;
//  5. merge: a track seen in the previous frame that found no component, whose
//     predicted box meets a matched component grown by about its area, merged into
//     it; the component keeps the id of the group's largest track, the others wait
//     merged in it (lost), remembering their own motion;
//  6. the rest of the components start new tracks; tracks unseen for more than
//     max_lost frames end.
//
// Ties are broken by track id and component label everywhere, so the result depends
// only on the sequence of component tables.
#include "ccl/tracker.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace ccl {

namespace {

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

double overlap_area(const Box& a, const Box& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  const double h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0.0;
}

Box grown(const Box& b, double m) { return {b.x0 - m, b.y0 - m, b.x1 + m, b.y1 + m}; }

// Rounding and flooring written out: without SSE4.1 the compiler calls libm for
// std::lround and std::floor, which costs more than the rest of a pair's test.
// The sign is applied after rounding the magnitude, which spares a branch on it.
int32_t round_to_int(double v) {
  const int32_t r = int32_t(std::fabs(v) + 0.5);
  return v >= 0 ? r : -r;
}

int floor_to_int(double v) {
  const int i = int(v);
  return i > v ? i - 1 : i;
}

// std::hypot guards against overflow that pixel coordinates cannot reach, at several
// times the cost.
double distance(double dx, double dy) { return std::sqrt(dx * dx + dy * dy); }

// How much two areas differ: the larger over the smaller, less one (0 when equal,
// 1 when doubled, 9 when ten times): a speck and a planet must not look alike, however
// close they are.
double area_change(double a, double b) {
  const double lo = std::max(std::min(a, b), 1.0), hi = std::max(a, b);
  return hi / lo - 1.0;
}

}  // namespace

struct Tracker::Impl {
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

  // A component as the grid lists it, beside its index (bitwise negated when it is
  // listed in several cells and must be deduplicated when found).
  struct Entry {
    int32_t x0, y0, x1, y1;
    int32_t det;
    uint32_t label;
  };

  // A pair of the track search() is looking at, with what ordering its pairs needs.
  struct Candidate {
    double cost;
    int32_t det;
    uint32_t label;
  };

  struct Pair {
    double cost;
    int32_t track, det;
  };

  // What the pairing reads of a track that searches this frame.
  struct Probe {
    double px, py;     // predicted centroid
    double inv_scale;  // 1 / the unwidened margin: distances are costed in it
    double area;       // last seen area
    double unseen_cost;  // kUnseenWeight per missed frame
    // The gate (predicted box grown by the widened margin) rounded outwards: boxes
    // have integer edges, so this changes no answer and keeps the test in integers.
    int32_t gx0, gy0, gx1, gy1;
    int32_t span[4];  // the grid cells to look in
    bool in_grid;     // false: no cell to look in
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
  std::vector<uint64_t> keyed;
  std::vector<const Component*> pointers;  // update(TableView)'s, kept between frames
  std::vector<int32_t> det_track;
  std::vector<int32_t> input_slot;  // track slot of input component i, for trail()
  std::vector<int32_t> searching;   // slots with pairs, ascending (the pairs' order)
  std::vector<int32_t> searching_best;  // the cheapest pair of each of those
  // Searching tracks the matching left unmatched, and parents a split left without a
  // part: the only tracks that can merge into a component.
  std::vector<int32_t> unmatched;
  // The pairs of the searching tracks, track after track: pairs[0, npairs). Its size
  // only grows, so that it is not cleared every frame.
  std::vector<Pair> pairs, scratch_pairs;
  size_t npairs = 0;
  std::vector<Candidate> cand;  // search(): the candidates of a few tracks
  size_t nsearching = 0;
  std::vector<DetBest> det_best;
  size_t linked = 0;  // components matched by the one-to-one matching
  std::vector<int32_t> cell_start;
  std::vector<std::array<int32_t, 4>> det_cells;  // grid cells of a box: x0, y0, x1, y1
  std::vector<Entry> cell_items, wide;
  int32_t small_w = 0, small_h = 0;  // the largest small component's box
  std::vector<uint32_t> stamp;
  uint32_t query_count = 0;
  std::vector<int32_t> parent_of_det;
  std::vector<double> best_overlap;  // split and merge stages: the best overlap so far
  std::vector<std::pair<uint64_t, int32_t>> groups, waiting;
  std::vector<int32_t> members, candidates;
  std::vector<Pair> group_pairs;
  int grid_w = 0, grid_h = 0, cell = kMinCell;
  double inv_cell = 1.0 / kMinCell;
  bool any_big = false;
  double spacing = 0, min_margin = 0, new_margin = 0, inv_min_margin = 0;

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

  void clear_tracks() {
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

  void set_merged_into(size_t s, int32_t host) {
    int32_t& m = tracks[s].merged_into;
    merged_count += size_t(host >= 0) - size_t(m >= 0);
    m = host;
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

  int32_t new_track(int32_t d, uint64_t parent, double vx, double vy) {
    const int32_t slot = new_slot();
    const size_t s = size_t(slot);
    Track& t = tracks[s];
    t = Track{};
    t.id = next_id++;
    t.alive = true;
    t.vx = vx;
    t.vy = vy;
    t.speed = distance(vx, vy);
    t.last_seen = frame;  // so that the measurement below sees no gap
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

  void take_input(const Component* const* components, size_t n) {
    order.resize(n);
    bool sorted = true;
    for (size_t i = 0; i < n; ++i) {
      order[i] = uint32_t(i);
      if (i && components[i]->label <= components[i - 1]->label) sorted = false;
    }
    if (!sorted) {
      // (label, index) packed in one integer: the sort never follows a pointer.
      keyed.resize(n);
      for (size_t i = 0; i < n; ++i) keyed[i] = (uint64_t(components[i]->label) << 32) | i;
      std::sort(keyed.begin(), keyed.end());
      for (size_t i = 0; i < n; ++i) order[i] = uint32_t(keyed[i]);
    }
    dets.resize(n);
    for (size_t k = 0; k < n; ++k) {
      const Component& c = *components[order[k]];
      Det& d = dets[k];
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
    det_track.assign(n, -1);
  }

  // Which track each merged track waits in (chains followed to the end), as
  // `waiting` (host id, waiting track) and the count per host; merged tracks whose
  // host has ended wait no more and are plainly lost.
  void resolve_merges() {
    for (int32_t s : hosts) waiting_in[size_t(s)] = 0;
    hosts.clear();
    waiting.clear();
    if (merged_count == 0) return;
    for (size_t s = 0; s < tracks.size(); ++s) {
      const Track& t = tracks[s];
      if (!t.alive || t.merged_into < 0) continue;
      int32_t r = int32_t(s);
      int hops = 0;
      while (r >= 0 && tracks[size_t(r)].merged_into >= 0 && hops++ <= int(tracks.size())) {
        const int32_t host_slot = tracks[size_t(r)].merged_into;
        const Track& host = tracks[size_t(host_slot)];
        if (!host.alive || host.id != history[size_t(r)].merged_into_id) {
          r = -1;
          break;
        }
        r = host_slot;
      }
      if (r < 0) {
        set_merged_into(s, -1);
        continue;
      }
      waiting.push_back({tracks[size_t(r)].id, int32_t(s)});
      host_gains(r);
    }
  }

  void host_gains(int32_t s) {
    if (waiting_in[size_t(s)]++ == 0) hosts.push_back(s);
  }

  // Other tracks are merged into track s (it keeps its own motion frozen meanwhile).
  bool hosting(size_t s) const { return waiting_in[s] > 0; }

  // Margins of this frame: where components crowd, the fixed margins would hold
  // hundreds of them, so they shrink to the mean spacing of this frame's components
  // (twice it for new tracks).
  void frame_margins() {
    spacing = std::sqrt(double(width) * height / double(std::max<size_t>(dets.size(), 1)));
    min_margin = std::min(kMinMargin, spacing);
    new_margin = std::min(kNewMargin, 2.0 * spacing);
    inv_min_margin = 1.0 / min_margin;
  }

  // Where track s is predicted this frame and the gate it searches; its predicted box
  // goes to predicted[s].
  void make_probe(size_t s, Probe& p) {
    const Track& t = tracks[s];
    // Seen in the previous frame (most tracks), the products with the gap below are
    // exact as written with none.
    const bool next = frame - t.last_seen == 1;
    const double gap = next ? 1.0 : double(frame - t.last_seen);
    const double mx = next ? t.vx : t.vx * gap, my = next ? t.vy : t.vy * gap;
    p.px = t.cx + mx;
    p.py = t.cy + my;
    const double dx = round_to_int(mx), dy = round_to_int(my);
    const Box box = {t.x + dx, t.y + dy, t.x + dx + t.w, t.y + dy + t.h};
    predicted[s] = box;
    // The box's geometric mean side (t.size): a long thin object must not get a gate
    // as wide as it is long in every direction.
    const double m = t.seen >= 2 ? std::max({min_margin, 0.5 * t.size, kSpeedMargin * t.speed})
                                 : std::max(new_margin, kNewSizeMargin * t.size);
    // Costs measure distance in the unwidened margin, so that a track long unseen
    // searches wider without also finding everything in reach cheap.
    // Where components crowd, widening would sweep in hundreds: it stops at twice
    // their mean spacing (or at no widening, when the margin is wider already).
    const double widened =
        next ? m
             : std::min(m * std::min(1.0 + 0.5 * (gap - 1.0), kMaxLostWidening),
                        std::max(m, 2.0 * spacing));
    const Box g = grown(box, widened);
    // Most tracks have the plain margin: its reciprocal is the frame's.
    p.inv_scale = m == min_margin ? inv_min_margin : 1.0 / m;
    p.area = t.area;
    p.unseen_cost = kUnseenWeight * (gap - 1.0);
    p.gx0 = floor_to_int(g.x0);
    p.gy0 = floor_to_int(g.y0);
    p.gx1 = -floor_to_int(-g.x1);
    p.gy1 = -floor_to_int(-g.y1);
    // Small components are listed by their top-left corner: one whose box meets the
    // gate has its corner at most the largest small box's size left of or above it.
    p.in_grid = cell_span(g.x0 - small_w, g.y0 - small_h, g.x1, g.y1, p.span);
  }

  // The cells [x0, x1] x [y0, y1] that pixels [px0, px1) x [py0, py1) fall in,
  // clipped to the grid; false when none does.
  bool cell_span(double px0, double py0, double px1, double py1, int32_t* span) const {
    if (px1 <= 0 || py1 <= 0 || px0 >= width || py0 >= height) return false;
    // Multiplying by the reciprocal instead of dividing: a query's four integer
    // divisions cost more than the rest of it. The last pixel is ceil(p1) - 1.
    span[0] = std::max(0, floor_to_int(double(floor_to_int(px0)) * inv_cell));
    span[1] = std::max(0, floor_to_int(double(floor_to_int(py0)) * inv_cell));
    span[2] = std::min(grid_w - 1, floor_to_int(double(-floor_to_int(-px1) - 1) * inv_cell));
    span[3] = std::min(grid_h - 1, floor_to_int(double(-floor_to_int(-py1) - 1) * inv_cell));
    return true;
  }

  // The grid: a component no larger than a cell is listed once, in the cell of its
  // box's top-left corner, so a query looks further left and up by the largest such
  // box; a larger one is listed in every cell its box covers (and deduplicated when
  // found); one over more than kWideBox cells is tried against every gate.
  void build_grid() {
    const int64_t n = std::max<int64_t>(int64_t(dets.size()), 1);
    cell = std::max(kMinCell, int(std::sqrt(double(width) * height / double(n))) + 1);
    inv_cell = 1.0 / cell;
    grid_w = (width + cell - 1) / cell;
    grid_h = (height + cell - 1) / cell;
    cell_start.assign(size_t(grid_w) * size_t(grid_h) + 1, 0);
    det_cells.resize(dets.size());
    wide.clear();
    any_big = false;
    small_w = small_h = 0;
    // Counting sort of (cell, component): one pass to count, one to place.
    for (size_t d = 0; d < dets.size(); ++d) {
      const Det& det = dets[d];
      std::array<int32_t, 4>& cells = det_cells[d];
      const bool big = det.x1 - det.x0 > cell || det.y1 - det.y0 > cell;
      if (!big) {
        small_w = std::max(small_w, det.x1 - det.x0);
        small_h = std::max(small_h, det.y1 - det.y0);
        cells[0] = cells[2] = std::min(grid_w - 1, int(double(det.x0) * inv_cell));
        cells[1] = cells[3] = std::min(grid_h - 1, int(double(det.y0) * inv_cell));
        ++cell_start[size_t(cells[1]) * size_t(grid_w) + size_t(cells[0]) + 1];
        continue;
      }
      any_big = true;
      const Box b = det.box();
      cell_span(b.x0, b.y0, b.x1, b.y1, cells.data());
      if (int64_t(cells[2] - cells[0] + 1) * (cells[3] - cells[1] + 1) > kWideBox) {
        cells[0] = -1;
        wide.push_back({det.x0, det.y0, det.x1, det.y1, ~int32_t(d), det.label});
        continue;
      }
      for (int cy = cells[1]; cy <= cells[3]; ++cy)
        for (int cx = cells[0]; cx <= cells[2]; ++cx)
          ++cell_start[size_t(cy) * size_t(grid_w) + size_t(cx) + 1];
    }
    for (size_t c = 1; c < cell_start.size(); ++c) cell_start[c] += cell_start[c - 1];
    cell_items.resize(size_t(cell_start.back()) + 4);  // + what gather() reads past the end
    for (size_t d = 0; d < dets.size(); ++d) {
      const std::array<int32_t, 4>& cells = det_cells[d];
      if (cells[0] < 0) continue;
      const Det& det = dets[d];
      const bool big = det.x1 - det.x0 > cell || det.y1 - det.y0 > cell;
      const Entry e{det.x0, det.y0, det.x1, det.y1, big ? ~int32_t(d) : int32_t(d), det.label};
      for (int cy = cells[1]; cy <= cells[3]; ++cy)
        for (int cx = cells[0]; cx <= cells[2]; ++cx)
          cell_items[size_t(cell_start[size_t(cy) * size_t(grid_w) + size_t(cx)]++)] = e;
    }
    // Placing advanced each start to the next cell's; shift back.
    for (size_t c = cell_start.size() - 1; c > 0; --c) cell_start[c] = cell_start[c - 1];
    cell_start[0] = 0;
  }

  static double pair_cost(const Probe& t, const Det& d) {
    return distance(d.cx - t.px, d.cy - t.py) * t.inv_scale +
           kAreaWeight * area_change(d.area, t.area) + t.unseen_cost;
  }

  // Appends to cand[n...] the components whose boxes meet track s's gate, in the
  // grid's order, with no cost yet. The test is written without branches: whether a
  // box meets a gate is a coin toss the processor cannot predict.
  void gather(const Probe& t, size_t& n) {
    auto scan = [&](const Entry* e, const Entry* end) {
      if (n + size_t(end - e) > cand.size()) cand.resize(2 * (n + size_t(end - e)));
      Candidate* out = cand.data();
      for (; e != end; ++e) {
        const bool meets = (e->x0 < t.gx1) & (t.gx0 < e->x1) & (e->y0 < t.gy1) & (t.gy0 < e->y1);
        out[n] = {0.0, e->det, e->label};
        n += meets;
      }
    };
    // A row's entries go four at a time, those past its end masked off (cell_items
    // has room for them): most rows hold a few, and a loop that ends at a different
    // count every time is mispredicted at every end.
    auto scan_row = [&](int32_t a, int32_t b) {
      if (n + size_t(b - a) + 4 > cand.size()) cand.resize(2 * (n + size_t(b - a) + 4));
      Candidate* out = cand.data();
      const Entry* items = cell_items.data();
      for (int32_t i = a; i < b; i += 4)
        for (int32_t j = i; j < i + 4; ++j) {
          const Entry& e = items[j];
          const bool meets = (j < b) & (e.x0 < t.gx1) & (t.gx0 < e.x1) & (e.y0 < t.gy1) &
                             (t.gy0 < e.y1);
          out[n] = {0.0, e.det, e.label};
          n += meets;
        }
    };
    if (t.in_grid)
      for (int cy = t.span[1]; cy <= t.span[3]; ++cy) {
        const size_t row = size_t(cy) * size_t(grid_w);
        scan_row(cell_start[row + size_t(t.span[0])], cell_start[row + size_t(t.span[2]) + 1]);
      }
    if (!wide.empty()) scan(wide.data(), wide.data() + wide.size());
  }

  // A component listed in several cells is found once per cell: the later finds of
  // one query go (cand[first, n) are one track's).
  void drop_repeats(size_t first, size_t& n) {
    ++query_count;
    size_t kept = first;
    for (size_t p = first; p < n; ++p) {
      int32_t d = cand[p].det;
      if (d < 0) {
        d = ~d;
        if (stamp[size_t(d)] == query_count) continue;
        stamp[size_t(d)] = query_count;
      }
      cand[kept] = cand[p];
      cand[kept++].det = d;
    }
    n = kept;
  }

  // Whether pair a of a track comes after its pair b (the order of before_in_track),
  // computed without branches.
  static bool after_in_track(const Candidate& a, const Candidate& b) {
    return (a.cost > b.cost) | ((a.cost == b.cost) & (a.label > b.label));
  }

  // In a crowd (noise around a blob covering the frame) a gate can meet hundreds of
  // components; only its cheapest few can matter, and keeping more would make the
  // matching quadratic. Which few is all that matters here: their order is only
  // restored (restore_order) where it can change a swap. Returns the new end.
  static size_t keep_cheapest(Candidate* p, size_t first, size_t end) {
    if (end - first > 3 * kMaxPairsPerTrack) {
      std::nth_element(p + first, p + first + kMaxPairsPerTrack, p + end,
                       [](const Candidate& a, const Candidate& b) { return after_in_track(b, a); });
      return first + kMaxPairsPerTrack;
    }
    while (end - first > kMaxPairsPerTrack) {
      size_t worst = first;
      for (size_t q = first + 1; q < end; ++q) worst = after_in_track(p[q], p[worst]) ? q : worst;
      p[worst] = p[--end];
    }
    return end;
  }

  // Track s's pairs in the order the whole pair list once had them: its gate's
  // pairs in grid order, cut to the cheapest by std::nth_element.
  void restore_order(int32_t s) {
    Probe probe;
    make_probe(size_t(s), probe);
    size_t n = 0;  // the matching is past search(): its candidates may go
    gather(probe, n);
    if (any_big) drop_repeats(0, n);
    scratch_pairs.clear();
    for (size_t p = 0; p < n; ++p)
      scratch_pairs.push_back({pair_cost(probe, dets[size_t(cand[p].det)]), s, cand[p].det});
    std::nth_element(scratch_pairs.begin(), scratch_pairs.begin() + kMaxPairsPerTrack,
                     scratch_pairs.end(),
                     [&](const Pair& a, const Pair& b) { return before_in_track(a, b); });
    std::copy(scratch_pairs.begin(), scratch_pairs.begin() + kMaxPairsPerTrack,
              pairs.begin() + pair_first[size_t(s)]);
    flags[size_t(s)] &= uint8_t(~kTruncated);
  }

  // Every live track that is not merged searches its gate. A few tracks at a time, in
  // passes that each avoid branches on the data where they can: the square roots and
  // divisions of the costs then overlap instead of waiting on each other, and the
  // candidates stay in the cache between the passes.
  void collect_pairs() {
    query_count = 0;
    if (any_big) stamp.assign(dets.size(), 0);
    det_best.assign(dets.size(), DetBest{0.0, 0, -1});
    std::fill(match.begin(), match.end(), -1);
    std::fill(flags.begin(), flags.end(), uint8_t(0));
    std::fill(pair_first.begin(), pair_first.end(), 0);
    std::fill(pair_end.begin(), pair_end.end(), 0);
    npairs = 0;
    nsearching = 0;
    searching.resize(tracks.size());
    searching_best.resize(tracks.size());
    int32_t chunk[kChunk];
    size_t in_chunk = 0;
    for (size_t s = 0; s < tracks.size(); ++s) {
      const Track& t = tracks[s];
      if (!t.alive || t.merged_into >= 0) continue;
      chunk[in_chunk++] = int32_t(s);
      if (in_chunk == kChunk) {
        search(chunk, in_chunk);
        in_chunk = 0;
      }
    }
    search(chunk, in_chunk);
    searching.resize(nsearching);
    searching_best.resize(nsearching);
  }

  // Pairs of the tracks slots[0, count), appended to pairs.
  void search(const int32_t* slots, size_t count) {
    Probe probe[kChunk];
    size_t first[kChunk + 1];
    for (size_t k = 0; k < count; ++k) make_probe(size_t(slots[k]), probe[k]);
    size_t n = 0;
    for (size_t k = 0; k < count; ++k) {
      first[k] = n;
      gather(probe[k], n);
      if (any_big) drop_repeats(first[k], n);
    }
    first[count] = n;
    for (size_t k = 0; k < count; ++k)
      for (size_t p = first[k]; p < first[k + 1]; ++p)
        cand[p].cost = pair_cost(probe[k], dets[size_t(cand[p].det)]);
    // Cut each track to its cheapest pairs, and keep each track's cheapest pair and
    // each component's for the matching.
    if (npairs + n > pairs.size()) pairs.resize(2 * (npairs + n));
    for (size_t k = 0; k < count; ++k) {
      const size_t s = size_t(slots[k]);
      size_t end = first[k + 1];
      if (end == first[k]) continue;
      if (end - first[k] > kMaxPairsPerTrack) {
        end = keep_cheapest(cand.data(), first[k], end);
        flags[s] |= kTruncated;
      }
      searching[nsearching] = int32_t(s);
      searching_best[nsearching++] = note_bests(s, first[k], end);
    }
  }

  // Appends track s's pairs cand[first, end) to pairs, updating each component's
  // cheapest pair so far; returns the index of track s's cheapest.
  int32_t note_bests(size_t s, size_t first, size_t end) {
    const uint64_t id = tracks[s].id;
    size_t best = first;
    pair_first[s] = int32_t(npairs);
    for (size_t c = first; c < end; ++c) {
      const Candidate& cd = cand[c];
      best = after_in_track(cand[best], cd) ? c : best;
      const int32_t p = int32_t(npairs++);
      pairs[size_t(p)] = {cd.cost, int32_t(s), cd.det};
      DetBest& b = det_best[size_t(cd.det)];
      // Between pairs of one component the order is cost, then track id.
      const bool take = (b.pair < 0) | (cd.cost < b.cost) | ((cd.cost == b.cost) & (id < b.id));
      if (take) b = {cd.cost, id, p};
    }
    pair_end[s] = int32_t(npairs);
    return pair_first[s] + int32_t(best - first);
  }

  // The cost of pairing track s with component d, or a negative value when the two
  // are no pair.
  double cost_of(int32_t s, int32_t d) const {
    for (int32_t p = pair_first[size_t(s)]; p < pair_end[size_t(s)]; ++p)
      if (pairs[size_t(p)].det == d) return pairs[size_t(p)].cost;
    return -1.0;
  }

  // Whether the pair p would swap its track's match with that of its component's.
  bool crosses(const Pair& p, double* c12) const {
    const int32_t t2 = p.track, d1 = p.det;
    const int32_t t1 = det_track[size_t(d1)];
    const int32_t d2 = match[size_t(t2)];
    if (t1 < 0 || t1 == t2 || d2 < 0) return false;
    // Costs are not negative: no swap can pay unless this pair alone is cheaper
    // than the two matches together (which spares looking up the crossed pair).
    const double now = match_cost[size_t(t1)] + match_cost[size_t(t2)];
    if (p.cost >= now) return false;
    *c12 = cost_of(t1, d2);
    return !(*c12 < 0 || p.cost + *c12 >= now - 1e-9);
  }

  bool block_crosses(int32_t s) const {
    double c12;
    for (int32_t p = pair_first[size_t(s)]; p < pair_end[size_t(s)]; ++p)
      if (crosses(pairs[size_t(p)], &c12)) return true;
    return false;
  }

  // Cheapest-first matching can pair two neighbours crosswise when their predictions
  // both lean the same way (objects turning side by side). Two matches whose tracks
  // would both be cheaper swapped are swapped; a pass over the pairs, twice.
  void swap_crossed_matches() {
    for (int pass = 0; pass < 2; ++pass) {
      bool swapped = false;
      for (int32_t s : searching) {
        // Until a swap, the order of a track's pairs changes nothing; from one on it
        // does, and a cut track's pairs must be back in their first order.
        if (has(size_t(s), kTruncated)) {
          if (!block_crosses(s)) continue;
          restore_order(s);
        }
        for (int32_t i = pair_first[size_t(s)]; i < pair_end[size_t(s)]; ++i) {
          const Pair p = pairs[size_t(i)];
          double c12;
          if (!crosses(p, &c12)) continue;
          const int32_t t1 = det_track[size_t(p.det)], d2 = match[size_t(s)];
          link(s, p.det, p.cost);
          link(t1, d2, c12);
          swapped = true;
        }
      }
      if (!swapped) break;
    }
  }

  void link(int32_t s, int32_t d, double cost = 0.0) {
    match[size_t(s)] = d;
    det_track[size_t(d)] = s;
    match_cost[size_t(s)] = cost;
  }

  // Greedy one-to-one matching, cheapest first. A pair that is the best of both its
  // track and its component is taken by the greedy order whatever happens before it,
  // so those go at once and only the rest is sorted.
  void match_one_to_one() {
    linked = 0;
    unmatched.clear();
    for (size_t k = 0; k < searching.size(); ++k) {
      const int32_t s = searching[k], best = searching_best[k];
      const Pair& p = pairs[size_t(best)];
      if (det_best[size_t(p.det)].pair == best) {
        link(s, p.det, p.cost);
        ++linked;
      } else {
        unmatched.push_back(s);
      }
    }
    group_pairs.clear();
    for (int32_t s : unmatched)
      for (int32_t i = pair_first[size_t(s)]; i < pair_end[size_t(s)]; ++i)
        if (det_track[size_t(pairs[size_t(i)].det)] < 0) group_pairs.push_back(pairs[size_t(i)]);
    std::sort(group_pairs.begin(), group_pairs.end(),
              [&](const Pair& a, const Pair& b) { return before(a, b); });
    for (const Pair& p : group_pairs)
      if (match[size_t(p.track)] < 0 && det_track[size_t(p.det)] < 0) {
        link(p.track, p.det, p.cost);
        ++linked;
      }
    // From here on `unmatched` lists the searching tracks without a match.
    unmatched.erase(std::remove_if(unmatched.begin(), unmatched.end(),
                                   [&](int32_t s) { return match[size_t(s)] >= 0; }),
                    unmatched.end());
  }

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

  void split_stage() {
    // Every component matched: none can be a part.
    if (linked == dets.size()) return;
    // The parent of each unmatched component: the matched track whose predicted box
    // (grown a little) overlaps it most and that was larger than it.
    parent_of_det.assign(dets.size(), -1);
    best_overlap.assign(dets.size(), 0.0);
    for (size_t i = 0; i < npairs; ++i) {
      const Pair& p = pairs[i];
      const Track& t = tracks[size_t(p.track)];
      const Det& d = dets[size_t(p.det)];
      if (det_track[size_t(p.det)] >= 0 || match[size_t(p.track)] < 0 ||
          has(size_t(p.track), kBornNow) || d.area > t.area)
        continue;
      const double ov = overlap_area(
          grown(predicted[size_t(p.track)], std::max(2.0, 0.25 * std::max(t.w, t.h))), d.box());
      if (ov <= 0) continue;
      int32_t& cur = parent_of_det[size_t(p.det)];
      if (cur < 0 || ov > best_overlap[size_t(p.det)] ||
          (ov == best_overlap[size_t(p.det)] && t.id < tracks[size_t(cur)].id)) {
        cur = p.track;
        best_overlap[size_t(p.det)] = ov;
      }
    }
    groups.clear();
    for (size_t d = 0; d < dets.size(); ++d)
      if (parent_of_det[d] >= 0) groups.push_back({tracks[size_t(parent_of_det[d])].id, int32_t(d)});
    if (groups.empty()) return;
    std::sort(groups.begin(), groups.end());

    // Tracks merged into each parent, by parent id then their own id.
    std::sort(waiting.begin(), waiting.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first
                                : tracks[size_t(a.second)].id < tracks[size_t(b.second)].id;
    });

    for (size_t g = 0; g < groups.size();) {
      const uint64_t parent_id = groups[g].first;
      const int32_t parent = parent_of_det[size_t(groups[g].second)];
      members.clear();
      members.push_back(match[size_t(parent)]);
      for (; g < groups.size() && groups[g].first == parent_id; ++g)
        members.push_back(groups[g].second);
      candidates.clear();
      auto w = std::lower_bound(waiting.begin(), waiting.end(), parent_id,
                                [](const auto& a, uint64_t id) { return a.first < id; });
      for (; w != waiting.end() && w->first == parent_id; ++w) candidates.push_back(w->second);
      split_group(parent, members, candidates);
    }
  }

  void split_group(int32_t parent, std::vector<int32_t>& parts, std::vector<int32_t>& merged) {
    const size_t ps = size_t(parent);
    det_track[size_t(match[ps])] = -1;
    match[ps] = -1;
    auto larger = [&](int32_t a, int32_t b) {
      const Det &da = dets[size_t(a)], &db = dets[size_t(b)];
      return da.area != db.area ? da.area > db.area : da.label < db.label;
    };
    std::sort(parts.begin(), parts.end(), larger);
    if (merged.empty()) {
      // A plain split: the largest part keeps the id.
      link(parent, parts[0]);
      flags[ps] |= kJumped;
    } else {
      // Tracks merged into the parent wait for their parts: each part goes to the
      // track whose own motion and size predict it best, cheapest first.
      merged.push_back(parent);
      group_pairs.clear();
      for (int32_t s : merged) {
        const Track& t = tracks[size_t(s)];
        double x, y;
        own_prediction(size_t(s), &x, &y);
        const double scale = std::max({kMinMargin, double(t.w), double(t.h)});
        const double own_area = own_motion(size_t(s)).area;
        for (int32_t d : parts) {
          const Det& det = dets[size_t(d)];
          const double cost =
              distance(det.cx - x, det.cy - y) / scale + area_change(det.area, own_area);
          group_pairs.push_back({cost, s, d});
        }
      }
      std::sort(group_pairs.begin(), group_pairs.end(),
                [&](const Pair& a, const Pair& b) { return before(a, b); });
      for (const Pair& pr : group_pairs)
        if (match[size_t(pr.track)] < 0 && det_track[size_t(pr.det)] < 0) link(pr.track, pr.det);
      for (int32_t s : merged) {
        const size_t ss = size_t(s);
        if (match[ss] < 0) continue;
        if (s != parent) set_merged_into(ss, -1);  // back on its own
        // Its own motion resumes from before the merge.
        const Motion own = own_motion(ss);
        tracks[ss].vx = own.vx;
        tracks[ss].vy = own.vy;
        flags[ss] |= kJumped;
      }
      // The parent keeps an id on some part whenever one is left.
      if (match[ps] < 0)
        for (int32_t d : parts)
          if (det_track[size_t(d)] < 0) {
            link(parent, d);
            flags[ps] |= kJumped;
            break;
          }
      if (match[ps] < 0) unmatched.push_back(parent);
    }
    const uint64_t parent_id = tracks[ps].id;
    const double vx = tracks[ps].vx, vy = tracks[ps].vy;
    for (int32_t d : parts)
      if (det_track[size_t(d)] < 0) new_track(d, parent_id, vx, vy);
  }

  void merge_stage() {
    // The component each lost track seen in the previous frame merged into. Only
    // tracks left unmatched can be lost; their pairs are all that is looked at.
    groups.clear();
    for (int32_t s : unmatched) {
      const size_t us = size_t(s);
      const Track& u = tracks[us];
      if (match[us] >= 0 || u.last_seen + 1 != frame) continue;
      int32_t best = -1;
      double best_ov = 0.0;
      const Box inside = grown(predicted[us], std::max(2.0, 0.25 * std::max(u.w, u.h)));
      for (int32_t i = pair_first[us]; i < pair_end[us]; ++i) {
        const Pair& p = pairs[size_t(i)];
        const int32_t host = det_track[size_t(p.det)];
        if (host < 0 || host == p.track) continue;
        const Track& h = tracks[size_t(host)];
        const Det& d = dets[size_t(p.det)];
        if (has(size_t(host), kBornNow) ||
            d.area - h.area < std::max(kMergeGrowth * u.area, kMergeNoise * std::sqrt(h.area)))
          continue;
        const double ov = overlap_area(inside, d.box());
        if (ov < kMergeInside * (inside.x1 - inside.x0) * (inside.y1 - inside.y0)) continue;
        if (best < 0 || ov > best_ov || (ov == best_ov && d.label < dets[size_t(best)].label)) {
          best = p.det;
          best_ov = ov;
        }
      }
      if (best < 0) continue;
      merge_det[us] = best;
      groups.push_back({dets[size_t(best)].label, s});
    }
    if (groups.empty()) return;
    std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first
                                : tracks[size_t(a.second)].id < tracks[size_t(b.second)].id;
    });
    for (size_t g = 0; g < groups.size();) {
      const int32_t d = merge_det[size_t(groups[g].second)];
      const int32_t host = det_track[size_t(d)];
      members.clear();
      members.push_back(host);
      double merging_area = 0;
      for (const uint64_t label = groups[g].first; g < groups.size() && groups[g].first == label; ++g) {
        members.push_back(groups[g].second);
        merging_area += tracks[size_t(groups[g].second)].area;
      }
      // Together too, the tracks must account for the growth; and not too many.
      const size_t mergers = members.size() - 1;
      int32_t held = 0;  // tracks the keeper would hold: the others and theirs
      for (int32_t s : members) held += 1 + waiting_in[size_t(s)];
      if (mergers > kMaxMergers || held - 1 > kMaxWaiting ||
          dets[size_t(d)].area - tracks[size_t(host)].area < kMergeGrowth * merging_area)
        continue;
      // The largest track before the merge keeps the component.
      int32_t keeper = members[0];
      for (int32_t s : members) {
        const Track &t = tracks[size_t(s)], &k = tracks[size_t(keeper)];
        if (t.area > k.area || (t.area == k.area && t.id < k.id)) keeper = s;
      }
      if (keeper != host) {
        match[size_t(host)] = -1;
        link(keeper, d);
      }
      flags[size_t(keeper)] |= kJumped;
      for (int32_t s : members) {
        if (s == keeper) continue;
        set_merged_into(size_t(s), keeper);
        history[size_t(s)].merged_into_id = tracks[size_t(keeper)].id;
        host_gains(keeper);
      }
    }
  }

  // Track s seen as component d this frame; returns the frames it missed before.
  uint32_t observe(size_t s, const Det& d) {
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

  void add_trail_point(History& hist, const Det& d) const {
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

  void finish(size_t n, std::vector<TrackInfo>& out) {
    out.resize(n);
    input_slot.resize(n);
    // Ending tracks below touches only unmatched ones, so each component's track can
    // be reported as soon as it is updated.
    for (size_t d = 0; d < dets.size(); ++d) {
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
      const Track& t = tracks[s];
      if (!t.alive || match[s] >= 0) continue;
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

  void update(int w, int h, const Component* const* components, size_t n,
              std::vector<TrackInfo>& out) {
    if (w <= 0 || h <= 0) throw Error("tracker: frame size must be positive");
    if (w != width || h != height) {
      clear_tracks();
      frame = 0;
      width = w;
      height = h;
    }
    ++frame;
    take_input(components, n);
    resolve_merges();
    frame_margins();
    build_grid();
    collect_pairs();
    match_one_to_one();
    swap_crossed_matches();
    split_stage();
    merge_stage();
    for (size_t d = 0; d < dets.size(); ++d)
      if (det_track[d] < 0) new_track(int32_t(d), 0, 0.0, 0.0);
    finish(n, out);
  }
};

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
  impl_->update(width, height, components, n, out);
}

void Tracker::update(int width, int height, TableView components,
                     std::vector<TrackInfo>& out) {
  std::vector<const Component*>& pointers = impl_->pointers;
  pointers.resize(components.size);
  for (size_t i = 0; i < components.size; ++i) pointers[i] = &components.data[i];
  impl_->update(width, height, pointers.data(), pointers.size(), out);
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
