// The event counter of events.h.
//
// update() makes one pass over the components. For each, its zones and its sides of
// the lines become two bit masks: a zone's answer is mostly one read of a grid of
// precomputed cells, the polygon being tested only near its edges. For a tracked
// component, its state is found in an open-addressing hash table keyed by track id,
// and only the bits that differ from its previous report lead to more work: the
// segment intersection test of a line whose side changed, the entry or exit of a
// zone. Otherwise a report writes only the track's centroid and its expiry: a dwell
// is counted in the track's reports, which follow from the expiry, so nothing is
// written per zone while a track stays. A scan of one 32-bit word per track then
// finds those to forget.
//
// Everything hot is defined in this file with internal linkage or inside a class
// body: the library is built position-independent, and there GCC does not inline a
// function that could be interposed.
#include "ccl/events.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <sstream>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ccl/types.h"

namespace ccl {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

bool finite(double v) { return std::isfinite(v); }

// A centroid in the form the hot loop reads it: on x86 both coordinates in one
// register, so that one instruction scales, clamps or converts the two.
#if defined(__SSE2__)
using Pair = __m128d;
static_assert(offsetof(TrackCentroid, y) == offsetof(TrackCentroid, x) + sizeof(double),
              "x and y are read as one pair");
Pair load_pair(const TrackCentroid& c) { return _mm_loadu_pd(&c.x); }
void store_pair(double* xy, Pair p) { _mm_storeu_pd(xy, p); }
Pair pair_of(double x, double y) { return _mm_set_pd(y, x); }
bool finite_pair(Pair p) {
  // v - v is 0 for a finite v, NaN for an infinite or NaN one.
  return _mm_movemask_pd(_mm_cmpeq_pd(_mm_sub_pd(p, p), _mm_setzero_pd())) == 3;
}
#else
struct Pair {
  double x, y;
};
Pair load_pair(const TrackCentroid& c) { return Pair{c.x, c.y}; }
void store_pair(double* xy, Pair p) {
  xy[0] = p.x;
  xy[1] = p.y;
}
Pair pair_of(double x, double y) { return Pair{x, y}; }
bool finite_pair(Pair p) { return finite(p.x) && finite(p.y); }
#endif

// A line, with what its tests need at hand.
struct Line {
  double x1, y1, x2, y2;
  double dx, dy;  // x2 - x1, y2 - y1: s(P) = dx (Py - y1) - dy (Px - x1)

  // Whether the segment P->C meets the line's segment, given that P and C are on its
  // two sides: then it does unless both endpoints lie strictly on one side of P->C.
  bool met_by(double px, double py, double cx, double cy) const {
    const double ex = cx - px, ey = cy - py;
    const double o1 = ex * (y1 - py) - ey * (x1 - px);
    const double o2 = ex * (y2 - py) - ey * (x2 - px);
    return !((o1 > 0 && o2 > 0) || (o1 < 0 && o2 < 0));
  }
};

// The sides of a point for all lines at once, as a bit mask: the lines' numbers in
// arrays of their own, two lines per SSE2 instruction, which computes each lane as
// the scalar expression s(P) would be, so the sides are the same. The first two
// lines, all that most configurations have, are a Head that update() copies into
// registers once per frame: their test is then a few instructions without a loop or
// a load, where the loop's bookkeeping and loads used to cost as much as the test.
class LineSides {
 public:
  void set(const std::vector<Line>& lines) {
    count_ = lines.size();
    // Dummy lines of zeros (s = 0, the negative side) pad to a whole pair, and to at
    // least the head's pair.
    const size_t padded = std::max<size_t>(2, (count_ + 1) & ~size_t(1));
    x1_.assign(padded, 0);
    y1_.assign(padded, 0);
    dx_.assign(padded, 0);
    dy_.assign(padded, 0);
    for (size_t l = 0; l < count_; ++l) {
      x1_[l] = lines[l].x1;
      y1_[l] = lines[l].y1;
      dx_[l] = lines[l].dx;
      dy_[l] = lines[l].dy;
    }
  }

#if defined(__SSE2__)
  struct Head {
    __m128d x1, y1, dx, dy;  // lines 0 and 1
    size_t count;            // of all lines
  };
  Head head() const {
    return Head{_mm_loadu_pd(&x1_[0]), _mm_loadu_pd(&y1_[0]), _mm_loadu_pd(&dx_[0]),
                _mm_loadu_pd(&dy_[0]), count_};
  }
  uint64_t sides(Pair p, const Head& head) const {
    const __m128d x = _mm_unpacklo_pd(p, p), y = _mm_unpackhi_pd(p, p);
    uint64_t bits = pair_sides(x, y, head.x1, head.y1, head.dx, head.dy);
    for (size_t l = 2; l < head.count; l += 2)  // a third line and more: rarely
      bits |= pair_sides(x, y, _mm_loadu_pd(&x1_[l]), _mm_loadu_pd(&y1_[l]),
                         _mm_loadu_pd(&dx_[l]), _mm_loadu_pd(&dy_[l]))
              << l;
    return bits;
  }
#else
  struct Head {};
  Head head() const { return Head{}; }
  uint64_t sides(Pair p, const Head&) const {
    uint64_t bits = 0;
    for (size_t l = 0; l < count_; ++l)
      bits |= uint64_t(dx_[l] * (p.y - y1_[l]) - dy_[l] * (p.x - x1_[l]) > 0) << l;
    return bits;
  }
#endif

