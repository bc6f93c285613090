// Coalesced stores of component table entries: a warp (or block) stages whole
// Component entries in shared memory and writes them out as consecutive 8-byte words,
// so that each store instruction covers contiguous bytes; lanes storing their own
// 72-byte entries would touch a separate sector each. Used for the device table and
// for the table's hand-over across the bus into mapped host memory.
#pragma once

#include <cstdint>

#include "ccl/types.h"
#include "geometry.h"

namespace ccl::cuda {

constexpr int kEntryWords = int(sizeof(Component) / sizeof(uint64_t));
static_assert(sizeof(Component) % sizeof(uint64_t) == 0, "Component must be whole words");

/// Shared memory in which a warp assembles 32 table entries (raw words: Component's
/// member initializers rule out __shared__ Component[]).
using EntryStaging = uint64_t[kWarpSize * kEntryWords];

/// The warp copies the first n (<= 32) entries it staged to dst.
__device__ __forceinline__ void store_staged_entries(const EntryStaging& staged, Component* dst,
                                                     uint32_t n) {
  __syncwarp();
  uint64_t* out = reinterpret_cast<uint64_t*>(dst);
  for (uint32_t k = threadIdx.x % kWarpSize; k < n * kEntryWords; k += kWarpSize)
    out[k] = staged[k];
  __syncwarp();
}

}  // namespace ccl::cuda
