// Pairing: the components go into a uniform grid by bounding box, and each searching
// track's gate collects the components whose boxes it meets, each pair with a cost
// (distance to the prediction over the gate's margin, change of area, frames unseen).
// A track keeps its few cheapest pairs; each track's and each component's cheapest pair
// are noted for the matching (tracker_matching.cpp).
#include "tracker_state.h"
#include "tracker_keep.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define CCL_TRACKER_SSE2 1
#endif

namespace ccl {

using namespace tracking;

// The grid: a component no larger than a cell is listed once, in the cell of its
// box's top-left corner, so a query looks further left and up by the largest such
// box; a larger one is listed in every cell its box covers (and deduplicated when
// found); one over more than kWideBox cells is tried against every gate.
void Tracker::Impl::build_grid() {
  grid_shape();
  cell_start.assign(size_t(grid_w) * size_t(grid_h) + 1, 0);
  // Kept from frame to frame, as it always was: a big box wholly outside the frame
  // (no cell) keeps the cells its slot had, and changing that would change ids.
  det_cells.resize(dets.size());
  det_cell.resize(dets.size());  // a small one's cell (-1 for others): 4 bytes to read back
  wide.clear();
  any_big = false;
  small_w = small_h = 0;
  // Counting sort of (cell, component): one pass to count, one to place.
  for (size_t d = 0; d < dets.size(); ++d) {
    const Det& det = dets[d];
    std::array<int32_t, 4>& cells = det_cells[d];
    if (list_small(det, cells)) {
      det_cell[d] = cells[1] * grid_w + cells[0];
      ++cell_start[size_t(det_cell[d]) + 1];
      continue;
    }
    any_big = true;
    det_cell[d] = -1;
    const Box b = det.box();
    cell_span(b.x0, b.y0, b.x1, b.y1, cells.data());
    if (int64_t(cells[2] - cells[0] + 1) * (cells[3] - cells[1] + 1) > kWideBox) {
      cells[0] = -1;
      wide.push_back({det.x0, det.y0, det.x1, det.y1, ~int32_t(d)});
      continue;
    }
    for (int cy = cells[1]; cy <= cells[3]; ++cy)
      for (int cx = cells[0]; cx <= cells[2]; ++cx)
        ++cell_start[size_t(cy) * size_t(grid_w) + size_t(cx) + 1];
  }
  for (size_t c = 1; c < cell_start.size(); ++c) cell_start[c] += cell_start[c - 1];
  // + what gather() reads past the end of the last row.
  const size_t total = size_t(cell_start.back()) + 4;
  for (auto* v : {&item_x0, &item_y0, &item_x1, &item_y1, &item_det})
    if (v->size() < total) v->resize(total);
  auto place = [&](const Det& det, int32_t listed, size_t c) {
    const size_t at = size_t(cell_start[c]++);
    item_x0[at] = det.x0;
    item_y0[at] = det.y0;
    item_x1[at] = det.x1;
    item_y1[at] = det.y1;
    item_det[at] = listed;
  };
  for (size_t d = 0; d < dets.size(); ++d) {
    const Det& det = dets[d];
    if (det_cell[d] >= 0) {
      place(det, int32_t(d), size_t(det_cell[d]));
      continue;
    }
    const std::array<int32_t, 4>& cells = det_cells[d];
    if (cells[0] < 0) continue;
    for (int cy = cells[1]; cy <= cells[3]; ++cy)
      for (int cx = cells[0]; cx <= cells[2]; ++cx)
        place(det, ~int32_t(d), size_t(cy) * size_t(grid_w) + size_t(cx));
  }
  // Placing advanced each start to the next cell's; shift back.
  for (size_t c = cell_start.size() - 1; c > 0; --c) cell_start[c] = cell_start[c - 1];
  cell_start[0] = 0;
}

inline double Tracker::Impl::pair_cost(const Probe& t, const Det& d) {
  return distance(d.cx - t.px, d.cy - t.py) * t.inv_scale +
         kAreaWeight * area_change(d.area, t.area) + t.unseen_cost;
}

// pair_cost of two pairs at once, computed as it does, operation for operation (each
// lane of an SSE2 instruction rounds as the scalar one): the square roots and
// divisions, which bound the cost of the candidates, go two by two.
inline void Tracker::Impl::pair_costs(const Probe& t0, const Det& d0, const Probe& t1,
                                      const Det& d1, double* c0, double* c1) {
#ifndef CCL_TRACKER_SSE2
  *c0 = pair_cost(t0, d0);
  *c1 = pair_cost(t1, d1);
#else
  const __m128d dx = _mm_sub_pd(_mm_set_pd(d1.cx, d0.cx), _mm_set_pd(t1.px, t0.px));
  const __m128d dy = _mm_sub_pd(_mm_set_pd(d1.cy, d0.cy), _mm_set_pd(t1.py, t0.py));
  const __m128d dist = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy)));
  // area_change: areas are pixel counts (never NaN nor -0), for which these min and
  // max give what std::min and std::max give.
  const __m128d a = _mm_set_pd(d1.area, d0.area), b = _mm_set_pd(t1.area, t0.area);
  const __m128d one = _mm_set1_pd(1.0);
  const __m128d lo = _mm_max_pd(_mm_min_pd(a, b), one), hi = _mm_max_pd(a, b);
  const __m128d change = _mm_sub_pd(_mm_div_pd(hi, lo), one);
  const __m128d cost = _mm_add_pd(
      _mm_add_pd(_mm_mul_pd(dist, _mm_set_pd(t1.inv_scale, t0.inv_scale)),
                 _mm_mul_pd(_mm_set1_pd(kAreaWeight), change)),
      _mm_set_pd(t1.unseen_cost, t0.unseen_cost));
  _mm_storel_pd(c0, cost);
  _mm_storeh_pd(c1, cost);
