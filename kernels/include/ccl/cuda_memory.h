// The engine's CUDA error checks and RAII owners of device memory, pinned host memory
// (plain and device-mapped), events and streams: one family for the engine and for
// the code built on it (plugin backend, bench, tests). Buffers only grow: reserve()
// reallocates when asked for more than the current capacity, so a stream of
// equal-sized frames allocates once. Needs the CUDA runtime's headers (installed only
// by builds with CUDA).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ccl/faults.h"
#include "ccl/types.h"

namespace ccl::cuda {

/// Every CUDA runtime call's failure becomes ccl::CudaError naming the CUDA error.
[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what) {
  throw CudaError(int(err), err == cudaErrorMemoryAllocation,
                  std::string("CUDA error ") + cudaGetErrorName(err) + " (" +
                      cudaGetErrorString(err) + ") in " + what);
}

/// Counts one operation of `kind` (ccl/faults.h) and, when it is the one armed to
/// fail, throws the error CUDA would give it: allocations run out of memory, launches
/// fail, copies fail with an unknown error.
inline void fail_if_injected(faults::Fault kind, const char* what) {
  if (!faults::fail_here(kind)) return;
  switch (kind) {
    case faults::Fault::DeviceAlloc:
    case faults::Fault::PinnedAlloc: throw_cuda_error(cudaErrorMemoryAllocation, what);
    case faults::Fault::Launch: throw_cuda_error(cudaErrorLaunchFailure, what);
    case faults::Fault::Copy: throw_cuda_error(cudaErrorUnknown, what);
  }
}

/// A failed call also leaves its error as the calling thread's "last error"; it is
/// taken here, or the next check_launch on this thread (a later frame, a restarted
/// pipeline on a pooled thread) would report it again as its own.
inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw_cuda_error(err, what);
  }
}

/// After a <<<>>> launch: configuration errors show up here, execution errors later
/// at the next synchronizing call (also checked). Counts a launch (ccl/faults.h).
inline void check_launch(const char* kernel) {
  fail_if_injected(faults::Fault::Launch, kernel);
  check(cudaGetLastError(), kernel);
}

/// Checks a copy's result; counts a copy (ccl/faults.h).
inline void check_copy(cudaError_t err, const char* what) {
  fail_if_injected(faults::Fault::Copy, what);
  check(err, what);
}

}  // namespace ccl::cuda

#define CCL_CUDA_CHECK(expr) ::ccl::cuda::check((expr), #expr)

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
  /// `what` names the buffer in the error thrown when the allocation fails.
  bool reserve(size_t count, const char* what = "cudaMalloc") {
    if (count <= capacity_) return false;
    release();
    fail_if_injected(faults::Fault::DeviceAlloc, what);
    check(cudaMalloc(&data_, count * sizeof(T)), what);
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

/// Page-locked host memory: plain (cudaHostAllocDefault), for copies that run
/// asynchronously with the host, or mapped into the device (cudaHostAllocMapped), which
/// kernels write into directly: results whose size the host does not know yet need no
/// copy then.
template <class T, unsigned kFlags>
class HostBuffer {
 public:
  HostBuffer() = default;
  ~HostBuffer() { release(); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  /// Ensures room for `count` elements; old contents are not kept. True when the
  /// memory moved. `what` names the buffer in the error.
  bool reserve(size_t count, const char* what = "cudaHostAlloc") {
    if (count <= capacity_) return false;
    release();
    fail_if_injected(faults::Fault::PinnedAlloc, what);
    void* p = nullptr;
    check(cudaHostAlloc(&p, count * sizeof(T), kFlags), what);
    host_ = static_cast<T*>(p);
    capacity_ = count;
    if (kFlags & cudaHostAllocMapped) {
      void* d = nullptr;
      check(cudaHostGetDevicePointer(&d, p, 0), what);
      device_ = static_cast<T*>(d);
    }
    return true;
  }
  void release() {
    if (host_) cudaFreeHost(host_);
    host_ = device_ = nullptr;
    capacity_ = 0;
  }
  T* get() const { return host_; }
  T* host() const { return host_; }
  /// The kernels' address of the same memory (mapped buffers only; null otherwise).
  T* device() const { return device_; }
  size_t capacity() const { return capacity_; }

 private:
  T* host_ = nullptr;
  T* device_ = nullptr;
  size_t capacity_ = 0;
};

template <class T>
using PinnedBuffer = HostBuffer<T, cudaHostAllocDefault>;
template <class T>
using MappedBuffer = HostBuffer<T, cudaHostAllocMapped>;

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
