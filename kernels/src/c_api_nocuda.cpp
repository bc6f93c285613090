// The C interface's device side in a build without CUDA: no CUDA engine can be made
// (ccl::cuda::Engine throws), so these are reached only by a direct misuse.
#include "c_api_device.h"
#include "ccl/types.h"

namespace ccl::capi {

std::unique_ptr<DeviceSide> DeviceSide::create(int) {
  throw Error("this libccl was built without CUDA");
}

const char* cuda_error_name(int) { return "cudaErrorNoDevice"; }

bool cuda_pointer_device(uintptr_t, int*) { return false; }

}  // namespace ccl::capi
