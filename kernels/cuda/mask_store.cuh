// Writing the bit-packed foreground mask (geometry.h) from a warp's 32-column ballot.
#pragma once

#include <cstdint>

#include "geometry.h"

namespace ccl::cuda {

/// Stores the 32-column half word of row y that starts at column x0 (a multiple of 32).
/// When it is the row's last column group and the low half of its 64-bit word, the
/// high half is zeroed too, so that the mask has no stale bits past the width.
__device__ __forceinline__ void store_mask_half(uint64_t* mask, int words, int width, int y,
                                                int x0, uint32_t bits) {
  uint32_t* row = reinterpret_cast<uint32_t*>(mask + size_t(y) * words);
  const int half = x0 >> 5;
  row[half] = bits;
  if ((half & 1) == 0 && x0 + 32 >= width) row[half + 1] = 0;
}

}  // namespace ccl::cuda
