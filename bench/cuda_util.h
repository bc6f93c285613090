// The benchmark's CUDA helpers: the engine's own RAII owners and error check
// (kernels/cuda/check.h, buffers.h), plus microseconds between events.
#pragma once

#include "buffers.h"
#include "check.h"

namespace bench {

using ccl::cuda::DeviceBuffer;
using ccl::cuda::Event;
using ccl::cuda::Stream;

/// Microseconds between two recorded timing events (the later one already reached).
inline double elapsed_us(const Event& from, const Event& to) {
  return double(ccl::cuda::elapsed_ms(from, to)) * 1000.0;
}

}  // namespace bench
