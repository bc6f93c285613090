// Pairing with candidates found elsewhere (ccl::cuda::TrackSearch, on a device): the
// host plans the grid as build_grid() would (the cell size, and the largest small box
// that every gate's span depends on), makes each searching track's probe as
// search() would, and takes back every gate's cheapest candidates, those the host's
// search keeps. From there on they are noted as search() notes them (tracker_keep.h),
// so the matching sees the very pairs of the host's search.
#include <algorithm>
#include <cmath>

#include "ccl/track_search.h"
#include "tracker_keep.h"
#include "tracker_state.h"

namespace ccl {

using namespace tracking;

// build_grid()'s first pass without its counting: the cell size, the largest small
// box, and which components are big or wide (det_cells, kept from frame to frame as
// build_grid keeps it). False when a big box has no cell (lies wholly outside the
// frame): build_grid() then lists it where its slot's cells were last frame, which
// only the host's grid can repeat; such a frame is searched on the host, and nothing
// of det_cells is changed here that build_grid() would read differently.
bool Tracker::Impl::plan_grid(GridPlan& plan) {
  grid_shape();
  det_cells.resize(dets.size());
  any_big = false;
  small_w = small_h = 0;
  uint64_t listings = 0;
  for (size_t d = 0; d < dets.size(); ++d) {
    const Det& det = dets[d];
    std::array<int32_t, 4>& cells = det_cells[d];
    if (list_small(det, cells)) {
      ++listings;
      continue;
    }
    any_big = true;
    const Box b = det.box();
    std::array<int32_t, 4> span;
    if (!cell_span(b.x0, b.y0, b.x1, b.y1, span.data())) return false;
    cells = span;
    const int64_t covered = int64_t(cells[2] - cells[0] + 1) * (cells[3] - cells[1] + 1);
    if (covered > kWideBox) {
      cells[0] = -1;
      ++listings;  // the device lists it once, after the last cell
    } else {
      listings += uint64_t(covered);
    }
  }
  plan = {width, height, cell, grid_w, grid_h, inv_cell, listings};
  return true;
}

void Tracker::Impl::collect_found_pairs(cuda::TrackSearch& search, const Component* components,
                                        size_t n, const GridPlan& plan) {
  det_best.assign(dets.size(), DetBest{0.0, 0, -1});
  std::fill(match.begin(), match.end(), -1);
  std::fill(flags.begin(), flags.end(), uint8_t(0));
  std::fill(pair_first.begin(), pair_first.end(), 0);
  std::fill(pair_end.begin(), pair_end.end(), 0);
  npairs = 0;
  nsearching = 0;
  searching.resize(tracks.size());
  searching_best.resize(tracks.size());
  probe_slot.resize(tracks.size());
  // The searching tracks in slot order, as collect_pairs() visits them.
  Probe* probes = search.probe_buffer(tracks.size());
  uint32_t count = 0;
  for (size_t s = 0; s < tracks.size(); ++s) {
    const Track& t = tracks[s];
    if (!t.alive || t.merged_into >= 0) continue;
    make_probe(s, probes[count]);
    probe_slot[count++] = int32_t(s);
  }
  const SearchRequest request{components, uint32_t(n), in_label_order ? nullptr : order.data(),
                              plan, count};
  search.find(request, found);
  const size_t total = found.first[count];
  if (pairs.size() < total) pairs.resize(total);
  host_grid = false;
  for (uint32_t k = 0; k < count; ++k) {
    const uint32_t a = found.first[k], b = found.first[k + 1];
    if (a == b) continue;
    const size_t s = size_t(probe_slot[k]);
    // More than were kept: cut as keep_cheapest() cuts (the same pairs, in an order
    // nothing reads before restore_order() regathers them).
    if (found.all[k] > kMaxPairsPerTrack) flags[s] |= kTruncated;
    searching[nsearching] = int32_t(s);
    searching_best[nsearching++] = note_bests(s, found.candidates + a, b - a);
  }
  searching.resize(nsearching);
  searching_best.resize(nsearching);
}

// restore_order() of a frame searched elsewhere needs a cut track's every candidate,
// which only a grid can list: the host's, built the first time a frame needs it
// (a cut track whose pairs may swap is rare).
void Tracker::Impl::build_host_grid() {
  if (host_grid) return;
  build_grid();
  if (any_big) stamp.assign(dets.size(), 0);
  query_count = 0;
  host_grid = true;
}

}  // namespace ccl
