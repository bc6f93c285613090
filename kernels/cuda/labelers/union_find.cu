// Union-find labeling after V. M. Oliveira and R. A. Lotufo, "A study on connected
// components labeling algorithms using GPUs" (SIBGRAPI 2010), as described and extended
// to 8-connectivity by S. Allegretti et al., "Optimizing GPU-based connected components
// labeling algorithms" (IPAS 2018): algorithm 1 (FIND, UNION) and algorithm 2
// (INITIALIZATION, MERGE, ANALYSIS), run first on rectangular blocks in shared memory,
// then MERGE on the blocks' border pixels only (end of §II-A).
//
// Stages:
//  - uf_tile_kernel (local): a block per tile of 64 columns (one mask word) by
//    kUfTileRows rows. Its warps read and threshold kUfWarpRows rows each (two pixels
//    per lane and row, all loads in flight at once); the ballots are the mask. Then each
//    thread takes one row and 8 of its columns: INITIALIZATION and MERGE with the row
//    above in shared memory, then every node is written to the label image pointing
//    straight at its tile root. Nodes are tile-local indices row * 64 + column, which
//    order like the raster index, so each tile root is the tile component's first pixel.
//  - uf_merge_kernel (merge): MERGE across the tiles' borders with uf_union on the label
//    image: a warp per 64-column window of each tile's first row (against the row
//    above), and a warp per 32 rows of each border between tile columns (columns 64 w - 1
//    and 64 w, read as two bit words down the rows).
//
// Unions left out (the aim of Allegretti et al.'s decision tree, algorithm 4 and fig. 1:
// never unite two trees that other unions join anyway):
//  - only run starts are nodes; a run's other pixels belong to it by construction;
//  - two rows are joined once per pair of touching runs (8-connected: overlapping or
//    one column apart), not once per pair of touching pixels;
//  - the first union of each run in a tile, with the first run above that it touches,
//    is a plain store: the run is still a root of its own then (nothing else has
//    touched it), and UNION of a lone root with any node of another tree just hangs it
//    there. Only the run's further touching runs go through uf_union;
//  - across tile borders, lanes whose pixel pairs lead to the same two parents (a dense
//    window's union columns mostly join the same two tile components) unite them once;
//  - the border between tile columns is the row problem turned sideways: pixels that
//    touch vertically in either of its two columns are one tree already (same tile, or
//    joined by the tile-row merge), so one union per touching pair of vertical runs.
//
// Connectivity: the paper's 8-way UF adds the diagonal neighbours to MERGE; here they
// widen each run's contact with the other row by one column on both sides (in the
// tiles, on tile rows' borders and, turned sideways, between tile columns).
//
// Left out: ANALYSIS (algorithm 2's flattening of every pixel to its root) and any
// compression after the merge. The shared analysis walks from run starts only and
// leaves ids behind in the nodes it passes, and every node already points at its tile
// root, so flattening the whole image first would cost more than it saves. Only run
// starts hold labels; other pixels keep whatever they held (labeler.h allows it).
#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// Rows of a tile. Taller tiles leave fewer tile rows to merge in global memory.
constexpr int kUfTileRows = 16;
/// Rows that each warp of a tile reads.
constexpr int kUfWarpRows = 4;
/// Columns of a tile row that each thread takes once the rows are read.
constexpr int kUfThreadColumns = 8;
constexpr int kUfRowThreads = 64 / kUfThreadColumns;
constexpr int kUfTileThreads = kUfTileRows * kUfRowThreads;
static_assert(kUfTileThreads == kUfTileRows / kUfWarpRows * kWarpSize, "warps read all rows");
/// Rows of a border between tile columns that one warp of the merge takes.
constexpr int kUfBorderRows = kWarpSize;

/// One block per tile. The warps read their rows before any is used, so that each
/// waits for memory once. The threads then work on the row bits alone, each on the
/// runs starting in its columns, so that a sparse row costs little (no per-window work
/// repeated by a whole warp). Three steps, a barrier apart: each run links to the first
/// run of the row above that it touches (plain stores: every node has one writer); its
/// further touching runs above are united with it (uf_union on the shared forest
/// through AtomicForest, data-race free, see union_find.cuh); every node is written to
/// the label image pointing at its tile root.
template <int Connectivity, class Luma>
__global__ void __launch_bounds__(kUfTileThreads)
    uf_tile_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask) {
  __shared__ uint64_t row_bits[kUfTileRows];
  __shared__ uint32_t local[kUfTileRows * 64];

  const int lane = threadIdx.x % kWarpSize;
  const int r0 = threadIdx.x / kWarpSize * kUfWarpRows;  // the warp's first row
  const int w = int(blockIdx.x % unsigned(geo.words));
  const int y0 = int(blockIdx.x / unsigned(geo.words)) * kUfTileRows;
  const int x0 = 64 * w;
  const uint32_t level = fg.load_level();

  uint32_t luma[kUfWarpRows][2];
#pragma unroll
  for (int j = 0; j < kUfWarpRows; ++j)
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int x = x0 + 32 * k + lane, y = y0 + r0 + j;
      luma[j][k] = y < geo.height && x < geo.width ? fg.luma<Luma>(x, y) : 0;
    }
