// RAII owners of device memory, mapped pinned host memory, events and streams, for the
// engine and for the code around it (plugin backend, bench). Buffers only grow:
// reserve() reallocates when asked for more than the current capacity, so a stream of
// equal-sized frames allocates once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "check.h"

namespace ccl::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Ensures room for `count` elements; old contents are not kept. True when the
  /// memory moved (kernels or graphs holding the old address must not run again).
  bool reserve(size_t count) {
    if (count <= capacity_) return false;
    release();
    CCL_CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
    capacity_ = count;
    return true;
  }
  void release() {
    if (data_) cudaFree(data_);  // errors here cannot be reported from a destructor
    data_ = nullptr;
    capacity_ = 0;
  }
  /// Fills the first `count` elements (at most the capacity) with `byte`.
  void fill_bytes(int byte, size_t count, cudaStream_t stream) {
    count = count < capacity_ ? count : capacity_;
    if (count) CCL_CUDA_CHECK(cudaMemsetAsync(data_, byte, count * sizeof(T), stream));
  }
  T* get() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  T* data_ = nullptr;
  size_t capacity_ = 0;
};

/// Pinned host memory the device writes into directly (cudaHostAllocMapped): kernels
/// can leave results there without a copy whose size the host would have to know.
template <class T>
class MappedBuffer {
 public:
  MappedBuffer() = default;
  ~MappedBuffer() { release(); }
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;

  /// Ensures room for `count` elements; old contents are not kept. True when the
  /// memory moved.
  bool reserve(size_t count) {
    if (count <= capacity_) return false;
    release();
    void* p = nullptr;
    CCL_CUDA_CHECK(cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocMapped));
    host_ = static_cast<T*>(p);
    capacity_ = count;
    void* d = nullptr;
    CCL_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    device_ = static_cast<T*>(d);
    return true;
  }
  void release() {
    if (host_) cudaFreeHost(host_);
    host_ = device_ = nullptr;
    capacity_ = 0;
  }
  T* host() const { return host_; }
  T* device() const { return device_; }
  size_t capacity() const { return capacity_; }

 private:
  T* host_ = nullptr;
  T* device_ = nullptr;
  size_t capacity_ = 0;
};

class Event {
 public:
  explicit Event(bool timing) {
    CCL_CUDA_CHECK(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault
                                                            : cudaEventDisableTiming));
  }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t stream) { CCL_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { CCL_CUDA_CHECK(cudaEventSynchronize(event_)); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

/// Milliseconds from `from` to `to`, both timing events already reached.
inline float elapsed_ms(const Event& from, const Event& to) {
  float ms = 0;
  CCL_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms;
}

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

  void launch(cudaStream_t stream) const { CCL_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

class Stream {
 public:
  /// cudaStreamDefault: a blocking stream, ordered after the legacy default stream.
  explicit Stream(unsigned flags = cudaStreamDefault) {
    CCL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
  }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { CCL_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// Makes `device` current for a scope and restores the caller's device after.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    CCL_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) CCL_CUDA_CHECK(cudaSetDevice(device));
    restore_ = previous_ != device;
  }
  ~DeviceScope() {
    if (restore_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

}  // namespace ccl::cuda
