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
int32_t round_to_int(double v) { return v >= 0 ? int32_t(v + 0.5) : -int32_t(-v + 0.5); }

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
  // A component as the grid lists it: its box in pixels [x0, x1) x [y0, y1), copied
  // beside the index so that a query reads its cells' entries in one stream.
  struct Entry {
    int32_t x0, y0, x1, y1;
    int32_t det;
    int32_t big;  // listed in several cells: deduplicated when found
  };

  struct Det {
    uint32_t label;
    double cx, cy;
    Box box;
    double area;
    int32_t cells[4];  // grid cells its box covers: x0, y0, x1, y1 (inclusive)
    bool big;          // wider or taller than a cell: listed in every cell it covers
    Entry entry;
  };

  struct Motion {  // where a track was when last seen as itself, and how it moved
    double cx, cy, vx, vy, area;
    uint64_t frame;
  };

  struct Track {
    uint64_t id = 0, parent = 0;
    uint64_t born = 0, last_seen = 0;
    uint32_t seen = 0;  // frames seen; the velocity is measured from the second on
    bool alive = false;
    double cx = 0, cy = 0, vx = 0, vy = 0, speed = 0, area = 0;
    int32_t x = 0, y = 0, w = 0, h = 0;
    // Merged into another track (slot and id, the id guarding against slot reuse).
    int32_t merged_into = -1;
    uint64_t merged_into_id = 0;
    // Its own motion, frozen while other tracks are merged into it or it is merged.
    Motion own{};
    std::vector<TrailPoint> trail;  // ring of trail_length points
    uint32_t trail_head = 0, trail_count = 0;

    // Per-frame scratch.
    Box predicted{};
    int32_t match = -1;  // component matched this frame
    uint32_t frames_unseen = 0;  // missed right before this frame (observe() sets it)
    bool jumped = false;   // its centroid jumped (split or merge): no velocity measurement
    bool born_now = false;
  };

  struct Pair {
    double cost;
    int32_t track, det;
  };

  TrackerOptions options;
  int width = -1, height = -1;
  uint64_t frame = 0;
  uint64_t next_id = 1;
  std::vector<Track> tracks;
  std::vector<int32_t> free_slots;

  // Per-frame scratch, kept to reuse its memory.
  std::vector<Det> dets;
  std::vector<uint32_t> order;  // dets[k] is input component order[k]
  std::vector<uint64_t> keyed;
  std::vector<const Component*> pointers;  // update(TableView)'s, kept between frames
  std::vector<int32_t> det_track;
  std::vector<int32_t> input_slot;  // track slot of input component i, for trail()
  // What the pairing reads of each track that searches this frame, packed apart from
  // the tracks so that the queries stream through it.
  struct Probe {
    Box gate;             // predicted box grown by the (widened) margin
    double px, py;        // predicted centroid
    double inv_scale;     // 1 / the unwidened margin: distances are costed in it
    double area;          // last seen area
    double unseen_cost;   // kUnseenWeight per missed frame
    int32_t slot;
  };
  std::vector<Probe> probes;
  std::vector<Pair> pairs;
  std::vector<std::pair<int32_t, int32_t>> pair_range;  // track s's pairs: [first, second)
  std::vector<int32_t> best_of_track, best_of_det;
  std::vector<double> match_cost;  // per track slot: the cost of its match this frame
  std::vector<int32_t> waiting_in;  // per track slot: tracks merged into it, through chains
  std::vector<int32_t> cell_start;
  std::vector<Entry> cell_items, wide;
  int32_t small_w = 0, small_h = 0;  // the largest small component's box
  std::vector<uint32_t> stamp;
  std::vector<int32_t> parent_of_det;
  std::vector<double> best_overlap;  // split and merge stages: the best overlap so far
  std::vector<std::pair<uint64_t, int32_t>> groups, waiting;
  std::vector<int32_t> members, candidates;
  std::vector<Pair> group_pairs;
  int grid_w = 0, grid_h = 0, cell = kMinCell;
  double inv_cell = 1.0 / kMinCell;
  bool any_big = false;

  // Strict total order of pairs: cost, then track id, then label.
  bool before(const Pair& a, const Pair& b) const {
    if (a.cost != b.cost) return a.cost < b.cost;
    const uint64_t ia = tracks[size_t(a.track)].id, ib = tracks[size_t(b.track)].id;
    if (ia != ib) return ia < ib;
    return dets[size_t(a.det)].label < dets[size_t(b.det)].label;
  }

  void clear_tracks() {
    tracks.clear();
    free_slots.clear();
  }

  int32_t new_track(int32_t d, uint64_t parent, double vx, double vy) {
    int32_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = int32_t(tracks.size());
      tracks.emplace_back();
    }
    Track& t = tracks[size_t(slot)];
    std::vector<TrailPoint> trail = std::move(t.trail);
    t = Track{};
    t.trail = std::move(trail);
    t.id = next_id++;
    t.parent = parent;
    t.born = frame;
    t.alive = true;
    t.vx = vx;
    t.vy = vy;
    t.speed = distance(vx, vy);
    t.born_now = true;
    t.match = d;
    t.last_seen = frame;  // so that the measurement below sees no gap
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
      d.box = {double(c.x), double(c.y), double(c.x) + c.width, double(c.y) + c.height};
    }
    det_track.assign(n, -1);
  }

  // Which track each merged track waits in (chains followed to the end), as
  // `waiting` (host id, waiting track) and the count per host; merged tracks whose
  // host has ended wait no more and are plainly lost.
  void resolve_merges() {
    waiting_in.assign(tracks.size(), 0);
    waiting.clear();
    for (size_t s = 0; s < tracks.size(); ++s) {
      Track& t = tracks[s];
      if (!t.alive || t.merged_into < 0) continue;
      int32_t r = int32_t(s);
      int hops = 0;
      while (r >= 0 && tracks[size_t(r)].merged_into >= 0 && hops++ <= int(tracks.size())) {
        const Track& cur = tracks[size_t(r)];
        const Track& host = tracks[size_t(cur.merged_into)];
        if (!host.alive || host.id != cur.merged_into_id) {
          r = -1;
          break;
        }
        r = cur.merged_into;
      }
      if (r < 0) {
        t.merged_into = -1;
        continue;
      }
      waiting.push_back({tracks[size_t(r)].id, int32_t(s)});
      ++waiting_in[size_t(r)];
    }
  }

  // Other tracks are merged into track s (it keeps its own motion frozen meanwhile).
  bool hosting(size_t s) const { return s < waiting_in.size() && waiting_in[s] > 0; }

  void predict() {
    // Where components crowd, the fixed margins would hold hundreds of them: they
    // shrink to the mean spacing of this frame's components (twice it for new tracks).
    const double spacing =
        std::sqrt(double(width) * height / double(std::max<size_t>(dets.size(), 1)));
    const double min_margin = std::min(kMinMargin, spacing);
    const double new_margin = std::min(kNewMargin, 2.0 * spacing);
    probes.clear();
    for (Track& t : tracks) {
      t.match = -1;
      t.jumped = false;
      t.born_now = false;
      if (!t.alive || t.merged_into >= 0) continue;
      const double gap = double(frame - t.last_seen);
      const double px = t.cx + t.vx * gap, py = t.cy + t.vy * gap;
      const double dx = round_to_int(t.vx * gap), dy = round_to_int(t.vy * gap);
      t.predicted = {t.x + dx, t.y + dy, t.x + dx + t.w, t.y + dy + t.h};
      // The box's geometric mean side: a long thin object must not get a gate as wide
      // as it is long in every direction.
      const double size = std::sqrt(double(t.w) * double(t.h));
      double m = t.seen >= 2 ? std::max({min_margin, 0.5 * size, kSpeedMargin * t.speed})
                             : std::max(new_margin, kNewSizeMargin * size);
      // Costs measure distance in the unwidened margin, so that a track long unseen
      // searches wider without also finding everything in reach cheap.
      // Where components crowd, widening would sweep in hundreds: it stops at twice
      // their mean spacing (or at no widening, when the margin is wider already).
      const double widened = std::min(m * std::min(1.0 + 0.5 * (gap - 1.0), kMaxLostWidening),
                                      std::max(m, 2.0 * spacing));
      probes.push_back({grown(t.predicted, widened), px, py, 1.0 / m, t.area,
                        kUnseenWeight * (gap - 1.0), int32_t(&t - tracks.data())});
    }
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
  // box; a larger one
  // is listed in every cell its box covers (and deduplicated when found); one over more
  // than kWideBox cells is tried against every gate.
  void build_grid() {
    const int64_t n = std::max<int64_t>(int64_t(dets.size()), 1);
    cell = std::max(kMinCell, int(std::sqrt(double(width) * height / double(n))) + 1);
    inv_cell = 1.0 / cell;
    grid_w = (width + cell - 1) / cell;
    grid_h = (height + cell - 1) / cell;
    cell_start.assign(size_t(grid_w) * size_t(grid_h) + 1, 0);
    wide.clear();
    any_big = false;
    small_w = small_h = 0;
    // Counting sort of (cell, component): one pass to count, one to place.
    for (size_t d = 0; d < dets.size(); ++d) {
      Det& det = dets[d];
      det.big = det.box.x1 - det.box.x0 > cell || det.box.y1 - det.box.y0 > cell;
      det.entry = {int32_t(det.box.x0), int32_t(det.box.y0), int32_t(det.box.x1),
                   int32_t(det.box.y1), int32_t(d), det.big ? 1 : 0};
      if (!det.big) {
        small_w = std::max(small_w, int32_t(det.box.x1 - det.box.x0));
        small_h = std::max(small_h, int32_t(det.box.y1 - det.box.y0));
        det.cells[0] = det.cells[2] = std::min(grid_w - 1, int(det.box.x0 * inv_cell));
        det.cells[1] = det.cells[3] = std::min(grid_h - 1, int(det.box.y0 * inv_cell));
        ++cell_start[size_t(det.cells[1]) * size_t(grid_w) + size_t(det.cells[0]) + 1];
        continue;
      }
      any_big = true;
      cell_span(det.box.x0, det.box.y0, det.box.x1, det.box.y1, det.cells);
      if (int64_t(det.cells[2] - det.cells[0] + 1) * (det.cells[3] - det.cells[1] + 1) > kWideBox) {
        det.cells[0] = -1;
        wide.push_back(det.entry);
        continue;
      }
      for (int cy = det.cells[1]; cy <= det.cells[3]; ++cy)
        for (int cx = det.cells[0]; cx <= det.cells[2]; ++cx)
          ++cell_start[size_t(cy) * size_t(grid_w) + size_t(cx) + 1];
    }
    for (size_t c = 1; c < cell_start.size(); ++c) cell_start[c] += cell_start[c - 1];
    cell_items.resize(size_t(cell_start.back()));
    for (size_t d = 0; d < dets.size(); ++d) {
      const Det& det = dets[d];
      if (det.cells[0] < 0) continue;
      for (int cy = det.cells[1]; cy <= det.cells[3]; ++cy)
        for (int cx = det.cells[0]; cx <= det.cells[2]; ++cx)
          cell_items[size_t(cell_start[size_t(cy) * size_t(grid_w) + size_t(cx)]++)] = det.entry;
    }
    // Placing advanced each start to the next cell's; shift back.
    for (size_t c = cell_start.size() - 1; c > 0; --c) cell_start[c] = cell_start[c - 1];
    cell_start[0] = 0;
  }

  static double pair_cost(const Probe& t, const Det& d) {
    return distance(d.cx - t.px, d.cy - t.py) * t.inv_scale +
           kAreaWeight * area_change(d.area, t.area) + t.unseen_cost;
  }

  void collect_pairs() {
    pairs.clear();
    if (any_big) stamp.assign(dets.size(), 0);
    pair_range.assign(tracks.size(), {0, 0});
    uint32_t query = 0;
    for (const Probe& t : probes) {
      const int32_t s = t.slot;
      const int32_t first = int32_t(pairs.size());  // a track's pairs are consecutive
      ++query;
      const Box& g = t.gate;
      // Boxes have integer edges, so the gate's edges round outwards without changing
      // which boxes meet it, and the test below stays in integers.
      const int32_t gx0 = floor_to_int(g.x0), gy0 = floor_to_int(g.y0);
      const int32_t gx1 = -floor_to_int(-g.x1), gy1 = -floor_to_int(-g.y1);
      auto consider = [&](const Entry& e) {
        if (!(e.x0 < gx1 && gx0 < e.x1 && e.y0 < gy1 && gy0 < e.y1)) return;
        if (e.big) {
          if (stamp[size_t(e.det)] == query) return;
          stamp[size_t(e.det)] = query;
        }
        pairs.push_back({pair_cost(t, dets[size_t(e.det)]), s, e.det});
      };
      int32_t span[4];
      // Small components are listed by their top-left corner: one whose box meets the
      // gate has its corner at most the largest small box's size left of or above it.
      if (cell_span(g.x0 - small_w, g.y0 - small_h, g.x1, g.y1, span))
        for (int cy = span[1]; cy <= span[3]; ++cy) {
          const size_t row = size_t(cy) * size_t(grid_w);
          const int32_t end = cell_start[row + size_t(span[2]) + 1];
          for (int32_t i = cell_start[row + size_t(span[0])]; i < end; ++i)
            consider(cell_items[size_t(i)]);
        }
      for (const Entry& e : wide) consider(e);
      // In a crowd (noise around a blob covering the frame) a gate can meet hundreds
      // of components; only its cheapest few can matter, and keeping more would make
      // the matching quadratic.
      if (pairs.size() - size_t(first) > kMaxPairsPerTrack) {
        std::nth_element(pairs.begin() + first, pairs.begin() + first + kMaxPairsPerTrack,
                         pairs.end(), [&](const Pair& a, const Pair& b) { return before(a, b); });
        pairs.resize(size_t(first) + kMaxPairsPerTrack);
      }
      pair_range[size_t(s)] = {first, int32_t(pairs.size())};
    }
  }

  // The cost of pairing track s with component d, or a negative value when the two
  // are no pair.
  double cost_of(int32_t s, int32_t d) const {
    for (int32_t p = pair_range[size_t(s)].first; p < pair_range[size_t(s)].second; ++p)
      if (pairs[size_t(p)].det == d) return pairs[size_t(p)].cost;
    return -1.0;
  }

  // Cheapest-first matching can pair two neighbours crosswise when their predictions
  // both lean the same way (objects turning side by side). Two matches whose tracks
  // would both be cheaper swapped are swapped; a pass over the pairs, twice.
  void swap_crossed_matches() {
    for (int pass = 0; pass < 2; ++pass) {
      bool swapped = false;
      for (const Pair& p : pairs) {
        const int32_t t2 = p.track, d1 = p.det;
        const int32_t t1 = det_track[size_t(d1)];
        const int32_t d2 = tracks[size_t(t2)].match;
        if (t1 < 0 || t1 == t2 || d2 < 0) continue;
        // Costs are not negative: no swap can pay unless this pair alone is cheaper
        // than the two matches together (which spares looking up the crossed pair).
        const double now = match_cost[size_t(t1)] + match_cost[size_t(t2)];
        if (p.cost >= now) continue;
        const double c12 = cost_of(t1, d2);
        if (c12 < 0 || p.cost + c12 >= now - 1e-9) continue;
        link(t2, d1, p.cost);
        link(t1, d2, c12);
        swapped = true;
      }
      if (!swapped) break;
    }
  }

  void link(int32_t s, int32_t d, double cost = 0.0) {
    tracks[size_t(s)].match = d;
    det_track[size_t(d)] = s;
    match_cost[size_t(s)] = cost;
  }

  // Greedy one-to-one matching, cheapest first. A pair that is the best of both its
  // track and its component is taken by the greedy order whatever happens before it,
  // so those go at once and only the rest is sorted.
  void match_one_to_one() {
    best_of_track.assign(tracks.size(), -1);
    best_of_det.assign(dets.size(), -1);
    match_cost.resize(tracks.size());
    for (size_t p = 0; p < pairs.size(); ++p) {
      int32_t& bt = best_of_track[size_t(pairs[p].track)];
      if (bt < 0 || before(pairs[p], pairs[size_t(bt)])) bt = int32_t(p);
      int32_t& bd = best_of_det[size_t(pairs[p].det)];
      if (bd < 0 || before(pairs[p], pairs[size_t(bd)])) bd = int32_t(p);
    }
    for (size_t p = 0; p < pairs.size(); ++p)
      if (best_of_track[size_t(pairs[p].track)] == int32_t(p) &&
          best_of_det[size_t(pairs[p].det)] == int32_t(p))
        link(pairs[p].track, pairs[p].det, pairs[p].cost);
    group_pairs.clear();
    for (const Pair& p : pairs)
      if (tracks[size_t(p.track)].match < 0 && det_track[size_t(p.det)] < 0)
        group_pairs.push_back(p);
    std::sort(group_pairs.begin(), group_pairs.end(),
              [&](const Pair& a, const Pair& b) { return before(a, b); });
    for (const Pair& p : group_pairs)
      if (tracks[size_t(p.track)].match < 0 && det_track[size_t(p.det)] < 0)
        link(p.track, p.det, p.cost);
  }

  // Where a track's own motion puts it this frame (for tracks merged into others, or
  // hosting them, that is the motion from before the merge).
  void own_prediction(const Track& t, double* x, double* y) const {
    const double gap = double(frame - t.own.frame);
    *x = t.own.cx + t.own.vx * gap;
    *y = t.own.cy + t.own.vy * gap;
  }

  void split_stage() {
    // The parent of each unmatched component: the matched track whose predicted box
    // (grown a little) overlaps it most and that was larger than it.
    parent_of_det.assign(dets.size(), -1);
        best_overlap.assign(dets.size(), 0.0);
    for (const Pair& p : pairs) {
      const Track& t = tracks[size_t(p.track)];
      const Det& d = dets[size_t(p.det)];
      if (det_track[size_t(p.det)] >= 0 || t.match < 0 || t.born_now || d.area > t.area) continue;
      const double ov =
          overlap_area(grown(t.predicted, std::max(2.0, 0.25 * std::max(t.w, t.h))), d.box);
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
      members.push_back(tracks[size_t(parent)].match);
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
    Track& p = tracks[size_t(parent)];
    det_track[size_t(p.match)] = -1;
    p.match = -1;
    auto larger = [&](int32_t a, int32_t b) {
      const Det &da = dets[size_t(a)], &db = dets[size_t(b)];
      return da.area != db.area ? da.area > db.area : da.label < db.label;
    };
    std::sort(parts.begin(), parts.end(), larger);
    if (merged.empty()) {
      // A plain split: the largest part keeps the id.
      link(parent, parts[0]);
      p.jumped = true;
    } else {
      // Tracks merged into the parent wait for their parts: each part goes to the
      // track whose own motion and size predict it best, cheapest first.
      merged.push_back(parent);
      group_pairs.clear();
      for (int32_t s : merged) {
        const Track& t = tracks[size_t(s)];
        double x, y;
        own_prediction(t, &x, &y);
        const double scale = std::max({kMinMargin, double(t.w), double(t.h)});
        for (int32_t d : parts) {
          const Det& det = dets[size_t(d)];
          const double cost =
              distance(det.cx - x, det.cy - y) / scale + area_change(det.area, t.own.area);
          group_pairs.push_back({cost, s, d});
        }
      }
      std::sort(group_pairs.begin(), group_pairs.end(),
                [&](const Pair& a, const Pair& b) { return before(a, b); });
      for (const Pair& pr : group_pairs)
        if (tracks[size_t(pr.track)].match < 0 && det_track[size_t(pr.det)] < 0)
          link(pr.track, pr.det);
      for (int32_t s : merged) {
        Track& t = tracks[size_t(s)];
        if (t.match < 0) continue;
        if (s != parent) {
          t.merged_into = -1;  // back on its own
        }
        // Its own motion resumes from before the merge.
        t.vx = t.own.vx;
        t.vy = t.own.vy;
        t.jumped = true;
      }
      // The parent keeps an id on some part whenever one is left.
      if (p.match < 0)
        for (int32_t d : parts)
          if (det_track[size_t(d)] < 0) {
            link(parent, d);
            p.jumped = true;
            break;
          }
    }
    // new_track() may grow `tracks`, which would leave `p` dangling.
    const uint64_t parent_id = p.id;
    const double vx = p.vx, vy = p.vy;
    for (int32_t d : parts)
      if (det_track[size_t(d)] < 0) new_track(d, parent_id, vx, vy);
  }

  void merge_stage() {
    // The component each lost track seen in the previous frame merged into.
    groups.clear();
    best_of_track.assign(tracks.size(), -1);
        best_overlap.assign(tracks.size(), 0.0);
    for (const Pair& p : pairs) {
      const Track& u = tracks[size_t(p.track)];
      const int32_t host = det_track[size_t(p.det)];
      if (u.match >= 0 || u.last_seen + 1 != frame || host < 0 || host == p.track) continue;
      const Track& h = tracks[size_t(host)];
      const Det& d = dets[size_t(p.det)];
      if (h.born_now ||
          d.area - h.area < std::max(kMergeGrowth * u.area, kMergeNoise * std::sqrt(h.area)))
        continue;
      const Box inside = grown(u.predicted, std::max(2.0, 0.25 * std::max(u.w, u.h)));
      const double ov = overlap_area(inside, d.box);
      if (ov < kMergeInside * (inside.x1 - inside.x0) * (inside.y1 - inside.y0)) continue;
      int32_t& cur = best_of_track[size_t(p.track)];
      if (cur < 0 || ov > best_overlap[size_t(p.track)] ||
          (ov == best_overlap[size_t(p.track)] && d.label < dets[size_t(cur)].label)) {
        cur = p.det;
        best_overlap[size_t(p.track)] = ov;
      }
    }
    for (size_t s = 0; s < tracks.size(); ++s)
      if (best_of_track[s] >= 0) groups.push_back({dets[size_t(best_of_track[s])].label, int32_t(s)});
    if (groups.empty()) return;
    std::sort(groups.begin(), groups.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first
                                : tracks[size_t(a.second)].id < tracks[size_t(b.second)].id;
    });
    for (size_t g = 0; g < groups.size();) {
      const int32_t d = best_of_track[size_t(groups[g].second)];
      const int32_t host = det_track[size_t(d)];
      members.clear();
      members.push_back(host);
      double merging_area = 0;
      for (const uint32_t label = groups[g].first; g < groups.size() && groups[g].first == label; ++g) {
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
        tracks[size_t(host)].match = -1;
        link(keeper, d);
      }
      Track& k = tracks[size_t(keeper)];
      k.jumped = true;
      for (int32_t s : members) {
        if (s == keeper) continue;
        Track& t = tracks[size_t(s)];
        t.merged_into = keeper;
        t.merged_into_id = k.id;
        ++waiting_in[size_t(keeper)];
      }
    }
  }

  void observe(Track& t, const Det& d, bool host) {
    const double gap = double(frame - t.last_seen);
    t.frames_unseen = t.born_now ? 0 : uint32_t(frame - t.last_seen - 1);
    if (!t.born_now && !t.jumped && gap > 0) {
      const double mx = (d.cx - t.cx) / gap, my = (d.cy - t.cy) / gap;
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
    t.x = int32_t(d.box.x0);
    t.y = int32_t(d.box.y0);
    t.w = int32_t(d.box.x1 - d.box.x0);
    t.h = int32_t(d.box.y1 - d.box.y0);
    t.last_seen = frame;
    ++t.seen;
    if (!host) t.own = {t.cx, t.cy, t.vx, t.vy, t.area, frame};
    if (options.trail_length > 0) {
      const size_t len = size_t(options.trail_length);
      if (t.trail.size() != len) {
        t.trail.assign(len, TrailPoint{});
        t.trail_head = 0;
        t.trail_count = 0;
      }
      t.trail[t.trail_head] = {round_to_int(d.cx), round_to_int(d.cy)};
      t.trail_head = uint32_t((t.trail_head + 1) % len);
      t.trail_count = std::min<uint32_t>(t.trail_count + 1, uint32_t(len));
    }
  }

  void finish(size_t n, std::vector<TrackInfo>& out) {
    for (size_t d = 0; d < dets.size(); ++d) {
      const size_t s = size_t(det_track[d]);
      observe(tracks[s], dets[d], hosting(s));
    }
    // Tracks not seen for more than max_lost frames end.
    for (size_t s = 0; s < tracks.size(); ++s) {
      Track& t = tracks[s];
      // A track seen in one frame only ends at its first miss: it was most likely a
      // speck of noise, and kept it would only offer its id to the next one.
      const uint64_t limit = t.seen > 1 ? uint64_t(options.max_lost) : 0;
      if (t.alive && t.match < 0 && frame - t.last_seen > limit) {
        t.alive = false;
        t.merged_into = -1;
        free_slots.push_back(int32_t(s));
      }
    }
    out.resize(n);
    input_slot.resize(n);
    for (size_t d = 0; d < dets.size(); ++d) {
      const int32_t s = det_track[d];
      const Track& t = tracks[size_t(s)];
      TrackInfo& info = out[order[d]];
      input_slot[order[d]] = s;
      info.id = t.id;
      info.parent_id = t.parent;
      info.age = uint32_t(frame - t.born + 1);
      info.frames_unseen = t.frames_unseen;
      info.velocity_x = t.vx;
      info.velocity_y = t.vy;
      info.predicted_x = t.x + round_to_int(t.vx);
      info.predicted_y = t.y + round_to_int(t.vy);
      info.predicted_width = t.w;
      info.predicted_height = t.h;
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
    // At most one new track per component: with room for them all, no reference into
    // `tracks` taken during the frame can be left dangling by its growth.
    tracks.reserve(tracks.size() + dets.size());
    resolve_merges();
    predict();
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
  const Impl::Track& t = impl_->tracks[size_t(impl_->input_slot[i])];
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