 private:
#if defined(__SSE2__)
  // Bits 0 and 1: the point (x, y in both lanes) on the positive side of each line.
  static uint64_t pair_sides(__m128d x, __m128d y, __m128d x1, __m128d y1, __m128d dx,
                             __m128d dy) {
    const __m128d s =
        _mm_sub_pd(_mm_mul_pd(dx, _mm_sub_pd(y, y1)), _mm_mul_pd(dy, _mm_sub_pd(x, x1)));
    return uint64_t(_mm_movemask_pd(_mm_cmpgt_pd(s, _mm_setzero_pd())));
  }
#endif

  size_t count_ = 0;
  std::vector<double> x1_, y1_, dx_, dy_;
};

// A zone's polygon as the even-odd test reads it: its edges that are not horizontal
// (those are never crossed), each turned upwards (a.y < b.y), in arrays of their own
// so that the loop over them has no branch and tests two edges per SSE2
// instruction, each lane computing as the scalar expression would.
class Polygon {
 public:
  double min_x, min_y, max_x, max_y;  // bounding box

  explicit Polygon(const std::vector<EventPoint>& p) {
    min_x = max_x = p[0].x;
    min_y = max_y = p[0].y;
    for (size_t i = 0; i < p.size(); ++i) {
      min_x = std::min(min_x, p[i].x);
      max_x = std::max(max_x, p[i].x);
      min_y = std::min(min_y, p[i].y);
      max_y = std::max(max_y, p[i].y);
      EventPoint a = p[i], b = p[(i + 1) % p.size()];
      if (a.y == b.y) continue;
      if (a.y > b.y) std::swap(a, b);
      ax.push_back(a.x);
      ay.push_back(a.y);
      by.push_back(b.y);
      dx.push_back(b.x - a.x);
      dy.push_back(b.y - a.y);
    }
    if (ax.size() % 2 != 0) {  // to a whole pair, by an edge that spans no y: [0, 0)
      ax.push_back(0);
      ay.push_back(0);
      by.push_back(0);
      dx.push_back(0);
      dy.push_back(0);
    }
  }

  // The ray from (x, y) towards +x crosses an edge when y is in [a.y, b.y) and the
  // edge's x at y is greater than x, that is when (b - a) x (P - a) > 0. No crossing
  // can happen outside the box [min, max) (and the count of a point left of the box
  // is even), so the box decides those points alone.
  bool contains(double x, double y) const {
    if (!((x >= min_x) & (x < max_x) & (y >= min_y) & (y < max_y))) return false;
    const size_t n = ax.size();
    const double *pax = ax.data(), *pay = ay.data(), *pby = by.data();
    const double *pdx = dx.data(), *pdy = dy.data();
    unsigned odd = 0;
#if defined(__SSE2__)
    const __m128d vx = _mm_set1_pd(x), vy = _mm_set1_pd(y);
    for (size_t e = 0; e < n; e += 2) {
      const __m128d a_x = _mm_loadu_pd(pax + e), a_y = _mm_loadu_pd(pay + e);
      const __m128d spans =
          _mm_and_pd(_mm_cmple_pd(a_y, vy), _mm_cmplt_pd(vy, _mm_loadu_pd(pby + e)));
      const __m128d s = _mm_sub_pd(_mm_mul_pd(_mm_loadu_pd(pdx + e), _mm_sub_pd(vy, a_y)),
                                   _mm_mul_pd(_mm_loadu_pd(pdy + e), _mm_sub_pd(vx, a_x)));
      odd ^= unsigned(_mm_movemask_pd(_mm_and_pd(spans, _mm_cmpgt_pd(s, _mm_setzero_pd()))));
    }
    return __builtin_parity(odd) != 0;
#else
    for (size_t e = 0; e < n; ++e) {
      const bool spans = (pay[e] <= y) & (y < pby[e]);
      const bool right = pdx[e] * (y - pay[e]) - pdy[e] * (x - pax[e]) > 0;
      odd ^= unsigned(spans & right);
    }
    return odd != 0;
#endif
  }

 private:
  std::vector<double> ax, ay, by, dx, dy;  // a, b.y, and b - a
};

// For 4 bits, a word with bit i of them as a 1 in its 16-bit lane i: adding these up
// counts the 4 bits of many masks at once.
struct LaneTable {
  uint64_t lanes[16];
  constexpr LaneTable() : lanes() {
    for (unsigned v = 0; v < 16; ++v)
      for (unsigned i = 0; i < 4; ++i)
        if (v >> i & 1) lanes[v] |= uint64_t(1) << (16 * i);
  }
};
constexpr LaneTable kLaneTable;
constexpr const uint64_t* kLanes = kLaneTable.lanes;

// Whether segment ab meets the box [x0, x1] x [y0, y1]: unless one of the box's axes
// or the segment's normal separates them. Near-misses may count as meetings.
bool segment_meets_box(EventPoint a, EventPoint b, double x0, double y0, double x1, double y1) {
  if (std::max(a.x, b.x) < x0 || std::min(a.x, b.x) > x1 || std::max(a.y, b.y) < y0 ||
      std::min(a.y, b.y) > y1)
    return false;
  int positive = 0, negative = 0;
  for (const EventPoint c :
       {EventPoint{x0, y0}, EventPoint{x1, y0}, EventPoint{x0, y1}, EventPoint{x1, y1}}) {
    const double side = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    positive += side > 0;
    negative += side < 0;
  }
  return positive != 4 && negative != 4;
}

// The zones a point is inside, for all zones at once, mostly without testing any
// polygon: a grid over the box that holds every zone records, per cell, the zones
// that hold the whole cell and the zones whose edges come near it. A point's zones
// are then one cell's read, free of the unpredictable branches of testing boxes and
// polygons; only for the zones whose edges come near its cell are the polygons
// tested. "Near" is within a margin far wider than any rounding of the cell's index
// or of the polygon test, so the grid never changes an answer, on an edge or
// anywhere else. Two rings of cells surround the box, for the points outside it: the
// inner ring is one cell wide, the outer one stretches to infinity.
class ZoneGrid {
 public:
  // 32 bytes on a 32-byte boundary, so that a read of one is of one cache line.
  struct alignas(32) Cell {
    uint64_t inside;  // zones that hold the whole cell
    uint64_t near;    // zones to test point by point
    uint64_t lanes;   // kLanes[inside & 15]: at hand, not one more read later
  };

