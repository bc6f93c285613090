// The CUDA backend's byte buffers (device and pinned host) over the engine's error
// check; streams and events are the engine's own (kernels/cuda/buffers.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "buffers.h"
#include "check.h"

namespace ccl::plugin {

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
    cuda::check(Alloc(&p, bytes), what);
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

// A blocking stream (the default flags): its work waits for the legacy default stream
// of the context, where GStreamer 1.22's CUDA memory does its own uploads (a
// host-written GstCudaMemory is copied to the device when mapped with GST_MAP_CUDA).
using cuda::Stream;
using cuda::Event;

}  // namespace ccl::plugin
