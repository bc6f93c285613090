// Pairing: the components go into a uniform grid by bounding box, and each searching
// track's gate collects the components whose boxes it meets, each pair with a cost
// (distance to the prediction over the gate's margin, change of area, frames unseen).
// A track keeps its few cheapest pairs; each track's and each component's cheapest pair
// are noted for the matching (tracker_matching.cpp).
#include "tracker_state.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>

namespace ccl {

using namespace tracking;

// The grid: a component no larger than a cell is listed once, in the cell of its
// box's top-left corner, so a query looks further left and up by the largest such
// box; a larger one is listed in every cell its box covers (and deduplicated when
// found); one over more than kWideBox cells is tried against every gate.
void Tracker::Impl::build_grid() {
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

inline double Tracker::Impl::pair_cost(const Probe& t, const Det& d) {
  return distance(d.cx - t.px, d.cy - t.py) * t.inv_scale +
         kAreaWeight * area_change(d.area, t.area) + t.unseen_cost;
}

// A candidate's component and label, copied as one 8-byte word: every entry a gate
// scans is written out (the count decides whether it stays), so this store is the
// scan's innermost work. The cost is filled in later, once per candidate kept.
inline void Tracker::Impl::take_entry(Candidate& c, const Entry& e) {
  static_assert(offsetof(Entry, label) == offsetof(Entry, det) + 4 &&
                    offsetof(Candidate, label) == offsetof(Candidate, det) + 4,
                "det and label must be adjacent in Entry and Candidate");
  std::memcpy(reinterpret_cast<char*>(&c) + offsetof(Candidate, det),
              reinterpret_cast<const char*>(&e) + offsetof(Entry, det), 8);
}

// Appends to cand[n...] the components whose boxes meet track s's gate, in the
// grid's order, with no cost yet. The test is written without branches: whether a
// box meets a gate is a coin toss the processor cannot predict.
inline void Tracker::Impl::gather(const Probe& t, size_t& n) {
  auto scan = [&](const Entry* e, const Entry* end) {
    if (n + size_t(end - e) > cand.size()) cand.resize(2 * (n + size_t(end - e)));
    Candidate* out = cand.data();
    for (; e != end; ++e) {
      const bool meets = (e->x0 < t.gx1) & (t.gx0 < e->x1) & (e->y0 < t.gy1) & (t.gy0 < e->y1);
      take_entry(out[n], *e);
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
        take_entry(out[n], e);
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
inline void Tracker::Impl::drop_repeats(size_t first, size_t& n) {
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
inline bool Tracker::Impl::after_in_track(const Candidate& a, const Candidate& b) {
  return (a.cost > b.cost) | ((a.cost == b.cost) & (a.label > b.label));
}

// In a crowd (noise around a blob covering the frame) a gate can meet hundreds of
// components; only its cheapest few can matter, and keeping more would make the
// matching quadratic. Which few is all that matters here: their order is only
// restored (restore_order) where it can change a swap. Returns the new end.
inline size_t Tracker::Impl::keep_cheapest(Candidate* p, size_t first, size_t end) {
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

// Appends track s's pairs cand[first, end) to pairs, updating each component's
// cheapest pair so far; returns the index of track s's cheapest.
inline int32_t Tracker::Impl::note_bests(size_t s, size_t first, size_t end) {
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

}  // namespace ccl