  void set(const std::vector<EventZone>& zones, const std::vector<Polygon>& polygons) {
    cells_.assign(size_t(kSide) * kSide, 0);
    kinds_.assign(1, Cell{0, 0, 0});  // kind 0: no zone, the outer rings among others
    scale_x_ = scale_y_ = offset_x_ = offset_y_ = 0;
    if (zones.empty()) return;
    double min_x = polygons[0].min_x, max_x = polygons[0].max_x;
    double min_y = polygons[0].min_y, max_y = polygons[0].max_y;
    for (const Polygon& p : polygons) {
      min_x = std::min(min_x, p.min_x);
      max_x = std::max(max_x, p.max_x);
      min_y = std::min(min_y, p.min_y);
      max_y = std::max(max_y, p.max_y);
    }
    const double width = max_x - min_x, height = max_y - min_y;
    // Zones within a box of no area hold no point: every cell stays kind 0.
    if (!(width > 0 && height > 0)) return;
    scale_x_ = kGrid / width;
    scale_y_ = kGrid / height;
    offset_x_ = 2 - min_x * scale_x_;
    offset_y_ = 2 - min_y * scale_y_;
    // Rounding in Reader::index() and in the polygon test is about 1e-16 of the
    // coordinates' size; an edge this near a cell makes it a cell to test point by
    // point.
    double magnitude = 1;
    for (double v : {min_x, max_x, min_y, max_y}) magnitude = std::max(magnitude, std::fabs(v));
    const double margin = 1e-6 * magnitude;
    const double cell_w = width / kGrid, cell_h = height / kGrid;
    // The distinct cells, numbered in a byte: past 255 of them (only with many zones)
    // the rest share kind 255, which tests every zone point by point.
    const uint64_t all = zones.size() == 64 ? ~uint64_t(0) : (uint64_t(1) << zones.size()) - 1;
    std::map<std::pair<uint64_t, uint64_t>, uint8_t> kind_of;
    kind_of[{0, 0}] = 0;
    // The outer rings (0 and kSide - 1) are more than a cell away from every zone;
    // the cells between are classified by their rectangle.
    for (int j = 1; j < kSide - 1; ++j)
      for (int i = 1; i < kSide - 1; ++i) {
        const double x0 = min_x + (i - 2) * cell_w - margin, y0 = min_y + (j - 2) * cell_h - margin;
        const double x1 = x0 + cell_w + 2 * margin, y1 = y0 + cell_h + 2 * margin;
        Cell cell{0, 0, 0};
        for (size_t z = 0; z < zones.size(); ++z) {
          const Polygon& polygon = polygons[z];
          if (x1 < polygon.min_x || x0 > polygon.max_x || y1 < polygon.min_y ||
              y0 > polygon.max_y)
            continue;  // not near the zone's box, so outside it
          const std::vector<EventPoint>& p = zones[z].points;
          bool near = false;
          for (size_t e = 0; e < p.size() && !near; ++e)
            near = segment_meets_box(p[e], p[(e + 1) % p.size()], x0, y0, x1, y1);
          if (near)
            cell.near |= uint64_t(1) << z;
          else if (polygon.contains((x0 + x1) / 2, (y0 + y1) / 2))
            cell.inside |= uint64_t(1) << z;
        }
        uint8_t& kind = cells_[size_t(j) * kSide + size_t(i)];
        const auto found = kind_of.find({cell.inside, cell.near});
        if (found != kind_of.end()) {
          kind = found->second;
        } else if (kinds_.size() < 255) {
          kind = uint8_t(kinds_.size());
          kind_of[{cell.inside, cell.near}] = kind;
          cell.lanes = kLanes[cell.inside & 15];
          kinds_.push_back(cell);
        } else {
          kind = 255;
        }
      }
    kinds_.resize(255, Cell{0, 0, 0});
    kinds_.push_back(Cell{0, all, 0});
  }

  // What finding a point's cell reads, copied out so that a loop holds it in
  // registers or at least on its stack (as with TrackTable::Lookup). Valid until the
  // next set().
  class Reader {
   public:
    // The cell of a point, any point (a NaN one reads kind 0: outside every zone).
    const Cell& cell(Pair p) const { return kinds_[cells_[index(p)]]; }

   private:
    friend class ZoneGrid;
    explicit Reader(const ZoneGrid& grid)
        : scale_x_(grid.scale_x_), scale_y_(grid.scale_y_), offset_x_(grid.offset_x_),
          offset_y_(grid.offset_y_), cells_(grid.cells_.data()), kinds_(grid.kinds_.data()) {}