#pragma unroll
  for (int j = 0; j < kUfWarpRows; ++j) {
    bool p[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int x = x0 + 32 * k + lane, y = y0 + r0 + j;
      p[k] = y < geo.height && x < geo.width && is_foreground(luma[j][k], level, fg.mode);
    }
    const uint64_t bits = warp_window<uint64_t>(p[0], p[1]);  // 0 outside the frame
    if (lane == j) {
      row_bits[r0 + j] = bits;
      if (y0 + r0 + j < geo.height) mask[size_t(y0 + r0 + j) * geo.words + w] = bits;
    }
  }
  __syncthreads();

  const int r = threadIdx.x / kUfRowThreads;
  const int first_column = threadIdx.x % kUfRowThreads * kUfThreadColumns;
  const uint32_t base = uint32_t(r) * 64;
  const uint64_t cur = row_bits[r];
  const uint64_t up = r > 0 ? row_bits[r - 1] : 0;
  const uint64_t up_starts = run_starts(up, false);
  const uint64_t starts =
      run_starts(cur, false) & (columns_below<uint64_t>(kUfThreadColumns) << first_column);
  // Columns of the row above that the run starting at s touches.
  auto touching = [&](int s) {
    uint64_t span =
        columns_below<uint64_t>(s + end_distance(cur, s)) & ~columns_below<uint64_t>(s);
    if (Connectivity == 8) span |= (span << 1) | (span >> 1);
    return up & span;
  };
  // Starts of the runs above that a run touches after the first one (touch != 0): each
  // begins after the first touching column, inside the span.
  auto further = [&](uint64_t touch) {
    return up_starts & touch & ~columns_below<uint64_t>(__ffsll(touch));
  };
  bool any_further = false;
  for_each_bit(starts, [&](int s) {
    const uint64_t touch = touching(s);
    uint32_t parent = base + uint32_t(s);
    if (touch) {
      const int u = __ffsll(touch) - 1;
      parent = base - 64 + uint32_t(u - start_distance(up, u));
      any_further |= further(touch) != 0;
    }
    local[base + s] = parent + 1;
  });
  __syncthreads();

  if (any_further)
    for_each_bit(starts, [&](int s) {
      for_each_bit(further(touching(s)), [&](int c) {
        uf_union(AtomicForest{local}, base + uint32_t(s) + 1, base - 64 + uint32_t(c) + 1);
      });
    });
  __syncthreads();

  const uint32_t width = uint32_t(geo.width);
  const uint32_t origin = uint32_t(y0) * width + uint32_t(x0);
  auto to_raster = [&](uint32_t node) { return origin + (node >> 6) * width + (node & 63); };
  for_each_bit(starts, [&](int s) {
    const uint32_t node = base + uint32_t(s);
    labels[to_raster(node)] = to_raster(uf_find(local, node + 1) - 1) + 1;
  });
  allow_next_grid();
}

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
  const int y = int(warp / geo.words + 1) * kUfTileRows;
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
  const int y0 = int(warp / borders) * kUfBorderRows;
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
    uf_merge_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels,
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

void uf_label_tiles(const LabelingFrame& f) {
  const unsigned tiles = unsigned(f.geo.words) * ceil_div(f.geo.height, kUfTileRows);
  with_luma(f.fg.format, [&](auto luma) {
    using Luma = decltype(luma);
    if (f.connectivity == 4)
      uf_tile_kernel<4, Luma>
          <<<tiles, kUfTileThreads, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask);
    else
      uf_tile_kernel<8, Luma>
          <<<tiles, kUfTileThreads, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask);
  });
  check_launch("uf_tile_kernel");
}

void uf_merge_borders(const LabelingFrame& f) {
  const FrameGeometry& geo = f.geo;
  const long long row_windows = (long long)((geo.height - 1) / kUfTileRows) * geo.words;
  const long long column_tasks =
      (long long)(geo.words - 1) * ceil_div(geo.height, kUfBorderRows);
  const unsigned row_blocks = ceil_div(size_t(row_windows), kWindowWarps);
  const unsigned blocks = row_blocks + ceil_div(size_t(column_tasks), kWindowWarps);
  if (blocks == 0) return;
  launch("uf_merge_kernel", f.connectivity == 4 ? uf_merge_kernel<4> : uf_merge_kernel<8>,
         blocks, dim3(kWarpSize, kWindowWarps), f.stream, f.chained, geo,
         static_cast<const uint64_t*>(f.mask), f.labels, row_windows, row_blocks, column_tasks);
}

class UnionFind final : public Labeler {
 public:
  void local(const LabelingFrame& f) const override { uf_label_tiles(f); }
  void merge(const LabelingFrame& f) const override { uf_merge_borders(f); }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::UnionFind>() {
  static const UnionFind instance;
  return instance;
}

}  // namespace ccl::cuda
