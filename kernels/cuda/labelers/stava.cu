// Tile union-find with hierarchical border merging after O. Šťava and B. Beneš,
// "Connected Component Labeling in CUDA", GPU Computing Gems Emerald Edition, ch. 35
// (2011): kernel 1 (§35.3.3, figure 35.8) and kernel 2 (§35.3.4, figure 35.10), over
// the union-find contract of union_find.cuh.
//
// Local stage, kernel 1: one block per 32 x 32 tile thresholds its pixels (the only
// read of the frame), writes their mask bits and labels the tile in shared memory.
// Changed from the paper, which repeats a min-label propagation and a find until no
// label changes: one pass of union-find over the tile's runs. Every pixel points at
// its run's start; a run start touching the row above at its own column (8-way: or
// the one before) points at that run; the other touching pairs of runs are united
// once each (atomicMin on shared roots, segments.cuh's union columns). Then every
// pixel is written pointing at its tile root in global raster index + 1; parents are
// always earlier pixels, so that root is the tile component's first pixel.
//
// Merge stage, kernel 2, one launch per level: level L merges 4 x 4 groups of tiles of
// side s = 32 * 4^(L-1), i.e. unites the pixel pairs across the borders at rows and
// columns that are multiples of s but not of 4 s. Levels go on until one group covers
// the frame, so their number depends on the frame's size alone. Unions are uf_union's
// (atomicMin on roots, the larger root under the smaller), so each component's root
// ends as its first pixel. Changed from the paper: no block-wide "until no change"
// loop and no block per group. The paper iterates because its Union (figure 35.4)
// stores a link that a concurrent union may overwrite; uf_union retries until its own
// link holds, so one pass over a level's borders merges it. Without that loop a group
// needs no block of its own, and a level's border pieces are dealt out to warps over
// the whole GPU (the top level would otherwise run in one block). A warp takes 64
// columns of a border row, or 32 rows (one tile row) of a border column, and unites
// only where two runs touch (union_columns), not at every pixel pair. Pairs across a
// tile corner (8-way) are the border rows' (a row window sees both sides of a border
// column), so a column piece stays inside one tile row, where each column's vertical
// runs are already one tree.
//
// Left out: kernel 3 (flattening the border pixels between levels) and kernel 4
// (flattening every pixel at the end). uf_union's finds halve the paths they walk,
// which is kernel 3's purpose; measured on an H100 (1920x1080 and 3840x2160, densities
// 0.1-0.9), its launches cost 3-10 us a frame more than they saved. Kernel 4 only
// makes final labels, which the shared analysis makes itself: it walks each run
// start's parents and numbers the roots.
//
// Connectivity: the paper's is 8 (Moore neighbourhood). 4 runs the same kernels with
// the axis neighbours only: runs touch where they overlap, and no pairs are diagonal.
#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "mask_store.cuh"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// Tile side: a tile row is one warp's ballot, a 32-bit window.
constexpr int kTile = 32;
/// Warps per tile block; each labels kTile / kTileWarps rows, which it loads together.
constexpr int kTileWarps = 8;
constexpr int kRowsPerWarp = kTile / kTileWarps;
/// Tiles per side of the group that one level merges (the paper's 4 x 4).
constexpr int kGroup = 4;

/// Row ty of a tile as a window of the tile's forest (node = local index ty * kTile +
/// column, which orders like the raster index). Column -1 is outside the tile.
__device__ __forceinline__ RowWindow<uint32_t> tile_row(uint32_t bits, int ty) {
  return {bits, false, 0, uint32_t(ty * kTile)};
}

