// The tile border merge of tile_borders.h.
//
// Lanes whose pixel pairs lead to the same two parents (a dense window's union columns
// mostly join the same two tile components) unite them once, and the border between
// tile columns is the row problem turned sideways: pixels that touch vertically in
// either of its two columns are one tree already (same tile, or joined by the tile-row
// merge), so one union per touching pair of vertical runs.
#include "tile_borders.h"

#include "chain.h"
#include "ccl/cuda_memory.h"
#include "segments.cuh"
#include "tile_rows.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// Rows of a border between tile columns that one warp takes.
constexpr int kTileBorderRows = kWarpSize;

/// Unites the trees of nodes a and b (raster indices) for the lanes that are `active`,
/// starting one step up: both parents are read at once, and they lie in the same trees
/// as the nodes (a tile's node points at its tile root). In a dense window most union
/// columns join the same two tile roots, so lanes holding the same pair of parents
/// leave the union to the first of them. threadIdx.x is the lane (blocks of the merge
/// are a warp wide).
__device__ __forceinline__ void unite_once(uint32_t* labels, bool active, uint32_t a,
                                           uint32_t b) {
  uint32_t pa = 0, pb = 0;
  if (active) {
    pa = labels[a];
    pb = labels[b];
  }
  const uint64_t key = (uint64_t(min(pa, pb)) << 32) | max(pa, pb);
  const unsigned same = __match_any_sync(kFullWarp, key);
  if (active && pa != pb && __ffs(same) - 1 == int(threadIdx.x)) uf_union(labels, pa, pb);
}

/// The two nodes that unite_runs_at would unite at union column c.
template <int Connectivity>
__device__ __forceinline__ void nodes_at(const RowWindow<uint64_t>& cur,
                                         const RowWindow<uint64_t>& up, int c, bool from_cur,
                                         uint32_t& a, uint32_t& b) {
  if (Connectivity == 4) {
    a = cur.node(c);
    b = up.node(c);
  } else if (from_cur) {
    a = cur.base + uint32_t(c);
    b = up.node(up.fg(c - 1) ? c - 1 : c);
  } else {
    a = up.base + uint32_t(c);
    b = cur.node(cur.fg(c - 1) ? c - 1 : c);
  }
}

/// Window `warp` of the first row of a tile row (after the first) against the row above:
/// the tiles' forests end there. Windows are tiles' rows, so no run comes in from the
/// left (the border between tile columns is merge_tile_columns' part). The window's
/// union columns are dealt out one per lane.
template <int Connectivity>
__device__ __forceinline__ void merge_tile_row(const FrameGeometry& geo, const uint64_t* mask,
                                               uint32_t* labels, long long warp) {
  const int y = int(warp / geo.words + 1) * kTileForestRows;
  const int w = int(warp % geo.words);
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint64_t cur_bits = row[w];
  const uint64_t up_bits = row[w - geo.words];
  const uint64_t reach = Connectivity == 4 ? up_bits : up_bits | (up_bits << 1) | (up_bits >> 1);
  if ((cur_bits & reach) == 0) return;
  const uint32_t base = uint32_t(y) * uint32_t(geo.width) + 64u * uint32_t(w);
  const RowWindow<uint64_t> cur{cur_bits, false, 0, base};
  const RowWindow<uint64_t> up{up_bits, false, 0, base - uint32_t(geo.width)};
  const UnionColumns<uint64_t> columns = union_columns<Connectivity>(cur, up);
  const int count = __popcll(columns.all);
  for (int first = 0; first < count; first += kWarpSize) {
    const int j = first + int(threadIdx.x);
    uint32_t a = 0, b = 0;
    if (j < count) {
      const int c = nth_column(columns.all, j);
      nodes_at<Connectivity>(cur, up, c, bit(columns.from_cur, c), a, b);
    }
    unite_once(labels, j < count, a, b);
  }
}

