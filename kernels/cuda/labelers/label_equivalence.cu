// Label equivalence after O. Kalentev, A. Rai, S. Kemnitz, R. Schneider, "Connected
// component labeling on a 2D grid using CUDA" (J. Parallel Distrib. Comput. 71, 2011),
// section 2.2 and appendix A, listings 1 (initialization), 2 (analysis: each label,
// taken as a reference, is followed to its root) and 3 (scanning: each pixel takes
// the smallest label around it and lowers the reference of its own label to it).
// Their reduction of Hawick et al.'s algorithm is kept: the label image is its own
// reference array, and there is no labeling phase. Labels are raster index + 1, so the
// forest is the one union_find.cuh describes, and at convergence every pixel refers to
// its component's first pixel, the smallest index in it.
//
// Stages:
// - local, le_init_kernel: listing 1 and the first scanning in one pass. On the initial
//   labels (own index + 1) scanning gives each pixel the smallest index among itself
//   and its foreground neighbours, which the thresholded frame alone tells: north-west,
//   north, north-east or west (8-way), north or west (4-way), else itself. One warp per
//   strip of 32 columns x 32 rows thresholds it (writing the mask), picks those
//   references and follows the ones that stay inside the strip (row by row, through
//   shuffles), so that each pixel refers to where its chain leaves the strip, or to its
//   root: the first analysis then walks strips, not pixels.
// - merge, rounds of le_round_kernel: one analysis and one scanning fused per tile of
//   32 x 8 pixels, one warp each. Every label of the tile and its one-pixel halo is
//   resolved to its root (listing 2; the tile's own pixels keep it); then each pixel
//   whose neighbours have a smaller root lowers its own root's reference to the
//   smallest (listing 3). A round that lowers nothing ends the loop: nothing changed
//   while it ran, so every pixel holds its root and agrees with all its neighbours.
//   No final relabeling: the shared analysis numbers the roots.
//
// Departures from the listings, and why:
// - Connectivity: the paper scans the four edge neighbours (4-way, as given); 8-way
//   scans all eight, and the first scanning takes the diagonal ones too.
// - Lowering: listing 3 stores min(reference, smallest) without an atomic, letting a
//   collision be resolved by a later round. Here atomicMin does it, and when the
//   reference already pointed elsewhere, that node and the smallest label are lowered
//   the same way in turn (le_lower): no equivalence is dropped, which saves rounds.
// - No padding: the tiles' bounds checks stand for it, and background labels are 0.
// - Host loop: the paper reads IsNotDone after every round. Here rounds are queued in
//   batches (a round after one that lowered nothing returns at once) and the host waits
//   once per batch for a word that says whether the batch's last round lowered anything
//   (frame.host_flag); random frames converge within the first batch of three.
// - Listing 4 (sizes) is left out: the shared analysis measures the components.
//
// Races, all benign: a tile's analysis store (its pixel's root, over a reference that
// was not a root) can overwrite a concurrent atomicMin on that pixel; the lowering
// thread then goes on with the reference it replaced (le_lower), which still reaches
// the stored root. References only ever decrease, so walks end and parents precede
// children; stale reads only cost a later round.

#include <algorithm>
#include <string>

#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "mask_store.cuh"
#include "segments.cuh"

