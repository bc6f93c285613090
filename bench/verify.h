// The correctness guard: a configuration's timings are only reported once its result
// for the frame matched the CPU reference labeler.
#pragma once

#include <string>

#include "ccl/cuda_engine.h"
#include "ccl/types.h"

namespace bench {

/// Labels `device_image` once (engine buffers poisoned first) and compares size,
/// level, count, component table and, when options.write_labels, the label image with
/// `expected` (ccl::test::difference).
/// Returns an empty string when they agree, else what differs.
std::string verify(ccl::cuda::Engine& engine, const ccl::ImageView& device_image,
                   const ccl::Options& options, cudaStream_t stream,
                   const ccl::Result& expected);

}  // namespace bench
