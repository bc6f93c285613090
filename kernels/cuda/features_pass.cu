// The features pass after Hennequin et al. §IV-C/D: only run starts walk to their
// root (uf_find_ids); every pixel of a run takes its start's id, and each run adds
// its features in closed form (moments.cuh), summed per warp, per tile and per block
// in shared memory before they reach the table. Writes the output labels on the way.
#include "features_pass.h"

#include <algorithm>

#include "analysis_policy.h"
#include "ccl/cuda_memory.h"
#include "chain.h"
#include "moments.cuh"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// Columns a lane of the features pass takes: half a mask word, so that its sums stay
/// 32-bit and twice as many lanes share the frame's pieces.
constexpr int kLaneColumns = 32;
/// Piece ids a lane keeps (32 columns have at most 16 run starts), plus one slot of
/// padding so that lanes writing their k-th slot hit distinct banks.
constexpr int kPieceSlots = kLaneColumns / 2 + 1;
/// A features block's tile: a row of kWarpSize lanes' columns per warp.
constexpr int kFeatureTileColumns = kWarpSize * kLaneColumns;

/// The components a block meets in its tile, summed in shared memory relative to the
/// tile's corner (at most 8192 pixels with dx < 1024 and dy < 8: every sum stays
/// 32-bit), so that a small component spanning the tile's rows reaches the table with
/// one set of atomics rather than one per row. A component takes slot
/// id % kFeatureTileSlots, or the slot half the table away, whichever is free or
/// already its own first; when both belong to others its sums go straight to the
/// table. Slots are not given back within a tile, so a component finds the same slot
/// for all its pieces.
template <class Policy>
struct TileSums {
  static constexpr int kFeatureTileSlots = Policy::kTileSlots;
  static constexpr int kFeatureTileRows = Policy::kTileRows;

  uint32_t id[kFeatureTileSlots];
  uint32_t count[kFeatureTileSlots], sum_dx[kFeatureTileSlots], sum_dxx[kFeatureTileSlots];
  uint32_t sum_dy[kFeatureTileSlots], sum_dxy[kFeatureTileSlots], sum_dyy[kFeatureTileSlots];
  uint32_t dx_min[kFeatureTileSlots], dx_max[kFeatureTileSlots], dy_max[kFeatureTileSlots];

  __device__ void clear(int s) {
    id[s] = count[s] = sum_dx[s] = sum_dxx[s] = sum_dy[s] = sum_dxy[s] = sum_dyy[s] = 0;
    dx_min[s] = UINT_MAX;
    dx_max[s] = dy_max[s] = 0;
  }

  /// One row's pieces (dx relative to the tile) of component `cid`; false when its
  /// slot belongs to another component.
  __device__ bool add(uint32_t cid, const PartialSums& row, uint32_t dy) {
    int s = int(cid & (kFeatureTileSlots - 1));
    uint32_t owner = atomicCAS(&id[s], 0u, cid);
    if (owner != 0 && owner != cid) {
      // A second slot half the table away: a tile's ids come in runs of consecutive
      // ids (one per row), so the next slot is most often a neighbour's own.
      s = (s + kFeatureTileSlots / 2) & (kFeatureTileSlots - 1);
      owner = atomicCAS(&id[s], 0u, cid);
      if (owner != 0 && owner != cid) return false;
    }
    atomicAdd(&count[s], row.count);
    atomicAdd(&sum_dx[s], row.sum_c);
    atomicAdd(&sum_dxx[s], row.sum_cc);
    if (dy != 0) {
      atomicAdd(&sum_dy[s], row.count * dy);
      atomicAdd(&sum_dxy[s], row.sum_c * dy);
      atomicAdd(&sum_dyy[s], row.count * dy * dy);
      atomicMax(&dy_max[s], dy);
    }
    atomicMin(&dx_min[s], row.c_min);
    atomicMax(&dx_max[s], row.c_max);
    return true;
  }

  /// By the whole block, after the tile: every component's sums to the table.
  __device__ void flush(uint32_t x0, uint32_t y0, Component* table, int thread) {
    for (int s = thread; s < kFeatureTileSlots; s += kFeatureTileRows * kWarpSize) {
      if (id[s] == 0) continue;
      Moments::of_tile(x0, y0, count[s], sum_dx[s], sum_dxx[s], sum_dy[s], sum_dxy[s],
                       sum_dyy[s], dx_min[s], dx_max[s], dy_max[s])
          .atomic_add_to(table[id[s] - 1]);
      clear(s);
    }
  }
};