#endif
}

// Which of the grid's entries i...i+3 meet the gate of probe t, as bits 0 to 3.
inline unsigned Tracker::Impl::meets_of_four(const Probe& t, int32_t i) const {
#ifdef CCL_TRACKER_SSE2
  const auto load = [i](const std::vector<int32_t>& v) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(v.data() + i));
  };
  const __m128i in_x = _mm_and_si128(_mm_cmplt_epi32(load(item_x0), _mm_set1_epi32(t.gx1)),
                                     _mm_cmplt_epi32(_mm_set1_epi32(t.gx0), load(item_x1)));
  const __m128i in_y = _mm_and_si128(_mm_cmplt_epi32(load(item_y0), _mm_set1_epi32(t.gy1)),
                                     _mm_cmplt_epi32(_mm_set1_epi32(t.gy0), load(item_y1)));
  return unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_and_si128(in_x, in_y))));
#else
  unsigned meets = 0;
  for (int32_t j = i; j < i + 4; ++j) {
    const size_t e = size_t(j);
    meets |= unsigned((item_x0[e] < t.gx1) & (t.gx0 < item_x1[e]) & (item_y0[e] < t.gy1) &
                      (t.gy0 < item_y1[e]))
             << (j - i);
  }
  return meets;
#endif
}

// Appends to cand_det[n...] the components whose boxes meet the gate of probe t, in
// the grid's order. The boxes of a row of cells are tested four at a time; whether a
// box meets a gate is a coin toss the processor cannot predict, so every box is
// written out and only the count decides whether it stays.
inline void Tracker::Impl::gather(const Probe& t, size_t& n) {
  // Rows hold a few boxes mostly; those past a row's end (the arrays have room for
  // them) are masked off rather than ending the loop at a different count each time.
  auto scan_row = [&](int32_t a, int32_t b) {
    if (n + size_t(b - a) + 4 > cand_det.size()) cand_det.resize(2 * (n + size_t(b - a) + 4));
    int32_t* out = cand_det.data();
    for (int32_t i = a; i < b; i += 4) {
      const int left = b - i;
      const unsigned meets = meets_of_four(t, i) & (left >= 4 ? 15u : (1u << left) - 1u);
      const int32_t* d = item_det.data() + size_t(i);
      for (unsigned j = 0; j < 4; ++j) {
        out[n] = d[j];
        n += (meets >> j) & 1u;
      }
    }
  };
  if (t.in_grid)
    for (int cy = t.span[1]; cy <= t.span[3]; ++cy) {
      const size_t row = size_t(cy) * size_t(grid_w);
      scan_row(cell_start[row + size_t(t.span[0])], cell_start[row + size_t(t.span[2]) + 1]);
    }
  if (!wide.empty()) {
    if (n + wide.size() > cand_det.size()) cand_det.resize(2 * (n + wide.size()));
    for (const Entry& e : wide) {
      cand_det[n] = e.det;
      n += (e.x0 < t.gx1) & (t.gx0 < e.x1) & (e.y0 < t.gy1) & (t.gy0 < e.y1);
    }
  }
}

