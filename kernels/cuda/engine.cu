// Placeholder until the GPU engine lands: compiles a kernel so the build proves the
// CUDA toolchain and the target architectures.
#include <cuda_runtime.h>

#include "ccl/cuda_engine.h"

namespace ccl::cuda {

bool compiled_with_cuda() { return true; }

bool device_usable(int device_id, std::string* why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
    return false;
  }
  if (count == 0 || device_id >= count) {
    if (why) *why = "no CUDA device " + std::to_string(device_id);
    return false;
  }
  return true;
}

}  // namespace ccl::cuda