namespace ccl::cuda {

namespace {

/// Rows of a round's tile, and of a step of an initialization strip: a warp holds a
/// column per lane and a row per register, so that its loads all go out at once and
/// neighbours come from registers and shuffles (no shared memory, no barriers).
constexpr int kRows = 8;
/// Rows of an initialization strip: its references are followed inside it, so the
/// first round's walks cross a strip, not a tile, per step up.
constexpr int kInitRows = 4 * kRows;
constexpr int kTileWarps = 8;  // warps per block
/// Round blocks resident per SM the round kernel is compiled for (at most 64 registers
/// a thread): the rounds wait on memory, so warps in flight matter.
constexpr int kRoundBlocksPerSm = 4;
/// Rounds queued before the host first waits: random frames of any size and density
/// converge in two or three (one or two that lower, one that finds nothing to lower).
constexpr uint32_t kFirstBatch = 3;

/// min over labels with 0 (background) above every label.
__device__ __forceinline__ uint32_t min_label(uint32_t a, uint32_t b) {
  return min(a - 1u, b - 1u) + 1u;
}

/// Listing 1 and the first scanning, then the strip's part of the first analysis. One
/// warp per strip of 32 columns x kInitRows rows, thresholded kRows rows at a time (all
/// of their loads at once), then labeled row by row; also resets the merge's round word.
template <int Connectivity, class Luma>
__global__ void __launch_bounds__(kWarpSize* kTileWarps)
    le_init_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask,
                   uint32_t* last_lowered, unsigned strips_x, unsigned strips) {
  const int lane = threadIdx.x % kWarpSize;
  const unsigned t = blockIdx.x * kTileWarps + threadIdx.x / kWarpSize;
  if (t == 0 && lane == 0) *last_lowered = 0;
  if (t >= strips) return;
  const int x0 = int(t % strips_x) * kWarpSize;
  const int y_strip = int(t / strips_x) * kInitRows;
  const int x = x0 + lane;
  const uint32_t level = fg.load_level();
  const uint32_t w = uint32_t(geo.width);
  const int j = lane + 1;  // this column's bit in a row word
  uint32_t above = 0;      // results of the strip's previous row

  for (int y0 = y_strip; y0 < min(y_strip + kInitRows, geo.height); y0 += kRows) {
    // Rows y0-1 .. y0+kRows-1 as bits 0..33 (bit 1 + l = column x0 + l, bit 0 column
    // x0 - 1, bit 33 column x0 + 32); lanes 0.. read the left side column, lanes 16..
    // the right one.
    bool in[kRows + 1];
#pragma unroll
    for (int r = 0; r <= kRows; ++r) {
      const int y = y0 - 1 + r;
      in[r] = y >= 0 && y < geo.height && x < geo.width && fg.test<Luma>(x, y, level);
    }
    bool side = false;
    if (lane <= kRows) {
      const int y = y0 - 1 + lane;
      side = y >= 0 && y < geo.height && x0 > 0 && fg.test<Luma>(x0 - 1, y, level);
    } else if (Connectivity == 8 && lane >= 16 && lane <= 16 + kRows) {
      const int y = y0 - 1 + lane - 16;
      side = y >= 0 && y < geo.height && x0 + kWarpSize < geo.width &&
             fg.test<Luma>(x0 + kWarpSize, y, level);
    }
    const uint32_t sides = __ballot_sync(kFullWarp, side);
    uint64_t rows[kRows + 1];
#pragma unroll
    for (int r = 0; r <= kRows; ++r)
      rows[r] = (uint64_t(__ballot_sync(kFullWarp, in[r])) << 1) | ((sides >> r) & 1u) |
                (uint64_t((sides >> (16 + r)) & 1u) << 33);
#pragma unroll
    for (int r = 1; r <= kRows; ++r)
      if (lane == r - 1 && y0 + r - 1 < geo.height)
        store_mask_half(mask, geo.words, geo.width, y0 + r - 1, x0, uint32_t(rows[r] >> 1));

    // Row by row: the reference scanning gives, followed inside the strip. A reference
    // to the row above takes that pixel's result (a shuffle); a run of references to
    // the west takes the result of the run's first pixel not referring west.
#pragma unroll
    for (int r = 1; r <= kRows; ++r) {
      const uint64_t up = rows[r - 1], own = rows[r];
      const int y = y0 + r - 1;
      const bool first_row = y == y_strip;
      const uint32_t i = uint32_t(y) * w + uint32_t(x);
      int from = -1;  // lane of the row above to take the result from
      bool west = false;
      uint32_t parent = i;
      if (Connectivity == 8 && bit(up, j - 1)) {
        parent = i - w - 1;
        if (!first_row && lane > 0) from = lane - 1;
      } else if (bit(up, j)) {
        parent = i - w;
        if (!first_row) from = lane;
      } else if (Connectivity == 8 && bit(up, j + 1)) {
        parent = i - w + 1;
        if (!first_row && lane < kWarpSize - 1) from = lane + 1;
      } else if (bit(own, j - 1)) {
        parent = i - 1;
        west = lane > 0;
      }
      const uint32_t taken = __shfl_sync(kFullWarp, above, from < 0 ? lane : from);
      const uint32_t reference = from < 0 ? parent + 1 : taken;
      const uint32_t wests = __ballot_sync(kFullWarp, west && bit(own, j));
      // Lane 0 never refers west inside the strip, so a head always exists.
      const int head = 31 - __clz(~wests & ((2u << lane) - 1u));
      const uint32_t result = __shfl_sync(kFullWarp, reference, head);
      if (y < geo.height && x < geo.width) labels[i] = bit(own, j) ? result : 0u;
      above = result;
    }
  }
  allow_next_grid();
}

/// Follows every label of v (0: background, left alone) to its root, the walks in
/// lockstep so that each step's loads go out together. `stale` gets bit r set when
/// v[r] was not a root. Read-only (measured): in the first round of a frame with one
/// big component, every warp walks the same few nodes, and compressing them as it
/// goes makes those nodes' lines hot with writes.
template <int N>
__device__ __forceinline__ void resolve_roots(uint32_t* labels, uint32_t (&v)[N],
                                              uint32_t& stale) {
  uint32_t parent[N];
#pragma unroll
  for (int r = 0; r < N; ++r) parent[r] = v[r] ? labels[v[r] - 1] : 0u;
  stale = 0;
#pragma unroll
  for (int r = 0; r < N; ++r)
    if (parent[r] != v[r]) stale |= 1u << r;
  bool walking = stale != 0;
  while (walking) {
    walking = false;
#pragma unroll
    for (int r = 0; r < N; ++r)
      if (parent[r] != v[r]) {
        const uint32_t grand = labels[parent[r] - 1];
        v[r] = parent[r];
        parent[r] = grand;
        walking |= grand != v[r];
      }
  }
}

/// Records that labels a and b are equivalent: the larger one's reference is lowered to
/// the smaller. When it pointed to some other node, that node is equivalent too and is
/// lowered (or lowers) in turn, so nothing is lost to a collision. Ends because the
/// larger label of the pair shrinks every step; every reference only ever decreases.
__device__ __forceinline__ void le_lower(uint32_t* labels, uint32_t a, uint32_t b) {
  while (a != b) {
    const uint32_t high = max(a, b), low = min(a, b);
    const uint32_t old = atomicMin(&labels[high - 1], low);
    if (old == high) return;  // it was a root: now it hangs under low
    a = old;
    b = low;
  }
}

/// One round: analysis and scanning per 32 x kRows tile, one warp per tile, the tiles
/// taken grid-stride in raster order so that the tiles above a tile have mostly been
/// resolved when its chains walk through them. A lane holds its column of the tile and
/// of the rows above and below it; lanes 0 .. kRows+1 the column left of the tile,
/// lanes 16 .. 16+kRows+1 the one right of it. Background labels are 0, so the labels
/// themselves say what is foreground. Writes `round` to *last_lowered when a pixel
/// lowered a reference; returns at once when the round before lowered none.
template <int Connectivity>
__global__ void __launch_bounds__(kWarpSize* kTileWarps, kRoundBlocksPerSm)
    le_round_kernel(FrameGeometry geo, uint32_t* labels, uint32_t* last_lowered,
                    uint32_t round, unsigned tiles_x, unsigned tiles) {
  constexpr int N = kRows + 2;
  wait_for_previous_grid();
  if (*(volatile uint32_t*)last_lowered + 1 < round) return;
  const int lane = threadIdx.x % kWarpSize;
  const unsigned warps = gridDim.x * kTileWarps;
  bool lowered = false;
  for (unsigned t = blockIdx.x * kTileWarps + threadIdx.x / kWarpSize; t < tiles; t += warps) {
    const int x0 = int(t % tiles_x) * kWarpSize;
    const int y0 = int(t / tiles_x) * kRows;
    const int x = x0 + lane;
    const uint32_t width = uint32_t(geo.width);
    auto label_at = [&](int px, int py) {
      return px >= 0 && px < geo.width && py >= 0 && py < geo.height
                 ? labels[uint32_t(py) * width + uint32_t(px)]
                 : 0u;
    };
    uint32_t v[N + 1];  // rows y0-1 .. y0+kRows, then the side column
#pragma unroll
    for (int r = 0; r < N; ++r) v[r] = label_at(x, y0 - 1 + r);
    v[N] = lane < N                      ? label_at(x0 - 1, y0 - 1 + lane)
           : lane >= 16 && lane < 16 + N ? label_at(x0 + kWarpSize, y0 - 1 + lane - 16)
                                         : 0u;
    // Analysis (listing 2).
    uint32_t stale;
    resolve_roots(labels, v, stale);

    // Scanning (listing 3): the smallest root around each pixel. The row's west and
    // east neighbours come from the next lanes (the side columns at the tile's ends);
    // `around` is the smallest of west, self and east, for the rows above and below.
    auto west_of = [&](int r) {
      const uint32_t side = __shfl_sync(kFullWarp, v[N], r);
      const uint32_t next = __shfl_up_sync(kFullWarp, v[r], 1);
      return lane == 0 ? side : next;
    };
    auto east_of = [&](int r) {
      const uint32_t side = __shfl_sync(kFullWarp, v[N], 16 + r);
      const uint32_t next = __shfl_down_sync(kFullWarp, v[r], 1);
      return lane == kWarpSize - 1 ? side : next;
    };
    uint32_t west = west_of(0), east = east_of(0);
    uint32_t around_above = 0;
    uint32_t around = min_label(min_label(west, v[0]), east);
    west = west_of(1);
    east = east_of(1);
#pragma unroll
    for (int r = 1; r <= kRows; ++r) {
      const uint32_t west_below = west_of(r + 1), east_below = east_of(r + 1);
      around_above = around;
      around = min_label(min_label(west, v[r]), east);
      const uint32_t around_below = min_label(min_label(west_below, v[r + 1]), east_below);
      const uint32_t root = v[r];
      if (root != 0) {
        if (stale & (1u << r)) labels[uint32_t(y0 - 1 + r) * width + x] = root;
        const uint32_t smallest = min_label(
            root, Connectivity == 8
                      ? min_label(min_label(around_above, around_below), min_label(west, east))
                      : min_label(min_label(v[r - 1], v[r + 1]), min_label(west, east)));
        if (smallest < root) {
          le_lower(labels, root, smallest);
          lowered = true;
        }
      }
      west = west_below;
      east = east_below;
    }
  }
  if (__any_sync(kFullWarp, lowered) && lane == 0) *(volatile uint32_t*)last_lowered = round;
  allow_next_grid();
}

/// Tells the host whether round `round`, the batch's last, lowered a reference.
__global__ void le_report_kernel(const uint32_t* last_lowered, uint32_t round, uint32_t* flag) {
  wait_for_previous_grid();
  if (*last_lowered == round) {
    *(volatile uint32_t*)flag = 1;
    __threadfence_system();
  }
}

/// Warps of a pass over the frame: one per 32 columns x `rows` rows, in raster order.
struct Warps {
  unsigned across, count, blocks;
  Warps(const FrameGeometry& geo, int rows)
      : across(ceil_div(geo.width, kWarpSize)),
        count(across * ceil_div(geo.height, rows)),
        blocks(ceil_div(count, kTileWarps)) {}
};

class LabelEquivalence final : public Labeler {
 public:
  size_t scratch_bytes(const FrameGeometry&, int) const override { return sizeof(uint32_t); }
  bool host_rounds() const override { return true; }

