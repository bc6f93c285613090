// The per-component and per-gate steps of ccl::cuda::TrackSearch (track_search.cu),
// written once for the device and the host: the kernels run them one thread each,
// and a host loop over them gives what the kernels give (which is how their order
// and rounding can be checked against the tracker's own grid without a device).
#pragma once

#include <cstdint>

#include "../src/tracker_search.h"
#include "ccl/types.h"

#if defined(__CUDACC__)
#define CCL_TS_HD __host__ __device__ __forceinline__
#else
#define CCL_TS_HD inline
#endif

namespace ccl::cuda::track_search {

using tracking::Candidate;
using tracking::GridPlan;
using tracking::Probe;

// As tracker_state.h: a box over more cells than this is wide; the cost's weight.
constexpr long long kWideBox = 256;
constexpr double kAreaWeight = 0.5;
// The pairs a track keeps (tracker_state.h's kMaxPairsPerTrack).
constexpr int kKept = 8;

enum : uint8_t { kNone = 0, kSmall = 1, kBig = 2, kWide = 3 };

struct Det {
  double cx, cy, area;
  int32_t x0, y0, x1, y1;
  uint32_t label;
};

struct Cells {
  int32_t x0, y0, x1, y1;
};

// Each operation rounded on its own, as the host's (-ffp-contract=off) are: on the
// device nvcc would fuse a multiply and an add otherwise.
#if defined(__CUDA_ARCH__)
CCL_TS_HD double mul(double a, double b) { return __dmul_rn(a, b); }
CCL_TS_HD double add(double a, double b) { return __dadd_rn(a, b); }
CCL_TS_HD double sub(double a, double b) { return __dsub_rn(a, b); }
CCL_TS_HD double div(double a, double b) { return __ddiv_rn(a, b); }
CCL_TS_HD double root(double a) { return __dsqrt_rn(a); }
CCL_TS_HD double to_double(uint64_t v) { return __ull2double_rn(v); }
#else
CCL_TS_HD double mul(double a, double b) { return a * b; }
CCL_TS_HD double add(double a, double b) { return a + b; }
CCL_TS_HD double sub(double a, double b) { return a - b; }
CCL_TS_HD double div(double a, double b) { return a / b; }
CCL_TS_HD double root(double a) { return __builtin_sqrt(a); }
CCL_TS_HD double to_double(uint64_t v) { return double(v); }
#endif

CCL_TS_HD int floor_to_int(double v) {
  const int i = int(v);
  return i > v ? i - 1 : i;
}
CCL_TS_HD int imax(int a, int b) { return a > b ? a : b; }
CCL_TS_HD int imin(int a, int b) { return a < b ? a : b; }
CCL_TS_HD double dmax(double a, double b) { return a > b ? a : b; }
CCL_TS_HD double dmin(double a, double b) { return a < b ? a : b; }

// Tracker::Impl::cell_span, operation for operation.
CCL_TS_HD bool cell_span(const GridPlan& g, double px0, double py0, double px1, double py1,
                         Cells* span) {
  if (px1 <= 0 || py1 <= 0 || px0 >= g.width || py0 >= g.height) return false;
  span->x0 = imax(0, floor_to_int(mul(double(floor_to_int(px0)), g.inv_cell)));
  span->y0 = imax(0, floor_to_int(mul(double(floor_to_int(py0)), g.inv_cell)));
  span->x1 = imin(g.grid_w - 1, floor_to_int(mul(double(-floor_to_int(-px1) - 1), g.inv_cell)));
  span->y1 = imin(g.grid_h - 1, floor_to_int(mul(double(-floor_to_int(-py1) - 1), g.inv_cell)));
  return true;
}

// Component c as the tracker reads it (Tracker::Impl::take_component), where the grid
// lists it (build_grid), and how many entries that takes.
CCL_TS_HD uint32_t take_component(const Component& c, const GridPlan& g, Det* det, Cells* cells,
                                  uint8_t* kind) {
  Det d;
  const double area = to_double(c.area);
  d.area = area;
  d.cx = c.area ? div(to_double(c.sum_x), area) : 0.0;
  d.cy = c.area ? div(to_double(c.sum_y), area) : 0.0;
  d.x0 = c.x;
  d.y0 = c.y;
  d.x1 = int32_t(add(double(c.x), double(c.width)));
  d.y1 = int32_t(add(double(c.y), double(c.height)));
  d.label = c.label;
  *det = d;
  const int32_t w = d.x1 - d.x0, h = d.y1 - d.y0;
  if (w <= g.cell && h <= g.cell) {
    const int32_t cx = imin(g.grid_w - 1, int(mul(double(d.x0), g.inv_cell)));
    const int32_t cy = imin(g.grid_h - 1, int(mul(double(d.y0), g.inv_cell)));
    *cells = {cx, cy, cx, cy};
    *kind = kSmall;
    return 1;
  }
  if (!cell_span(g, double(d.x0), double(d.y0), double(d.x1), double(d.y1), cells)) {
    // The host searches such a frame itself (plan_grid); never listed here.
    *kind = kNone;
    return 0;
  }
  const long long covered = (long long)(cells->x1 - cells->x0 + 1) * (cells->y1 - cells->y0 + 1);
  *kind = covered > kWideBox ? kWide : kBig;
  return covered > kWideBox ? 1u : uint32_t(covered);
}

// Component k's grid entries from keys[at], values[at]: key the cell (grid_w * grid_h
// for the wide list), value the component (bitwise negated when it is listed in
// several cells or wide, as the host's grid marks them).
CCL_TS_HD void list_component(uint32_t k, const GridPlan& g, const Cells& c, uint8_t kind,
                              uint32_t at, uint32_t* keys, int32_t* values) {
  switch (kind) {
    case kSmall:
      keys[at] = uint32_t(c.y0 * g.grid_w + c.x0);
      values[at] = int32_t(k);
      break;
    case kWide:
      keys[at] = uint32_t(g.grid_w * g.grid_h);
      values[at] = ~int32_t(k);
      break;
    case kBig:
      for (int cy = c.y0; cy <= c.y1; ++cy)
        for (int cx = c.x0; cx <= c.x1; ++cx) {
          keys[at] = uint32_t(cy * g.grid_w + cx);
          values[at++] = ~int32_t(k);
        }
      break;
    default:
      break;
  }
}

// The first of the sorted keys[0, entries) not below c.
CCL_TS_HD uint32_t lower_bound(const uint32_t* keys, uint32_t entries, uint32_t c) {
  uint32_t lo = 0, hi = entries;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Tracker::Impl::pair_cost, rounded step by step as the host's.
CCL_TS_HD double pair_cost(const Probe& t, const Det& d) {
  const double dx = sub(d.cx, t.px), dy = sub(d.cy, t.py);
  const double dist = root(add(mul(dx, dx), mul(dy, dy)));
  // area_change; areas are pixel counts, never NaN.
  const double lo = dmax(dmin(d.area, t.area), 1.0), hi = dmax(d.area, t.area);
  const double change = sub(div(hi, lo), 1.0);
  return add(add(mul(dist, t.inv_scale), mul(kAreaWeight, change)), t.unseen_cost);
}

CCL_TS_HD bool meets(const Probe& t, const Det& d) {
  return d.x0 < t.gx1 && t.gx0 < d.x1 && d.y0 < t.gy1 && t.gy0 < d.y1;
}

// Calls take(det index, det) for gate t's candidates in the host grid's order: cells
// row by row over its span, a cell's entries in component order, then the wide list.
// A component listed in several cells is taken at the first of them the gate visits:
// row by row, the cell at the larger of the two first columns and the larger of the
// two first rows.
template <class Take>
CCL_TS_HD void visit_gate(const Probe& t, const GridPlan& g, const Det* dets, const Cells* cells,
                          const uint32_t* keys, const int32_t* values, const uint32_t* starts,
                          Take&& take) {
  if (t.in_grid)
    for (int cy = t.span[1]; cy <= t.span[3]; ++cy) {
      const uint32_t row = uint32_t(cy) * uint32_t(g.grid_w);
      const uint32_t end = starts[row + uint32_t(t.span[2]) + 1];
      for (uint32_t e = starts[row + uint32_t(t.span[0])]; e < end; ++e) {
        const int32_t v = values[e];
        const int32_t det = v < 0 ? ~v : v;
        const Det d = dets[det];
        if (!meets(t, d)) continue;
        if (v < 0) {
          const uint32_t cell = keys[e];
          const Cells c = cells[det];
          if (int(cell % uint32_t(g.grid_w)) != imax(t.span[0], c.x0) ||
              int(cell / uint32_t(g.grid_w)) != imax(t.span[1], c.y0))
            continue;
        }
        take(det, d);
      }
    }
  const uint32_t all = uint32_t(g.grid_w) * uint32_t(g.grid_h);
  for (uint32_t e = starts[all], end = starts[all + 1]; e < end; ++e) {
    const int32_t det = ~values[e];
    const Det d = dets[det];
    if (meets(t, d)) take(det, d);
  }
}

// The order of a track's pairs (Tracker::Impl::after_in_track): cost, then label.
CCL_TS_HD bool after(const Candidate& a, const Candidate& b) {
  return a.cost > b.cost || (a.cost == b.cost && a.label > b.label);
}

// Gate t's kKept cheapest candidates into out (the set the host's keep_cheapest
// keeps: the order is total); in grid order when there are no more, in no particular
// order otherwise (the tracker then regathers them itself before their order can
// matter). Returns how many candidates the gate has in all.
template <int kKept>
CCL_TS_HD uint32_t cheapest_of_gate(const Probe& t, const GridPlan& g, const Det* dets,
                                    const Cells* cells, const uint32_t* keys,
                                    const int32_t* values, const uint32_t* starts,
                                    Candidate* out) {
  Candidate kept[kKept];
  uint32_t n = 0;
  int worst = 0;
  visit_gate(t, g, dets, cells, keys, values, starts, [&](int32_t det, const Det& d) {
    const Candidate c{pair_cost(t, d), det, d.label};
    if (n < uint32_t(kKept)) {
      kept[n] = c;
      if (n > 0 && after(c, kept[worst])) worst = int(n);
    } else if (after(kept[worst], c)) {
      kept[worst] = c;
      worst = 0;
      for (int j = 1; j < kKept; ++j)
        if (after(kept[j], kept[worst])) worst = j;
    }
    ++n;
  });
  const uint32_t m = n < uint32_t(kKept) ? n : uint32_t(kKept);
  for (uint32_t j = 0; j < m; ++j) out[j] = kept[j];
  return n;
}

}  // namespace ccl::cuda::track_search
