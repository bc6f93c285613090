// HA4 / HA8 (Hennequin et al.): strip labeling with the threshold fused in, then
// merging of the strips' borders. Leaves the union-find forest of union_find.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "foreground.cuh"
#include "geometry.h"

namespace ccl::cuda {

/// Labels each kStripRows x kChunkColumns piece of each strip on its own; writes the
/// foreground mask.
/// wide_windows: 64 columns per warp step (two pixels per thread), else 32.
void ha_label_strips(const Foreground& fg, const FrameGeometry& geo, uint32_t* labels,
                     uint64_t* mask, int connectivity, bool wide_windows, cudaStream_t stream);

/// Unites the runs that touch across the borders between strips and between chunks.
/// chained: launched chained to the stream's previous kernel (chain.h).
void ha_merge_borders(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
                      int connectivity, cudaStream_t stream, bool chained);

}  // namespace ccl::cuda
