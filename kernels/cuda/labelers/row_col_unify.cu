// Row-Col Unify after O. Kalentev, A. Rai, S. Kemnitz, R. Schneider, "Connected component
// labeling on a 2D grid using CUDA" (JPDC 2011), section 2.1, algorithms 1-5: labels
// start as unique ids; rounds of row then column unification, each a reduction over a
// line after which every run of foreground holds its smallest label, are repeated from
// the host until neither reports a change (algorithm 1).
//
// Stages:
//  - local (rcu_init_kernel): thresholds the frame, writes the mask and gives every pixel
//    its raster index + 1 (the unique ids) already reduced along its 32-column window of
//    its row: ids grow along a row, so a run's smallest is its first pixel.
//  - merge, host rounds (algorithm 1): rcu_round_kernel, a block per 32 x 32 tile, loads
//    the tile and a one-pixel halo into shared memory, unifies its rows (UnifyRow), then
//    its columns (UnifyCol), 8-connected then its diagonal pairs, and writes back;
//    rcu_publish_kernel hands the round's indicator (ContinueInd) to the host through the
//    mapped flag, which the host reads after a checked cudaStreamSynchronize.
//
// A line's unification (unify_line) is the paper's cascade, algorithms 2-5: step g merges
// neighbouring groups of g elements, and where a run crosses the centre of the two groups
// both pieces take the smaller of the two centre labels, each already its piece's
// smallest. The paper finds a piece's label holder through a reference array in shared
// memory; here a warp holds the line in registers, the run's extent comes from the line's
// ballot and the centre labels from two shuffles, so no reference array is needed.
//
// Beyond the paper:
//  - Any W x H (the paper: 1024 x 1024, a block per whole row or column). Lines are the
//    tile's 32-pixel rows and columns, each unified with the halo pixel after it (east,
//    south), so every pair of neighbours of the image lies in some tile's line; runs that
//    cross tiles meet through that pixel. Columns are loaded as rows (coalesced) and read
//    from shared memory, whose odd row pitch keeps a column free of bank conflicts.
//  - Labels are references, and the rounds do not wait for labels to travel. Plain
//    propagation needs about a round per turn of a component's longest path: the paper
//    reports 514 rounds for spirals at 1024 x 1024, and a CPU run of it on a random
//    1920 x 1080 image of density 0.5 (8-connected, whole lines) took 324. A label is the
//    raster index + 1 of a pixel of the same component, no later than the pixel itself,
//    so a round starts by replacing every label by the root of its chain (the reference
//    walk of the label equivalence, the paper's section 2.2), and every label that a
//    unification lowers is united with the label it got (uf_union). The forest then holds
//    every equivalence a round found: after the first round each component is one tree,
//    and the second finds nothing to unify. Measured: 2 rounds on every image, spirals
//    included (1 for an empty one).
//  - 8-connectivity (the paper's grid is 4-connected): after the columns, each pixel is
//    unified with its south-west and south-east neighbours, 8-connected halo included
//    (west column, both bottom corners). Pairs rather than diagonal lines: the unions
//    join a diagonal run's pixels as well as its reduction would.
//
// The change indicator is set when a round needs a union. A round that needs none saw
// every pair of neighbours under one root; a component's first pixel is always a root
// (nothing in it is smaller), so it is the only one, and that round also stored every
// pixel's root into it: the labels are the paper's final ones (first pixel's index + 1),
// a flat forest of union_find.cuh, so no relabeling pass follows. Each round that needs a
// union links two trees, so more than W H rounds means a fault: merge throws.
//
// Races: a round's walks meet links made meanwhile, which only cost a needless union. A
// pixel's own label is stored only when it is not a root and after the block's unions
// (a barrier), so it names a pixel of its tree and never undoes a link (links write
// roots only).
#include <string>

#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "mask_store.cuh"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

constexpr int kTile = 32;                              // a tile's side: one warp per line
constexpr int kRoundWarps = 8;                         // warps of a block (init and rounds)
constexpr int kLinesPerWarp = kTile / kRoundWarps;
constexpr int kPitch = kTile + 3;  // west halo, 32 columns, east halo; odd: columns conflict-free
constexpr int kInitChunks = 4;     // 32-column windows per warp of the initialization