    // Without a branch: points come in no order, so a branch per ring would often be
    // mispredicted (and GCC turns a plain clamp before a conversion into branches).
    size_t index(Pair p) const {
#if defined(__SSE2__)
      __m128d f = _mm_add_pd(_mm_mul_pd(p, _mm_set_pd(scale_y_, scale_x_)),
                             _mm_set_pd(offset_y_, offset_x_));
      // max first: it turns a NaN into 0.
      f = _mm_min_pd(_mm_max_pd(f, _mm_setzero_pd()), _mm_set1_pd(kSide - 1));
      // (column, row) as 16-bit numbers, times (1, kSide), summed.
      __m128i i =
          _mm_madd_epi16(_mm_cvttpd_epi32(f), _mm_set_epi16(0, 0, 0, 0, 0, kSide, 0, 1));
      i = _mm_add_epi32(i, _mm_srli_si128(i, 4));
      return size_t(_mm_cvtsi128_si32(i));
#else
      return index_of(p.x * scale_x_ + offset_x_) +
             kSide * index_of(p.y * scale_y_ + offset_y_);
#endif
    }

    double scale_x_, scale_y_, offset_x_, offset_y_;
    const uint8_t* cells_;
    const Cell* kinds_;
  };
  Reader reader() const { return Reader(*this); }

 private:
  // Cells across the box, and across the grid with its two rings each side.
  static constexpr int kGrid = 128;
  static constexpr int kSide = kGrid + 4;

  // A coordinate's column (row) is 2 + its cells from the box's side: v * scale +
  // offset, clamped to the outer rings.
  double scale_x_ = 0, scale_y_ = 0, offset_x_ = 0, offset_y_ = 0;
  std::vector<uint8_t> cells_;  // kSide x kSide kinds, row by row
  std::vector<Cell> kinds_;     // the distinct cells, 256 of them

  static size_t index_of(double f) {
    return size_t(int(f > 0 ? std::min(f, double(kSide - 1)) : 0.0));
  }
};

// Where a track was at its last report: what a new report is compared with. 32
// bytes on a 32-byte boundary, so that a lookup reads one cache line.
struct alignas(32) TrackState {
  double x, y;      // its centroid
  uint64_t sides;   // bit l: on line l's positive side
  uint64_t inside;  // bit z: inside zone z
};

// A track's stay in a zone, written when it enters.
struct Stay {
  uint32_t entry_report;  // the track's report count (Impl::reports()) on entry
  uint64_t entry_frame;
  int64_t entry_time;
};

// Track id -> slot of the track's state. Linear probing over a power-of-two table at
// most half full, the id hashed by Fibonacci multiplication (ids are often
// consecutive); deletion shifts the cells after the hole back, so there are no
// tombstones and lookups stay short however long the stream.
class TrackTable {
  struct Cell {
    uint32_t id;  // 0: empty
    uint32_t slot;
  };

 public:
  TrackTable() { grow(); }

  // What a lookup reads, copied out so that a loop holds it in registers: the
  // table's own members could, for all the compiler knows, be overwritten by any
  // store of a 32-bit number in the loop, and would be read again for each lookup.
  // Valid until the next insert(), which may move the cells.
  class Lookup {
   public:
    // The slot of `id`, or kNone. `id` must not be 0, the id of the empty cells.
    uint32_t find(uint32_t id) const {
      const Cell& c = cells_[home(id, shift_)];
      if (c.id == id) {  // most lookups: no loop
        // No slot is kNone (that would take 2^32 tracks at once): telling the compiler
        // so lets it drop the caller's test for kNone from this, the common path.
        if (c.slot == kNone) __builtin_unreachable();
        return c.slot;
      }
      return table_->find_further(id);
    }
    void prefetch(uint32_t id) const { __builtin_prefetch(&cells_[home(id, shift_)]); }

   private:
    friend class TrackTable;
    explicit Lookup(const TrackTable& table)
        : table_(&table), cells_(table.cells_.data()), shift_(table.shift_) {}
    const TrackTable* table_;
    const Cell* cells_;
    unsigned shift_;
  };
  Lookup lookup() const { return Lookup(*this); }

  uint32_t find(uint32_t id) const { return lookup().find(id); }
  // `id` must not be in the table (nor be 0).
  void insert(uint32_t id, uint32_t slot) {
    if ((count_ + 1) * 2 > cells_.size()) grow();
    size_t i = home(id, shift_);
    while (cells_[i].id != 0) i = (i + 1) & mask_;
    cells_[i] = Cell{id, slot};
    ++count_;
  }
  void erase(uint32_t id) {
    size_t hole = home(id, shift_);
    while (cells_[hole].id != id) hole = (hole + 1) & mask_;
    // Move back each following cell of the run whose home is not between the hole
    // and it (cyclically), so that no lookup runs into the hole before its key.
    for (size_t i = (hole + 1) & mask_; cells_[i].id != 0; i = (i + 1) & mask_) {
      const size_t h = home(cells_[i].id, shift_);
      const bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
      if (stays) continue;
      cells_[hole] = cells_[i];
      hole = i;
    }
    cells_[hole] = Cell{0, 0};
    --count_;
  }
  void clear() {
    std::fill(cells_.begin(), cells_.end(), Cell{0, 0});
    count_ = 0;
  }

