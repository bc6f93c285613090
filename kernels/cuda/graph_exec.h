// An instantiated CUDA graph (the engine's replayed frames), owned RAII-style like
// the buffers of ccl/cuda_memory.h.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "ccl/cuda_memory.h"

namespace ccl::cuda {

/// An instantiated CUDA graph: the kernels captured from a stream, launched as one.
class GraphExec {
 public:
  /// Ends the capture begun on `stream` (cudaStreamBeginCapture) and instantiates it.
  static GraphExec end_capture(cudaStream_t stream) {
    cudaGraph_t graph = nullptr;
    CCL_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    GraphExec g;
    const cudaError_t err = cudaGraphInstantiate(&g.exec_, graph, 0);
    cudaGraphDestroy(graph);
    CCL_CUDA_CHECK(err);
    return g;
  }
  /// Ends a capture that failed half-way, dropping what it recorded.
  static void abandon_capture(cudaStream_t stream) {
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // the capture's error was already reported
  }

  GraphExec() = default;
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  void launch(cudaStream_t stream) const {
    fail_if_injected(faults::Fault::Launch, "cudaGraphLaunch");
    CCL_CUDA_CHECK(cudaGraphLaunch(exec_, stream));
  }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace ccl::cuda
