// Chained launches (programmatic dependent launch, compute capability 9.0 and newer):
// a kernel queued chained to the kernel before it on its stream is scheduled while
// that kernel's last blocks finish, then waits in wait_for_previous_grid() for its
// completion and memory before touching any. The launch latency between two dependent
// kernels then overlaps work instead of leaving the GPU idle. Older devices, and
// launches not chained, run one kernel after the other as usual.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "ccl/cuda_memory.h"

namespace ccl::cuda {

/// The first statement of a kernel that may be launched chained: nothing the kernel
/// before it writes may be read, nor anything it reads written, before this returns.
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Where a block's work ends, in a kernel that another follows chained: once every
/// block has called it (or exited), the next kernel may be scheduled. A block counts
/// from the first call by any of its threads, so the call sits where the block's work
/// is done or nearly so; called at the blocks' start (PERF_NOTES.md step 21), frames
/// with many components got slower. Only the timing depends on it: the next kernel
/// waits for this one's completion and memory anyway.
__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// kernel<<<grid, block, 0, stream>>>(args...), chained to the stream's previous
/// kernel when `chained` (which the caller sets only on devices that support it).
template <class... Params, class... Args>
void launch(const char* name, void (*kernel)(Params...), dim3 grid, dim3 block,
            cudaStream_t stream, bool chained, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = chained ? 1 : 0;
  // The call itself reports the launch's configuration errors (check_launch's job
  // after <<<>>>); execution errors surface at the next synchronizing call.
  fail_if_injected(faults::Fault::Launch, name);
  check(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), name);
}

}  // namespace ccl::cuda