 private:
  static size_t home(uint32_t id, unsigned shift) {
    return size_t((uint64_t(id) * 0x9E3779B97F4A7C15ull) >> shift);
  }
  // The rest of a lookup that did not find `id` at its home: out of line, to keep the
  // loops that look tracks up small.
  __attribute__((noinline)) uint32_t find_further(uint32_t id) const {
    // From the home cell again: it may be empty.
    for (size_t i = home(id, shift_);; i = (i + 1) & mask_) {
      const Cell& c = cells_[i];
      if (c.id == id) return c.slot;
      if (c.id == 0) return kNone;
    }
  }
  void grow() {
    std::vector<Cell> old;
    old.swap(cells_);
    const size_t size = old.empty() ? 64 : old.size() * 2;
    cells_.assign(size, Cell{0, 0});
    mask_ = size - 1;
    shift_ = 64;
    for (size_t s = size; s > 1; s >>= 1) --shift_;
    count_ = 0;
    for (const Cell& c : old)
      if (c.id != 0) insert(c.id, c.slot);
  }

  std::vector<Cell> cells_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t count_ = 0;
};

std::string point_text(double x, double y) {
  std::ostringstream s;
  s << '(' << x << ", " << y << ')';
  return s.str();
}

}  // namespace

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::LineForward: return "line-forward";
    case EventKind::LineBackward: return "line-backward";
    case EventKind::ZoneEnter: return "zone-enter";
    case EventKind::ZoneExit: return "zone-exit";
    case EventKind::ZoneMax: return "zone-max";
  }
  return "unknown";
}

std::string validate(const EventConfig& config, int width, int height) {
  if (width < 0 || height < 0) return "events: the frame size must not be negative";
  const bool bounded = width > 0 && height > 0;
  // The first fault of a point, or "".
  auto check = [&](const std::string& what, double x, double y) -> std::string {
    if (!finite(x) || !finite(y)) return "events: " + what + " is not finite";
    if (bounded && (x < 0 || x > width || y < 0 || y > height))
      return "events: " + what + ' ' + point_text(x, y) + " is outside the " +
             std::to_string(width) + 'x' + std::to_string(height) + " frame";
    return "";
  };
  if (config.forget_after == 0) return "events: forget_after must be at least 1";
  if (config.lines.size() > kMaxEventLines)
    return "events: " + std::to_string(config.lines.size()) + " lines; at most " +
           std::to_string(kMaxEventLines);
  if (config.zones.size() > kMaxEventZones)
    return "events: " + std::to_string(config.zones.size()) + " zones; at most " +
           std::to_string(kMaxEventZones);
  for (size_t i = 0; i < config.lines.size(); ++i) {
    const EventLine& l = config.lines[i];
    const std::string name = "line " + std::to_string(i);
    std::string fault = check(name + "'s first point", l.x1, l.y1);
    if (fault.empty()) fault = check(name + "'s second point", l.x2, l.y2);
    if (!fault.empty()) return fault;
    if (l.x1 == l.x2 && l.y1 == l.y2)
      return "events: " + name + " has identical endpoints " + point_text(l.x1, l.y1);
  }
  for (size_t z = 0; z < config.zones.size(); ++z) {
    const std::vector<EventPoint>& p = config.zones[z].points;
    const std::string name = "zone " + std::to_string(z);
    if (p.size() < 3)
      return "events: " + name + " has " + std::to_string(p.size()) +
             " points; a zone needs at least 3";
    for (size_t i = 0; i < p.size(); ++i) {
      const std::string fault = check(name + "'s point " + std::to_string(i), p[i].x, p[i].y);
      if (!fault.empty()) return fault;
    }
  }
  return "";
}

struct EventCounter::Impl {
  // Tracks beyond which update() looks the components' tracks up ahead: about where
  // the tables (60 bytes a track, and 24 a zone) no longer fit a core's cache.
  static constexpr size_t kManyTracks = 16384;

  EventConfig config;
  std::vector<Line> lines;
  LineSides line_sides;
  std::vector<Polygon> polygons;
  ZoneGrid grid;

  std::vector<uint64_t> forward, backward;
  std::vector<uint32_t> zone_count;
  std::vector<uint64_t> entries, exits;

  TrackTable table;
  // By slot: the tracks' ids (0: a free slot), states, expiries, report offsets and
  // stays (zones.size() per slot).
  //
  // A track's expiry is the update() count, modulo 2^32, at which it is forgotten
  // unless reported before: its last report's count plus forget_after. As the scan
  // for those due runs every update(), a track is due when its expiry equals the
  // count, exactly. 32 bits apiece and in an array of their own, the scan reads 4
  // at once.
  //
  // A dwell is counted in the track's reports, so that nothing is written per zone
  // while it stays; and the reports, so that nothing more is written per report
  // than the expiry, follow from it: a track's reports so far (1 for the first) are
  // its expiry minus its offset (modulo 2^32). The expiry advances by 1 from one
  // update() to the next, as the reports do, and the offset changes only when a
  // track comes back after missed frames, by their number.
  std::vector<uint32_t> ids;
  std::vector<TrackState> states;
  std::vector<uint32_t> expiry;
  std::vector<uint32_t> offset;
  std::vector<Stay> stays;
  std::vector<uint32_t> free_slots;
  size_t remembered = 0;
  uint64_t frames = 0;

