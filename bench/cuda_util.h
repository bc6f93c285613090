// The benchmark's CUDA helpers: the engine's RAII owners and error check
// (ccl/cuda_memory.h), plus microseconds between events and the device's description.
#pragma once

#include <sstream>
#include <string>

#include "ccl/cuda_memory.h"
#include "ccl/types.h"

namespace bench {

using ccl::cuda::DeviceBuffer;
using ccl::cuda::Event;
using ccl::cuda::Stream;

/// Copies a GRAY8 image (rows of `width` bytes, no padding) into `plane` (grown as
/// needed) and returns its device view.
inline ccl::ImageView upload_gray(const uint8_t* pixels, int width, int height,
                                  DeviceBuffer<uint8_t>& plane) {
  const size_t bytes = size_t(width) * size_t(height);
  plane.reserve(bytes);
  CCL_CUDA_CHECK(cudaMemcpy(plane.get(), pixels, bytes, cudaMemcpyHostToDevice));
  return ccl::ImageView::gray8(plane.get(), width, height, 0, ccl::MemorySpace::Device);
}

/// Microseconds between two recorded timing events (the later one already reached).
inline double elapsed_us(const Event& from, const Event& to) {
  return double(ccl::cuda::elapsed_ms(from, to)) * 1000.0;
}

/// One line naming the device for the benchmarks' output: name, compute capability,
/// SMs, memory, L2, driver and runtime CUDA versions.
inline std::string device_description(int device) {
  cudaDeviceProp prop{};
  CCL_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::ostringstream os;
  os << prop.name << " (sm_" << prop.major << prop.minor << ", " << prop.multiProcessorCount
     << " SMs, " << (prop.totalGlobalMem >> 30) << " GiB, L2 " << (prop.l2CacheSize >> 20)
     << " MiB, driver CUDA " << driver / 1000 << "." << (driver % 1000) / 10 << ", runtime "
     << runtime / 1000 << "." << (runtime % 1000) / 10 << ")";
  return os.str();
}

}  // namespace bench
