// Foreground test read straight from the frame, so labeling kernels fuse the
// threshold instead of reading a binary image that some earlier pass wrote.
#pragma once

#include <cstdint>

#include "ccl/luma.h"
#include "ccl/types.h"

namespace ccl::cuda {

/// Everything a kernel needs to decide whether pixel (x, y) is foreground.
/// `level` points to device memory so Otsu's level, computed on the device, is read
/// without a host round trip; a fixed level travels in `fixed_level` (level == nullptr)
/// so that it needs no launch or copy of its own.
struct Foreground {
  const uint8_t* base;  // first (luma) plane, device memory
  size_t stride;        // bytes per row
  PixelFormat format;
  ThresholdMode mode;   // Above or Below (Otsu already resolved to Above)
  const uint32_t* level;  // device: scaled level (x257 for GRAY16_LE), or nullptr
  uint32_t fixed_level;   // scaled level used when level is nullptr

  /// Luma of (x, y), read with the reader of `format` (with_luma).
  template <class Luma>
  __device__ __forceinline__ uint32_t luma(int x, int y) const {
    return Luma::at(base + size_t(y) * stride, x);
  }
  template <class Luma>
  __device__ __forceinline__ bool test(int x, int y, uint32_t scaled) const {
    return is_foreground(luma<Luma>(x, y), scaled, mode);
  }
  /// Load the level once per thread, then call test() with it.
  __device__ __forceinline__ uint32_t load_level() const {
    return level ? __ldg(level) : fixed_level;
  }
};

}  // namespace ccl::cuda
