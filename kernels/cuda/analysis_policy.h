// The analysis stage's tuning, one policy per kernel (the way CUB's agents take
// theirs): what was measured to be fastest on the devices the engine was tuned on
// (PERF_NOTES.md). Changing a value changes speed, never results.
#pragma once

#include "geometry.h"

namespace ccl::cuda {

/// Root numbering (numbering.cu): one thread per 64-bit mask word.
struct NumberingPolicy {
  static constexpr int kBlockThreads = kWordBlock;
  /// Candidate roots a thread reads at once, so that it waits for memory once per group.
  static constexpr int kRootReads = 4;
};

/// The features pass (features_pass.cu): a block per tile of kTileRows rows, a warp per
/// row, a lane per 32 columns.
struct FeaturesPolicy {
  static constexpr int kTileRows = kWindowWarps;
  /// Resident blocks per SM the kernel is compiled for: a block's 38 KB of shared
  /// memory leaves room for five, and five allow 48 registers a thread (six blocks with
  /// half the tile slots measured slower: PERF_NOTES.md, step 25).
  static constexpr int kBlocksPerSm = 5;
  /// Components a block sums in shared memory per tile (a power of two).
  static constexpr int kTileSlots = 512;
  /// Run pieces whose ids a lane looks up in lockstep (uf_find_ids).
  static constexpr int kFindBatch = 4;
  /// The grid holds at most this many tiles per resident block: blocks that loop keep
  /// their hot component's sums across tiles, and with more blocks than fit at once
  /// the scheduler still balances the tiles.
  static constexpr int kTilesPerResidentBlock = 4;
};

}  // namespace ccl::cuda
