// ccl_engine_device_columns' kernel (c_api_columns.h): a thread per component, so that
// a frame's table becomes columns without leaving the device.
#include <cuda_runtime.h>

#include "c_api_columns.h"
#include "ccl/cuda_memory.h"

namespace ccl::capi {

namespace {

__global__ void column_rows_kernel(const Component* table, uint32_t n, int64_t* ints,
                                   double* floats) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) write_column_row(table[i], i, n, ints, floats);
}

}  // namespace

void launch_column_rows(const Component* table, uint32_t n, int64_t* ints, double* floats,
                        uintptr_t stream) {
  if (n == 0) return;
  constexpr unsigned kThreads = 256;
  column_rows_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0,
                       reinterpret_cast<cudaStream_t>(stream)>>>(table, n, ints, floats);
  cuda::check_launch("column_rows_kernel");
}

}  // namespace ccl::capi