  // Scratch of update(), kept to allocate nothing per frame: each component's zones
  // (a centroid that is not finite is in none), for the zones past the fourth (the
  // first four are counted as the components are read); the tracks to forget.
  std::vector<uint64_t> masks;
  std::vector<uint32_t> slots;  // of the components, when looked up first
  std::vector<uint32_t> previous_count;
  std::vector<std::pair<uint32_t, uint32_t>> forgotten;  // (id, slot)

  // The frame update() is at, for the events.
  uint64_t frame = 0;
  int64_t time = 0;

  void set(const EventConfig& c) {
    config = c;
    lines.clear();
    for (const EventLine& l : c.lines)
      lines.push_back(Line{l.x1, l.y1, l.x2, l.y2, l.x2 - l.x1, l.y2 - l.y1});
    line_sides.set(lines);
    polygons.clear();
    for (const EventZone& z : c.zones) polygons.emplace_back(z.points);
    grid.set(c.zones, polygons);
    previous_count.assign(c.zones.size(), 0);
    clear();
  }

  void clear() {
    forward.assign(lines.size(), 0);
    backward.assign(lines.size(), 0);
    zone_count.assign(polygons.size(), 0);
    entries.assign(polygons.size(), 0);
    exits.assign(polygons.size(), 0);
    table.clear();
    ids.clear();
    states.clear();
    expiry.clear();
    offset.clear();
    stays.clear();
    free_slots.clear();
    remembered = 0;
    frames = 0;
  }

  // Track `slot`'s reports, as of its last one.
  uint32_t reports(uint32_t slot) const { return expiry[slot] - offset[slot]; }

  // The zones (x, y) is inside: the grid's answer, and the polygons' near their edges;
  // and kLanes of the first four.
  struct Zones {
    uint64_t inside, lanes;
  };
  Zones zones_of(const ZoneGrid::Reader& reader, Pair p, double x, double y) const {
    const ZoneGrid::Cell& cell = reader.cell(p);
    if (__builtin_expect(cell.near != 0, 0)) {
      const uint64_t inside = cell.inside | near_zones(cell.near, x, y);
      return Zones{inside, kLanes[inside & 15]};
    }
    return Zones{cell.inside, cell.lanes};
  }
  // Out of line, to keep the loops that call zones_of() small.
  __attribute__((noinline)) uint64_t near_zones(uint64_t near, double x, double y) const {
    uint64_t inside = 0;
    for (uint64_t m = near; m != 0; m &= m - 1) {
      const int z = __builtin_ctzll(m);
      inside |= uint64_t(polygons[size_t(z)].contains(x, y)) << z;
    }
    return inside;
  }

  Event event(EventKind kind, size_t index, uint32_t id, double x, double y) const {
    Event e;
    e.kind = kind;
    e.index = uint32_t(index);
    e.track_id = id;
    e.x = x;
    e.y = y;
    e.frame = frame;
    e.running_time = time;
    return e;
  }

  Stay& stay(uint32_t slot, size_t z) { return stays[size_t(slot) * polygons.size() + z]; }

  // Track `slot` left zone z (or is forgotten in it); its expiry is as of its last
  // report inside.
  void exit(uint32_t slot, size_t z, double x, double y, std::vector<Event>& events) {
    const Stay& st = stay(slot, z);
    Event e = event(EventKind::ZoneExit, z, ids[slot], x, y);
    e.count = reports(slot) - st.entry_report + 1;
    e.entry_time = st.entry_time;
    events.push_back(e);
    ++exits[z];
  }

  // Track `slot` entered zone z; its expiry is as of its previous report, so this one
  // is report reports() + 1.
  void enter(uint32_t slot, size_t z, double x, double y, std::vector<Event>& events) {
    stay(slot, z) = Stay{reports(slot) + 1, frame, time};
    Event e = event(EventKind::ZoneEnter, z, ids[slot], x, y);
    e.count = 1;
    e.entry_time = time;
    events.push_back(e);
    ++entries[z];
  }

  // A track's report that differs from its previous one in some side or zone: its
  // crossings, then its entries and exits, in index order; and its new sides and
  // zones (pass() writes its centroid).
  __attribute__((noinline)) void changed(uint32_t slot, double x, double y, uint64_t sides,
                                         uint64_t inside, std::vector<Event>& events) {
    TrackState& s = states[slot];
    for (uint64_t m = sides ^ s.sides; m != 0; m &= m - 1) {
      const int l = __builtin_ctzll(m);
      if (!lines[size_t(l)].met_by(s.x, s.y, x, y)) continue;
      const bool backwards = (s.sides >> l) & 1;
      events.push_back(event(backwards ? EventKind::LineBackward : EventKind::LineForward,
                             size_t(l), ids[slot], x, y));
      ++(backwards ? backward : forward)[size_t(l)];
    }
    // An exit and an entry never share a zone.
    for (uint64_t m = inside ^ s.inside; m != 0; m &= m - 1) {
      const int z = __builtin_ctzll(m);
      if ((inside >> z) & 1)
        enter(slot, size_t(z), x, y, events);
      else
        exit(slot, size_t(z), x, y, events);
    }
    s.sides = sides;
    s.inside = inside;
  }

