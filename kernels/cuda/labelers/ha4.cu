// HA4 / HA8 after Hennequin et al., "A new direct connected component labeling and
// analysis algorithms for GPUs" (DASIP 2018): algorithm 3 (strip labeling) and
// algorithm 4 (border merging), with algorithm 7's two pixels per thread. The 8-way
// form unites runs of adjacent rows that overlap or touch diagonally (segments.cuh).
#include "chain.h"
#include "ccl/cuda_memory.h"
#include "labeler.h"
#include "mask_store.cuh"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

namespace {

/// Length of the run that reaches column -1 of the next window, given this window's
/// bits and the length that reached column -1 of this one.
template <class Word>
__device__ __forceinline__ uint32_t carried_run(Word bits, uint32_t run) {
  constexpr int kCols = WindowBits<Word>::kColumns;
  const int top = top_run_length(bits);
  return top == kCols ? run + kCols : uint32_t(top);
}

/// Resident strip blocks per SM the kernel is compiled for: 16 blocks of 128 threads
/// fill an SM when a thread takes at most 32 registers (left to itself, the compiler
/// gave the 8-connected 64-column strips 39 once unite_rows dealt out its columns).
constexpr int kStripBlocksPerSm = 16;

/// One block per chunk of a strip (kStripRows rows, kChunkColumns columns), one warp
/// per row, walking its part of the row window by window: Hennequin et al. walk whole
/// rows, which leaves too few warps for a large GPU, so chunks are cut and their
/// borders merged with the strips' (ha_merge_borders). The threshold is evaluated
/// here, once per pixel; the ballots become the foreground mask.
/// The chunk's union-find lives in shared memory (node = local index ty *
/// kChunkColumns + column in chunk, which orders like the raster index), so the
/// unions inside a strip cost shared-memory latency instead of global atomics. At
/// the end every node is written to the label image pointing straight at its chunk
/// root: later finds start one step from a root.
template <int Connectivity, class Word, class Luma>
__global__ void __launch_bounds__(kWarpSize* kStripRows, kStripBlocksPerSm)
    ha_strip_kernel(Foreground fg, FrameGeometry geo, uint32_t* labels, uint64_t* mask,
                    unsigned chunks) {
  constexpr int kCols = WindowBits<Word>::kColumns;
  constexpr int kWindows = kChunkColumns / kCols;
  constexpr int kPerLane = kCols / 32;
  // Bits of each row's current window, double-buffered so one barrier per step suffices.
  __shared__ Word row_bits[2][kStripRows];
  __shared__ uint32_t local[kStripRows * kChunkColumns];

  const int lane = threadIdx.x;
  const int ty = threadIdx.y;
  const int y = int(blockIdx.x / chunks) * kStripRows + ty;
  const int x_begin = int(blockIdx.x % chunks) * kChunkColumns;
  const int x_end = min(geo.width, x_begin + kChunkColumns);
  const bool in_rows = y < geo.height;
  const uint32_t level = fg.load_level();
  const uint32_t row_local = uint32_t(ty) * kChunkColumns;

  // The whole chunk row is read before any of it is used, so that the warp waits for
  // memory once rather than once per window.
  uint32_t luma[kWindows][kPerLane];
#pragma unroll
  for (int s = 0; s < kWindows; ++s)
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      const int x = x_begin + s * kCols + 32 * k + lane;
      luma[s][k] = in_rows && x < x_end ? fg.luma<Luma>(x, y) : 0;
    }
  Word window_bits[kWindows];
#pragma unroll
  for (int s = 0; s < kWindows; ++s) {
    bool p[2] = {false, false};
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      const int x = x_begin + s * kCols + 32 * k + lane;
      p[k] = in_rows && x < x_end && is_foreground(luma[s][k], level, fg.mode);
    }
    window_bits[s] = warp_window<Word>(p[0], p[1]);
  }

  uint32_t cur_run = 0;  // length of the run through column -1, this row
  uint32_t up_run = 0;   // same, row above
