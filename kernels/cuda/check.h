// CUDA error checking: every runtime call and launch goes through these, so a failure
// reaches the caller as ccl::Error naming the CUDA error (GST_ELEMENT_ERROR material).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "ccl/types.h"

namespace ccl::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what) {
  throw Error(std::string("CUDA error ") + cudaGetErrorName(err) + " (" +
              cudaGetErrorString(err) + ") in " + what);
}

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw_cuda_error(err, what);
}

/// After a <<<>>> launch: configuration errors show up here, execution errors later
/// at the next synchronizing call (also checked).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

}  // namespace ccl::cuda

#define CCL_CUDA_CHECK(expr) ::ccl::cuda::check((expr), #expr)