  // A track not remembered: it crosses nothing, and enters the zones it is inside.
  // Its expiry is left as if it had been reported in the previous update() (with
  // no report so far), for pass() to take this report as any other.
  __attribute__((noinline)) uint32_t add_track(uint32_t id, double x, double y,
                                               uint64_t sides, uint64_t inside,
                                               uint32_t expires, std::vector<Event>& events) {
    uint32_t slot;
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      slot = uint32_t(states.size());
      ids.push_back(0);
      states.emplace_back();
      expiry.push_back(0);
      offset.push_back(0);
      stays.resize(stays.size() + polygons.size());
    }
    table.insert(id, slot);
    ++remembered;
    ids[slot] = id;
    states[slot] = TrackState{x, y, sides, inside};
    expiry[slot] = expires - 1;
    offset[slot] = expires - 1;  // no report yet
    for (uint64_t m = inside; m != 0; m &= m - 1)
      enter(slot, size_t(__builtin_ctzll(m)), x, y, events);
    return slot;
  }

  // Track `slot`, due at `last`, comes back after missed frames: as it missed them,
  // its reports fell behind its expiry by their number.
  __attribute__((noinline)) void came_back(uint32_t slot, uint32_t last, uint32_t expires) {
    offset[slot] += expires - last - 1;
  }

  void update(const TrackCentroid* in, size_t n, std::vector<Event>& events) {
    ++frames;
    if (lines.empty() && polygons.empty()) return;
    for (size_t z = 0; z < polygons.size(); ++z) {
      previous_count[z] = zone_count[z];
      zone_count[z] = 0;
    }
    if (polygons.size() > 4 && masks.size() < n) masks.resize(n);
    const bool any_zone = !polygons.empty();
    // With many tracks their tables outgrow the caches, and a lookup waits on memory:
    // then all the lookups come first, in a short loop that keeps many of them in
    // flight, and each track's state is fetched a few components ahead of its use.
    if (states.size() > kManyTracks) {
      if (slots.size() < n) slots.resize(n);
      const TrackTable::Lookup lookup = table.lookup();
      for (size_t i = 0; i < n; ++i) {
        if (i + 16 < n) lookup.prefetch(in[i + 16].track_id);
        slots[i] = in[i].track_id != 0 ? lookup.find(in[i].track_id) : kNone;
      }
      any_zone ? pass<true, true>(in, n, events) : pass<true, false>(in, n, events);
    } else {
      any_zone ? pass<false, true>(in, n, events) : pass<false, false>(in, n, events);
    }
    if (polygons.size() > 4) count_zones(n);
    forget(events);
    for (size_t z = 0; z < polygons.size(); ++z) {
      const uint32_t limit = config.zones[z].max_count;
      if (limit == 0 || previous_count[z] > limit || zone_count[z] <= limit) continue;
      Event e = event(EventKind::ZoneMax, z, 0, 0, 0);
      e.count = zone_count[z];
      events.push_back(e);
    }
  }

  // The components against their tracks, in one loop that finds each component's
  // zones and sides and compares them with its track's (kAhead: the tracks' slots
  // looked up already; kZones: zones configured). Zones 0 to 3 are counted in the
  // loop: each mask's 4 low bits become 16-bit lanes of one word (bit i a 1 in lane
  // i, by a table), summed in a register rather than a chain of increments of
  // memory words each waiting for the one before, emptied before a lane can
  // overflow.
  template <bool kAhead, bool kZones>
  void pass(const TrackCentroid* in, size_t n, std::vector<Event>& events) {
    // What the loop reads of the tables, in locals: it calls functions and stores
    // numbers, after which the compiler would read the members again.
    const uint32_t* const slot_of = slots.data();
    uint64_t* const mask = polygons.size() > 4 ? masks.data() : nullptr;
    const uint32_t expires = uint32_t(frames + config.forget_after);
    const uint32_t consecutive = expires - 1;  // the expiry of a track reported last frame
    const LineSides::Head head = line_sides.head();
    const ZoneGrid::Reader reader = grid.reader();
    TrackTable::Lookup lookup = table.lookup();
    TrackState* state = states.data();
    uint32_t* due = expiry.data();
    for (size_t begin = 0; begin < n; begin += 0xFFFF) {
      const size_t end = std::min(n, begin + 0xFFFF);
      uint64_t lanes = 0;
      for (size_t i = begin; i < end; ++i) {
        if (kAhead && i + 8 < n && slot_of[i + 8] != kNone) {
          __builtin_prefetch(&state[slot_of[i + 8]]);
          __builtin_prefetch(&due[slot_of[i + 8]]);
        }
        const Pair p = load_pair(in[i]);
        const double x = in[i].x, y = in[i].y;
        uint64_t inside = 0;
        if (kZones) {
          const Zones zones = zones_of(reader, p, x, y);
          inside = zones.inside;
          lanes += zones.lanes;
          if (mask) mask[i] = inside;
        }
        const uint32_t id = in[i].track_id;
        if (id == 0 || !finite_pair(p)) continue;
        const uint64_t sides = line_sides.sides(p, head);
        uint32_t slot = kAhead ? slot_of[i] : lookup.find(id);
        if (kAhead && slot == kNone) slot = lookup.find(id);  // added earlier in this frame?
        if (slot == kNone) {
          slot = add_track(id, x, y, sides, inside, expires, events);
          // Which may have grown the tables.
          lookup = table.lookup();
          state = states.data();
          due = expiry.data();
        } else {
          const uint32_t last = due[slot];
          if (last == expires) continue;  // given twice: counted above
          const TrackState& s = state[slot];
          if (((sides ^ s.sides) | (inside ^ s.inside)) != 0)
            changed(slot, x, y, sides, inside, events);
          if (__builtin_expect(last != consecutive, 0)) came_back(slot, last, expires);
        }
        // Its sides and zones are as they were, or written by changed() or add_track().
        store_pair(&state[slot].x, p);
        due[slot] = expires;
      }
      if (kZones)
        for (size_t k = 0; k < 4 && k < polygons.size(); ++k)
          zone_count[k] += uint32_t((lanes >> (16 * k)) & 0xFFFF);
    }
  }

  // zone_count of zones 4 and up from the frame's masks, four zones at a time as in
  // pass(), two sums so that each add need not wait for the one before.
  void count_zones(size_t n) {
    const size_t nz = polygons.size();
    const uint64_t* mask = masks.data();
    for (size_t group = 1; 4 * group < nz; ++group) {
      const unsigned shift = unsigned(4 * group);
      for (size_t begin = 0; begin < n; begin += 0xFFFF) {
        const size_t end = std::min(n, begin + 0xFFFF);
        uint64_t even = 0, odd = 0;
        size_t i = begin;
        for (; i + 1 < end; i += 2) {
          even += kLanes[(mask[i] >> shift) & 15];
          odd += kLanes[(mask[i + 1] >> shift) & 15];
        }
        if (i < end) even += kLanes[(mask[i] >> shift) & 15];
        const uint64_t lanes = even + odd;
        for (size_t k = 0; k < 4 && 4 * group + k < nz; ++k)
          zone_count[4 * group + k] += uint32_t((lanes >> (16 * k)) & 0xFFFF);
      }
    }
  }

  // Drops the tracks whose expiry has come: those unreported in the last forget_after
  // frames, this one included.
  void forget(std::vector<Event>& events) {
    forgotten.clear();
    const uint32_t now = uint32_t(frames);
    const uint32_t* e = expiry.data();
    const size_t n = expiry.size();
    size_t slot = 0;
#if defined(__SSE2__)
    const __m128i v = _mm_set1_epi32(int32_t(now));
    for (; slot + 4 <= n; slot += 4) {
      const __m128i four = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e + slot));
      int due = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(four, v)));
      if (__builtin_expect(due != 0, 0))
        for (; due != 0; due &= due - 1) due_slot(slot + size_t(__builtin_ctz(unsigned(due))));
    }