template <int Connectivity, class Luma>
__global__ void __launch_bounds__(kWarpSize* kTileWarps)
    stava_tile_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask,
                      unsigned tiles_x) {
  __shared__ uint32_t rows[kTile];           // each tile row's foreground bits
  __shared__ uint32_t local[kTile * kTile];  // parent local index + 1 (tile raster order)
  const int lane = threadIdx.x;
  const int x0 = int(blockIdx.x % tiles_x) * kTile;
  const int y0 = int(blockIdx.x / tiles_x) * kTile;
  const int x = x0 + lane;
  const uint32_t level = fg.load_level();

  // Every row's load is issued before any is used: one wait for memory, not four.
  uint32_t luma[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int y = y0 + int(threadIdx.y) + r * kTileWarps;
    luma[r] = x < geo.width && y < geo.height ? fg.luma<Luma>(x, y) : 0;
  }
  uint32_t bits[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int ty = int(threadIdx.y) + r * kTileWarps;
    const int y = y0 + ty;
    const bool p = x < geo.width && y < geo.height && is_foreground(luma[r], level, fg.mode);
    bits[r] = __ballot_sync(kFullWarp, p);
    if (lane == 0) {
      rows[ty] = bits[r];
      if (y < geo.height) store_mask_half(mask, geo.words, geo.width, y, x0, bits[r]);
    }
    // Run starts are the roots to begin with; the rest of a run hangs under its start.
    if (p)
      local[ty * kTile + lane] = uint32_t(ty * kTile + lane - start_distance(bits[r], lane)) + 1;
  }
  __syncthreads();

  // A run start that touches the row above at its own column (or, 8-way, the one
  // before) hangs under that run by a plain store, as in Komura's initialization but
  // per run; only the other touching pairs need atomic unions.
  uint32_t unions[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int ty = int(threadIdx.y) + r * kTileWarps;
    unions[r] = 0;
    if (ty == 0) continue;
    const RowWindow<uint32_t> cur = tile_row(bits[r], ty), up = tile_row(rows[ty - 1], ty - 1);
    const UnionColumns<uint32_t> columns = union_columns<Connectivity>(cur, up);
    const uint32_t linked =
        Connectivity == 4 ? run_starts(cur.bits, false) & up.bits : columns.from_cur;
    unions[r] = columns.all & ~linked;
    if (bit(linked, lane))
      local[cur.base + lane] = up.node(Connectivity == 8 && up.fg(lane - 1) ? lane - 1 : lane) + 1;
  }
  __syncthreads();

#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int ty = int(threadIdx.y) + r * kTileWarps;
    if (bit(unions[r], lane))
      unite_runs_at<Connectivity>(AtomicForest{local}, tile_row(bits[r], ty),
                                  tile_row(rows[ty - 1], ty - 1), lane, false);
  }
  __syncthreads();
  allow_next_grid();  // the stores left overlap the merge's launch

  const uint32_t width = uint32_t(geo.width);
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int ty = int(threadIdx.y) + r * kTileWarps;
    const int y = y0 + ty;
    if (y >= geo.height) break;  // the same for the whole warp
    // One find per run, at its start; the run's other pixels take its result.
    const int distance = start_distance(bits[r], lane);
    uint32_t root = 0;
    if (bit(bits[r], lane) && distance == 0) root = uf_find(local, local[ty * kTile + lane]) - 1;
    root = __shfl_sync(kFullWarp, root, lane - distance);
    uint32_t label = 0;
    if (bit(bits[r], lane))
      label = (uint32_t(y0) + root / kTile) * width + uint32_t(x0) + root % kTile + 1;
    if (x < geo.width) labels[uint32_t(y) * width + uint32_t(x)] = label;
  }
}

/// The i-th (from 0) border of a level of tile side `side`: the i-th multiple of side
/// that is not a multiple of kGroup * side (lower levels' borders are not theirs).
__device__ __forceinline__ int level_border(int i, int side) {
  return (i + i / (kGroup - 1) + 1) * side;
}

/// How many borders of a level cross an extent (the frame's height for border rows).
int level_borders(int extent, long long side) {
  const long long multiples = (extent - 1) / side;
  return int(multiples - multiples / kGroup);
}

/// Unites the runs of row y (a border row) with those of row y-1 in 64-column window
/// w, one union per touching pair (one warp). Column -1 is the previous window's last
/// column: every foreground pixel is a node here, so it stands for its run.
template <int Connectivity>
__device__ __forceinline__ void merge_row_window(const FrameGeometry& geo, const uint64_t* mask,
                                                 uint32_t* labels, int y, int w) {
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint64_t* above = row - geo.words;
  const uint64_t cur_bits = row[w];
  const uint64_t up_bits = above[w];
  if (Connectivity == 4 ? (cur_bits & up_bits) == 0 : (cur_bits | up_bits) == 0) return;
  const bool cur_left = w > 0 && bit(row[w - 1], 63);
  const bool up_left = w > 0 && bit(above[w - 1], 63);
  const uint32_t base = uint32_t(y) * uint32_t(geo.width) + 64u * uint32_t(w);
  const uint32_t up_base = base - uint32_t(geo.width);
  const RowWindow<uint64_t> cur{cur_bits, cur_left, base - 1, base};
  const RowWindow<uint64_t> up{up_bits, up_left, up_base - 1, up_base};
  unite_rows<Connectivity>(labels, cur, up, int(threadIdx.x));
}

