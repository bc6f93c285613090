// The color range on the device (ForegroundModel::Color): the mask that
// ForegroundPass (foreground_stage.h) cleans and the labelers read, written from the
// frame by one kernel. The per-pixel code is the CPU's (../src/color_range.h, where
// the exact semantics are), so both backends write the same bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ccl/types.h"

namespace ccl::cuda {

// The engine's graph keys (engine.cu) hold the bounds and compare them byte for byte.
static_assert(std::has_unique_object_representations_v<ColorOptions>,
              "ColorOptions must have no padding");

/// Queues the color range of `image` (device planes, a color format that validate()
/// took) on `stream`: mask bytes 0 or 1, rows of `pitch` bytes (a multiple of 4; the
/// row's padding up to the next multiple of 4 is written as 0). `region` (null: none)
/// is pitched like the mask, bytes 0 or 1, and clears the mask where it is 0.
void enqueue_color_range(const ImageView& image, const ColorOptions& options,
                         const uint8_t* region, uint8_t* mask, size_t pitch,
                         cudaStream_t stream);

}  // namespace ccl::cuda
