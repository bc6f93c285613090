// Komura equivalence (KE): Komura 2015 for 4-connectivity, the 8-connected form of
// Allegretti et al. 2019. Initialization (threshold fused in) -> compression ->
// reduction leaves a forest whose roots are the components' first pixels.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "foreground.cuh"
#include "geometry.h"

namespace ccl::cuda {

/// Each foreground pixel points at its smallest foreground neighbour (or itself);
/// writes the foreground mask.
void ke_initialize(const Foreground& fg, const FrameGeometry& geo, uint32_t* labels,
                   uint64_t* mask, int connectivity, cudaStream_t stream);

/// Points every pixel straight at its root (Komura's "analysis"). chained: launched
/// chained to the stream's previous kernel (chain.h).
void ke_compress(const FrameGeometry& geo, uint32_t* labels, cudaStream_t stream, bool chained);

/// Unites the trees that initialization left apart. chained: as ke_compress.
void ke_reduce(const FrameGeometry& geo, const uint64_t* mask, uint32_t* labels,
               int connectivity, cudaStream_t stream, bool chained);

}  // namespace ccl::cuda