/// Warp-collective, over a row's lanes: the sums of the lanes with `has`, moved to
/// the tile's columns (lane l's start at column 32 l). A row's sums (1024 columns) stay
/// below 1024, 2^21 and 2^29, so count and sum of c share one reduction. Masks that
/// differ between lanes would serialize the reductions (one pass per mask), so every
/// lane takes part.
__device__ __forceinline__ PartialSums row_sums(const PartialSums& part, bool has) {
  const PartialSums s = part.shifted(kLaneColumns * threadIdx.x);
  const uint32_t packed = __reduce_add_sync(kFullWarp, has ? s.count | s.sum_c << 11 : 0u);
  const uint32_t sum_cc = __reduce_add_sync(kFullWarp, has ? s.sum_cc : 0u);
  const uint32_t c_min = __reduce_min_sync(kFullWarp, has ? s.c_min : UINT_MAX);
  const uint32_t c_max = __reduce_max_sync(kFullWarp, has ? s.c_max : 0u);
  return {packed & 0x7ffu, packed >> 11, sum_cc, c_min, c_max};
}

/// Warp-collective: the output labels of one row's kFeatureTileColumns columns from
/// x0 on, given each lane's 32 bits and its pieces' ids (kPieceSlots apart). Each
/// step, lane l writes four columns (4 (l % 8) on) of the half of lane 4 i + l / 8, so
/// the warp stores 512 contiguous bytes with one 16-byte store per lane. Needs a
/// width that is a multiple of 4 (16-byte aligned rows).
/// Output labels are stored evict-first (__stcs, here and in the any-width loop):
/// nothing reads them again on the device this frame, and at 3840x2160 the output and
/// the forest (33 MB each) do not fit L2 together, so the forest, the mask and the
/// table keep their lines.
__device__ __forceinline__ void write_row_labels(uint32_t bits, const uint32_t* ids,
                                                 uint32_t* row, uint32_t x0, int width) {
  const int lane = threadIdx.x;
  const int c0 = 4 * (lane % 8);
  const uint32_t at_or_before = 0xffffffffu >> (31 - c0);
  for (int i = 0; i < kWarpSize / 4; ++i) {
    const int first = int(x0) + kLaneColumns * 4 * i;  // the step's first column
    if (first >= width) break;  // the same for the whole warp
    const int src = 4 * i + lane / 8;
    const uint32_t word = __shfl_sync(kFullWarp, bits, src);
    const uint32_t b = word >> c0;
    const uint32_t starts = run_starts(word, false);
    const uint32_t* piece = ids + src * kPieceSlots;
    // A foreground column has a run start at or before it in its half: p >= 0 there.
    int p = __popc(starts & at_or_before) - 1;
    uint4 v;
    v.x = b & 1 ? piece[p] & ~kSoloTag : 0u;
    p += (starts >> (c0 + 1)) & 1;
    v.y = b & 2 ? piece[p] & ~kSoloTag : 0u;
    p += (starts >> (c0 + 2)) & 1;
    v.z = b & 4 ? piece[p] & ~kSoloTag : 0u;
    p += (starts >> (c0 + 3)) & 1;
    v.w = b & 8 ? piece[p] & ~kSoloTag : 0u;
    const int x = int(x0) + kLaneColumns * src + c0;
    if (x < width) __stcs(reinterpret_cast<uint4*>(row + x), v);
  }
}

/// The same for any width, a 4-byte store per pixel: lane l writes column l of both
/// halves of each word; its base is the raster index of its first column and
/// `remaining` the row's columns from there on (0 outside the frame).
__device__ __forceinline__ void write_row_labels_any_width(uint32_t bits, const uint32_t* ids,
                                                           uint32_t* out, uint32_t base,
                                                           int remaining) {
  const int lane = threadIdx.x;
  // A pixel's piece is the number of run starts at or before it in its half.
  const uint32_t at_or_before = 0xffffffffu >> (31 - lane);
  for (int j = 0; j < kWarpSize; j += 2) {
    const int columns = __shfl_sync(kFullWarp, remaining, j);
    if (columns <= 0) break;  // past the row's last word, as are the lanes after j
    const uint32_t to = __shfl_sync(kFullWarp, base, j);
    const uint32_t lo = __shfl_sync(kFullWarp, bits, j);
    const uint32_t hi = __shfl_sync(kFullWarp, bits, j + 1);
    const uint32_t* piece = ids + j * kPieceSlots;
    const int piece_lo = __popc(run_starts(lo, false) & at_or_before) - 1;
    const int piece_hi = __popc(run_starts(hi, false) & at_or_before) - 1;
    const uint32_t label_lo = (lo >> lane) & 1 ? piece[max(piece_lo, 0)] & ~kSoloTag : 0u;
    const uint32_t label_hi =
        (hi >> lane) & 1 ? piece[kPieceSlots + max(piece_hi, 0)] & ~kSoloTag : 0u;
    if (lane < columns) __stcs(out + to + uint32_t(lane), label_lo);
    if (lane + 32 < columns) __stcs(out + to + uint32_t(lane) + 32, label_hi);
  }
}