/// Unites the pixels of border column x with those of column x-1 over the 32 rows of
/// one tile row from y0 (one warp, lane = row): the columns' vertical runs are trees
/// of the tiles already, so the rows' ballots are windows for union_columns, with the
/// rows as columns. Pairs that reach across row y0-1 are the border rows'.
template <int Connectivity>
__device__ __forceinline__ void merge_column_piece(const FrameGeometry& geo, const uint64_t* mask,
                                                   uint32_t* labels, int x, int y0) {
  const int lane = int(threadIdx.x);
  const int y = y0 + lane;
  bool left = false, right = false;
  if (y < geo.height) {
    const uint64_t* row = mask + size_t(y) * geo.words;
    left = bit(row[(x - 1) >> 6], (x - 1) & 63);
    right = bit(row[x >> 6], x & 63);
  }
  const uint32_t left_bits = __ballot_sync(kFullWarp, left);
  const uint32_t right_bits = __ballot_sync(kFullWarp, right);
  const uint32_t near =
      Connectivity == 4 ? right_bits : right_bits | right_bits << 1 | right_bits >> 1;
  if ((left_bits & near) == 0) return;
  const UnionColumns<uint32_t> columns = union_columns<Connectivity>(
      RowWindow<uint32_t>{right_bits, false, 0, 0}, RowWindow<uint32_t>{left_bits, false, 0, 0});
  if (!bit(columns.all, lane)) return;
  const uint32_t width = uint32_t(geo.width);
  const uint32_t here = uint32_t(y) * width + uint32_t(x);  // right pixel; left = here - 1
  const bool above_left = lane > 0 && bit(left_bits, lane - 1);
  const bool above_right = lane > 0 && bit(right_bits, lane - 1);
  if (Connectivity == 4)
    uf_union(labels, here + 1, here);
  else if (bit(columns.from_cur, lane))  // the right column's run starts here
    uf_union(labels, here + 1, (above_left ? here - width - 1 : here - 1) + 1);
  else  // the left column's run starts here
    uf_union(labels, here, (above_right ? here - width : here) + 1);
}

/// Kernel 2 for one level: the first `row_tasks` warps take 64-column windows of the
/// level's border rows, the others tile rows of its border columns.
template <int Connectivity>
__global__ void __launch_bounds__(kWarpSize* kWindowWarps)
    stava_merge_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels, int side,
                       long long row_tasks, long long tasks) {
  wait_for_previous_grid();
  long long t = (long long)blockIdx.x * kWindowWarps + threadIdx.y;
  if (t >= tasks) return;
  if (t < row_tasks) {
    merge_row_window<Connectivity>(geo, mask, labels, level_border(int(t / geo.words), side),
                                   int(t % geo.words));
  } else {
    t -= row_tasks;
    const int tile_rows = (geo.height + kTile - 1) / kTile;
    merge_column_piece<Connectivity>(geo, mask, labels, level_border(int(t / tile_rows), side),
                                     int(t % tile_rows) * kTile);
  }
}

class Stava final : public Labeler {
 public:
  void local(const LabelingFrame& f) const override {
    const FrameGeometry& geo = f.geo;
    const unsigned tiles_x = ceil_div(geo.width, kTile);
    const unsigned tiles = tiles_x * ceil_div(geo.height, kTile);
    const dim3 block(kWarpSize, kTileWarps);
    with_luma(f.fg.format, [&](auto luma) {
      using Luma = decltype(luma);
      if (f.connectivity == 4)
        stava_tile_kernel<4, Luma>
            <<<tiles, block, 0, f.stream>>>(f.fg, geo, f.labels, f.mask, tiles_x);
      else
        stava_tile_kernel<8, Luma>
            <<<tiles, block, 0, f.stream>>>(f.fg, geo, f.labels, f.mask, tiles_x);
    });
    check_launch("stava_tile_kernel");
  }

  void merge(const LabelingFrame& f) const override {
    const FrameGeometry& geo = f.geo;
    const int tile_rows = int(ceil_div(geo.height, kTile));
    const int extent = geo.width > geo.height ? geo.width : geo.height;
    for (long long side = kTile; side < extent; side *= kGroup) {
      const int border_rows = level_borders(geo.height, side);
      const int border_columns = level_borders(geo.width, side);
      const long long row_tasks = (long long)border_rows * geo.words;
      const long long tasks = row_tasks + (long long)border_columns * tile_rows;
      launch("stava_merge_kernel",
             f.connectivity == 4 ? stava_merge_kernel<4> : stava_merge_kernel<8>,
             ceil_div(tasks, kWindowWarps), dim3(kWarpSize, kWindowWarps), f.stream, f.chained, geo,
             static_cast<const uint64_t*>(f.mask), f.labels, int(side), row_tasks, tasks);
    }
  }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::Stava>() {
  static const Stava instance;
  return instance;
}

}  // namespace ccl::cuda
