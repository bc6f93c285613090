// make_cuda_backend in a build without CUDA: there is never a device to use.
#include <string>

#include "backend/backend.h"
#include "ccl/cuda_engine.h"

namespace ccl::plugin {

std::unique_ptr<Backend> make_cuda_backend(int device_id) {
  std::string why;
  cuda::device_usable(device_id, &why);
  throw Error("no usable CUDA device: " + why);
}

}  // namespace ccl::plugin