/// Rows y0 .. y0+31 of the border between tile columns w-1 and w, lane r taking row
/// y0 + r. Read down the rows, the border's two pixel columns are two "rows" of a
/// 32-column window (column 64 w as cur, 64 w - 1 as up), and the row above y0 is the
/// window's column -1. Vertically touching pixels of either column are one tree already
/// (the tile's, or joined across tile rows by merge_tile_row), so union_columns picks
/// one position per touching pair of vertical runs, and any pixel of a vertical run
/// serves as its node: pixel (64 w, y) is always one (it starts its window's run), and
/// pixel (64 w - 1, y) leads to the start of its run in window w-1.
template <int Connectivity>
__device__ __forceinline__ void merge_tile_columns(const FrameGeometry& geo,
                                                   const uint64_t* mask, uint32_t* labels,
                                                   long long warp) {
  const int borders = geo.words - 1;
  const int w = int(warp % borders) + 1;
  const int y0 = int(warp / borders) * kTileBorderRows;
  const int lane = threadIdx.x;
  const int y = y0 + lane;
  uint64_t left_word = 0, right_word = 0;
  if (y < geo.height) {
    const uint64_t* row = mask + size_t(y) * geo.words;
    left_word = row[w - 1];
    right_word = row[w];
  }
  const uint32_t left_bits = __ballot_sync(kFullWarp, left_word >> 63);
  const uint32_t right_bits = __ballot_sync(kFullWarp, right_word & 1);
  if ((left_bits | right_bits) == 0) return;

  const uint32_t width = uint32_t(geo.width);
  const uint32_t x = 64u * uint32_t(w);
  const uint32_t right_node = uint32_t(y) * width + x;
  const uint32_t left_node = right_node - 1 - uint32_t(start_distance(left_word, 63));
  // The row above the group, for its first row (uniform: every lane reads the same words).
  uint64_t above_left = 0, above_right = 0;
  if (y0 > 0 && ((left_bits | right_bits) & 1)) {
    const uint64_t* row = mask + size_t(y0 - 1) * geo.words;
    above_left = row[w - 1];
    above_right = row[w];
  }
  uint32_t left_prev = __shfl_up_sync(kFullWarp, left_node, 1);
  if (lane == 0) left_prev = right_node - width - 1 - uint32_t(start_distance(above_left, 63));

  const RowWindow<uint32_t> cur{right_bits, bool(above_right & 1), 0, 0};
  const RowWindow<uint32_t> up{left_bits, bool(above_left >> 63), 0, 0};
  const UnionColumns<uint32_t> columns = union_columns<Connectivity>(cur, up);
  if (columns.all == 0) return;
  uint32_t a = right_node, b = left_node;  // 4-connected: both foreground at this row
  if (Connectivity == 8) {
    if (lane_bit(columns.from_cur, 0, lane)) {
      // A vertical run of column 64 w starts here and meets column 64 w - 1 here or above.
      if (!bit(left_bits, lane)) b = left_prev;
    } else {
      // A vertical run of column 64 w - 1 starts here and meets column 64 w here or above.
      a = left_node;
      b = bit(right_bits, lane) ? right_node : right_node - width;
    }
  }
  unite_once(labels, lane_bit(columns.all, 0, lane), a, b);
}

/// Both kinds of border in one launch: the first `row_blocks` blocks take the tile rows'
/// windows, the others the borders between tile columns; a warp per task.
template <int Connectivity>
__global__ void __launch_bounds__(kWarpSize* kWindowWarps)
    tile_borders_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels,
                    long long row_windows, unsigned row_blocks, long long column_tasks) {
  wait_for_previous_grid();
  if (blockIdx.x < row_blocks) {
    const long long warp = (long long)blockIdx.x * kWindowWarps + threadIdx.y;
    if (warp < row_windows) merge_tile_row<Connectivity>(geo, mask, labels, warp);
  } else {
    const long long warp = (long long)(blockIdx.x - row_blocks) * kWindowWarps + threadIdx.y;
    if (warp < column_tasks) merge_tile_columns<Connectivity>(geo, mask, labels, warp);
  }
}

}  // namespace

void merge_tile_borders(const LabelingFrame& f) {
  const FrameGeometry& geo = f.geo;
  const long long row_windows = (long long)((geo.height - 1) / kTileForestRows) * geo.words;
  const long long column_tasks =
      (long long)(geo.words - 1) * ceil_div(geo.height, kTileBorderRows);
  const unsigned row_blocks = ceil_div(size_t(row_windows), kWindowWarps);
  const unsigned blocks = row_blocks + ceil_div(size_t(column_tasks), kWindowWarps);
  if (blocks == 0) return;
  launch("tile_borders_kernel", f.connectivity == 4 ? tile_borders_kernel<4> : tile_borders_kernel<8>,
         blocks, dim3(kWarpSize, kWindowWarps), f.stream, f.chained, geo,
         static_cast<const uint64_t*>(f.mask), f.labels, row_windows, row_blocks, column_tasks);
}

}  // namespace ccl::cuda
