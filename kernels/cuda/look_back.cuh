// Decoupled look-back for single-pass block scans (the scan over blocks that the
// root numbering needs), with epochs so that the per-block statuses need no reset
// between frames.
#pragma once

#include <cstdint>

#include "geometry.h"

namespace ccl::cuda {

/// A block's entry in the numbering's single-pass scan (decoupled look-back): the
/// frame's epoch (frames since the statuses were cleared, counted on the device),
/// whether the value is the block's own root count or the inclusive
/// count up to it, and the value, in one 64-bit word so that readers never see a flag
/// without its value. The epoch tells this frame's entries from older ones, so the
/// statuses need no reset between frames.
constexpr uint64_t kStatusAggregate = 1ull << 62;
constexpr uint64_t kStatusInclusive = 2ull << 62;
constexpr uint32_t kEpochMask = (1u << 30) - 1;

__device__ __forceinline__ uint64_t status_word(uint64_t flag, uint32_t epoch, uint32_t value) {
  return flag | (uint64_t(epoch & kEpochMask) << 32) | value;
}

/// Roots counted before this block, by warp 0: publishes the block's aggregate, walks
/// back over the preceding blocks 32 at a time until one with an inclusive count, then
/// publishes this block's inclusive count.
__device__ __forceinline__ uint32_t look_back(uint64_t* status, uint32_t epoch,
                                              uint32_t aggregate) {
  const int lane = threadIdx.x;
  const long long tile = blockIdx.x;
  if (tile == 0) {
    if (lane == 0) atomicExch(reinterpret_cast<unsigned long long*>(status),
                              status_word(kStatusInclusive, epoch, aggregate));
    return 0;
  }
  if (lane == 0)
    atomicExch(reinterpret_cast<unsigned long long*>(status + tile),
               status_word(kStatusAggregate, epoch, aggregate));
  uint32_t prefix = 0;
  for (long long last = tile - 1;; last -= kWarpSize) {
    const long long at = last - lane;
    uint64_t word;
    bool ready;
    do {
      word = at >= 0 ? *reinterpret_cast<volatile uint64_t*>(status + at)
                     : status_word(kStatusInclusive, epoch, 0);
      ready = (word >> 62) != 0 && uint32_t(word >> 32 & kEpochMask) == (epoch & kEpochMask);
    } while (!__all_sync(kFullWarp, ready));
    const unsigned inclusive = __ballot_sync(kFullWarp, (word >> 62) == 2);
    // Lanes up to the nearest inclusive block (lowest lane) count; the rest are before it.
    const unsigned counted = inclusive ? (inclusive & -inclusive) * 2 - 1 : kFullWarp;
    const uint32_t value = (counted >> lane) & 1 ? uint32_t(word) : 0;
    prefix += __reduce_add_sync(kFullWarp, value);
    if (inclusive) break;
  }
  if (lane == 0)
    atomicExch(reinterpret_cast<unsigned long long*>(status + tile),
               status_word(kStatusInclusive, epoch, prefix + aggregate));
  return prefix;
}

}  // namespace ccl::cuda