/// The features pass. A block takes tiles of kFeatureTileRows rows of
/// kFeatureTileColumns columns, a warp a row of the tile and a lane 32 columns (half a
/// mask word), and works with thread-level bit operations on them (a lane per pixel
/// issued several times the instructions: PERF_NOTES.md).
/// - Each lane finds the id of every run piece of its columns (uf_find_ids, several
///   walks in lockstep) and keeps them in shared memory.
/// - The warp's hot component (the one most lanes' first pieces belong to, kept while
///   they still meet it) is summed per lane, then over the row (row_sums), into shared
///   memory, and reaches the table once per block: a component covering the frame sees
///   a few atomics per block.
/// - Every other component's consecutive pieces in a lane are summed and go to the
///   tile's sums in shared memory (TileSums), which reach the table after the tile: a
///   small component spanning the tile's rows costs one set of atomics on the table.
/// - With kWriteLabels the warp writes its row's output labels, coalesced, each pixel
///   taking its piece's id from shared memory.
template <class Policy, bool kWriteLabels>
__global__ void __launch_bounds__(kWarpSize* Policy::kTileRows, Policy::kBlocksPerSm)
    features_kernel(FrameGeometry geo, const uint32_t* mask, uint32_t* labels, uint32_t* out,
                    Component* table, long long tiles, int tile_columns) {
  constexpr int kFeatureTileRows = Policy::kTileRows;
  constexpr int kFeatureTileSlots = Policy::kTileSlots;
  wait_for_previous_grid();
  __shared__ Moments block_sums[kFeatureTileRows];
  __shared__ uint32_t block_ids[kFeatureTileRows];
  __shared__ uint32_t piece_ids[kFeatureTileRows][kWarpSize * kPieceSlots];
  __shared__ TileSums<Policy> tile_sums;
  const int lane = threadIdx.x;
  const int warp = threadIdx.y;
  const int thread = warp * kWarpSize + lane;
  uint32_t* my_ids = piece_ids[warp] + lane * kPieceSlots;
  const int halves_per_row = 2 * geo.words;

  Moments& hot = block_sums[warp];
  if (lane == 0) hot = Moments::none();
  uint32_t hot_id = 0;
  for (int s = thread; s < kFeatureTileSlots; s += kFeatureTileRows * kWarpSize) tile_sums.clear(s);
  __syncthreads();

  for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const uint32_t x0 = uint32_t(tile % tile_columns) * kFeatureTileColumns;
    const uint32_t y0 = uint32_t(tile / tile_columns) * kFeatureTileRows;
    const int y = int(y0) + warp;
    const int half = int(x0) / kLaneColumns + lane;  // in the row
    const bool inside = y < geo.height && half < halves_per_row;
    const uint32_t x = x0 + kLaneColumns * uint32_t(lane);
    const uint32_t bits = inside ? mask[size_t(y) * size_t(halves_per_row) + half] : 0;
    const uint32_t base = uint32_t(y) * uint32_t(geo.width) + x;
    const uint32_t starts = run_starts(bits, false);
    // A run crossing into an upper half from the lower one is a node only at its start
    // (64-column windows, union_find.cuh).
    const uint32_t lower = __shfl_up_sync(kFullWarp, bits, 1);
    const uint32_t carried =
        (lane & 1) && (bits & 1) && (lower >> 31) ? uint32_t(top_run_length(lower)) : 0u;

    constexpr int kFindBatch = Policy::kFindBatch;
    uint32_t lead = 0;  // the id of the lane's first piece not solo
    int pieces = 0;
    for (uint32_t pending = starts; pending;) {
      uint32_t node[kFindBatch], id[kFindBatch];
#pragma unroll
      for (int j = 0; j < kFindBatch; ++j) {
        const int c = pending ? __ffs(pending) - 1 : -1;
        pending &= pending - 1;
        node[j] = c < 0 ? 0u : (c == 0 ? base - carried : base + uint32_t(c)) + 1;
      }
      uf_find_ids(labels, node, id);
#pragma unroll
      for (int j = 0; j < kFindBatch; ++j)
        if (node[j]) {
          my_ids[pieces++] = id[j];
          if (lead == 0 && !(id[j] & kSoloTag)) lead = id[j];
        }
    }

    if (!__any_sync(kFullWarp, hot_id != 0 && lead == hot_id)) {
      const unsigned same = __match_any_sync(kFullWarp, lead);
      const uint32_t best =
          __reduce_max_sync(kFullWarp, lead ? uint32_t(__popc(same)) << 5 | lane : 0u);
      const uint32_t next = __shfl_sync(kFullWarp, lead, int(best & 31));
      if (best != 0) {
        if (lane == 0) {
          if (hot_id != 0) hot.atomic_add_to(table[hot_id - 1]);
          hot = Moments::none();
        }
        hot_id = next;
        __syncwarp();
      }
    }

    // The lane's pieces in order: consecutive pieces of one component add up in `part`
    // before they go to the tile's sums, or to the table when their slot is taken.
    PartialSums in_hot = PartialSums::none();
    PartialSums part = PartialSums::none();
    uint32_t current = 0;  // the component `part` sums
    auto hand_over = [&] {
      const PartialSums sums = part.shifted(kLaneColumns * uint32_t(lane));
      if (!tile_sums.add(current, sums, uint32_t(warp)))
        Moments::of_window(x0, uint32_t(y), sums.count, sums.sum_c, sums.sum_cc, sums.c_min,
                           sums.c_max)
            .atomic_add_to(table[current - 1]);
    };
    int k = 0;
    for_each_bit(starts, [&](int c0) {
      const uint32_t found = my_ids[k++];
      if (found & kSoloTag) return;  // a solo run's features are in the table already
      const uint32_t len = uint32_t(end_distance(bits, c0));
      if (found == hot_id) {
        in_hot.add(uint32_t(c0), len);
        return;
      }
      if (found != current) {
        if (current != 0) hand_over();
        current = found;
        part = PartialSums::none();
      }
      part.add(uint32_t(c0), len);
    });
    if (current != 0) hand_over();

    if (__any_sync(kFullWarp, in_hot.count != 0)) {
      const PartialSums row = row_sums(in_hot, in_hot.count != 0);
      if (lane == 0)
        hot.add(Moments::of_window(x0, uint32_t(y), row.count, row.sum_c, row.sum_cc,
                                   row.c_min, row.c_max));
    }

    if constexpr (kWriteLabels) {
      __syncwarp();  // the piece ids
      if (geo.width % 4 == 0) {
        if (y < geo.height)
          write_row_labels(bits, piece_ids[warp], out + size_t(y) * geo.width, x0, geo.width);
      } else {
        write_row_labels_any_width(bits, piece_ids[warp], out, base,
                                   inside ? geo.width - int(x) : 0);
      }
    }
    __syncthreads();  // the tile's sums are complete; the next tile rewrites piece ids
    tile_sums.flush(x0, y0, table, thread);
    __syncthreads();  // cleared before the next tile's adds
  }

  if (lane == 0) block_ids[warp] = hot_id;
  __syncthreads();
  if (thread == 0) {
    for (int i = 0; i < kFeatureTileRows; ++i) {
      const uint32_t cid = block_ids[i];
      if (cid == 0) continue;
      Moments sum = block_sums[i];
      for (int j = i + 1; j < kFeatureTileRows; ++j)
        if (block_ids[j] == cid) {
          sum.add(block_sums[j]);
          block_ids[j] = 0;
        }
      sum.atomic_add_to(table[cid - 1]);
    }
  }
  allow_next_grid();
}

}  // namespace

