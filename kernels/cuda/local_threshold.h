// The local threshold on the device (ForegroundModel::Local): the mask that
// ForegroundPass (foreground_stage.h) cleans and the labelers read, written in two
// passes whose work per pixel does not grow with the block size:
//   rows:    the only reader of the frame. A block takes 2048 columns of a row plus
//            128 on either side (edges replicated), turns them into 8-bit luma and
//            prefix sums in shared memory, and writes each column's sum over its
//            row window (uint16: at most 255 * 255) and its luma (into the mask,
//            which the next pass overwrites in place);
//   columns: a block takes 64 columns (two per lane) of a tile of 64, 128 or 256
//            rows, the shortest that is a window tall (4, 8 or 16 rows per warp).
//            Each warp reads the sums of the rows entering and leaving its windows
//            and sums how they change the window; the rows leaving the tile's
//            windows begin with the tile's first window, so a warp's first window is
//            one small reduction in shared memory and no row is read for it alone.
//            It then slides down its rows (one row in, one row out) and writes the
//            mask bytes from the window mean (../src/local_threshold.h, whose
//            rounding and test the CPU shares, and where the semantics are).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "../src/local_threshold.h"
#include "ccl/cuda_memory.h"
#include "ccl/types.h"

namespace ccl::cuda {

class LocalThreshold {
 public:
  /// Device memory for frames like `image` (the row sums), so that enqueue() allocates
  /// nothing. True when memory moved.
  bool reserve(const ImageView& image);

  /// Queues both passes for `image` (device planes that validate() took) on `stream`:
  /// mask bytes 0 or 1, rows of `pitch` bytes (a multiple of 4; padding up to the next
  /// multiple of 4 written as 0). `region` (null: none) is pitched like the mask, bytes
  /// 0 or 1, and clears the mask where it is 0.
  void enqueue(const ImageView& image, const Options& options, const uint8_t* region,
               uint8_t* mask, size_t pitch, cudaStream_t stream);

  /// Poisons the row sums of a width x height frame (tests: no stale sum may be read).
  void poison(int byte, int width, int height, cudaStream_t stream);

 private:
  static size_t sums_pitch(int width);
  DeviceBuffer<uint16_t> sums_;
  int can_chain_ = -1;  // compute capability 9.0 or newer (chain.h); -1: not asked yet
};

}  // namespace ccl::cuda