  void local(const LabelingFrame& f) const override {
    const Warps strips(f.geo, kInitRows);
    auto* last_lowered = static_cast<uint32_t*>(f.scratch);
    with_luma(f.fg.format, [&](auto luma) {
      using Luma = decltype(luma);
      auto kernel = f.connectivity == 4 ? le_init_kernel<4, Luma> : le_init_kernel<8, Luma>;
      kernel<<<strips.blocks, kWarpSize * kTileWarps, 0, f.stream>>>(
          f.fg, f.geo, f.labels, f.mask, last_lowered, strips.across, strips.count);
    });
    check_launch("le_init_kernel");
  }

  void merge(const LabelingFrame& f) const override {
    const Warps tiles(f.geo, kRows);
    auto round_kernel = f.connectivity == 4 ? le_round_kernel<4> : le_round_kernel<8>;
    // Exactly the blocks that fit at once: a block waiting for a slot would take its
    // tiles out of raster order, and the first round's walks then cross tiles that no
    // one has resolved yet.
    int per_sm = 1;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, round_kernel,
                                                        kWarpSize * kTileWarps, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    const unsigned grid = std::min(tiles.blocks, unsigned(f.sm_count * std::max(per_sm, 1)));
    auto* last_lowered = static_cast<uint32_t*>(f.scratch);
    run_host_rounds(f, "label-equivalence", kFirstBatch, true, [&](uint32_t first, uint32_t count) {
      for (uint32_t round = first; round < first + count; ++round)
        launch("le_round_kernel", round_kernel, grid, kWarpSize * kTileWarps, f.stream,
               f.chained, f.geo, f.labels, last_lowered, round, tiles.across, tiles.count);
      launch("le_report_kernel", le_report_kernel, 1, 1, f.stream, f.chained,
             static_cast<const uint32_t*>(last_lowered), first + count - 1, f.device_flag);
    });
  }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::LabelEquivalence>() {
  static const LabelEquivalence instance;
  return instance;
}

}  // namespace ccl::cuda
