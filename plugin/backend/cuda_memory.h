// RAII owners of the CUDA backend's device, pinned and stream resources. Every CUDA
// failure surfaces as ccl::Error naming the call and the CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "ccl/types.h"

namespace ccl::plugin {

inline void cuda_check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw Error(std::string(what) + " failed: " + cudaGetErrorName(err) + " (" +
                cudaGetErrorString(err) + ")");
}

/// Device or pinned host memory that only grows (re-allocated when a frame needs more).
template <cudaError_t (*Alloc)(void**, size_t), cudaError_t (*Free)(void*)>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }

  void reserve(size_t bytes, const char* what) {
    if (bytes <= size_) return;
    release();
    void* p = nullptr;
    cuda_check(Alloc(&p, bytes), what);
    ptr_ = p;
    size_ = bytes;
  }
  void release() {
    if (ptr_) Free(ptr_);
    ptr_ = nullptr;
    size_ = 0;
  }
  template <typename T = unsigned char>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t size() const { return size_; }

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

inline cudaError_t pinned_alloc(void** p, size_t n) {
  return cudaHostAlloc(p, n, cudaHostAllocDefault);
}
inline cudaError_t device_alloc(void** p, size_t n) { return cudaMalloc(p, n); }

using DeviceBuffer = Buffer<device_alloc, cudaFree>;
using PinnedBuffer = Buffer<pinned_alloc, cudaFreeHost>;

/// A blocking stream: its work waits for the legacy default stream of the context,
/// where GStreamer 1.22's CUDA memory does its own uploads (a host-written
/// GstCudaMemory is copied to the device when mapped with GST_MAP_CUDA).
class Stream {
 public:
  Stream() { cuda_check(cudaStreamCreateWithFlags(&s_, cudaStreamDefault), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void synchronize() const { cuda_check(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { cuda_check(cudaEventCreate(&e_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(cudaStream_t s) { cuda_check(cudaEventRecord(e_, s), "cudaEventRecord"); }
  void synchronize() const { cuda_check(cudaEventSynchronize(e_), "cudaEventSynchronize"); }
  /// Milliseconds from `start` to this event (both recorded and complete).
  float since(const Event& start) const {
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start.e_, e_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace ccl::plugin
