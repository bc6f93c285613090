// The overlay drawn on the device (CUDA backend): the kernels of overlay_cuda.cu,
// pixel for pixel what overlay_host.cpp draws. Declared without CUDA headers.
#pragma once

#include <cstdint>

#include "ccl/cuda_engine.h"
#include "overlay/overlay_math.h"

namespace ccl::overlay::cuda {

/// Clears d_owner (width*height) and rasterizes the marks of `flags` and every segment
/// (trails, event shapes) into it on `stream` (highest owner value wins, as on the
/// host). Throws ccl::Error on a CUDA failure.
void rasterize_marks(const Mark* d_marks, uint32_t n_marks, const Segment* d_segments,
                     uint32_t n_segments, uint32_t flags, int width, int height,
                     uint32_t* d_owner, cudaStream_t stream);

/// Draws the scene into every plane of a device frame on `stream`.
void draw(const Target& d_target, const Scene& d_scene, cudaStream_t stream);

}  // namespace ccl::overlay::cuda