/// Row-runs of each 32-column window as the paper's first reduction steps leave them:
/// each pixel holds the id of its run's first pixel (ids are raster index + 1). A warp
/// takes kInitChunks windows of a row, its loads all in flight at once. Also clears the
/// round's change indicator.
template <class Luma>
__global__ void __launch_bounds__(kWarpSize* kRoundWarps)
    rcu_init_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask,
                    uint32_t* changed, unsigned segments_x) {
  const int lane = threadIdx.x;
  const unsigned w = unsigned(geo.width);
  const unsigned x0 = (blockIdx.x % segments_x) * kInitChunks * kWarpSize;
  const unsigned y = (blockIdx.x / segments_x) * kRoundWarps + threadIdx.y;
  if (blockIdx.x == 0 && threadIdx.y == 0 && lane == 0) *changed = 0;
  if (y >= unsigned(geo.height)) return;  // whole warps
  const uint32_t level = fg.load_level();
  bool p[kInitChunks];
#pragma unroll
  for (int c = 0; c < kInitChunks; ++c) {
    const unsigned x = x0 + c * kWarpSize + lane;
    p[c] = x < w && fg.test<Luma>(int(x), int(y), level);
  }
  allow_next_grid();
#pragma unroll
  for (int c = 0; c < kInitChunks; ++c) {
    const unsigned start = x0 + c * kWarpSize;
    const uint32_t bits = __ballot_sync(kFullWarp, p[c]);
    if (start >= w) break;  // whole warps
    if (lane == 0) store_mask_half(mask, geo.words, geo.width, int(y), int(start), bits);
    const uint32_t i = y * w + start + lane;
    if (start + lane < w) labels[i] = p[c] ? i + 1 - uint32_t(start_distance(bits, lane)) : 0;
  }
}

/// Roots of the warp's labels (0: background). Neighbours mostly share a label, so
/// only the first lane of each streak of equal labels walks.
__device__ __forceinline__ uint32_t streak_root(const uint32_t* labels, uint32_t label) {
  const int lane = threadIdx.x;
  const uint32_t before = __shfl_up_sync(kFullWarp, label, 1);
  const bool first = label != 0 && (lane == 0 || before != label);
  const uint32_t firsts = __ballot_sync(kFullWarp, first);
  const uint32_t root = first ? uf_find(labels, label) : 0;
  const uint32_t mine = firsts & (kFullWarp >> (kWarpSize - 1 - lane));
  const uint32_t shared = __shfl_sync(kFullWarp, root, mine ? 31 - __clz(mine) : lane);
  return label != 0 ? shared : 0;
}

/// The paper's UnifyRowI/UnifyRowL/Update cascade over a warp's line (lane = position,
/// v = label, 0 = background) and the element after it, `next` (read by lane 31 only):
/// every run takes its smallest label. Before step g, each lane holds the smallest
/// label of its run's piece within its group of g; a run that joins the centre pair of
/// a group of 2g gives both pieces the smaller of the centre pair's labels.
__device__ __forceinline__ uint32_t unify_line(uint32_t v, uint32_t& next) {
  const int lane = threadIdx.x;
  const uint32_t fg = __ballot_sync(kFullWarp, v != 0);
  const bool joined = lane == kWarpSize - 1 && v != 0 && next != 0;
  if (joined) v = min(v, next);
  // A line whose foreground already holds one label (most, once runs have met) keeps it.
  const uint32_t low = __reduce_min_sync(kFullWarp, v != 0 ? v : ~0u);
  if (fg == 0 || low == __reduce_max_sync(kFullWarp, joined ? max(v, next) : v)) return v;
  const int first = lane - start_distance(fg, lane);
  const int last = lane + end_distance(fg, lane) - 1;
#pragma unroll
  for (int g = 1; g < kWarpSize; g *= 2) {
    const int centre = (lane & ~(2 * g - 1)) + g;  // first element of the right group
    const uint32_t left = __shfl_sync(kFullWarp, v, centre - 1);
    const uint32_t right = __shfl_sync(kFullWarp, v, centre);
    if (v != 0 && first < centre && last >= centre) v = min(left, right);
  }
  if (joined) next = v;
  return v;
}