#pragma unroll
  for (int s = 0; s < kWindows; ++s) {
    const int x0 = x_begin + s * kCols;
    if (x0 >= x_end) break;  // the same for every warp of the block
    const Word bits = window_bits[s];
    const uint32_t base = row_local + uint32_t(s * kCols);
    const RowWindow<Word> cur{bits, cur_run > 0, base - cur_run, base};

    // Only piece starts become nodes; a piece continuing a run points at its start.
    const Word starts = run_starts(bits, false);
#pragma unroll
    for (int k = 0; k < kPerLane; ++k)
      if (lane_bit(starts, k, lane)) {
        const int c = lane + 32 * k;
        local[base + c] = (c == 0 && cur.left ? cur.left_node : base + uint32_t(c)) + 1;
      }
    if (lane == 0) {
      row_bits[s & 1][ty] = bits;
      if (in_rows) {
        if constexpr (kCols == 64)
          mask[size_t(y) * geo.words + (x0 >> 6)] = bits;
        else
          store_mask_half(mask, geo.words, geo.width, y, x0, bits);
      }
    }
    __syncthreads();

    if (ty > 0) {
      const Word up_bits = row_bits[s & 1][ty - 1];
      const RowWindow<Word> up{up_bits, up_run > 0, base - kChunkColumns - up_run,
                               base - kChunkColumns};
      unite_new_runs<Connectivity>(AtomicForest{local}, cur, up, lane);
      up_run = carried_run(up_bits, up_run);
    }
    cur_run = carried_run(bits, cur_run);
  }
  __syncthreads();

  if (!in_rows) return;
  const uint32_t width = uint32_t(geo.width);
  const uint32_t chunk_origin = uint32_t(y - ty) * width + uint32_t(x_begin);
  auto to_raster = [&](uint32_t node) {
    return chunk_origin + (node / kChunkColumns) * width + node % kChunkColumns;
  };
#pragma unroll
  for (int s = 0; s < kWindows; ++s) {
    const Word starts = run_starts(window_bits[s], false);  // 0 past the chunk's end
#pragma unroll
    for (int k = 0; k < kPerLane; ++k)
      if (lane_bit(starts, k, lane)) {
        const uint32_t node = row_local + uint32_t(s * kCols + lane + 32 * k);
        labels[to_raster(node)] = to_raster(uf_find(local, node + 1) - 1) + 1;
      }
  }
  allow_next_grid();
}

/// Unites the runs of 64-column window `warp` of a strip's first row with those of the
/// last row of the strip above (one warp). Nodes of runs coming from the previous
/// window are that window's piece starts, nodes in every variant (union_find.cuh).
template <int Connectivity>
__device__ __forceinline__ void merge_strip_window(const FrameGeometry& geo,
                                                   const uint64_t* mask, uint32_t* labels,
                                                   long long warp) {
  const int y = int(warp / geo.words + 1) * kStripRows;
  const int w = int(warp % geo.words);
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint64_t* above = row - geo.words;
  const uint64_t cur_bits = row[w];
  const uint64_t up_bits = above[w];
  if (Connectivity == 4 ? (cur_bits & up_bits) == 0 : (cur_bits | up_bits) == 0) return;

  const uint64_t cur_prev = w > 0 ? row[w - 1] : 0;
  const uint64_t up_prev = w > 0 ? above[w - 1] : 0;
  const uint32_t base = uint32_t(y) * uint32_t(geo.width) + 64u * uint32_t(w);
  const uint32_t up_base = base - uint32_t(geo.width);
  const RowWindow<uint64_t> cur{cur_bits, bit(cur_prev, 63),
                                base - 1 - uint32_t(start_distance(cur_prev, 63)), base};
  const RowWindow<uint64_t> up{up_bits, bit(up_prev, 63),
                               up_base - 1 - uint32_t(start_distance(up_prev, 63)), up_base};
  unite_rows<Connectivity>(labels, cur, up, threadIdx.x);
}

/// Task t = one row and border between chunks (column x, a multiple of 64): the links
/// across it that the chunks' labeling could not see. Horizontal neighbours, and for
/// 8-connectivity the two diagonals to the row above. Column x starts a piece in its
/// chunk, so pixel x is a node; pixel x-1's node is its 64-column piece start.
template <int Connectivity>
__device__ __forceinline__ void merge_chunk_border(const FrameGeometry& geo,
                                                   const uint64_t* mask, uint32_t* labels,
                                                   unsigned borders_per_row, long long t) {
  const int y = int(t / borders_per_row);
  const int w = int(t % borders_per_row + 1) * (kChunkColumns / 64);  // word of column x
  const uint64_t* row = mask + size_t(y) * geo.words;
  const uint32_t width = uint32_t(geo.width);
  const uint32_t x = 64u * uint32_t(w);
  const uint32_t here = uint32_t(y) * width + x;
  auto left_node = [&](uint64_t prev_word, uint32_t at) {
    return at - 1 - uint32_t(start_distance(prev_word, 63));
  };
  const bool here_fg = bit(row[w], 0);
  const bool left_fg = bit(row[w - 1], 63);
  if (here_fg && left_fg) uf_union(labels, here + 1, left_node(row[w - 1], here) + 1);
  if (Connectivity == 8 && y > 0) {
    const uint64_t* above = row - geo.words;
    if (here_fg && bit(above[w - 1], 63))
      uf_union(labels, here + 1, left_node(above[w - 1], here - width) + 1);
    if (left_fg && bit(above[w], 0))
      uf_union(labels, left_node(row[w - 1], here) + 1, here - width + 1);
  }
}