// A component listed in several cells is found once per cell: the later finds of
// one query go (cand_det[first, n) are one track's).
inline void Tracker::Impl::drop_repeats(size_t first, size_t& n) {
  ++query_count;
  size_t kept = first;
  for (size_t p = first; p < n; ++p) {
    int32_t d = cand_det[p];
    if (d < 0) {
      d = ~d;
      if (stamp[size_t(d)] == query_count) continue;
      stamp[size_t(d)] = query_count;
    }
    cand_det[kept++] = d;
  }
  n = kept;
}

// Pairs of the tracks slots[0, count), appended to pairs.
inline void Tracker::Impl::search(const int32_t* slots, size_t count) {
  Probe probe[kChunk];
  size_t first[kChunk + 1];
  for (size_t k = 0; k < count; ++k) make_probe(size_t(slots[k]), probe[k]);
  size_t n = 0;
  for (size_t k = 0; k < count; ++k) {
    first[k] = n;
    gather(probe[k], n);
    if (any_big) drop_repeats(first[k], n);
    if (n > cand_probe.size()) cand_probe.resize(cand_det.size());
    std::fill(cand_probe.begin() + ptrdiff_t(first[k]), cand_probe.begin() + ptrdiff_t(n),
              uint8_t(k));
  }
  first[count] = n;
  if (n > cand.size()) cand.resize(2 * n);
  // One loop over the candidates of all the tracks, each knowing its track's probe:
  // a loop per track would end at a different count each time.
  size_t p = 0;
  for (; p + 1 < n; p += 2) {
    const int32_t d0 = cand_det[p], d1 = cand_det[p + 1];
    const Det &det0 = dets[size_t(d0)], &det1 = dets[size_t(d1)];
    Candidate& c0 = cand[p];
    Candidate& c1 = cand[p + 1];
    pair_costs(probe[cand_probe[p]], det0, probe[cand_probe[p + 1]], det1, &c0.cost, &c1.cost);
    c0.det = d0;
    c0.label = det0.label;
    c1.det = d1;
    c1.label = det1.label;
  }
  if (p < n) {
    const int32_t d = cand_det[p];
    const Det& det = dets[size_t(d)];
    cand[p] = {pair_cost(probe[cand_probe[p]], det), d, det.label};
  }
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
    searching_best[nsearching++] = note_bests(s, cand.data() + first[k], end - first[k]);
  }
}

// Every live track that is not merged searches its gate. A few tracks at a time, in
// passes that each avoid branches on the data where they can: the square roots and
// divisions of the costs then overlap instead of waiting on each other, and the
// candidates stay in the cache between the passes.
void Tracker::Impl::collect_pairs() {
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

// Track s's pairs in the order the whole pair list once had them: its gate's
// pairs in grid order, cut to the cheapest by std::nth_element. Called by the
// matching (swap_crossed_matches) before it walks the pairs of a track cut here.
void Tracker::Impl::restore_order(int32_t s) {
  if (found_frame) build_host_grid();  // tracker_found.cpp
  Probe probe;
  make_probe(size_t(s), probe);
  size_t n = 0;  // the matching is past search(): its candidates may go
  gather(probe, n);
  if (any_big) drop_repeats(0, n);
  scratch_pairs.clear();
  for (size_t p = 0; p < n; ++p)
    scratch_pairs.push_back({pair_cost(probe, dets[size_t(cand_det[p])]), s, cand_det[p]});
  std::nth_element(scratch_pairs.begin(), scratch_pairs.begin() + kMaxPairsPerTrack,
                   scratch_pairs.end(),
                   [&](const Pair& a, const Pair& b) { return before_in_track(a, b); });
  std::copy(scratch_pairs.begin(), scratch_pairs.begin() + kMaxPairsPerTrack,
            pairs.begin() + pair_first[size_t(s)]);
  flags[size_t(s)] &= uint8_t(~kTruncated);
}

}  // namespace ccl