/// Which halo cell (row, column of the shared tile) thread t loads: the column east of
/// the tile and the row south of it; 8-connected also the column west of it from its
/// second row (south-west of column 0) and the south-east corner.
template <int Connectivity>
__device__ __forceinline__ bool halo_cell(int t, int& row, int& col) {
  if (t < kTile) {
    row = t, col = kTile + 1;
  } else if (t < 2 * kTile) {
    row = kTile, col = t - kTile + 1;
  } else if (Connectivity == 8 && t < 3 * kTile) {
    row = t - 2 * kTile + 1, col = 0;
  } else if (Connectivity == 8 && t == 3 * kTile) {
    row = kTile, col = kTile + 1;
  } else {
    return false;
  }
  return true;
}

using Tile = uint32_t[kTile + 1][kPitch];

/// Unifies the tile's rows with the east halo or (Column) its columns with the south
/// halo, a warp per line. Every label lowered is united with the label it got, so that
/// the forest records what the line found (a lane skips the pair that the lane before
/// it unites). True when a union was needed.
template <bool Column>
__device__ __forceinline__ bool unify_lines(Tile& tile, uint32_t* labels) {
  const int lane = threadIdx.x;
  bool united = false;
#pragma unroll
  for (int j = 0; j < kLinesPerWarp; ++j) {
    const int k = threadIdx.y + j * kRoundWarps;
    uint32_t& cell = Column ? tile[lane][k + 1] : tile[k][lane + 1];
    uint32_t& after = Column ? tile[kTile][k + 1] : tile[k][kTile + 1];  // lane 31's
    const uint32_t v0 = cell;
    const uint32_t next0 = lane == kWarpSize - 1 ? after : 0;
    uint32_t next = next0;
    const uint32_t v = unify_line(v0, next);
    const uint32_t v0_before = __shfl_up_sync(kFullWarp, v0, 1);
    const uint32_t v_before = __shfl_up_sync(kFullWarp, v, 1);
    if (v != v0) {
      cell = v;
      if (lane == 0 || v0_before != v0 || v_before != v) uf_union(labels, v0, v);
      united = true;
    }
    if (next != next0) {
      after = next;
      uf_union(labels, next0, next);
      united = true;
    }
  }
  return united;
}

/// 8-connected: each pixel and its south-west and south-east neighbours take their
/// smallest label (every thread reads before any writes), united like the lines'.
__device__ __forceinline__ bool unify_diagonals(Tile& tile, uint32_t* labels) {
  const int lane = threadIdx.x;
  uint32_t own[kLinesPerWarp], sw[kLinesPerWarp], se[kLinesPerWarp];
#pragma unroll
  for (int j = 0; j < kLinesPerWarp; ++j) {
    const int row = threadIdx.y + j * kRoundWarps;
    own[j] = tile[row][lane + 1];
    sw[j] = tile[row + 1][lane];
    se[j] = tile[row + 1][lane + 2];
  }
  __syncthreads();
  bool united = false;
  auto lower = [&](uint32_t& cell, uint32_t seen, uint32_t low) {
    if (seen == 0 || seen == low) return;
    const uint32_t old = atomicMin(&cell, low);  // may be lower than seen by now
    if (old != low) uf_union(labels, old, low);
    united = true;
  };
#pragma unroll
  for (int j = 0; j < kLinesPerWarp; ++j) {
    const int row = threadIdx.y + j * kRoundWarps;
    if (own[j] == 0 || (sw[j] == 0 && se[j] == 0)) continue;
    const uint32_t low = min(own[j], min(sw[j] ? sw[j] : own[j], se[j] ? se[j] : own[j]));
    lower(tile[row][lane + 1], own[j], low);
    lower(tile[row + 1][lane], sw[j], low);
    lower(tile[row + 1][lane + 2], se[j], low);
  }
  return united;
}

