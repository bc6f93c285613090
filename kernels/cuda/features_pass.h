// Launcher of the features pass (features_pass.cu). Not "features.h": the C library has one.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ccl/types.h"
#include "geometry.h"

namespace ccl::cuda {

/// Blocks of the features pass that one SM holds at once (an occupancy query).
int features_blocks_per_sm();

/// Output labels (when `out` is not null) and the features of every component into
/// the table that the numbering started. resident_blocks: the blocks the device holds
/// at once, which caps the grid. chained: as chain.h.
void launch_features(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                     uint32_t* out, Component* table, unsigned resident_blocks,
                     cudaStream_t stream, bool chained);

}  // namespace ccl::cuda
