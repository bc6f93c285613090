// Threshold stage: the foreground test the first labeling kernel fuses, and Otsu's
// level computed on the device (CUB histogram of luma8, then ccl::otsu_level).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ccl/cuda_memory.h"
#include "ccl/types.h"
#include "foreground.cuh"

namespace ccl::cuda {

/// Per-frame values that stay on the device between kernels.
struct FrameInfo {
  uint32_t scaled_level;  // Otsu: level compared against (x257 for GRAY16_LE)
  uint32_t level;         // Otsu: level 0..255 (threshold_used)
  uint32_t count;         // number of components N
  uint32_t reserved;
};

/// The foreground test for `image` (device memory) under `options`; with Otsu it reads
/// the level that OtsuStage::enqueue leaves in info->scaled_level.
Foreground make_foreground(const ImageView& image, const Options& options,
                           const FrameInfo* info);

/// Otsu's level on the device: a 256-bin histogram of luma8 (cub::DeviceHistogram),
/// then one thread per split scores it with ccl::otsu_score, the CPU's integer code.
class OtsuStage {
 public:
  /// Scratch for frames like `image`, allocated here so that enqueue() allocates
  /// nothing (it may be captured into a graph). True when memory moved.
  bool reserve(const ImageView& image);
  /// Needs reserve() for this image's size and format first.
  void enqueue(const ImageView& image, FrameInfo* info, cudaStream_t stream);

 private:
  DeviceBuffer<uint32_t> histogram_;
  DeviceBuffer<uint8_t> temp_;
};

}  // namespace ccl::cuda