/// One round over a 32 x 32 tile (rows y0.., columns x0..), lanes along the tile's rows.
template <int Connectivity>
__global__ void __launch_bounds__(kWarpSize* kRoundWarps)
    rcu_round_kernel(FrameGeometry geo, uint32_t* labels, uint32_t* changed, unsigned tiles_x) {
  // Rows y0 .. y0 + 32, columns x0 - 1 .. x0 + 32: working labels, roots at first.
  __shared__ Tile tile;
  wait_for_previous_grid();
  const int lane = threadIdx.x;
  const int warp = threadIdx.y;
  const unsigned x0 = (blockIdx.x % tiles_x) * kTile;
  const unsigned y0 = (blockIdx.x / tiles_x) * kTile;
  const unsigned w = unsigned(geo.width), h = unsigned(geo.height);
  auto label_at = [&](unsigned x, unsigned y) { return x < w && y < h ? labels[y * w + x] : 0u; };

  uint32_t label[kLinesPerWarp], root[kLinesPerWarp];
#pragma unroll
  for (int j = 0; j < kLinesPerWarp; ++j) {
    const int row = warp + j * kRoundWarps;
    label[j] = label_at(x0 + lane, y0 + row);
    root[j] = streak_root(labels, label[j]);
    tile[row][lane + 1] = root[j];
  }
  if (warp < (Connectivity == 8 ? 4 : 2)) {  // the halo (halo_cell): streaks of labels too
    int halo_row, halo_col;
    const bool halo = halo_cell<Connectivity>(warp * kWarpSize + lane, halo_row, halo_col);
    // x0 - 1 wraps around: outside
    const uint32_t l = halo ? label_at(x0 + halo_col - 1, y0 + halo_row) : 0;
    const uint32_t r = streak_root(labels, l);
    if (halo) tile[halo_row][halo_col] = r;
  }
  __syncthreads();

  bool united = unify_lines<false>(tile, labels);  // UnifyRow
  __syncthreads();
  united |= unify_lines<true>(tile, labels);  // UnifyCol
  if constexpr (Connectivity == 8) {
    __syncthreads();
    united |= unify_diagonals(tile, labels);
  }
  __syncthreads();
  allow_next_grid();

  // The tile's pixels take their final label, a shortcut within their tree now (the
  // unions above joined it to theirs), for the next round's walks and the analysis';
  // roots keep theirs: unions link them.
#pragma unroll
  for (int j = 0; j < kLinesPerWarp; ++j) {
    const int row = warp + j * kRoundWarps;
    const uint32_t v = tile[row][lane + 1];
    const uint32_t i = (y0 + row) * w + x0 + lane;
    if (v < label[j] && root[j] != i + 1) labels[i] = v;
  }
  if (__syncthreads_or(united) && warp == 0 && lane == 0) *changed = 1;
}

/// Algorithm 1's ContinueInd, handed to the host: the mapped flag gets the round's
/// indicator (0 or 1, so the host need not clear it) and the device word is cleared for
/// the next round. Kept apart from the tiles so that one write crosses the bus per round.
__global__ void rcu_publish_kernel(uint32_t* changed, uint32_t* device_flag) {
  wait_for_previous_grid();
  *static_cast<volatile uint32_t*>(device_flag) = *changed;
  *changed = 0;
}

class RowColUnify final : public Labeler {
 public:
  size_t scratch_bytes(const FrameGeometry&, int) const override { return sizeof(uint32_t); }
  bool host_rounds() const override { return true; }

  void local(const LabelingFrame& f) const override {
    const unsigned segments_x = ceil_div(f.geo.width, kInitChunks * kWarpSize);
    const unsigned blocks = segments_x * ceil_div(f.geo.height, kRoundWarps);
    const dim3 block(kWarpSize, kRoundWarps);
    auto* changed = static_cast<uint32_t*>(f.scratch);
    with_luma(f.fg.format, [&](auto luma) {
      using Luma = decltype(luma);
      rcu_init_kernel<Luma>
          <<<blocks, block, 0, f.stream>>>(f.fg, f.geo, f.labels, f.mask, changed, segments_x);
    });
    check_launch("rcu_init_kernel");
  }

  void merge(const LabelingFrame& f) const override {
    const unsigned tiles_x = ceil_div(f.geo.width, kTile);
    const unsigned tiles = tiles_x * ceil_div(f.geo.height, kTile);
    const dim3 block(kWarpSize, kRoundWarps);
    auto* changed = static_cast<uint32_t*>(f.scratch);
    const auto round = f.connectivity == 4 ? rcu_round_kernel<4> : rcu_round_kernel<8>;
    // One round a batch: a round after the last that changed anything would redo
    // every tile's unification for nothing.
    run_host_rounds(f, "row-col-unify", 1, false, [&](uint32_t, uint32_t) {
      launch("rcu_round_kernel", round, tiles, block, f.stream, f.chained, f.geo, f.labels,
             changed, tiles_x);
      launch("rcu_publish_kernel", rcu_publish_kernel, 1, 1, f.stream, f.chained, changed,
             f.device_flag);
    });
  }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::RowColUnify>() {
  static const RowColUnify instance;
  return instance;
}

}  // namespace ccl::cuda
