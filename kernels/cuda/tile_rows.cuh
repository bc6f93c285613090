// Tiles of 64 columns (one mask word) by kTileForestRows rows, labeled in shared memory
// by the union-find and Komura labelers: how a tile's rows are read and thresholded,
// and which runs of the row above each run touches. Their borders are united in global
// memory by tile_borders.h.
#pragma once

#include <cstdint>

#include "foreground.cuh"
#include "geometry.h"
#include "segments.cuh"
#include "union_find.cuh"

namespace ccl::cuda {

/// Rows of a tile. Taller tiles leave fewer tile rows to merge in global memory.
constexpr int kTileForestRows = 16;
/// Rows that each warp of a tile reads.
constexpr int kTileWarpRows = 4;
/// Columns of a tile row that each thread takes once the rows are read.
constexpr int kTileThreadColumns = 8;
constexpr int kTileRowThreads = 64 / kTileThreadColumns;
constexpr int kTileThreads = kTileForestRows * kTileRowThreads;
static_assert(kTileThreads == kTileForestRows / kTileWarpRows * kWarpSize, "warps read all rows");

/// Reads and thresholds tile `blockIdx.x`'s rows into row_bits (bit c = column 64 w + c,
/// 0 outside the frame) and the frame's mask. The warps read all their rows before
/// any is used, so that each waits for memory once. Ends with a barrier.
template <class Luma>
__device__ __forceinline__ void read_tile_rows(const Foreground& fg, const FrameGeometry& geo,
                                               uint64_t* mask,
                                               uint64_t (&row_bits)[kTileForestRows], int w,
                                               int y0) {
  const int lane = threadIdx.x % kWarpSize;
  const int r0 = threadIdx.x / kWarpSize * kTileWarpRows;  // the warp's first row
  const int x0 = 64 * w;
  const uint32_t level = fg.load_level();
  uint32_t luma[kTileWarpRows][2];
#pragma unroll
  for (int j = 0; j < kTileWarpRows; ++j)
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int x = x0 + 32 * k + lane, y = y0 + r0 + j;
      luma[j][k] = y < geo.height && x < geo.width ? fg.luma<Luma>(x, y) : 0;
    }
#pragma unroll
  for (int j = 0; j < kTileWarpRows; ++j) {
    bool p[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int x = x0 + 32 * k + lane, y = y0 + r0 + j;
      p[k] = y < geo.height && x < geo.width && is_foreground(luma[j][k], level, fg.mode);
    }
    const uint64_t bits = warp_window<uint64_t>(p[0], p[1]);
    if (lane == j) {
      row_bits[r0 + j] = bits;
      if (y0 + r0 + j < geo.height) mask[size_t(y0 + r0 + j) * geo.words + w] = bits;
    }
  }
  __syncthreads();
}

/// A tile row's runs against the row above (both inside the tile).
template <int Connectivity>
struct TileRowRuns {
  uint64_t cur, up, up_starts;

  __device__ TileRowRuns(uint64_t cur_bits, uint64_t up_bits)
      : cur(cur_bits), up(up_bits), up_starts(run_starts(up_bits, false)) {}

  /// Columns of the row above that the run starting at s touches.
  __device__ uint64_t touching(int s) const {
    uint64_t span =
        columns_below<uint64_t>(s + end_distance(cur, s)) & ~columns_below<uint64_t>(s);
    if (Connectivity == 8) span |= (span << 1) | (span >> 1);
    return up & span;
  }
  /// The run above that contains column u: its start.
  __device__ int start_above(int u) const { return u - start_distance(up, u); }
  /// Starts of the runs above that a run touches after the first one (touch != 0):
  /// each begins after the first touching column, inside the span.
  __device__ uint64_t further(uint64_t touch) const {
    return up_starts & touch & ~columns_below<uint64_t>(__ffsll(touch));
  }
};