int features_blocks_per_sm() {
  using P = FeaturesPolicy;
  int labels_written = 0, features_only = 0;
  CCL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &labels_written, features_kernel<P, true>, kWarpSize * P::kTileRows, 0));
  CCL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &features_only, features_kernel<P, false>, kWarpSize * P::kTileRows, 0));
  return std::max(1, std::min(labels_written, features_only));
}

void launch_features(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                     uint32_t* out, Component* table, unsigned resident_blocks,
                     cudaStream_t stream, bool chained) {
  using P = FeaturesPolicy;
  const int tile_columns = int(ceil_div(size_t(geo.width), kFeatureTileColumns));
  const long long tiles = (long long)tile_columns * ceil_div(size_t(geo.height), P::kTileRows);
  const unsigned blocks =
      unsigned(std::min<long long>(tiles, (long long)P::kTilesPerResidentBlock * resident_blocks));
  // Little-endian: a word's lower half (columns 0-31) comes first.
  const uint32_t* halves = reinterpret_cast<const uint32_t*>(mask);
  launch("features_kernel", out ? features_kernel<P, true> : features_kernel<P, false>, blocks,
         dim3(kWarpSize, P::kTileRows), stream, chained, geo, halves, labels, out, table, tiles,
         tile_columns);
}

}  // namespace ccl::cuda