/// Both kinds of border in one launch (one launch gap less per frame): the first
/// `window_blocks` blocks merge strip borders, a warp per window; the rest merge chunk
/// borders, a thread per task.
template <int Connectivity>
__global__ void __launch_bounds__(kWarpSize* kWindowWarps)
    ha_merge_kernel(FrameGeometry geo, const uint64_t* mask, uint32_t* labels,
                    long long windows, unsigned window_blocks, unsigned borders_per_row,
                    long long chunk_tasks) {
  wait_for_previous_grid();
  if (blockIdx.x < window_blocks) {
    const long long warp = (long long)blockIdx.x * kWindowWarps + threadIdx.y;
    if (warp < windows) merge_strip_window<Connectivity>(geo, mask, labels, warp);
  } else {
    const long long t = (long long)(blockIdx.x - window_blocks) * (kWarpSize * kWindowWarps) +
                        threadIdx.y * kWarpSize + threadIdx.x;
    if (t < chunk_tasks) merge_chunk_border<Connectivity>(geo, mask, labels, borders_per_row, t);
  }
}

template <int Connectivity, class Word>
void launch_strips(const Foreground& fg, const FrameGeometry& geo, uint32_t* labels,
                   uint64_t* mask, cudaStream_t stream) {
  const dim3 block(kWarpSize, kStripRows);
  const unsigned chunks = ceil_div(geo.width, kChunkColumns);
  with_luma(fg.format, [&](auto luma) {
    ha_strip_kernel<Connectivity, Word, decltype(luma)>
        <<<ceil_div(geo.height, kStripRows) * chunks, block, 0, stream>>>(fg, geo, labels, mask,
                                                                          chunks);
  });
  check_launch("ha_strip_kernel");
}

void ha_label_strips(const Foreground& fg, const FrameGeometry& geo, uint32_t* labels,
                     uint64_t* mask, int connectivity, bool wide_windows, cudaStream_t stream) {
  if (connectivity == 4)
    wide_windows ? launch_strips<4, uint64_t>(fg, geo, labels, mask, stream)
                 : launch_strips<4, uint32_t>(fg, geo, labels, mask, stream);
  else
    wide_windows ? launch_strips<8, uint64_t>(fg, geo, labels, mask, stream)
                 : launch_strips<8, uint32_t>(fg, geo, labels, mask, stream);
}

void ha_merge_borders(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                      int connectivity, cudaStream_t stream, bool chained) {
  const long long borders = (geo.height - 1) / kStripRows;  // strips after the first
  const long long windows = borders * geo.words;
  const unsigned borders_per_row = ceil_div(geo.width, kChunkColumns) - 1;
  const long long chunk_tasks = (long long)borders_per_row * geo.height;
  const unsigned window_blocks = ceil_div(size_t(windows), kWindowWarps);
  const unsigned blocks = window_blocks + ceil_div(size_t(chunk_tasks), kWarpSize * kWindowWarps);
  if (blocks == 0) return;
  launch("ha_merge_kernel", connectivity == 4 ? ha_merge_kernel<4> : ha_merge_kernel<8>, blocks,
         dim3(kWarpSize, kWindowWarps), stream, chained, geo, mask, labels, windows,
         window_blocks, borders_per_row, chunk_tasks);
}

class Ha final : public Labeler {
 public:
  void local(const LabelingFrame& f) const override {
    ha_label_strips(f.fg, f.geo, f.labels, f.mask, f.connectivity, f.tuning.ha_wide_windows,
                    f.stream);
  }
  void merge(const LabelingFrame& f) const override {
    ha_merge_borders(f.geo, f.mask, f.labels, f.connectivity, f.stream, f.chained);
  }
};

}  // namespace

template <>
const Labeler& labeler_of<Algorithm::HA>() {
  static const Ha instance;
  return instance;
}

}  // namespace ccl::cuda