/// Tile-local node index row * 64 + column, as a raster index of the frame.
struct TileOrigin {
  uint32_t origin, width;
  __device__ TileOrigin(const FrameGeometry& geo, int w, int y0)
      : origin(uint32_t(y0) * uint32_t(geo.width) + 64u * uint32_t(w)),
        width(uint32_t(geo.width)) {}
  __device__ uint32_t raster(uint32_t node) const {
    return origin + (node >> 6) * width + (node & 63);
  }
};

/// A thread's part of a tile once its rows are read: row r (nodes from base = 64 r on),
/// that row's runs against the row above, and the run starts in the thread's columns.
template <int Connectivity>
struct TileThread {
  int w, y0;
  uint32_t base;
  TileRowRuns<Connectivity> runs;
  uint64_t starts;
};

/// Reads tile blockIdx.x into row_bits (read_tile_rows, a barrier included) and gives
/// this thread's part of it.
template <int Connectivity, class Luma>
__device__ __forceinline__ TileThread<Connectivity> begin_tile(
    const Foreground& fg, const FrameGeometry& geo, uint64_t* mask,
    uint64_t (&row_bits)[kTileForestRows]) {
  const int w = int(blockIdx.x % unsigned(geo.words));
  const int y0 = int(blockIdx.x / unsigned(geo.words)) * kTileForestRows;
  read_tile_rows<Luma>(fg, geo, mask, row_bits, w, y0);
  const int r = threadIdx.x / kTileRowThreads;
  const int first_column = threadIdx.x % kTileRowThreads * kTileThreadColumns;
  const TileRowRuns<Connectivity> runs(row_bits[r], r > 0 ? row_bits[r - 1] : 0);
  const uint64_t mine = columns_below<uint64_t>(kTileThreadColumns) << first_column;
  return {w, y0, uint32_t(r) * 64, runs, run_starts(runs.cur, false) & mine};
}

/// A tile's last step: the thread's run starts written to the label image, each
/// pointing at its tile root (raster index + 1).
template <int Connectivity>
__device__ __forceinline__ void write_tile_nodes(const uint32_t* local, const FrameGeometry& geo,
                                                 const TileThread<Connectivity>& t,
                                                 uint32_t* labels) {
  const TileOrigin tile(geo, t.w, t.y0);
  for_each_bit(t.starts, [&](int s) {
    const uint32_t node = t.base + uint32_t(s);
    labels[tile.raster(node)] = tile.raster(uf_find(local, node + 1) - 1) + 1;
  });
}

/// What link_first_above found among the thread's run starts.
struct FirstLinks {
  bool linked;   // a start touches a run above
  bool further;  // a start touches more than one run above
};

/// Each of the thread's run starts linked to the start of the first run above that it
/// touches, or to itself (parent + 1 in `local`): plain stores, every node has one writer.
template <int Connectivity>
__device__ __forceinline__ FirstLinks link_first_above(const TileThread<Connectivity>& t,
                                                       uint32_t* local) {
  FirstLinks found{false, false};
  for_each_bit(t.starts, [&](int s) {
    const uint64_t touch = t.runs.touching(s);
    uint32_t parent = t.base + uint32_t(s);
    if (touch) {
      parent = t.base - 64 + uint32_t(t.runs.start_above(__ffsll(touch) - 1));
      found.linked = true;
      found.further |= t.runs.further(touch) != 0;
    }
    local[t.base + s] = parent + 1;
  });
  return found;
}

/// Each of the thread's run starts united with the runs above it touches after the
/// first (uf_union on `forest`, a forest of shared memory: AtomicForest).
template <int Connectivity, class Forest>
__device__ __forceinline__ void unite_further_above(const TileThread<Connectivity>& t,
                                                    const Forest& forest) {
  for_each_bit(t.starts, [&](int s) {
    for_each_bit(t.runs.further(t.runs.touching(s)), [&](int c) {
      uf_union(forest, t.base + uint32_t(s) + 1, t.base - 64 + uint32_t(c) + 1);
    });
  });
}

}  // namespace ccl::cuda