#endif
    for (; slot < n; ++slot)
      if (e[slot] == now) due_slot(slot);
    if (forgotten.empty()) return;
    std::sort(forgotten.begin(), forgotten.end());
    for (const auto& f : forgotten) {
      const TrackState& s = states[f.second];
      for (uint64_t m = s.inside; m != 0; m &= m - 1)
        exit(f.second, size_t(__builtin_ctzll(m)), s.x, s.y, events);
      table.erase(f.first);
      ids[f.second] = 0;
      free_slots.push_back(f.second);
      --remembered;
    }
  }
  void due_slot(size_t slot) {
    // A free slot's expiry is stale, and may match.
    if (ids[slot] != 0) forgotten.emplace_back(ids[slot], uint32_t(slot));
  }
};

EventCounter::EventCounter() : impl_(new Impl) { impl_->set(EventConfig{}); }

EventCounter::EventCounter(const EventConfig& config) : EventCounter() { configure(config); }

EventCounter::~EventCounter() = default;
EventCounter::EventCounter(EventCounter&&) noexcept = default;
EventCounter& EventCounter::operator=(EventCounter&&) noexcept = default;

void EventCounter::configure(const EventConfig& config, int width, int height) {
  const std::string fault = validate(config, width, height);
  if (!fault.empty()) throw Error(fault);
  impl_->set(config);
}

const EventConfig& EventCounter::config() const { return impl_->config; }

void EventCounter::reset() { impl_->clear(); }

void EventCounter::update(const TrackCentroid* components, size_t n, uint64_t frame,
                          int64_t running_time, std::vector<Event>& events) {
  impl_->frame = frame;
  impl_->time = running_time;
  impl_->update(components, n, events);
}

const std::vector<uint64_t>& EventCounter::forward() const { return impl_->forward; }
const std::vector<uint64_t>& EventCounter::backward() const { return impl_->backward; }
const std::vector<uint32_t>& EventCounter::zone_count() const { return impl_->zone_count; }
const std::vector<uint64_t>& EventCounter::zone_entries() const { return impl_->entries; }
const std::vector<uint64_t>& EventCounter::zone_exits() const { return impl_->exits; }

bool EventCounter::dwell(uint32_t track_id, size_t zone, ZoneDwell* out) const {
  const Impl& m = *impl_;
  if (track_id == 0 || zone >= m.polygons.size()) return false;
  const uint32_t slot = m.table.find(track_id);
  if (slot == kNone) return false;
  if (((m.states[slot].inside >> zone) & 1) == 0) return false;
  const Stay& st = m.stays[size_t(slot) * m.polygons.size() + zone];
  if (out) *out = ZoneDwell{m.reports(slot) - st.entry_report + 1, st.entry_frame, st.entry_time};
  return true;
}

bool EventCounter::inside_zone(size_t zone, double x, double y) const {
  return zone < impl_->polygons.size() && impl_->polygons[zone].contains(x, y);
}

bool EventCounter::inside_any_zone(double x, double y) const {
  const Impl& m = *impl_;
  return !m.polygons.empty() && m.zones_of(m.grid.reader(), pair_of(x, y), x, y).inside != 0;
}

size_t EventCounter::tracks() const { return impl_->remembered; }
uint64_t EventCounter::frames() const { return impl_->frames; }

}  // namespace ccl
