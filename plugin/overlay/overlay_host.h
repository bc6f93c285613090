// The overlay drawn on the host (CPU backend), pixel for pixel what the CUDA kernels
// of overlay_cuda.cu draw on the device.
#pragma once

#include <cstdint>
#include <vector>

#include "overlay/overlay_math.h"

namespace ccl::overlay {

/// Rasterizes the marks of `flags` (boxes, centroids) and every segment (trail
/// segments, event shapes: the caller lists only those asked for) into owner
/// (width*height, cleared first): each pixel holds the highest owner value (label or
/// direct color) whose mark covers it.
void rasterize_marks_host(const Mark* marks, size_t n_marks, const Segment* segments,
                          size_t n_segments, uint32_t flags, int width, int height,
                          std::vector<uint32_t>& owner);

/// Draws the scene into every plane of a host frame.
void draw_host(const Target& target, const Scene& scene);

}  // namespace ccl::overlay
